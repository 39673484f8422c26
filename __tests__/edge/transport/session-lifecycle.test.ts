// Session lifecycle over HTTP with a fake clock: idle TTL, LRU cap, no leaks, streams and handlers ended with their session, custom stores.

import { once } from 'node:events';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import request from 'supertest';
import {
  MemoryEventStore,
  MemoryMessageBus,
  mcpRouter,
  type McpRouter,
  type McpRouterOptions,
  type RequestContext,
  type SessionCloseReason,
  type SessionRecord,
  type SessionStore,
} from '../../../lib';
import { MCP_ACCEPT, post, rpc, silentLogger } from '../../helpers/create-app';

const INIT_PARAMS = {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'client', version: '0.0.1' },
};
const TTL = 1000;

// Timers and the clock are fake (the store's sweep, SSE keep-alives, Date.now); sockets, nextTick and setImmediate
// stay real, so supertest and Node's HTTP stack work as usual. Routers are created after this, so they read the fake clock.
beforeEach(() => {
  jest.useFakeTimers({
    doNotFake: ['nextTick', 'setImmediate', 'clearImmediate', 'queueMicrotask', 'hrtime', 'performance'],
  });
});

/** Every router and server made in a test, closed after it. */
const routers: McpRouter[] = [];
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(routers.splice(0).map((mcp) => mcp.close()));
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  jest.useRealTimers();
});

/** Lets every pending promise chain settle (setImmediate is real: microtasks all run before it). */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function makeApp(
  options: Partial<McpRouterOptions> = {},
  setup?: (mcp: McpRouter) => void,
): { app: Express; mcp: McpRouter } {
  // No rate limit: these tests open thousands of sessions from one address, and count timers (the limiter has its own).
  const mcp = mcpRouter({
    name: 'test',
    version: '1.0.0',
    logger: silentLogger(),
    sessions: {},
    rateLimit: false,
    ...options,
  });
  routers.push(mcp);
  setup?.(mcp);
  const app = express();
  app.use('/mcp', mcp);
  return { app, mcp };
}

/** Listens on 127.0.0.1 and returns the base URL (the server is closed after the test). */
async function listen(app: Express): Promise<string> {
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A supertest target: an app (a server per request) or a listening base URL. */
type Target = Express | string;

function postTo(target: Target, body: unknown, headers: Record<string, string> = {}): request.Test {
  return request(target)
    .post('/mcp')
    .set({ 'Content-Type': 'application/json', Accept: MCP_ACCEPT, ...headers })
    .send(JSON.stringify(body));
}

async function initialize(target: Target): Promise<string> {
  const res = await postTo(target, rpc('initialize', INIT_PARAMS));
  expect(res.status).toBe(200);
  return res.headers['mcp-session-id'] as string;
}

async function ping(target: Target, id: string): Promise<number> {
  return (await postTo(target, rpc('ping'), { 'Mcp-Session-Id': id })).status;
}

function hooks() {
  const closed: string[] = [];
  return { closed, onSessionClosed: (id: string, reason: SessionCloseReason) => void closed.push(`${id}:${reason}`) };
}

describe('idle TTL', () => {
  it("ends a session idle for longer than idleTtlMs: the sweep calls onSessionClosed('expired'), then the id is 404", async () => {
    const { closed, onSessionClosed } = hooks();
    const { app } = makeApp({ sessions: { idleTtlMs: TTL, onSessionClosed } });
    const id = await initialize(app);
    expect(jest.getTimerCount()).toBe(1); // the store's one sweep timer

    await jest.advanceTimersByTimeAsync(TTL);
    await settle();
    expect(closed).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    await settle();
    expect(closed).toEqual([`${id}:expired`]);
    expect(jest.getTimerCount()).toBe(0);

    expect(await ping(app, id)).toBe(404);
    expect(closed).toHaveLength(1);
  });

  it('is checked on access too, before any sweep has run', async () => {
    const { closed, onSessionClosed } = hooks();
    const { app } = makeApp({ sessions: { idleTtlMs: TTL, onSessionClosed } });
    const id = await initialize(app);
    jest.setSystemTime(Date.now() + TTL + 1); // the clock moves, the sweep timer does not fire
    expect(await ping(app, id)).toBe(404);
    expect(closed).toEqual([`${id}:expired`]);
  });

  it('restarts with every request: an active session outlives idleTtlMs', async () => {
    const { closed, onSessionClosed } = hooks();
    const { app } = makeApp({ sessions: { idleTtlMs: TTL, onSessionClosed } });
    const id = await initialize(app);
    for (let i = 0; i < 5; i++) {
      await jest.advanceTimersByTimeAsync(TTL * 0.6);
      expect(await ping(app, id)).toBe(200);
    }
    // 3 s after initialize, still alive; then idle for longer than the TTL.
    expect(closed).toEqual([]);
    await jest.advanceTimersByTimeAsync(TTL + 1);
    await settle();
    expect(closed).toEqual([`${id}:expired`]);
    expect(await ping(app, id)).toBe(404);
  });

  it('restarts with the keep-alives of an open GET stream', async () => {
    const { closed, onSessionClosed } = hooks();
    const { app } = makeApp({ keepAliveMs: TTL / 4, sessions: { idleTtlMs: TTL, onSessionClosed } });
    const base = await listen(app);
    const id = await initialize(base);
    const stream = await openStream(base, id);
    expect(stream.status).toBe(200);

    await jest.advanceTimersByTimeAsync(TTL * 5);
    await settle();
    expect(closed).toEqual([]);
    expect(await ping(base, id)).toBe(200);
    expect(stream.text()).toContain(': keep-alive\n\n');
  });

  it('a session idle in another router is not affected by activity here (each router has its own store)', async () => {
    const first = makeApp({ sessions: { idleTtlMs: TTL } });
    const second = makeApp({ sessions: { idleTtlMs: TTL } });
    const a = await initialize(first.app);
    const b = await initialize(second.app);
    await jest.advanceTimersByTimeAsync(TTL * 0.6);
    expect(await ping(first.app, a)).toBe(200);
    expect(await ping(second.app, a)).toBe(404);
    await jest.advanceTimersByTimeAsync(TTL * 0.6);
    expect(await ping(first.app, a)).toBe(200);
    expect(await ping(second.app, b)).toBe(404);
  });
});

describe('sessions.max', () => {
  it('a third initialize evicts the least recently active session', async () => {
    const { closed, onSessionClosed } = hooks();
    const { app } = makeApp({ sessions: { max: 2, onSessionClosed } });
    const a = await initialize(app);
    const b = await initialize(app);
    expect(await ping(app, a)).toBe(200); // a is now more recent than b
    const c = await initialize(app);
    await settle();
    expect(closed).toEqual([`${b}:evicted`]);
    expect(await ping(app, b)).toBe(404);
    expect(await ping(app, a)).toBe(200);
    expect(await ping(app, c)).toBe(200);
  });

  it('without activity, the oldest goes first', async () => {
    const { closed, onSessionClosed } = hooks();
    const { app } = makeApp({ sessions: { max: 2, onSessionClosed } });
    const ids = [await initialize(app), await initialize(app), await initialize(app), await initialize(app)];
    await settle();
    expect(closed).toEqual([`${ids[0]}:evicted`, `${ids[1]}:evicted`]);
    expect(await Promise.all(ids.map((id) => ping(app, id)))).toEqual([404, 404, 200, 200]);
  });
});

describe('no leaks', () => {
  it('1,000 sessions opened and deleted leave no timers, no live sessions, no recorded events and no bus topics', async () => {
    const { closed, onSessionClosed } = hooks();
    const events = new MemoryEventStore();
    const bus = new MemoryMessageBus();
    // SSE replies: every POST opens a stream (with a keep-alive timer) and records a priming event.
    const { app, mcp } = makeApp({
      responseMode: 'sse',
      sessions: { idleTtlMs: TTL, eventStore: events, bus, onSessionClosed },
    });
    const base = await listen(app);
    const COUNT = 1000;
    const BATCH = 50;

    // Each session is initialized, then used once: the ping's SSE reply is recorded (initialize has no session yet).
    const open = async (): Promise<string> => {
      const id = await initialize(base);
      expect(await ping(base, id)).toBe(200);
      return id;
    };
    const ids: string[] = [];
    for (let i = 0; i < COUNT; i += BATCH) ids.push(...(await Promise.all(Array.from({ length: BATCH }, open))));
    expect(new Set(ids).size).toBe(COUNT);
    expect(jest.getTimerCount()).toBe(1); // one sweep timer for the whole store, whatever its size
    expect(events.sessionCount).toBe(COUNT);

    for (let i = 0; i < COUNT; i += BATCH) {
      const statuses = await Promise.all(
        ids
          .slice(i, i + BATCH)
          .map(async (id) => (await request(base).delete('/mcp').set('Mcp-Session-Id', id)).status),
      );
      expect(statuses).toEqual(Array(BATCH).fill(200));
    }
    await settle();

    expect(jest.getTimerCount()).toBe(0);
    expect(events.sessionCount).toBe(0);
    // One topic per router, none per session: cancellations from other instances (mcp:cancel).
    expect(bus.topicCount).toBe(1);
    expect(closed).toHaveLength(COUNT);
    expect(new Set(closed)).toEqual(new Set(ids.map((id) => `${id}:deleted`)));

    // Nothing is left to close: close() resolves without any timer advancing, and ends no session.
    await mcp.close();
    expect(closed).toHaveLength(COUNT);
    expect(jest.getTimerCount()).toBe(0);
  }, 60_000);

  it('close() stops the sweep timer of a store that still holds sessions', async () => {
    const { app, mcp } = makeApp({ sessions: { idleTtlMs: TTL } });
    await initialize(app);
    await initialize(app);
    expect(jest.getTimerCount()).toBe(1);
    await mcp.close();
    expect(jest.getTimerCount()).toBe(0);
  });
});

describe('an open GET stream ends with its session', () => {
  it.each<[string, (context: { base: string; id: string; mcp: McpRouter }) => Promise<void>, SessionCloseReason]>([
    [
      'deleted by the client',
      async ({ base, id }) => {
        expect((await request(base).delete('/mcp').set('Mcp-Session-Id', id)).status).toBe(200);
      },
      'deleted',
    ],
    [
      'expired',
      async () => {
        await jest.advanceTimersByTimeAsync(TTL + 1);
      },
      'expired',
    ],
    [
      'closed with the router',
      async ({ mcp }) => {
        await mcp.close();
      },
      'closed',
    ],
  ])('%s', async (_label, end, reason) => {
    const { closed, onSessionClosed } = hooks();
    const { app, mcp } = makeApp({ keepAliveMs: false, sessions: { idleTtlMs: TTL, onSessionClosed } });
    const base = await listen(app);
    const id = await initialize(base);
    const stream = await openStream(base, id);
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);

    await end({ base, id, mcp });
    const { complete } = await stream.ended;
    expect(complete).toBe(true); // ended by the server (a complete response), not cut
    expect(closed).toEqual([`${id}:${reason}`]);
    expect(await ping(base, id)).toBe(404);
  });

  it('another session’s stream stays open', async () => {
    const { app } = makeApp({ keepAliveMs: false });
    const base = await listen(app);
    const doomed = await initialize(base);
    const kept = await initialize(base);
    const doomedStream = await openStream(base, doomed);
    const keptStream = await openStream(base, kept);
    await request(base).delete('/mcp').set('Mcp-Session-Id', doomed);
    await doomedStream.ended;
    await settle();
    expect(keptStream.isOpen()).toBe(true);
    expect(await ping(base, kept)).toBe(200);
  });
});

describe('requests in flight end with their session', () => {
  /** A router with a `wait` tool that runs until its signal aborts, reporting when it started and why it stopped. */
  function waitingApp(options: Partial<McpRouterOptions> = {}) {
    let markStarted!: () => void;
    let markAborted!: (reason: unknown) => void;
    const started = new Promise<void>((resolve) => (markStarted = resolve));
    const aborted = new Promise<unknown>((resolve) => (markAborted = resolve));
    const made = makeApp(options, (mcp) => {
      mcp.tool({
        name: 'wait',
        description: 'Waits until its signal aborts',
        handler: (_args, ctx: RequestContext) =>
          new Promise((resolve) => {
            ctx.signal.addEventListener('abort', () => {
              markAborted(ctx.signal.reason);
              resolve('stopped');
            });
            markStarted();
          }),
      });
    });
    return { ...made, started, aborted };
  }

  /** Starts a `wait` call on a fresh session and resolves once the handler runs; `pending` is the POST's response. */
  async function callInFlight(options: Partial<McpRouterOptions> = {}) {
    const made = waitingApp(options);
    const base = await listen(made.app);
    const id = await initialize(base);
    const pending = postTo(base, rpc('tools/call', { name: 'wait' }, 'w'), { 'Mcp-Session-Id': id }).then((res) => res);
    await made.started;
    return { ...made, base, id, pending };
  }

  const modes: Array<[string, Partial<McpRouterOptions>]> = [
    ['a JSON reply', { responseMode: 'json' }],
    ['an SSE reply', { responseMode: 'sse' }],
    ['an auto reply', {}],
  ];

  it.each(modes)(
    'DELETE aborts the handler’s signal (%s); the POST does not hang and carries no result',
    async (_label, options) => {
      const { base, id, aborted, pending } = await callInFlight(options);
      expect((await request(base).delete('/mcp').set('Mcp-Session-Id', id)).status).toBe(200);
      const reason = await aborted;
      expect(reason).toBeInstanceOf(Error);
      expect((reason as Error).message).toMatch(/deleted/);
      // MCP cancellation: no result is sent for a request cancelled this way.
      expect((await pending).text).not.toContain('"result"');
    },
  );

  it('mcp.close() aborts handlers in flight; the POST does not hang and carries no result', async () => {
    const { mcp, aborted, pending } = await callInFlight();
    await mcp.close();
    expect(((await aborted) as Error).message).toMatch(/closed/);
    expect((await pending).text).not.toContain('"result"');
  });

  /**
   * MCP transports › Sending Messages to the Server: a POSTed *request* MUST be answered with application/json or
   * text/event-stream; 202 Accepted is for notifications and responses only. A client that gets 202 for a request
   * (the official SDK) waits for its result until it times out. The session is gone, so 404 (initialize again) or an
   * SSE stream that ends without a result are the acceptable answers.
   */
  it.each<[string, Partial<McpRouterOptions>, 'delete' | 'close']>([
    ...modes.map(([label, options]): [string, Partial<McpRouterOptions>, 'delete' | 'close'] => [
      `DELETE, ${label}`,
      options,
      'delete',
    ]),
    ['mcp.close(), an auto reply', {}, 'close'],
  ])('the POST of a request ended with its session is not answered 202 (%s)', async (_label, options, how) => {
    const { base, id, mcp, aborted, pending } = await callInFlight(options);
    if (how === 'delete') await request(base).delete('/mcp').set('Mcp-Session-Id', id);
    else await mcp.close();
    await aborted;
    const res = await pending;
    expect(`${res.status} ${res.headers['content-type'] ?? '(no Content-Type)'}`).toMatch(
      /^(404 application\/json|200 text\/event-stream)/,
    );
  });
});

/** A Map-based SessionStore, as an application might write over Redis; it records what the router asks of it. */
class MapSessionStore implements SessionStore {
  readonly records = new Map<string, SessionRecord>();
  readonly calls: string[] = [];
  #listeners: Array<(id: string, reason: 'expired' | 'evicted') => void> = [];

  async set(record: SessionRecord): Promise<void> {
    this.calls.push('set');
    this.records.set(record.id, structuredClone(record));
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    this.calls.push('get');
    const record = this.records.get(id);
    return record && structuredClone(record);
  }

  async touch(id: string): Promise<void> {
    this.calls.push(`touch:${id}`);
  }

  async delete(id: string): Promise<boolean> {
    this.calls.push('delete');
    return this.records.delete(id);
  }

  onDrop(listener: (id: string, reason: 'expired' | 'evicted') => void): void {
    this.#listeners.push(listener);
  }

  async close(): Promise<void> {
    this.calls.push('close');
    this.records.clear();
  }

  /** Drops a session as a store with its own expiry would, telling the router. */
  drop(id: string, reason: 'expired' | 'evicted'): void {
    this.records.delete(id);
    for (const listener of this.#listeners) listener(id, reason);
  }
}

describe('a custom SessionStore', () => {
  it('holds the sessions: initialize stores the record, setLevel and subscribe update it', async () => {
    const store = new MapSessionStore();
    const { app } = makeApp({ sessions: { store } }, (mcp) =>
      mcp.resource({ uri: 'memo://a', name: 'a', read: () => 'A' }),
    );
    const id = await initialize(app);
    expect([...store.records.keys()]).toEqual([id]);
    expect(store.records.get(id)).toEqual({
      id,
      protocolVersion: '2025-11-25',
      clientCapabilities: {},
      clientInfo: INIT_PARAMS.clientInfo,
      logLevel: undefined,
      subscriptions: [],
      createdAt: Date.now(),
    });

    expect((await postTo(app, rpc('logging/setLevel', { level: 'warning' }), { 'Mcp-Session-Id': id })).status).toBe(
      200,
    );
    expect((await postTo(app, rpc('resources/subscribe', { uri: 'memo://a' }), { 'Mcp-Session-Id': id })).status).toBe(
      200,
    );
    expect(store.records.get(id)).toMatchObject({ logLevel: 'warning', subscriptions: ['memo://a'] });
  });

  it('is asked, not bypassed: a session removed from it directly is 404 at once', async () => {
    const { closed, onSessionClosed } = hooks();
    const store = new MapSessionStore();
    const { app } = makeApp({ sessions: { store, onSessionClosed } });
    const id = await initialize(app);
    expect(await ping(app, id)).toBe(200);
    store.records.delete(id);
    expect(await ping(app, id)).toBe(404);
    await settle();
    // The router forgets what it held of the session, too.
    expect(closed).toEqual([`${id}:expired`]);
  });

  it('DELETE removes the session from it; close() closes it', async () => {
    const store = new MapSessionStore();
    const { app, mcp } = makeApp({ sessions: { store } });
    const id = await initialize(app);
    expect((await request(app).delete('/mcp').set('Mcp-Session-Id', id)).status).toBe(200);
    expect(store.records.size).toBe(0);
    expect(store.calls).toContain('delete');
    await mcp.close();
    expect(store.calls.at(-1)).toBe('close');
  });

  it('its drops end the session’s stream and are reported with its reason', async () => {
    const { closed, onSessionClosed } = hooks();
    const store = new MapSessionStore();
    const { app } = makeApp({ keepAliveMs: false, sessions: { store, onSessionClosed } });
    const base = await listen(app);
    const id = await initialize(base);
    const stream = await openStream(base, id);
    store.drop(id, 'evicted');
    expect((await stream.ended).complete).toBe(true);
    expect(closed).toEqual([`${id}:evicted`]);
    expect(await ping(base, id)).toBe(404);
  });

  it('is touched by an open stream’s keep-alives', async () => {
    const store = new MapSessionStore();
    const { app } = makeApp({ keepAliveMs: 100, sessions: { store } });
    const base = await listen(app);
    const id = await initialize(base);
    await openStream(base, id);
    await jest.advanceTimersByTimeAsync(350);
    expect(store.calls.filter((call) => call === `touch:${id}`)).toHaveLength(3);
  });
});

/** A GET stream read as it arrives. */
interface StreamReader {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  /** Everything received so far. */
  text(): string;
  /** True until the response ended or was cut. */
  isOpen(): boolean;
  /** Resolves when the response is over; `complete` is true when the server ended it properly. */
  readonly ended: Promise<{ text: string; complete: boolean }>;
}

/** Opens the session's GET stream and resolves once its headers arrived. */
function openStream(base: string, sessionId: string): Promise<StreamReader> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      `${base}/mcp`,
      { headers: { Accept: 'text/event-stream', 'Mcp-Session-Id': sessionId } },
      (res) => {
        let text = '';
        let open = true;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        const ended = new Promise<{ text: string; complete: boolean }>((done) =>
          res.on('close', () => {
            open = false;
            done({ text, complete: res.complete });
          }),
        );
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: () => text, isOpen: () => open, ended });
      },
    );
    req.on('error', reject);
  });
}
