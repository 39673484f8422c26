// Sessions over HTTP: Mcp-Session-Id, 400/404 rules, DELETE, stateless mode, per-session state, capabilities and hooks.

import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import request from 'supertest';
import {
  mcpRouter,
  type McpRouter,
  type McpRouterOptions,
  type RequestContext,
  type SessionRecord,
} from '../../../lib';
import { notification, post, rpc, silentLogger } from '../../helpers/create-app';

const INIT_PARAMS = {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'client', version: '0.0.1' },
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
/** MCP transports › Session Management: only visible ASCII (0x21–0x7E). */
const VISIBLE_ASCII = /^[\x21-\x7E]+$/;

/** Every router made in a test, closed after it. */
const routers: McpRouter[] = [];
afterEach(async () => {
  await Promise.all(routers.splice(0).map((mcp) => mcp.close()));
});

/** `express()` with a router at /mcp: stateful (`sessions: {}`) unless the options say otherwise. */
function makeApp(
  options: Partial<McpRouterOptions> = {},
  setup?: (mcp: McpRouter) => void,
): { app: Express; mcp: McpRouter } {
  const mcp = mcpRouter({ name: 'test', version: '1.0.0', logger: silentLogger(), sessions: {}, ...options });
  routers.push(mcp);
  setup?.(mcp);
  const app = express();
  app.use('/mcp', mcp);
  return { app, mcp };
}

/** Initializes a session and returns its id. */
async function initialize(app: Express, params: Record<string, unknown> = INIT_PARAMS): Promise<string> {
  const res = await post(app, rpc('initialize', params));
  expect(res.status).toBe(200);
  const id = res.headers['mcp-session-id'];
  expect(typeof id).toBe('string');
  return id as string;
}

function get(app: Express, headers: Record<string, string> = {}): request.Test {
  return request(app)
    .get('/mcp')
    .set({ Accept: 'text/event-stream', ...headers });
}

function del(app: Express, headers: Record<string, string> = {}): request.Test {
  return request(app).delete('/mcp').set(headers);
}

/** The JSON-RPC messages of an SSE body (priming events, with empty data, are left out). */
function sseMessages(text: string): Array<Record<string, unknown>> {
  return text
    .split(/\r?\n\r?\n/)
    .map((block) =>
      block
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n'),
    )
    .filter((data) => data !== '')
    .map((data) => JSON.parse(data) as Record<string, unknown>);
}

/** An HTTP-level error body: JSON-RPC shaped, id null. */
function httpError(code: number): Record<string, unknown> {
  return { jsonrpc: '2.0', id: null, error: { code, message: expect.any(String) } };
}

describe('sessions: the Mcp-Session-Id header', () => {
  it('is sent with the InitializeResult: a UUID of visible ASCII, different for every session', async () => {
    const { app } = makeApp();
    const res = await post(app, rpc('initialize', INIT_PARAMS));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-11-25' } });
    const id = res.headers['mcp-session-id'] as string;
    expect(id).toMatch(UUID);
    expect(id).toMatch(VISIBLE_ASCII);
    expect(await initialize(app)).not.toBe(id);
  });

  it('is then required: a session serves its requests, 202s its notifications', async () => {
    const { app } = makeApp();
    const id = await initialize(app);
    expect((await post(app, notification('notifications/initialized'), { 'Mcp-Session-Id': id })).status).toBe(202);
    const ping = await post(app, rpc('ping', undefined, 2), { 'Mcp-Session-Id': id });
    expect(ping.status).toBe(200);
    expect(ping.body).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });

  it.each<[string, (app: Express) => request.Test]>([
    ['POST of a request', (app) => post(app, rpc('ping'))],
    ['POST of a notification', (app) => post(app, notification('notifications/initialized'))],
    ['POST of a response', (app) => post(app, { jsonrpc: '2.0', id: 7, result: {} })],
    ['GET', (app) => get(app)],
    ['DELETE', (app) => del(app)],
  ])('missing on a %s → 400 with a JSON-RPC error body', async (_label, send) => {
    const { app } = makeApp();
    await initialize(app);
    const res = await send(app);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual(httpError(-32000));
  });

  it.each<[string, (app: Express, id: string) => request.Test]>([
    ['POST', (app, id) => post(app, rpc('ping'), { 'Mcp-Session-Id': id })],
    ['GET', (app, id) => get(app, { 'Mcp-Session-Id': id })],
    ['DELETE', (app, id) => del(app, { 'Mcp-Session-Id': id })],
  ])('unknown on a %s → 404', async (_label, send) => {
    const { app } = makeApp();
    await initialize(app);
    for (const unknown of ['00000000-0000-4000-8000-000000000000', 'not-a-session', 'x'.repeat(300)]) {
      const res = await send(app, unknown);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(httpError(-32000));
    }
  });
});

describe('sessions: DELETE', () => {
  it('ends the session (200); the id is then 404 for POST, GET and DELETE', async () => {
    const { app } = makeApp();
    const id = await initialize(app);
    const other = await initialize(app);

    const res = await del(app, { 'Mcp-Session-Id': id });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');

    expect((await post(app, rpc('ping'), { 'Mcp-Session-Id': id })).status).toBe(404);
    expect((await post(app, notification('notifications/initialized'), { 'Mcp-Session-Id': id })).status).toBe(404);
    expect((await get(app, { 'Mcp-Session-Id': id })).status).toBe(404);
    expect((await del(app, { 'Mcp-Session-Id': id })).status).toBe(404);
    // Other sessions are untouched.
    expect((await post(app, rpc('ping'), { 'Mcp-Session-Id': other })).status).toBe(200);
  });

  it('answers 405 with Allow: POST, GET when clients may not end sessions (sessions.allowDelete: false)', async () => {
    const { app } = makeApp({ sessions: { allowDelete: false } });
    const id = await initialize(app);
    const res = await del(app, { 'Mcp-Session-Id': id });
    expect(res.status).toBe(405);
    expect(res.body).toEqual(httpError(-32000));
    expect(res.headers.allow?.split(/,\s*/).sort()).toEqual(['GET', 'POST']);
    // The session lives on.
    expect((await post(app, rpc('ping'), { 'Mcp-Session-Id': id })).status).toBe(200);
  });

  it('Allow lists POST, GET and DELETE for other methods when sessions are on', async () => {
    const { app } = makeApp();
    const res = await request(app).put('/mcp').send('{}');
    expect(res.status).toBe(405);
    expect(res.headers.allow?.split(/,\s*/).sort()).toEqual(['DELETE', 'GET', 'POST']);
  });
});

describe('sessions: initialize', () => {
  it('a second initialize on an existing session → 400 with -32600, and the session keeps working', async () => {
    const { app } = makeApp();
    const id = await initialize(app);
    const res = await post(app, rpc('initialize', INIT_PARAMS, 2), { 'Mcp-Session-Id': id });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(httpError(-32600));
    expect(res.headers['mcp-session-id']).toBeUndefined();
    expect((await post(app, rpc('ping'), { 'Mcp-Session-Id': id })).status).toBe(200);
  });

  it('initialize naming an unknown session → 404, and creates no session', async () => {
    const onSessionCreated = jest.fn();
    const { app } = makeApp({ sessions: { onSessionCreated } });
    const res = await post(app, rpc('initialize', INIT_PARAMS), {
      'Mcp-Session-Id': '00000000-0000-4000-8000-000000000000',
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(httpError(-32000));
    expect(res.headers['mcp-session-id']).toBeUndefined();
    expect(onSessionCreated).not.toHaveBeenCalled();
  });

  it('keeps the revision it negotiated: the session answers in it', async () => {
    const { app } = makeApp({}, (mcp) =>
      mcp.tool({ name: 't', title: 'T', description: 'a tool', handler: () => 'x' }),
    );
    const id = await initialize(app, { ...INIT_PARAMS, protocolVersion: '2025-03-26' });
    // 2025-03-26 has no tool titles; a header naming a newer (supported) revision does not change that.
    const res = await post(app, rpc('tools/list'), { 'Mcp-Session-Id': id, 'MCP-Protocol-Version': '2025-11-25' });
    expect(res.status).toBe(200);
    expect(res.body.result.tools[0]).not.toHaveProperty('title');
  });
});

describe('sessions: false (stateless)', () => {
  const chatty = (mcp: McpRouter): void => {
    mcp.tool({
      name: 'chatty',
      description: 'Logs at info, then answers',
      handler: async (_args, ctx: RequestContext) => {
        await ctx.log('info', 'hello');
        return 'done';
      },
    });
  };

  it('sends no Mcp-Session-Id, answers GET and DELETE with 405 (Allow: POST)', async () => {
    const { app } = makeApp({ sessions: false });
    const init = await post(app, rpc('initialize', INIT_PARAMS));
    expect(init.status).toBe(200);
    expect(init.headers['mcp-session-id']).toBeUndefined();
    for (const res of [await get(app), await del(app), await del(app, { 'Mcp-Session-Id': 'anything' })]) {
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('POST');
      expect(res.body).toEqual(httpError(-32000));
    }
  });

  it('serves every request on its own: no initialize needed, any Mcp-Session-Id ignored', async () => {
    const { app } = makeApp({ sessions: false }, chatty);
    expect((await post(app, rpc('ping'))).body).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    const res = await post(app, rpc('tools/call', { name: 'chatty' }), { 'Mcp-Session-Id': 'made-up' });
    expect(res.status).toBe(200);
    expect(res.headers['mcp-session-id']).toBeUndefined();
  });

  it('keeps no state between requests: a log level set in one request does not hold for the next', async () => {
    const { app } = makeApp({ sessions: false, responseMode: 'sse' }, chatty);
    const set = await post(app, rpc('logging/setLevel', { level: 'error' }));
    expect(set.status).toBe(200);
    const call = await post(app, rpc('tools/call', { name: 'chatty' }, 2), { 'MCP-Protocol-Version': '2025-11-25' });
    expect(call.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(sseMessages(call.text).map((message) => message.method ?? `response ${String(message.id)}`)).toEqual([
      'notifications/message',
      'response 2',
    ]);
  });
});

describe('sessions: state is kept per session', () => {
  function chattyApp() {
    return makeApp({ responseMode: 'sse' }, (mcp) => {
      mcp.tool({
        name: 'chatty',
        description: 'Logs at info, then answers',
        handler: async (_args, ctx: RequestContext) => {
          await ctx.log('info', { from: ctx.sessionId });
          return 'done';
        },
      });
    });
  }

  /** The methods (or `response <id>`) of the messages the SSE reply to a chatty call carries. */
  async function callChatty(app: Express, id: string, requestId: number): Promise<string[]> {
    const res = await post(app, rpc('tools/call', { name: 'chatty' }, requestId), { 'Mcp-Session-Id': id });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    return sseMessages(res.text).map(
      (message) => (message.method as string | undefined) ?? `response ${String(message.id)}`,
    );
  }

  it('logging/setLevel holds for the session that set it, and only for it', async () => {
    const { app } = chattyApp();
    const quiet = await initialize(app);
    const loud = await initialize(app);

    const set = await post(app, rpc('logging/setLevel', { level: 'error' }, 'lvl'), { 'Mcp-Session-Id': quiet });
    expect(set.status).toBe(200);
    expect(sseMessages(set.text)).toEqual([{ jsonrpc: '2.0', id: 'lvl', result: {} }]);

    expect(await callChatty(app, quiet, 2)).toEqual(['response 2']);
    expect(await callChatty(app, loud, 3)).toEqual(['notifications/message', 'response 3']);
    // It holds for later requests too, and a session created afterwards starts with no level.
    expect(await callChatty(app, quiet, 4)).toEqual(['response 4']);
    expect(await callChatty(app, await initialize(app), 5)).toEqual(['notifications/message', 'response 5']);
  });

  it('the log messages carry what the handler logged, on the caller’s stream', async () => {
    const { app } = chattyApp();
    const id = await initialize(app);
    const res = await post(app, rpc('tools/call', { name: 'chatty' }, 9), { 'Mcp-Session-Id': id });
    expect(sseMessages(res.text)[0]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'info', data: { from: id } },
    });
  });

  it('resources/subscribe holds for the session that subscribed, and only for it', async () => {
    const { app, mcp } = makeApp({ keepAliveMs: false }, (router) => {
      router.resource({ uri: 'memo://a', name: 'a', read: () => 'A' });
      router.resource({ uri: 'memo://b', name: 'b', read: () => 'B' });
    });
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const streams: StreamReader[] = [];
    try {
      const first = await initialize(app);
      const second = await initialize(app);
      expect(
        (await post(app, rpc('resources/subscribe', { uri: 'memo://a' }), { 'Mcp-Session-Id': first })).body,
      ).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
      expect(
        (await post(app, rpc('resources/subscribe', { uri: 'memo://b' }), { 'Mcp-Session-Id': second })).status,
      ).toBe(200);
      streams.push(await openStream(base, first), await openStream(base, second));
      const [a, b] = streams as [StreamReader, StreamReader];

      mcp.notifyResourceUpdated('memo://a');
      mcp.notifyResourceUpdated('memo://b');
      const updated = (uri: string) => (message: Record<string, unknown>) =>
        message.method === 'notifications/resources/updated' &&
        (message.params as { uri?: string } | undefined)?.uri === uri;
      await a.next(updated('memo://a'));
      await b.next(updated('memo://b'));
      // Each stream is ordered: had a message for the other URI reached it, it would have come first.
      expect(a.messages.filter((message) => message.method === 'notifications/resources/updated')).toEqual([
        { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'memo://a' } },
      ]);
      expect(b.messages.filter((message) => message.method === 'notifications/resources/updated')).toEqual([
        { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'memo://b' } },
      ]);

      // Unsubscribing holds too.
      expect(
        (await post(app, rpc('resources/unsubscribe', { uri: 'memo://a' }), { 'Mcp-Session-Id': first })).status,
      ).toBe(200);
      expect(
        (await post(app, rpc('resources/subscribe', { uri: 'memo://b' }), { 'Mcp-Session-Id': first })).status,
      ).toBe(200);
      mcp.notifyResourceUpdated('memo://a');
      mcp.notifyResourceUpdated('memo://b');
      await a.next(updated('memo://b'));
      expect(a.messages.filter(updated('memo://a'))).toHaveLength(1);
    } finally {
      for (const stream of streams) stream.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('sessions: capabilities', () => {
  const register = (mcp: McpRouter): void => {
    mcp.tool({ name: 't', description: 'a tool', handler: () => 'x' });
    mcp.resource({ uri: 'memo://a', name: 'a', read: () => 'A' });
    mcp.prompt({ name: 'p', description: 'a prompt', get: () => 'hi' });
  };

  it('declare listChanged with sessions (there is a GET stream to announce changes on)', async () => {
    const { app } = makeApp({}, register);
    const res = await post(app, rpc('initialize', INIT_PARAMS));
    expect(res.body.result.capabilities).toEqual({
      logging: {},
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
    });
  });

  it('do not declare listChanged, nor resource subscriptions, without sessions (no stream to deliver them on)', async () => {
    const { app } = makeApp({ sessions: false }, register);
    const res = await post(app, rpc('initialize', INIT_PARAMS));
    expect(res.body.result.capabilities).toEqual({ logging: {}, tools: {}, resources: {}, prompts: {} });
  });
});

describe('sessions: hooks', () => {
  it('onSessionCreated receives the record: id, clientInfo, protocolVersion, capabilities', async () => {
    const created: SessionRecord[] = [];
    const { app } = makeApp({ sessions: { onSessionCreated: (record) => void created.push(record) } });
    const capabilities = { roots: { listChanged: true }, sampling: {} };
    const before = Date.now();
    const id = await initialize(app, {
      protocolVersion: '2025-06-18',
      capabilities,
      clientInfo: { name: 'inspector', version: '2.0.0' },
    });
    expect(created).toEqual([
      {
        id,
        protocolVersion: '2025-06-18',
        clientCapabilities: capabilities,
        clientInfo: { name: 'inspector', version: '2.0.0' },
        logLevel: undefined,
        subscriptions: [],
        createdAt: expect.any(Number),
      },
    ]);
    expect(created[0]!.createdAt).toBeGreaterThanOrEqual(before);
    expect(created[0]!.createdAt).toBeLessThanOrEqual(Date.now());
  });

  it('onSessionCreated is not called for requests that are not a first initialize', async () => {
    const onSessionCreated = jest.fn();
    const { app } = makeApp({ sessions: { onSessionCreated } });
    const id = await initialize(app);
    await post(app, rpc('ping'), { 'Mcp-Session-Id': id });
    await post(app, rpc('initialize', INIT_PARAMS), { 'Mcp-Session-Id': id });
    expect(onSessionCreated).toHaveBeenCalledTimes(1);
  });

  it("onSessionClosed(id, 'deleted') on DELETE, once", async () => {
    const onSessionClosed = jest.fn();
    const { app } = makeApp({ sessions: { onSessionClosed } });
    const id = await initialize(app);
    expect(onSessionClosed).not.toHaveBeenCalled();
    expect((await del(app, { 'Mcp-Session-Id': id })).status).toBe(200);
    expect(onSessionClosed.mock.calls).toEqual([[id, 'deleted']]);
    await del(app, { 'Mcp-Session-Id': id });
    await post(app, rpc('ping'), { 'Mcp-Session-Id': id });
    expect(onSessionClosed).toHaveBeenCalledTimes(1);
  });

  it("onSessionClosed(id, 'expired') once the idle TTL has passed", async () => {
    // Only the clock is faked: the store reads Date.now, while supertest keeps its real sockets and timers.
    jest.useFakeTimers({
      doNotFake: [
        'nextTick',
        'setImmediate',
        'clearImmediate',
        'setTimeout',
        'clearTimeout',
        'setInterval',
        'clearInterval',
        'queueMicrotask',
        'hrtime',
        'performance',
      ],
    });
    try {
      const onSessionClosed = jest.fn();
      const { app } = makeApp({ sessions: { idleTtlMs: 1000, onSessionClosed } });
      const id = await initialize(app);
      jest.setSystemTime(Date.now() + 1000);
      expect((await post(app, rpc('ping'), { 'Mcp-Session-Id': id })).status).toBe(200);
      jest.setSystemTime(Date.now() + 1001);
      expect((await post(app, rpc('ping'), { 'Mcp-Session-Id': id })).status).toBe(404);
      expect(onSessionClosed.mock.calls).toEqual([[id, 'expired']]);
    } finally {
      jest.useRealTimers();
    }
  });

  it("onSessionClosed(id, 'evicted') when a new session exceeds sessions.max", async () => {
    const onSessionClosed = jest.fn();
    const { app } = makeApp({ sessions: { max: 1, onSessionClosed } });
    const first = await initialize(app);
    const second = await initialize(app);
    expect(onSessionClosed.mock.calls).toEqual([[first, 'evicted']]);
    expect((await post(app, rpc('ping'), { 'Mcp-Session-Id': first })).status).toBe(404);
    expect((await post(app, rpc('ping'), { 'Mcp-Session-Id': second })).status).toBe(200);
    expect(onSessionClosed).toHaveBeenCalledTimes(1);
  });

  it("onSessionClosed(id, 'closed') for every session on mcp.close(); their ids are then 404", async () => {
    const onSessionClosed = jest.fn();
    const { app, mcp } = makeApp({ sessions: { onSessionClosed } });
    const ids = [await initialize(app), await initialize(app), await initialize(app)];
    await mcp.close();
    expect(onSessionClosed.mock.calls.map(([id, reason]) => `${String(id)}:${String(reason)}`).sort()).toEqual(
      ids.map((id) => `${id}:closed`).sort(),
    );
    for (const id of ids) expect((await post(app, rpc('ping'), { 'Mcp-Session-Id': id })).status).toBe(404);
    expect(onSessionClosed).toHaveBeenCalledTimes(3);
  });
});

describe('sessions: hooks that throw', () => {
  // The hooks are for metrics and audit: their failure is reported to the logger and changes nothing for the client.
  const boom = new Error('hook failed');
  const thrower = (): never => {
    throw boom;
  };

  it('onSessionCreated: initialize still succeeds with its Mcp-Session-Id, and the error is logged', async () => {
    const logger = silentLogger();
    const { app } = makeApp({ logger, sessions: { onSessionCreated: thrower } });
    const res = await post(app, rpc('initialize', INIT_PARAMS));
    expect(res.status).toBe(200);
    const id = res.headers['mcp-session-id'] as string;
    expect(id).toMatch(UUID);
    expect((await post(app, rpc('ping'), { 'Mcp-Session-Id': id })).status).toBe(200);
    expect(logger.error).toHaveBeenCalledWith(boom, expect.any(String));
  });

  it('onSessionClosed on DELETE: the DELETE still answers 200, and the error is logged', async () => {
    const logger = silentLogger();
    const { app } = makeApp({ logger, sessions: { onSessionClosed: thrower } });
    const id = await initialize(app);
    expect((await del(app, { 'Mcp-Session-Id': id })).status).toBe(200);
    expect((await post(app, rpc('ping'), { 'Mcp-Session-Id': id })).status).toBe(404);
    expect(logger.error).toHaveBeenCalledWith(boom, expect.any(String));
  });

  it('onSessionClosed on eviction: the error is logged, not left as an unhandled rejection (which ends a Node process)', async () => {
    const logger = silentLogger();
    const { app } = makeApp({ logger, sessions: { max: 1, onSessionClosed: thrower } });
    const first = await initialize(app);
    await initialize(app); // evicts the first
    expect((await post(app, rpc('ping'), { 'Mcp-Session-Id': first })).status).toBe(404);
    // Unhandled rejections surface after the microtask queue drains; jest fails the running test on one.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(logger.error).toHaveBeenCalledWith(boom, expect.any(String));
  });
});

/** A GET stream read as it arrives. */
interface StreamReader {
  readonly status: number;
  /** Every JSON-RPC message received so far. */
  readonly messages: Array<Record<string, unknown>>;
  /** Resolves with the first message (already received or still to come) that `match` accepts. */
  next(match: (message: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  close(): void;
}

/** Opens the session's GET stream and resolves once its headers arrived (the stream is attached by then). */
function openStream(base: string, sessionId: string): Promise<StreamReader> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      `${base}/mcp`,
      { headers: { Accept: 'text/event-stream', 'Mcp-Session-Id': sessionId } },
      (res) => {
        const messages: Array<Record<string, unknown>> = [];
        const waiters: Array<{
          match: (message: Record<string, unknown>) => boolean;
          resolve: (message: Record<string, unknown>) => void;
        }> = [];
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            for (const message of sseMessages(`${block}\n\n`)) {
              messages.push(message);
              for (const waiter of waiters.filter((candidate) => candidate.match(message))) {
                waiters.splice(waiters.indexOf(waiter), 1);
                waiter.resolve(message);
              }
            }
          }
        });
        resolve({
          status: res.statusCode ?? 0,
          messages,
          next: (match) => {
            const found = messages.find(match);
            return found ? Promise.resolve(found) : new Promise((done) => waiters.push({ match, resolve: done }));
          },
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', reject);
  });
}
