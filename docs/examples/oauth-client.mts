// Signs in to an MCP server with OAuth (the SDK v1 client), then calls its whoami tool.
//   npx tsx oauth-client.mts http://localhost:3000/mcp
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

const endpoint = new URL(process.argv[2] ?? 'http://localhost:3000/mcp');

// The redirect URI: a port of this machine where the browser brings back the answer (RFC 8252 §7.3).
let answered: (params: URLSearchParams) => void = () => {};
const answer = new Promise<URLSearchParams>((resolve) => (answered = resolve));
const callback = createServer((req, res) => {
  const params = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams;
  res.writeHead(200, { connection: 'close' }); // nothing keeps this process alive once it is done
  res.end(params.has('code') ? 'Signed in: you can close this tab.' : `Sign-in failed: ${params.get('error')}`);
  answered(params);
});
await once(callback.listen(0, '127.0.0.1'), 'listening');
const redirectUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;

// What a real client keeps on disk between runs: its registration, its tokens and the PKCE verifier.
const saved: { client?: OAuthClientInformationMixed; tokens?: OAuthTokens; verifier?: string } = {};
const state = randomUUID();
const authProvider: OAuthClientProvider = {
  redirectUrl,
  clientMetadata: {
    client_name: 'My MCP client',
    redirect_uris: [redirectUrl],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'], // renews its token without the browser
  },
  state: () => state,
  clientInformation: () => saved.client,
  saveClientInformation: (client) => void (saved.client = client),
  tokens: () => saved.tokens,
  saveTokens: (tokens) => void (saved.tokens = tokens),
  saveCodeVerifier: (verifier) => void (saved.verifier = verifier),
  codeVerifier: () => saved.verifier ?? '',
  // The browser step: show the user the authorization page (or open it with the `open` package).
  redirectToAuthorization: (url) => console.log(`Sign in at:\n  ${url.href}`),
};

const connect = async (transport: StreamableHTTPClientTransport): Promise<Client> => {
  const client = new Client({ name: 'my-mcp-client', version: '1.0.0' });
  await client.connect(transport);
  return client;
};
let client: Client;
const transport = new StreamableHTTPClientTransport(endpoint, { authProvider });
try {
  client = await connect(transport); // with saved tokens that are still good
} catch (err) {
  if (!(err instanceof UnauthorizedError)) throw err;
  const params = await answer; // the user signed in (or refused) in the browser
  if (params.get('state') !== state || !params.has('code')) throw new Error(`sign-in failed: ${params.get('error')}`);
  await transport.finishAuth(params.get('code')!); // the code and the PKCE verifier for tokens
  client = await connect(new StreamableHTTPClientTransport(endpoint, { authProvider }));
}
callback.close();

const whoami = await client.callTool({ name: 'whoami', arguments: {} });
console.log('whoami:', JSON.stringify(whoami.structuredContent));
await client.close();
