// End to end, the OAuth proxy: the SDK v1 client signs in to the router, which sends the user to a real OpenID
// provider (oidc-provider), issues its own tokens, and keeps the provider's tokens on the server for handlers.

import express from 'express';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mcpRouter, oidcUpstream, type McpRouter } from '../../../lib';
import { followFlow, readPage, type FlowPage, type PageAction } from '../../helpers/browser-driver';
import { MemoryOAuthProvider } from '../../helpers/oauth-client';
import { devLogin, startOidcProvider, type TestProvider } from '../../helpers/oidc-provider';
import { listenLocally, type Listening } from '../../helpers/ports';
import { followSignIn } from '../../helpers/sign-in-flow';

const REDIRECT = 'http://127.0.0.1:1/callback';
let provider: TestProvider;
let mcp: McpRouter;
let app: Listening;
let base: string;

beforeAll(async () => {
  // The provider must know the router's callback before the router exists: the host listens first (on a port the
  // OS gives it, so no other test can take it meanwhile), and the router is mounted once it is made.
  const host = express();
  app = await listenLocally(host);
  base = `http://127.0.0.1:${app.port}`;
  provider = await startOidcProvider({ redirectUris: [`${base}/mcp/oauth/callback`] });
  mcp = mcpRouter({
    name: 'proxy-e2e',
    version: '1.0.0',
    auth: {
      server: {
        upstream: oidcUpstream({
          issuer: provider.issuer,
          clientId: provider.clientId,
          clientSecret: provider.clientSecret,
        }),
      },
    },
  });
  mcp.tool({
    name: 'whoami',
    description: 'The caller, and whether the provider token reached the handler',
    handler: (_args, ctx) => {
      const upstream = ctx.auth?.extra?.upstream as { issuer?: string; accessToken?: string } | undefined;
      return {
        subject: ctx.auth?.subject ?? null,
        providerIssuer: upstream?.issuer ?? null,
        hasProviderToken: typeof upstream?.accessToken === 'string',
      };
    },
  });
  host.use('/mcp', mcp);
});

afterAll(async () => {
  // Whatever beforeAll got to start is stopped, even when it failed part way (a provider left running outlives jest).
  await mcp?.close();
  await app?.close();
  await provider?.close();
});

it('signs in at the provider, gets the router’s own tokens, and handlers see the provider’s tokens', async () => {
  const client = new MemoryOAuthProvider(REDIRECT);
  const first = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: client });
  await expect(new Client({ name: 'proxy-e2e', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(
    UnauthorizedError,
  );
  const end = await followSignIn((client.authorizationUrls.at(-1) as URL).href, {
    stopAt: REDIRECT,
    login: devLogin('carol'),
  });
  expect(end.consentPages).toBe(1);
  expect(end.location.searchParams.get('iss')).toBe(`${base}/mcp`);
  await first.finishAuth(end.location.searchParams.get('code') as string);

  // No token passthrough: what the client holds is the router's JWT, issued for the router.
  const [, payload] = (client.saved?.access_token as string).split('.');
  const claims = JSON.parse(Buffer.from(payload as string, 'base64url').toString()) as Record<string, unknown>;
  expect(claims).toMatchObject({ iss: `${base}/mcp`, aud: `${base}/mcp`, sub: 'carol' });
  expect(JSON.stringify(client.saved)).not.toContain(provider.issuer);

  const signedIn = new Client({ name: 'proxy-e2e', version: '1.0.0' });
  await signedIn.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: client }));
  expect((await signedIn.callTool({ name: 'whoami', arguments: {} })).structuredContent).toEqual({
    subject: 'carol',
    providerIssuer: provider.issuer,
    hasProviderToken: true,
  });
  await signedIn.close();
});

it('a user who cancels at the provider is shown the error, with a link back to the client carrying access_denied', async () => {
  const client = new MemoryOAuthProvider(REDIRECT);
  await expect(
    new Client({ name: 'proxy-e2e', version: '1.0.0' }).connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: client }),
    ),
  ).rejects.toBeInstanceOf(UnauthorizedError);
  // oidc-provider's login page has an "abort" link to cancel the interaction.
  const end = await followFlow((client.authorizationUrls.at(-1) as URL).href, {
    stopAt: (url) => url.href.startsWith(REDIRECT),
    onForm: (page) => {
      const abort = page.links.find((link) => link.pathname.endsWith('/abort'));
      return abort === undefined ? devLogin('dave')(page) : { follow: abort };
    },
  });
  // A registered (DCR) client is not redirected to before the user answered the router's consent page (RFC 9700
  // §4.11.2): the router's page links back instead.
  expect(end.stopped).toBe(false);
  expect(end.url.href).toMatch(new RegExp(`^${base}/mcp/oauth/callback\\?`));
  expect(end.status).toBe(400);
  const back = readPage(end.url, end.status, end.body).links.find((link) => link.href.startsWith(REDIRECT));
  expect(back?.searchParams.get('error')).toBe('access_denied');
  expect(back?.searchParams.get('code')).toBeNull();
});
