// End to end: the SDK v1 client signs in through the router's own authorization server (auth.server.signIn), by DCR and by
// a Client ID Metadata Document, calls a tool as the user, and refreshes; the app's login is a cookie session.

import * as fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as https from 'node:https';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
  UnauthorizedError as UnauthorizedErrorV2,
} from '@modelcontextprotocol/client';
import { mcpRouter, type McpRouter } from '../../../lib';
import { listenLocally, type Listening } from '../../helpers/ports';
import { MemoryOAuthProvider } from '../../helpers/oauth-client';
import { CookieJar, followSignIn } from '../../helpers/sign-in-flow';

let mcp: McpRouter;
let app: Listening;
let base: string;
/** The client's own site, serving its metadata document over https (the SDK insists on https for a CIMD URL). */
let clientSite: https.Server;
let documentUrl: string;
const TLS = path.join(__dirname, '..', '..', 'fixtures', 'tls');
const REDIRECT = 'http://127.0.0.1:1/callback';

/** The app's own login: a `user` cookie is the session; without it, the login page (which sets it and goes back). */
function signIn(req: IncomingMessage, res: ServerResponse, { returnTo }: { returnTo: string }) {
  const user = /(?:^|;\s*)user=([a-z]+)/.exec(req.headers.cookie ?? '')?.[1];
  if (user !== undefined) return { subject: user };
  res.writeHead(302, { Location: `/login?returnTo=${encodeURIComponent(returnTo)}` }).end();
  return undefined;
}

beforeAll(async () => {
  const cert = fs.readFileSync(path.join(TLS, 'cert.pem'), 'utf8');
  clientSite = https.createServer({ cert, key: fs.readFileSync(path.join(TLS, 'key.pem')) }, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        client_id: documentUrl,
        client_name: 'CIMD Client',
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    );
  });
  await new Promise<void>((resolve) => clientSite.listen(0, '127.0.0.1', resolve));
  documentUrl = `https://127.0.0.1:${(clientSite.address() as AddressInfo).port}/client.json`;
  // allowPrivateAddresses: the document is on loopback here; ca: its certificate is the test's own.
  mcp = mcpRouter({
    name: 'sign-in-e2e',
    version: '1.0.0',
    auth: { server: { signIn, scopes: ['mcp'], clientMetadataDocuments: { allowPrivateAddresses: true, ca: cert } } },
  });
  mcp.tool({
    name: 'whoami',
    description: 'The caller',
    handler: (_args, ctx) => ({ subject: ctx.auth?.subject ?? null, scopes: ctx.auth?.scopes ?? null }),
  });
  const host = express();
  host.get('/login', (req, res) => {
    res.setHeader('Set-Cookie', 'user=alice; Path=/; HttpOnly');
    res.redirect(String(req.query.returnTo));
  });
  host.use('/mcp', mcp);
  app = await listenLocally(host);
  base = `http://127.0.0.1:${app.port}`;
});

afterAll(async () => {
  await mcp?.close();
  await app?.close();
  clientSite?.closeAllConnections();
  await new Promise((resolve) => clientSite?.close(resolve) ?? resolve(undefined));
});

/** Connects with `provider`, signing in through the browser flow when the server asks. */
async function connectSignedIn(
  provider: MemoryOAuthProvider,
  jar = new CookieJar(),
): Promise<{ client: Client; consentPages: number }> {
  const first = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider });
  const client = new Client({ name: 'sign-in-e2e', version: '1.0.0' });
  await expect(client.connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  const url = provider.authorizationUrls.at(-1) as URL;
  const end = await followSignIn(url.href, { stopAt: REDIRECT, jar });
  expect(end.location.searchParams.get('iss')).toBe(`${base}/mcp`);
  expect(end.location.searchParams.get('state')).toBe(url.searchParams.get('state'));
  await first.finishAuth(end.location.searchParams.get('code') as string);
  const signedIn = new Client({ name: 'sign-in-e2e', version: '1.0.0' });
  await signedIn.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider }));
  return { client: signedIn, consentPages: end.consentPages };
}

it('signs in through DCR, the app login and consent, then calls a tool as the user', async () => {
  const provider = new MemoryOAuthProvider(REDIRECT);
  const { client, consentPages } = await connectSignedIn(provider);
  expect(consentPages).toBe(1);
  expect(provider.registered?.client_id).toEqual(expect.any(String));
  const result = await client.callTool({ name: 'whoami', arguments: {} });
  expect(result.structuredContent).toEqual({ subject: 'alice', scopes: ['mcp'] });
  await client.close();
});

it('signs in with a Client ID Metadata Document instead of registering', async () => {
  const provider = new MemoryOAuthProvider(REDIRECT, documentUrl);
  const { client } = await connectSignedIn(provider);
  expect(provider.registered?.client_id).toBe(documentUrl);
  expect((await client.callTool({ name: 'whoami', arguments: {} })).structuredContent).toEqual({
    subject: 'alice',
    scopes: ['mcp'],
  });
  await client.close();
});

it('refreshes an access token the server refuses, rotating the refresh token', async () => {
  const provider = new MemoryOAuthProvider(REDIRECT);
  const { client } = await connectSignedIn(provider);
  await client.close();
  const before = provider.saved;
  // The access token is spoilt: the next request's 401 makes the SDK refresh.
  provider.saveTokens({ ...(before as NonNullable<typeof before>), access_token: 'spoilt' });
  const again = new Client({ name: 'sign-in-e2e', version: '1.0.0' });
  await again.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider }));
  expect(provider.saved?.access_token).not.toBe('spoilt');
  expect(provider.saved?.refresh_token).not.toBe(before?.refresh_token);
  expect((await again.callTool({ name: 'whoami', arguments: {} })).structuredContent).toEqual({
    subject: 'alice',
    scopes: ['mcp'],
  });
  await again.close();
});

it('remembers consent: the same user and client sign in again without the consent page', async () => {
  const provider = new MemoryOAuthProvider(REDIRECT);
  const jar = new CookieJar();
  const { client } = await connectSignedIn(provider, jar);
  await client.close();
  provider.saved = undefined;
  const { client: second, consentPages } = await connectSignedIn(provider, jar);
  expect(consentPages).toBe(0);
  await second.close();
});

it('the SDK v2 client signs in too, its callback checked against the issuer (RFC 9207 iss)', async () => {
  const provider = new MemoryOAuthProvider(REDIRECT);
  const first = new TransportV2(new URL(`${base}/mcp`), { authProvider: provider });
  await expect(new ClientV2({ name: 'sign-in-e2e-v2', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(
    UnauthorizedErrorV2,
  );
  const end = await followSignIn((provider.authorizationUrls.at(-1) as URL).href, { stopAt: REDIRECT });
  // v2 reads `code` and `iss` from the callback's parameters and refuses an iss that is not the issuer's.
  await first.finishAuth(end.location.searchParams);
  const client = new ClientV2({ name: 'sign-in-e2e-v2', version: '1.0.0' });
  await client.connect(new TransportV2(new URL(`${base}/mcp`), { authProvider: provider }));
  expect((await client.callTool({ name: 'whoami', arguments: {} })).structuredContent).toEqual({
    subject: 'alice',
    scopes: ['mcp'],
  });
  await client.close();
});
