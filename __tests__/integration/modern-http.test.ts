// MCP 2026-07-28 requests over HTTP against real express() apps: statuses, result shapes, the envelope, and the router's defences.

import express from 'express';
import request from 'supertest';
import { ErrorCode, JsonRpcError, mcpRouter, type McpRouter, type McpRouterOptions } from '../../lib';
import { createApp, MCP_ACCEPT, post, rpc, silentLogger } from '../helpers/create-app';
import { envelope, MODERN, modern } from '../helpers/modern';
import { Signal } from '../helpers/events';

const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

/** The JSON-RPC messages of a complete SSE reply body. */
function sseMessages(text: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as unknown);
}

function setup(mcp: McpRouter): void {
  mcp.tool({
    name: 'add',
    description: 'Add two numbers',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    handler: ({ a, b }: { a: number; b: number }) => a + b,
  });
  mcp.tool({
    name: 'ask',
    description: 'Asks the model',
    inputSchema: { type: 'object' },
    handler: async (_args, ctx) => (await ctx.sample({ messages: [], maxTokens: 1 })).model,
  });
  mcp.tool({
    name: 'chatty',
    description: 'Logs at two levels',
    inputSchema: { type: 'object' },
    handler: async (_args, ctx) => {
      await ctx.log('debug', 'quiet');
      await ctx.log('warning', 'loud');
      return 'done';
    },
  });
  mcp.tool({
    name: 'boom',
    description: 'Fails',
    inputSchema: { type: 'object' },
    handler: () => {
      throw new Error('disk full');
    },
  });
  mcp.resource({ uri: 'docs://readme', name: 'readme', read: () => 'hello' });
  mcp.resource({ uri: 'docs://live', name: 'live', read: () => 'now', cache: { ttlMs: 0, scope: 'private' } });
  mcp.resource({ uri: 'docs://static', name: 'static', read: () => 'forever', cache: { ttlMs: 86_400_000 } });
  mcp.resourceTemplate({
    uriTemplate: 'files://{name}',
    name: 'file',
    read: (uri, { name = '' }) => {
      if (name === 'missing') throw new JsonRpcError(ErrorCode.ResourceNotFound, 'No such file', { uri });
      return name;
    },
  });
  mcp.prompt({
    name: 'greet',
    description: 'Greets',
    arguments: [{ name: 'who', required: true }],
    get: ({ who }) => [{ role: 'user', content: `Hi ${who}` }],
  });
}

describe('the modern request path over HTTP', () => {
  const app = createApp({ instructions: 'Use add.', cache: { ttlMs: 60_000 }, logger: silentLogger() }, setup);

  // MCP 2026-07-28 DiscoverResult has no serverInfo member: it travels in _meta, as on every result.
  it('server/discover: modern versions only, capabilities of what works, instructions, cache hint, serverInfo in _meta', async () => {
    const res = await modern(app, 'server/discover').expect(200);
    expect(res.body).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: {
        resultType: 'complete',
        supportedVersions: [MODERN],
        capabilities: expect.objectContaining({
          tools: { listChanged: true },
          resources: { subscribe: true, listChanged: true },
          prompts: { listChanged: true },
        }),
        instructions: 'Use add.',
        ttlMs: 60_000,
        cacheScope: 'public',
        _meta: { [SERVER_INFO]: expect.objectContaining({ name: 'test' }) },
      },
    });
    // MCP 2026-07-28: list changes and resource updates are served by subscriptions/listen streams (listen.test.ts).
  });

  it('tools/list and tools/call carry resultType; only the lists carry the cache hint', async () => {
    const list = await modern(app, 'tools/list').expect(200);
    expect(list.body.result).toMatchObject({ resultType: 'complete', ttlMs: 60_000, cacheScope: 'public' });
    expect(list.body.result.tools.map((tool: { name: string }) => tool.name)).toEqual(['add', 'ask', 'chatty', 'boom']);
    const call = await modern(app, 'tools/call', { name: 'add', arguments: { a: 2, b: 3 } }).expect(200);
    expect(call.body.result).toEqual({
      resultType: 'complete',
      content: [{ type: 'text', text: '5' }],
      structuredContent: { result: 5 },
      _meta: { [SERVER_INFO]: expect.any(Object) },
    });
  });

  it('resources/read: the router default, or the resource’s own hint', async () => {
    const hint = async (uri: string) => {
      const { body } = await modern(app, 'resources/read', { uri }).expect(200);
      return [body.result.ttlMs, body.result.cacheScope];
    };
    expect(await hint('docs://readme')).toEqual([60_000, 'public']);
    expect(await hint('docs://live')).toEqual([0, 'private']);
    expect(await hint('docs://static')).toEqual([86_400_000, 'public']);
  });

  it('a resource that does not exist: -32602 with data.uri, in-band on 200', async () => {
    const res = await modern(app, 'resources/read', { uri: 'docs://nope' }).expect(200);
    expect(res.body.error).toMatchObject({ code: -32602, data: { uri: 'docs://nope' } });
  });

  it('a handler written for 2025 that throws -32002 is answered -32602 with its data (2026 never sends -32002)', async () => {
    const res = await modern(app, 'resources/read', { uri: 'files://missing' }).expect(200);
    expect(res.body.error).toEqual({ code: -32602, message: 'No such file', data: { uri: 'files://missing' } });
    const legacy = await post(app, rpc('resources/read', { uri: 'files://missing' }), {
      'MCP-Protocol-Version': '2025-11-25',
    }).expect(200);
    expect(legacy.body.error.code).toBe(-32002);
  });

  it.each(['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe', 'no/such/method'])(
    '%s is not a 2026 method: 404 -32601 echoing the id',
    async (method) => {
      const res = await modern(app, method).expect(404);
      expect(res.body).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32601, message: expect.any(String) } });
    },
  );

  it('handler failures and bad arguments stay in-band on 200, as isError results without a stack', async () => {
    const boom = await modern(app, 'tools/call', { name: 'boom', arguments: {} }).expect(200);
    expect(boom.body.result).toMatchObject({
      resultType: 'complete',
      isError: true,
      content: [{ type: 'text', text: 'disk full' }],
    });
    expect(JSON.stringify(boom.body)).not.toMatch(/\bat .*\.ts:\d+/);
    const bad = await modern(app, 'tools/call', { name: 'add', arguments: { a: 'x' } }).expect(200);
    expect(bad.body.result).toMatchObject({ resultType: 'complete', isError: true });
  });

  it('a capability the request did not declare: 400 -32021 naming it', async () => {
    const res = await modern(app, 'tools/call', { name: 'ask', arguments: {} }).expect(400);
    expect(res.body).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32021, message: expect.any(String), data: { requiredCapabilities: { sampling: {} } } },
    });
  });

  it('a malformed envelope: 400 -32602 echoing the id', async () => {
    const res = await modern(app, 'tools/list', {}, {}, { 'io.modelcontextprotocol/clientCapabilities': 'all' });
    expect([res.status, res.body.id, res.body.error.code]).toEqual([400, 7, -32602]);
  });

  it('an unsupported revision in the envelope: 400 -32022 with supported and requested', async () => {
    const res = await modern(
      app,
      'tools/list',
      {},
      { 'MCP-Protocol-Version': '2099-01-01' },
      { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' },
    ).expect(400);
    expect(res.body.error).toMatchObject({ code: -32022, data: { supported: [MODERN], requested: '2099-01-01' } });
  });

  it('logs only when the request sets a level, and only at or above it, on the request’s own stream', async () => {
    const silent = await modern(app, 'tools/call', { name: 'chatty', arguments: {} }).expect(200);
    expect(silent.headers['content-type']).toMatch(/application\/json/);
    const loud = await modern(
      app,
      'tools/call',
      { name: 'chatty', arguments: {} },
      {},
      { 'io.modelcontextprotocol/logLevel': 'info' },
    ).expect(200);
    const messages = sseMessages(loud.text);
    expect(messages.map((message) => (message as { params?: { data?: unknown } }).params?.data ?? 'result')).toEqual([
      'loud',
      'result',
    ]);
    const bad = await modern(
      app,
      'tools/call',
      { name: 'chatty', arguments: {} },
      {},
      { 'io.modelcontextprotocol/logLevel': 'loudest' },
    ).expect(400);
    expect(bad.body.error.code).toBe(-32602);
  });

  it('a modern notification is accepted with 202 and no body', async () => {
    const res = await post(
      app,
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: envelope() } },
      { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'notifications/cancelled' },
    );
    expect([res.status, res.text]).toEqual([202, '']);
  });
});

describe('the modern path beside 2025 sessions', () => {
  const app = createApp({ sessions: {}, logger: silentLogger() }, setup);

  it('ignores a session header, even one no session has', async () => {
    const res = await modern(
      app,
      'tools/call',
      { name: 'add', arguments: { a: 1, b: 1 } },
      { 'Mcp-Session-Id': 'not-a-session' },
    ).expect(200);
    expect(res.body.result.content).toEqual([{ type: 'text', text: '2' }]);
    expect(res.headers['mcp-session-id']).toBeUndefined();
  });

  it('still serves initialize and its session beside it', async () => {
    const init = await post(
      app,
      rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } }),
    ).expect(200);
    expect(init.headers['mcp-session-id']).toEqual(expect.any(String));
  });
});

describe("a modern-only router (eras: ['2026'])", () => {
  const app = createApp({ eras: ['2026'] }, setup);

  it('answers initialize with 400 -32022 naming the revisions it serves', async () => {
    const res = await post(
      app,
      rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } }),
    ).expect(400);
    expect(res.body.error).toMatchObject({ code: -32022, data: { supported: [MODERN], requested: '2025-11-25' } });
  });

  it.each(['get', 'delete'] as const)('answers %s with 405 and a JSON body', async (verb) => {
    const res = await request(app)[verb]('/mcp').set('Accept', 'text/event-stream');
    expect(res.status).toBe(405);
    expect(res.headers['content-type']).toMatch(/application\/json/);
  });

  it('serves modern requests', async () => {
    await modern(app, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } }).expect(200);
  });
});

describe("a 2025-only router (eras: ['2025'])", () => {
  const app = createApp({ eras: ['2025'] }, setup);

  it('refuses a 2026 header as an unsupported revision, as before', async () => {
    const res = await modern(app, 'tools/list').expect(400);
    expect(res.body.error.code).toBe(-32000);
  });
});

describe('the router’s defences apply to modern requests', () => {
  it('Origin and Host checks: 403 with a JSON body', async () => {
    const app = createApp({}, setup);
    const origin = await modern(app, 'server/discover', {}, { Origin: 'https://evil.example' });
    expect([origin.status, origin.body.error?.code]).toEqual([403, expect.any(Number)]);
  });

  it('bearer auth: 401 without a token, served with one; the cache scope turns private', async () => {
    const app = createApp({ auth: { tokens: ['s3cret'] } }, setup);
    const anonymous = await modern(app, 'tools/list');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['www-authenticate']).toMatch(/^Bearer/);
    const res = await modern(app, 'tools/list', {}, { Authorization: 'Bearer s3cret' }).expect(200);
    expect(res.body.result.cacheScope).toBe('private');
  });

  it('rate limits count modern requests', async () => {
    const app = createApp({ rateLimit: { limit: 2, windowMs: 60_000 } }, setup);
    await modern(app, 'tools/list').expect(200);
    await modern(app, 'tools/list').expect(200);
    const limited = await modern(app, 'tools/list');
    expect(limited.status).toBe(429);
    expect(limited.body.error).toEqual(expect.objectContaining({ code: expect.any(Number) }));
  });

  it("a tool's rateLimit counts 2026 callers without auth by address (they have no session)", async () => {
    const app = createApp({ logger: silentLogger() }, (mcp) => {
      mcp.tool({
        name: 'costly',
        description: 'Costs',
        rateLimit: { limit: 1, windowMs: 60_000 },
        handler: () => 'done',
      });
    });
    app.set('trust proxy', true);
    const call = (address: string) => modern(app, 'tools/call', { name: 'costly' }, { 'X-Forwarded-For': address });
    expect((await call('203.0.113.1')).body.result).toEqual(
      expect.objectContaining({ content: [{ type: 'text', text: 'done' }] }),
    );
    expect((await call('203.0.113.2')).body.result).toEqual(
      expect.objectContaining({ content: [{ type: 'text', text: 'done' }] }),
    );
    const limited = (await call('203.0.113.1')).body.result;
    expect(limited).toEqual(
      expect.objectContaining({
        isError: true,
        content: [{ type: 'text', text: expect.stringMatching(/try again in \d+ s/i) }],
      }),
    );
  });

  // MCP 2026-07-28 transports: closing a request's stream is its cancellation, with or without 2025 sessions beside it.
  it.each([
    ['stateless', false],
    ['with sessions', {}],
  ] as const)('a client that hangs up aborts the handler’s signal (%s)', async (_label, sessions) => {
    let aborted: Promise<unknown> | undefined;
    const started = new Signal();
    const mcp = mcpRouter({ name: 'hangup', version: '1', sessions } satisfies McpRouterOptions);
    mcp.tool({
      name: 'wait',
      description: 'Waits until aborted',
      inputSchema: { type: 'object' },
      handler: (_args, ctx) => {
        aborted = new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
        started.notify();
        return aborted.then(() => 'never sent');
      },
    });
    const app = express();
    app.use('/mcp', mcp);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as { port: number };
    const controller = new AbortController();
    const body = JSON.stringify(
      rpc('tools/call', { name: 'wait', arguments: {}, _meta: envelope({ progressToken: 'p' }) }),
    );
    const pending = fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      body,
      signal: controller.signal,
      headers: {
        'Content-Type': 'application/json',
        Accept: MCP_ACCEPT,
        'MCP-Protocol-Version': MODERN,
        'Mcp-Method': 'tools/call',
        'Mcp-Name': 'wait',
      },
    }).catch(() => undefined);
    await started.when(() => aborted !== undefined, 'the handler to start');
    controller.abort();
    await expect(aborted).resolves.toBeDefined();
    await pending;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
});
