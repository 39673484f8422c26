// The gateway's upstream client against real upstreams on ephemeral ports: this router (both eras, 2025 with and without sessions) and the SDK v1 server.

import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express, type Request, type Response } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import * as z from 'zod/v4';
import { ErrorCode, JsonRpcError, mcpRouter, type McpRouter, type McpRouterOptions } from '../../lib';
import { createUpstreamClient, type UpstreamClient } from '../../lib/gateway/upstream-client';

const CLIENT_INFO = { name: 'gateway-test', version: '1.0.0' };
const LABEL = 'test-upstream';

/** What an upstream saw: HTTP method, JSON-RPC method and the headers that matter. */
interface Seen {
  readonly http: string;
  readonly rpc: string | undefined;
  readonly session: string | undefined;
  readonly version: string | undefined;
}

interface Upstream {
  readonly url: string;
  readonly port: number;
  readonly seen: Seen[];
  close(): Promise<void>;
}

const open: Upstream[] = [];
const clients: UpstreamClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(open.splice(0).map((upstream) => upstream.close()));
});

/** Serves `app` on 127.0.0.1 (port 0: any free one), recording every request before the app sees it. */
async function serve(build: (app: Express) => void, port = 0): Promise<Upstream> {
  const seen: Seen[] = [];
  const app = express();
  app.use(express.json());
  app.use((req, _res, next) => {
    const body: unknown = req.body;
    const rpc = typeof body === 'object' && body !== null && typeof (body as { method?: unknown }).method === 'string' ? (body as { method: string }).method : undefined;
    seen.push({ http: req.method, rpc, session: req.get('mcp-session-id'), version: req.get('mcp-protocol-version') });
    next();
  });
  build(app);
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(port, '127.0.0.1', () => resolve(listening));
  });
  const actual = (server.address() as AddressInfo).port;
  const upstream: Upstream = {
    url: `http://127.0.0.1:${actual}/mcp`,
    port: actual,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  open.push(upstream);
  return upstream;
}

function registerTools(mcp: McpRouter): void {
  mcp.tool({
    name: 'add',
    description: 'Adds two numbers',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    handler: ({ a, b }: { a: number; b: number }) => String(a + b),
  });
  mcp.tool({
    name: 'refuse',
    description: 'Always fails with a JSON-RPC error',
    handler: () => {
      throw new JsonRpcError(ErrorCode.InvalidParams, 'Refused: no such account', { account: 'a-17' });
    },
  });
  mcp.tool({
    name: 'count',
    description: 'Reports three progress steps',
    handler: async (_args, ctx) => {
      for (let step = 1; step <= 3; step++) await ctx.progress(step, 3, `step ${step}`);
      return 'counted';
    },
  });
  mcp.tool({
    name: 'hang',
    description: 'Never answers until aborted',
    handler: (_args, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('aborted'))),
  });
}

function routerUpstream(options: Partial<McpRouterOptions>, port = 0): Promise<Upstream> {
  return serve((app) => {
    const mcp = mcpRouter({ name: 'upstream', version: '1.0.0', logger: { error: jest.fn(), warn: jest.fn() }, ...options });
    registerTools(mcp);
    app.use('/mcp', mcp);
  }, port);
}

/** The SDK v1 server, stateful as its docs show, with the spec's 404 for an unknown session. */
function sdkUpstream(port = 0): Promise<Upstream> {
  return serve((app) => {
    const transports = new Map<string, StreamableHTTPServerTransport>();
    const sendError = (res: Response, status: number, message: string): void => {
      res.status(status).json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
    };
    app.all('/mcp', async (req: Request, res: Response) => {
      const sessionId = req.get('mcp-session-id');
      let transport = sessionId === undefined ? undefined : transports.get(sessionId);
      if (sessionId !== undefined && transport === undefined) return sendError(res, 404, 'Session not found');
      if (transport === undefined) {
        if (req.method !== 'POST' || (req.body as { method?: string } | undefined)?.method !== 'initialize') return sendError(res, 400, 'Bad Request: No valid session ID provided');
        const server = new McpServer({ name: 'sdk-upstream', version: '1.0.0' });
        server.registerTool('add', { description: 'Add', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
        const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void transports.set(id, created),
        });
        created.onclose = () => {
          if (created.sessionId !== undefined) transports.delete(created.sessionId);
        };
        await server.connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res, req.body);
    });
  }, port);
}

function clientFor(upstream: Pick<Upstream, 'url'>, timeoutMs = 5000): UpstreamClient {
  const client = createUpstreamClient({ url: upstream.url, label: LABEL, timeoutMs, clientInfo: CLIENT_INFO });
  clients.push(client);
  return client;
}

function toolNames(result: unknown): string[] {
  return (result as { tools: { name: string }[] }).tools.map((tool) => tool.name).sort();
}

function text(result: unknown): string | undefined {
  return (result as { content: { text?: string }[] }).content[0]?.text;
}

async function rejection(promise: Promise<unknown>): Promise<JsonRpcError> {
  const error: unknown = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(JsonRpcError);
  return error as JsonRpcError;
}

describe.each([
  { title: 'this router, both eras', options: {}, era: '2026', session: false },
  { title: "this router, eras: ['2025'] with sessions", options: { eras: ['2025'], sessions: {} }, era: '2025', session: true },
  { title: "this router, eras: ['2025'], sessions: false", options: { eras: ['2025'], sessions: false }, era: '2025', session: false },
  { title: "this router, eras: ['2026']", options: { eras: ['2026'] }, era: '2026', session: false },
] as const)('upstream client against $title', ({ options, era, session }) => {
  it(`speaks ${era}, lists and calls tools`, async () => {
    const upstream = await routerUpstream(options as Partial<McpRouterOptions>);
    const client = clientFor(upstream);
    expect(toolNames(await client.request('tools/list', {}))).toEqual(['add', 'count', 'hang', 'refuse']);
    expect(text(await client.request('tools/call', { name: 'add', arguments: { a: 2, b: 3 } }))).toBe('5');
    expect(client.era).toBe(era);
    expect(client.sessionId !== undefined).toBe(session);
    if (era === '2025') {
      expect(client.protocolVersion).toBe('2025-11-25');
      const calls = upstream.seen.filter((request) => request.rpc === 'tools/call');
      expect(calls).toEqual([{ http: 'POST', rpc: 'tools/call', session: client.sessionId, version: '2025-11-25' }]);
    } else {
      expect(client.protocolVersion).toBe('2026-07-28');
      expect(upstream.seen.some((request) => request.rpc === 'initialize')).toBe(false);
    }
  });

  it("passes the upstream's JSON-RPC error verbatim", async () => {
    const client = clientFor(await routerUpstream(options as Partial<McpRouterOptions>));
    const error = await rejection(client.request('tools/call', { name: 'refuse', arguments: {} }));
    expect(error.toObject()).toEqual({ code: ErrorCode.InvalidParams, message: 'Refused: no such account', data: { account: 'a-17' } });
  });

  it('delivers progress notifications from an SSE reply to onMessage', async () => {
    const client = clientFor(await routerUpstream(options as Partial<McpRouterOptions>));
    const messages: Record<string, unknown>[] = [];
    const result = await client.request('tools/call', { name: 'count', arguments: {}, _meta: { progressToken: 'p1' } }, { onMessage: (message) => messages.push(message) });
    expect(text(result)).toBe('counted');
    const progress = messages.filter((message) => message.method === 'notifications/progress').map((message) => (message.params as { progress: number }).progress);
    expect(progress).toEqual([1, 2, 3]);
  });
});

describe('upstream client against the SDK v1 server (2025, stateful)', () => {
  it('falls back to initialize, keeps the session, lists and calls tools', async () => {
    const upstream = await sdkUpstream();
    const client = clientFor(upstream);
    expect(toolNames(await client.request('tools/list', {}))).toEqual(['add']);
    expect(text(await client.request('tools/call', { name: 'add', arguments: { a: 1, b: 41 } }))).toBe('42');
    expect(client.era).toBe('2025');
    expect(client.sessionId).toEqual(expect.any(String));
    expect(upstream.seen.map((request) => request.rpc)).toEqual(['server/discover', 'initialize', 'notifications/initialized', 'tools/list', 'tools/call']);
  });

  it('re-initialises once when the session is lost (upstream restarted on the same port) and the call succeeds', async () => {
    const first = await sdkUpstream();
    const client = clientFor(first);
    await client.request('tools/list', {});
    const lostSession = client.sessionId;
    await first.close();
    open.splice(open.indexOf(first), 1);
    // Let the client's pool see the old server's FIN, as it would after a real restart (a POST is never retried on a dead socket).
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = await sdkUpstream(first.port);
    expect(text(await client.request('tools/call', { name: 'add', arguments: { a: 2, b: 2 } }))).toBe('4');
    expect(client.sessionId).not.toBe(lostSession);
    expect(second.seen.map((request) => request.rpc)).toEqual(['tools/call', 'initialize', 'notifications/initialized', 'tools/call']);
  });

  it('close() deletes the session on the upstream', async () => {
    const upstream = await sdkUpstream();
    const client = clientFor(upstream);
    await client.request('tools/list', {});
    const sessionId = client.sessionId;
    await client.close();
    expect(upstream.seen.filter((request) => request.http === 'DELETE')).toEqual([{ http: 'DELETE', rpc: undefined, session: sessionId, version: '2025-11-25' }]);
    expect((await rejection(client.request('tools/list', {}))).message).toBe(`Upstream "${LABEL}" client was closed`);
  });
});

describe('upstream client against this router: lost session, cancellation', () => {
  it('re-initialises once when the upstream deleted the session, and the call succeeds', async () => {
    const upstream = await routerUpstream({ eras: ['2025'], sessions: {} });
    const client = clientFor(upstream);
    await client.request('tools/list', {});
    const lostSession = client.sessionId!;
    // Someone else ends the session (MCP transports › Session Management: DELETE).
    const deleted = await fetch(upstream.url, { method: 'DELETE', headers: { 'Mcp-Session-Id': lostSession, 'MCP-Protocol-Version': '2025-11-25' } });
    expect(deleted.status).toBeLessThan(300);
    expect(text(await client.request('tools/call', { name: 'add', arguments: { a: 5, b: 6 } }))).toBe('11');
    expect(client.sessionId).not.toBe(lostSession);
    const afterDelete = upstream.seen.slice(upstream.seen.findIndex((request) => request.http === 'DELETE') + 1);
    expect(afterDelete.map((request) => request.rpc)).toEqual(['tools/call', 'initialize', 'notifications/initialized', 'tools/call']);
  });

  it('aborts on the signal and tells a 2025 upstream with notifications/cancelled', async () => {
    const upstream = await routerUpstream({ eras: ['2025'], sessions: {} });
    const client = clientFor(upstream);
    await client.request('tools/list', {});
    const controller = new AbortController();
    const call = client.request('tools/call', { name: 'hang', arguments: {} }, { signal: controller.signal });
    await waitFor(() => upstream.seen.some((request) => request.rpc === 'tools/call'));
    controller.abort();
    const error = await rejection(call);
    expect(error.code).toBe(ErrorCode.InternalError);
    expect(error.message).toBe(`Upstream "${LABEL}" request was cancelled`);
    await waitFor(() => upstream.seen.some((request) => request.rpc === 'notifications/cancelled'));
    expect(upstream.seen.find((request) => request.rpc === 'notifications/cancelled')?.session).toBe(client.sessionId);
  });

  it('aborts a 2026 request on the signal without a notification', async () => {
    const upstream = await routerUpstream({});
    const client = clientFor(upstream);
    const controller = new AbortController();
    const call = client.request('tools/call', { name: 'hang', arguments: {} }, { signal: controller.signal });
    await waitFor(() => upstream.seen.some((request) => request.rpc === 'tools/call'));
    controller.abort();
    expect((await rejection(call)).message).toBe(`Upstream "${LABEL}" request was cancelled`);
    expect(client.era).toBe('2026');
  });
});

describe('upstream client: headers, close', () => {
  it('sends the configured headers, reading a header function again for every request', async () => {
    const tokens: (string | undefined)[] = [];
    const upstream = await serve((app) => {
      app.use('/mcp', (req, _res, next) => {
        tokens.push(req.get('x-upstream-token'));
        next();
      });
      const mcp = mcpRouter({ name: 'upstream', version: '1.0.0' });
      registerTools(mcp);
      app.use('/mcp', mcp);
    });
    let issued = 0;
    const client = createUpstreamClient({ url: upstream.url, label: LABEL, timeoutMs: 5000, clientInfo: CLIENT_INFO, headers: () => ({ 'X-Upstream-Token': `t${++issued}` }) });
    clients.push(client);
    await client.request('tools/list', {});
    await client.request('tools/list', {});
    expect(tokens).toEqual(['t1', 't2', 't3']);
  });

  it('close() aborts a request in flight and deletes the session of this router', async () => {
    const upstream = await routerUpstream({ eras: ['2025'], sessions: {} });
    const client = clientFor(upstream);
    await client.request('tools/list', {});
    const sessionId = client.sessionId;
    const call = client.request('tools/call', { name: 'hang', arguments: {} });
    await waitFor(() => upstream.seen.some((request) => request.rpc === 'tools/call'));
    const failure = rejection(call);
    await client.close();
    expect((await failure).message).toBe(`Upstream "${LABEL}" client was closed`);
    expect(upstream.seen.filter((request) => request.http === 'DELETE').map((request) => request.session)).toEqual([sessionId]);
  });

  it('refuses a timeout that is not a positive number', () => {
    expect(() => createUpstreamClient({ url: 'http://127.0.0.1:1/mcp', label: LABEL, timeoutMs: 0, clientInfo: CLIENT_INFO })).toThrow('timeoutMs must be a positive number of milliseconds, got 0');
  });
});

describe('upstream client against broken upstreams', () => {
  function broken(handler: (req: Request, res: Response) => void): Promise<Upstream> {
    return serve((app) => app.post('/mcp', handler));
  }

  async function expectInternal(upstream: Upstream, phrase: string, timeoutMs = 5000): Promise<void> {
    const error = await rejection(clientFor(upstream, timeoutMs).request('tools/list', {}));
    expect(error.code).toBe(ErrorCode.InternalError);
    expect(error.message).toBe(`Upstream "${LABEL}" ${phrase}`);
    expect(error.message).not.toContain('127.0.0.1');
    expect(error.data).toBeUndefined();
  }

  it('HTTP 500 → -32603 without the body', async () => {
    await expectInternal(await broken((_req, res) => void res.status(500).send('stack trace at http://internal.example/secret')), 'failed (HTTP 500)');
  });

  it('401 → -32603 without the challenge', async () => {
    const upstream = await broken((_req, res) => void res.status(401).set('WWW-Authenticate', 'Bearer realm="secret"').json({ error: 'invalid_token' }));
    await expectInternal(upstream, "refused the gateway's credentials (HTTP 401)");
  });

  it('a non-JSON answer → -32603', async () => {
    await expectInternal(await broken((_req, res) => void res.status(200).type('text/html').send('<html>hello</html>')), 'answered HTTP 200 without an MCP message');
  });

  it('JSON that is not JSON-RPC → -32603', async () => {
    await expectInternal(await broken((_req, res) => void res.status(200).json({ hello: 'world' })), 'answered with JSON that is not a response to the request (HTTP 200)');
  });

  it('a body over the cap → -32603, not unbounded memory', async () => {
    const big = Buffer.alloc(5 * 1024 * 1024, 0x20);
    await expectInternal(await broken((_req, res) => void res.status(200).type('application/json').send(big)), `sent a body larger than ${4 * 1024 * 1024} bytes`);
  });

  it('a hanging upstream → an error naming the time limit', async () => {
    await expectInternal(await broken(() => undefined), 'did not answer within 200 ms', 200);
  });

  it('an unreachable upstream → -32603', async () => {
    const upstream = await broken(() => undefined);
    await upstream.close();
    open.splice(open.indexOf(upstream), 1);
    await expectInternal(upstream, 'could not be reached');
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 200 && !condition(); attempt++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}
