// The SDK v1 client's OAuth sign-in against the demo in AUTH=oauth mode: it registers itself (DCR), prints the
// authorization URL, takes the code at a loopback redirect URI it listens on, then lists the tools and calls whoami.
//
//   npx tsx demo/oauth-client.ts [url] [--auto <user>]
//
//   url            the MCP endpoint (http://127.0.0.1:3000/mcp)
//   --auto <user>  play the browser's part too: the demo's login page (as <user>) and the consent page, through
//                  fetch, so the script runs unattended. Without it, open the printed URL in a browser.

import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
// The browser's part, when --auto: the same fetch-driven browser the sign-in tests use.
import { followFlow, type PageAction } from '../__tests__/helpers/browser-driver';

/** The loopback redirect URI (RFC 8252 §7.3): a server on a free port of 127.0.0.1 that takes one authorization response. */
interface Callback {
  readonly redirectUri: string;
  /** The code, once the browser comes back with one for `state`; rejects on an error response. */
  code(state: string): Promise<string>;
  close(): void;
}

async function listenForCallback(): Promise<Callback> {
  let answer: ((params: URLSearchParams) => void) | undefined;
  const arrived = new Promise<URLSearchParams>((resolve) => (answer = resolve));
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') return void res.writeHead(404).end();
    const failed = url.searchParams.get('error');
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
    res.end(
      failed === null
        ? 'Signed in: you can close this tab and go back to the terminal.\n'
        : `Sign-in failed: ${failed}\n`,
    );
    answer?.(url.searchParams);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    redirectUri: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`,
    async code(state) {
      const params = await arrived;
      const error = params.get('error');
      if (error !== null)
        throw new Error(
          `the server refused: ${error}${params.has('error_description') ? ` (${params.get('error_description')})` : ''}`,
        );
      // RFC 6749 §10.12: the response must belong to the request this client made.
      if (params.get('state') !== state) throw new Error('the authorization response carries another state: ignored');
      const code = params.get('code');
      if (code === null) throw new Error('the authorization response has no code');
      return code;
    },
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** What a real client keeps on disk (its registration, tokens, PKCE verifier), kept in memory for one run. */
class DemoOAuthProvider implements OAuthClientProvider {
  readonly sentState = `st-${randomBytes(16).toString('base64url')}`;
  authorizationUrl: URL | undefined;
  private registered: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier = '';

  constructor(readonly redirectUrl: string) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'demo/oauth-client.ts',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state = (): string => this.sentState;
  clientInformation = (): OAuthClientInformationMixed | undefined => this.registered;
  saveClientInformation = (info: OAuthClientInformationMixed): void => void (this.registered = info);
  tokens = (): OAuthTokens | undefined => this.saved;
  saveTokens = (tokens: OAuthTokens): void => void (this.saved = tokens);
  redirectToAuthorization = (url: URL): void => void (this.authorizationUrl = url);
  saveCodeVerifier = (verifier: string): void => void (this.verifier = verifier);
  codeVerifier = (): string => this.verifier;
}

/** The browser's part, unattended: the demo's login form as `user`, then Allow on the consent page, then the redirect URI. */
async function signInAs(user: string, authorizationUrl: URL): Promise<void> {
  await followFlow(authorizationUrl, {
    onForm: (page): PageAction => {
      const fields = page.forms[0]?.fields ?? {};
      if ('csrf' in fields) return { fields: { decision: 'allow' } }; // the router's consent page
      if ('user' in fields) return { fields: { user } }; // the demo's login page
      return undefined;
    },
  });
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const autoAt = args.indexOf('--auto');
  const user = autoAt === -1 ? undefined : args.splice(autoAt, 2)[1];
  if (autoAt !== -1 && (user === undefined || user.startsWith('-')))
    throw new Error('--auto needs a user name: --auto alice');
  const endpoint = new URL(args[0] ?? 'http://127.0.0.1:3000/mcp');
  const callback = await listenForCallback();
  const provider = new DemoOAuthProvider(callback.redirectUri);
  try {
    // First attempt: the 401 starts discovery, registration and the authorization request (redirectToAuthorization).
    const first = new StreamableHTTPClientTransport(endpoint, { authProvider: provider });
    const refused = await new Client({ name: 'demo-oauth-client', version: '1.0.0' }).connect(first).then(
      () => undefined,
      (error: unknown) => error,
    );
    if (!(refused instanceof UnauthorizedError) || provider.authorizationUrl === undefined)
      throw refused ?? new Error(`${endpoint.href} let the client in without signing in`);
    console.log(
      `Registered as client ${String(provider.clientInformation()?.client_id)}, redirect URI ${callback.redirectUri}`,
    );
    console.log(`Sign in here:\n\n  ${provider.authorizationUrl.href}\n`);
    if (user === undefined) console.log('Waiting for the browser to come back to the redirect URI…');
    else await signInAs(user, provider.authorizationUrl);
    await first.finishAuth(await callback.code(provider.sentState));
    console.log(
      `Signed in: access token for ${String(provider.tokens()?.scope ?? 'no scope')}, expires in ${String(provider.tokens()?.expires_in ?? '?')} s`,
    );

    const client = new Client({ name: 'demo-oauth-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(endpoint, { authProvider: provider }));
    const { tools } = await client.listTools();
    console.log(`Tools (${tools.length}): ${tools.map((tool) => tool.name).join(', ')}`);
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    console.log(`whoami: ${JSON.stringify(result.structuredContent ?? result.content)}`);
    await client.close();
  } finally {
    callback.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
