// End to end with the official SDK client against an auth-enabled, stateful router: the bearer header from requestInit,
// per-tool scopes, ctx.auth, and what the SDK makes of a 401 (its error, and its reading of the challenge and metadata).

import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mcpRouter, type McpRouter } from '../../lib';
import { rejection } from '../helpers/errors';

const READER_TOKEN = 'sdk-reader-token-5b0c2f';
const AUTH_SERVER = 'https://auth.example.com';

let mcp: McpRouter;
let server: Server;
let url: URL;
/** The status of every GET the router answered (the SDK's standalone SSE stream). */
const getStatuses: number[] = [];
let firstGet: Promise<void>;
/** Clients opened by a test, closed after it. */
const clients: Client[] = [];

beforeAll(async () => {
  mcp = mcpRouter({
    name: 'auth-e2e',
    version: '1.0.0',
    sessions: {},
    logger: { error: jest.fn(), warn: jest.fn() },
    auth: {
      tokens: [{ token: READER_TOKEN, subject: 'reader', scopes: ['mcp:read'] }],
      resourceMetadata: { authorizationServers: [AUTH_SERVER], scopesSupported: ['mcp:read', 'mcp:admin'] },
    },
  });
  mcp.tool({
    name: 'add',
    description: 'Add two numbers',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    scopes: ['mcp:read'],
    handler: ({ a, b }) => ({ sum: a + b }),
  });
  mcp.tool({
    name: 'whoami',
    description: 'The caller',
    handler: (_args, ctx) => ({ subject: ctx.auth?.subject ?? null, scopes: ctx.auth?.scopes ?? null }),
  });
  mcp.tool({ name: 'purge', description: 'Delete everything', scopes: ['mcp:admin'], handler: () => 'purged' });

  const app = express();
  let sawGet: () => void = () => undefined;
  firstGet = new Promise((resolve) => (sawGet = resolve));
  // Records the status the router gives each GET once its head is written (SSE responses never finish).
  app.use((req, res, next) => {
    if (req.method === 'GET') {
      const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
      res.writeHead = ((status: number, ...rest: unknown[]) => {
        getStatuses.push(status);
        sawGet();
        return writeHead(status, ...rest);
      }) as typeof res.writeHead;
    }
    next();
  });
  app.use('/.well-known/oauth-protected-resource', mcp.authMetadata);
  app.use('/mcp', mcp);
  server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

afterAll(async () => {
  await mcp?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => server?.close(() => resolve()) ?? resolve());
});

/** A Client over Streamable HTTP, with `headers` on every request (closed after the test). */
function clientWith(headers?: Record<string, string>): { client: Client; transport: StreamableHTTPClientTransport } {
  const client = new Client({ name: 'auth-e2e-client', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(url, headers ? { requestInit: { headers } } : undefined);
  clients.push(client);
  return { client, transport };
}

describe('the SDK client with a bearer token', () => {
  it('initializes a session, lists the tools its token may use, and calls them', async () => {
    const { client, transport } = clientWith({ Authorization: `Bearer ${READER_TOKEN}` });
    await client.connect(transport);
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(client.getServerVersion()).toEqual({ name: 'auth-e2e', version: '1.0.0' });

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['add', 'whoami']);
    const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
    expect(sum.structuredContent).toEqual({ sum: 42 });
    expect(sum.isError).toBeUndefined();
    const me = await client.callTool({ name: 'whoami', arguments: {} });
    expect(me.structuredContent).toEqual({ subject: 'reader', scopes: ['mcp:read'] });
  });

  it('cannot see or call a tool whose scope its token lacks: -32602, as for an unknown tool', async () => {
    const { client, transport } = clientWith({ Authorization: `Bearer ${READER_TOKEN}` });
    await client.connect(transport);
    expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('purge');
    await expect(client.callTool({ name: 'purge', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown tool: purge'),
    });
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown tool: nope'),
    });
  });

  it('sends the header on its standalone GET stream too: the router answers it 200, not 401', async () => {
    const { client, transport } = clientWith({ Authorization: `Bearer ${READER_TOKEN}` });
    await client.connect(transport);
    await firstGet;
    expect(getStatuses[0]).toBe(200);
  });
});

describe('the SDK client without a token', () => {
  it('fails to connect with the SDK StreamableHTTPError, code 401', async () => {
    const { client, transport } = clientWith();
    const err = await rejection(client.connect(transport));
    expect(err).toBeInstanceOf(StreamableHTTPError);
    expect(err).toMatchObject({
      code: 401,
      message: expect.stringMatching(
        /^Streamable HTTP error: Error POSTing to endpoint: .*Unauthorized: this server takes a pre-shared bearer token .*send Authorization: Bearer <token>/,
      ),
    });
    expect(transport.sessionId).toBeUndefined();
  });

  it('fails to connect with a wrong token the same way (401, the token not echoed)', async () => {
    const { client, transport } = clientWith({ Authorization: 'Bearer not-a-real-token-9d1e' });
    const err = (await rejection(client.connect(transport))) as StreamableHTTPError;
    expect(err).toBeInstanceOf(StreamableHTTPError);
    expect(err.code).toBe(401);
    expect(err.message).toMatch(/the access token is not valid/);
    expect(err.message).not.toContain('not-a-real-token-9d1e');
  });

  it('gets a challenge the SDK reads, naming metadata the SDK discovers and validates', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      }),
    });
    expect(res.status).toBe(401);
    const challenge = extractWWWAuthenticateParams(res);
    await res.body?.cancel();
    expect(challenge).toEqual({
      resourceMetadataUrl: new URL(`${url.origin}/.well-known/oauth-protected-resource/mcp`),
      scope: 'mcp:read mcp:admin',
      error: undefined,
    });

    // From the challenge, and from the server URL alone (RFC 9728 path-aware discovery): the same document.
    const expected = {
      resource: url.href,
      authorization_servers: [AUTH_SERVER],
      bearer_methods_supported: ['header'],
      scopes_supported: ['mcp:read', 'mcp:admin'],
    };
    expect(
      await discoverOAuthProtectedResourceMetadata(url, { resourceMetadataUrl: challenge.resourceMetadataUrl }),
    ).toEqual(expected);
    expect(await discoverOAuthProtectedResourceMetadata(url)).toEqual(expected);
  });
});

describe('with only the one mount line and static tokens', () => {
  it('names metadata the SDK discovers from the challenge and validates; the 401 says the token is pre-shared', async () => {
    const own = mcpRouter({
      name: 'one-line',
      version: '1.0.0',
      sessions: false,
      logger: { error: jest.fn(), warn: jest.fn() },
      auth: { tokens: [READER_TOKEN] },
    });
    const app = express();
    app.use('/api/mcp', own);
    const listening = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => listening.once('listening', () => resolve()));
    try {
      const endpoint = new URL(`http://127.0.0.1:${(listening.address() as AddressInfo).port}/api/mcp`);
      const client = new Client({ name: 'one-line', version: '1.0.0' });
      const err = (await rejection(client.connect(new StreamableHTTPClientTransport(endpoint)))) as StreamableHTTPError;
      expect(err.code).toBe(401);
      expect(err.message).toMatch(/pre-shared bearer token/);

      const res = await fetch(endpoint, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      });
      const challenge = extractWWWAuthenticateParams(res);
      await res.body?.cancel();
      expect(challenge.resourceMetadataUrl?.href).toBe(`${endpoint.href}/.well-known/oauth-protected-resource`);
      expect(
        await discoverOAuthProtectedResourceMetadata(endpoint, { resourceMetadataUrl: challenge.resourceMetadataUrl }),
      ).toEqual({ resource: endpoint.href, bearer_methods_supported: ['header'] });
    } finally {
      listening.closeAllConnections();
      await new Promise<void>((resolve) => listening.close(() => resolve()));
    }
  });
});
