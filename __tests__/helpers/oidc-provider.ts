// Test helper: a real OpenID provider (node-oidc-provider) in a child process, to mint JWT and opaque access tokens.
// Usage:
//   const provider = await startOidcProvider({ redirectUris: ['http://127.0.0.1:4000/callback'] });
//   const token = await provider.mintAccessToken('http://127.0.0.1:4000/mcp', 'mcp'); // a JWT, aud = the resource
//   // provider.issuer → jwtVerifier({ issuer, jwksUri: provider.jwksUri }); provider.introspectionEndpoint → introspection
//   const callback = await followDevLogin(authorizationUrl, 'alice'); // the dev login + consent, driven with fetch
//   await provider.close(); // in afterAll

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createInterface } from 'node:readline';

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
  /** Credentials of a resource server allowed to introspect. */
  readonly introspectionClient: { readonly clientId: string; readonly clientSecret: string };
  /** Stops the provider and waits for its process to exit. */
  close(): Promise<void>;
}

const SERVER = path.join(__dirname, 'oidc-provider-server.mjs');

/** Starts a provider on a free port of 127.0.0.1; resolves once it listens. */
export async function startOidcProvider(options: { redirectUris?: string[] } = {}): Promise<TestProvider> {
  const secret = (): string => randomBytes(24).toString('base64url');
  const config = {
    clientId: 'mcp-test-client',
    clientSecret: secret(),
    opaqueClientId: 'mcp-test-opaque-client',
    introspectionClientId: 'mcp-test-resource-server',
    introspectionClientSecret: secret(),
    redirectUris: options.redirectUris ?? ['http://127.0.0.1/callback'],
  };
  const child = spawn(process.execPath, [SERVER, JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
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
    if (!response.ok || body.access_token === undefined) throw new Error(`token request failed: ${response.status} ${JSON.stringify(body)}`);
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
    introspectionClient: { clientId: config.introspectionClientId, clientSecret: config.introspectionClientSecret },
    mintAccessToken: (audience, scope) => mint(config.clientId, audience, scope),
    mintOpaqueAccessToken: (audience, scope) => mint(config.opaqueClientId, audience, scope),
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * Drives oidc-provider's dev interactions from an authorization URL (`<issuer>/auth?…`) to the client's redirect:
 * the login form (any login name, any password; it becomes `sub`), then the consent form. Resolves with the
 * redirect URL (`code`, `state`, `iss` in its query), not fetched.
 */
export async function followDevLogin(authorizationUrl: string | URL, login: string): Promise<URL> {
  const cookies = new Map<string, string>();
  let location = new URL(authorizationUrl);
  const origin = location.origin;
  for (let step = 0; step < 10; step += 1) {
    if (location.origin !== origin) return location;
    const headers = { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
    let response = await fetch(location, { redirect: 'manual', headers });
    if (response.status === 200 && location.pathname.startsWith('/interaction/')) {
      // The form posts back to the page's own URL: `prompt=login` (login form) or `prompt=consent` (consent form).
      const form: Record<string, string> = (await response.text()).includes('name="login"')
        ? { prompt: 'login', login, password: 'any' }
        : { prompt: 'consent' };
      response = await fetch(location, { method: 'POST', redirect: 'manual', headers, body: new URLSearchParams(form) });
    }
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      const at = pair.indexOf('=');
      cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    const next = response.headers.get('location');
    if (next === null) throw new Error(`the dev login stopped at ${location.href} (${response.status}): ${await response.text()}`);
    location = new URL(next, location);
  }
  throw new Error('the dev login did not reach the redirect URI in 10 steps');
}
