// Test helper: a real OpenID provider (node-oidc-provider) in a child process, to mint JWT and opaque access tokens.
// Usage:
//   const provider = await startOidcProvider({ redirectUris: ['http://127.0.0.1:4000/callback'] });
//   const token = await provider.mintAccessToken('http://127.0.0.1:4000/mcp', 'mcp'); // a JWT, aud = the resource
//   // provider.issuer → jwtVerifier({ issuer, jwksUri: provider.jwksUri }); provider.introspectionEndpoint → introspection
//   const callback = await followDevLogin(authorizationUrl, 'alice'); // the dev login + consent, driven with fetch
//   await provider.close(); // in afterAll

import { generateKeyPairSync, randomBytes } from 'node:crypto';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { followFlow, type FlowPage, type PageAction } from './browser-driver';
import { endGroup, spawnGroup } from './child';

/** A running provider and its confidential client. */
export interface TestProvider {
  /** `http://127.0.0.1:<port>`, the provider's `iss`. */
  readonly issuer: string;
  /** Its signing keys (RS256, kid `fixture-rs256`). */
  readonly jwksUri: string;
  readonly tokenEndpoint: string;
  /** RFC 7662 introspection: takes opaque tokens only (oidc-provider refuses to introspect JWTs). */
  readonly introspectionEndpoint: string;
  /** The confidential client: authorization_code, refresh_token, client_credentials; client_secret_basic. */
  readonly clientId: string;
  readonly clientSecret: string;
  /** A JWT access token (client_credentials, `sub` = the client id) for `audience` (RFC 8707 `resource`). */
  mintAccessToken(audience: string, scope?: string): Promise<string>;
  /** An opaque access token for `audience`, as mintAccessToken, from a second client (`opaqueClientId`). */
  mintOpaqueAccessToken(audience: string, scope?: string): Promise<string>;
  readonly opaqueClientId: string;
  /** A client_credentials client authenticating with private_key_jwt (ES256): its id and private key as a JWK. */
  readonly keyClient: { readonly clientId: string; readonly privateJwk: Record<string, unknown> };
  /** Credentials of a resource server allowed to introspect. */
  readonly introspectionClient: { readonly clientId: string; readonly clientSecret: string };
  /** Stops the provider and waits for its process to exit. */
  close(): Promise<void>;
}

const SERVER = path.join(__dirname, 'oidc-provider-server.mjs');

/** Starts a provider on a free port of 127.0.0.1; resolves once it listens. */
export async function startOidcProvider(options: { redirectUris?: string[] } = {}): Promise<TestProvider> {
  const secret = (): string => randomBytes(24).toString('base64url');
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const keyClient = {
    clientId: 'mcp-test-key-client',
    privateJwk: { ...privateKey.export({ format: 'jwk' }), alg: 'ES256' },
  };
  const config = {
    clientId: 'mcp-test-client',
    clientSecret: secret(),
    opaqueClientId: 'mcp-test-opaque-client',
    introspectionClientId: 'mcp-test-resource-server',
    introspectionClientSecret: secret(),
    redirectUris: options.redirectUris ?? ['http://127.0.0.1/callback'],
    keyClientId: keyClient.clientId,
    keyClientJwk: { ...publicKey.export({ format: 'jwk' }), alg: 'ES256', use: 'sig' },
  };
  const child = spawnGroup(process.execPath, [SERVER, JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const issuer = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (line) => resolve((JSON.parse(line) as { issuer: string }).issuer));
    child.once('exit', (code) => reject(new Error(`oidc-provider exited (${code}) before listening: ${stderr}`)));
  });
  const tokenEndpoint = `${issuer}/token`;

  async function mint(clientId: string, audience: string, scope: string | undefined): Promise<string> {
    const form = new URLSearchParams({ grant_type: 'client_credentials', resource: audience });
    if (scope !== undefined) form.set('scope', scope);
    const response = await fetch(tokenEndpoint, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${clientId}:${config.clientSecret}`).toString('base64')}` },
      body: form,
    });
    const body = (await response.json()) as { access_token?: string };
    if (!response.ok || body.access_token === undefined)
      throw new Error(`token request failed: ${response.status} ${JSON.stringify(body)}`);
    return body.access_token;
  }

  return {
    issuer,
    jwksUri: `${issuer}/jwks`,
    tokenEndpoint,
    introspectionEndpoint: `${issuer}/token/introspection`,
    clientId: config.clientId,
    clientSecret: config.clientSecret,
    opaqueClientId: config.opaqueClientId,
    keyClient,
    introspectionClient: { clientId: config.introspectionClientId, clientSecret: config.introspectionClientSecret },
    mintAccessToken: (audience, scope) => mint(config.clientId, audience, scope),
    mintOpaqueAccessToken: (audience, scope) => mint(config.opaqueClientId, audience, scope),
    close: () => endGroup(child),
  };
}

/** oidc-provider's dev interactions, as a followFlow form answer: any login name (it becomes `sub`), then its consent form. */
export const devLogin =
  (login: string) =>
  (page: FlowPage): PageAction =>
    page.forms[0]?.fields.prompt === 'login' ? { fields: { login, password: 'any' } } : { fields: {} };

/** Signs `login` in at the provider from an authorization URL; the redirect URI it sends the browser to (not fetched). */
export async function followDevLogin(authorizationUrl: string | URL, login: string): Promise<URL> {
  const origin = new URL(authorizationUrl).origin;
  const end = await followFlow(authorizationUrl, {
    onForm: devLogin(login),
    stopAt: (url) => url.origin !== origin,
    maxSteps: 10,
  });
  if (!end.stopped)
    throw new Error(`the dev login stopped at ${end.url.href} (${end.status}): ${end.body.slice(0, 200)}`);
  return end.url;
}
