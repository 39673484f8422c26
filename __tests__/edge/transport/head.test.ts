// HEAD on the endpoint (RFC 9110 §9.3.2: GET's status and headers, no content, no stream), and GETs whose client left before their stream opened.

import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import request from 'supertest';
import {
  MemoryEventStore,
  MemorySessionStore,
  mcpRouter,
  type McpRouter,
  type McpRouterOptions,
  type SessionRecord,
} from '../../../lib';
import { MCP_ACCEPT, rpc, silentLogger } from '../../helpers/messages';
import { RawConnection } from '../../helpers/raw-connection';
import { SseReader } from '../../helpers/sse';

const INIT = rpc('initialize', {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'client', version: '0.0.1' },
});
const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (let cleanup = cleanups.pop(); cleanup !== undefined; cleanup = cleanups.pop()) await cleanup();
});

/** A router at /mcp of a fresh app, without a rate limit; `before` adds middleware in front of it. */
function makeApp(
  options: Partial<McpRouterOptions> = {},
  before?: (app: Express) => void,
): { app: Express; mcp: McpRouter } {
  const mcp = mcpRouter({
    name: 'head',
    version: '1.0.0',
    logger: silentLogger(),
    sessions: {},
    rateLimit: false,
    ...options,
  });
  cleanups.push(() => mcp.close());
  const app = express();
  before?.(app);
  app.use('/mcp', mcp);
  return { app, mcp };
}

async function listen(app: Express): Promise<{ url: string; port: number }> {
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/mcp`, port };
}

/** A raw connection to the app on `port`, closed after the test. */
function connect(port: number): RawConnection {
  const connection = new RawConnection(port);
  cleanups.push(() => connection.close());
  return connection;
}

async function initialize(target: Express | string, headers: Record<string, string> = {}): Promise<string> {
  const res = await request(target)
    .post(typeof target === 'string' ? '' : '/mcp')
    .set({ 'Content-Type': 'application/json', Accept: MCP_ACCEPT, ...headers })
    .send(JSON.stringify(INIT));
  expect(res.status).toBe(200);
  return res.headers['mcp-session-id'] as string;
}

function openStream(url: string, headers: Record<string, string>): Promise<Response> {
  return fetch(url, { headers: { Accept: 'text/event-stream', ...headers } });
}

describe('HEAD with a session', () => {
  it("answers a GET stream's headers and ends: its keep-alive connection serves the next request, and a real GET then gets its stream", async () => {
    const { app } = makeApp();
    const { url, port } = await listen(app);
    const id = await initialize(url);
    const connection = connect(port);
    const head = await connection.exchange('HEAD', { Accept: 'text/event-stream', 'Mcp-Session-Id': id });
    expect(head.status).toBe(200);
    expect(head.headers).toMatchObject(SSE_HEADERS);
    expect(head.body).toBe('');
    // The same socket is answered at once: the HEAD response ended.
    const ping = await connection.exchange(
      'POST',
      { 'Content-Type': 'application/json', Accept: MCP_ACCEPT, 'Mcp-Session-Id': id },
      JSON.stringify(rpc('ping', undefined, 2)),
    );
    expect(ping.status).toBe(200);
    expect(JSON.parse(ping.body)).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    // The HEAD left no stream on the session: a GET is the session's first, not a 409.
    const get = await connection.exchange('GET', { Accept: 'text/event-stream', 'Mcp-Session-Id': id });
    expect(get.status).toBe(200);
    expect(get.headers).toMatchObject(SSE_HEADERS);
  });

  it.each([
    ['a missing Accept: text/event-stream', 406, { Accept: 'application/json' }],
    ['a missing Mcp-Session-Id', 400, { Accept: 'text/event-stream', 'Mcp-Session-Id': undefined }],
    [
      'an unknown session',
      404,
      { Accept: 'text/event-stream', 'Mcp-Session-Id': '00000000-0000-4000-8000-000000000000' },
    ],
    ["another principal's session", 404, { Accept: 'text/event-stream', Authorization: 'Bearer bob-token' }],
  ] as const)('answers %s with the status and headers GET gets (%i), and no body', async (_name, status, override) => {
    const { app } = makeApp({
      auth: {
        tokens: [
          { token: 'alice-token', subject: 'alice' },
          { token: 'bob-token', subject: 'bob' },
        ],
      },
    });
    const id = await initialize(app, { Authorization: 'Bearer alice-token' });
    const headers: Record<string, string> = { Authorization: 'Bearer alice-token', 'Mcp-Session-Id': id };
    for (const [name, value] of Object.entries(override)) {
      if (value === undefined) delete headers[name];
      else headers[name] = value;
    }
    const get = await request(app).get('/mcp').set(headers);
    const head = await request(app).head('/mcp').set(headers);
    expect(get.status).toBe(status);
    expect(get.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.any(String) } });
    expect(head.status).toBe(status);
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    expect(head.text ?? '').toBe('');
  });

  it("answers 409, as GET does, while the session's GET stream is open, and that stream stays open", async () => {
    const { app, mcp } = makeApp();
    const { url, port } = await listen(app);
    const id = await initialize(url);
    const stream = await openStream(url, { 'Mcp-Session-Id': id });
    expect(stream.status).toBe(200);
    const events = new SseReader(stream.body as ReadableStream<Uint8Array>);
    cleanups.push(() => events.cancel());
    await events.next(); // the priming event
    const connection = connect(port);
    const head = await connection.exchange('HEAD', { Accept: 'text/event-stream', 'Mcp-Session-Id': id });
    expect(head.status).toBe(409);
    expect(head.headers['content-type']).toBe('application/json');
    // With Last-Event-ID a GET would resume, which never conflicts: 200, and nothing replayed or taken over.
    const resume = await connection.exchange('HEAD', {
      Accept: 'text/event-stream',
      'Mcp-Session-Id': id,
      'Last-Event-ID': 'no-such-event',
    });
    expect(resume.status).toBe(200);
    expect(resume.headers).toMatchObject(SSE_HEADERS);
    // The open stream still gets the session's notifications.
    mcp.tool({ name: 'late', description: 'Added after the HEADs', handler: () => 'ok' });
    expect(JSON.parse((await events.next())?.data ?? 'null')).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
    });
  });

  it('records no event, replays none and leaves no timer behind, even with Last-Event-ID', async () => {
    const eventStore = new MemoryEventStore();
    const append = jest.spyOn(eventStore, 'append');
    const replayAfter = jest.spyOn(eventStore, 'replayAfter');
    // A one-second keep-alive: a stream opened by the HEAD would hold an interval timer.
    const { app } = makeApp({ sessions: { eventStore }, keepAliveMs: 1_000 });
    const id = await initialize(app);
    // The initialize reply was JSON: nothing recorded so far.
    expect(append).not.toHaveBeenCalled();
    jest.useFakeTimers({
      doNotFake: ['nextTick', 'setImmediate', 'clearImmediate', 'queueMicrotask', 'hrtime', 'performance'],
    });
    try {
      const timers = jest.getTimerCount();
      for (const extra of [{}, { 'Last-Event-ID': 'abc.1' }]) {
        const head = await request(app)
          .head('/mcp')
          .set({ Accept: 'text/event-stream', 'Mcp-Session-Id': id, ...extra });
        expect(head.status).toBe(200);
      }
      expect(jest.getTimerCount()).toBe(timers);
    } finally {
      jest.useRealTimers();
    }
    expect(append).not.toHaveBeenCalled();
    expect(replayAfter).not.toHaveBeenCalled();
  });
});

describe('HEAD without sessions (sessions: false)', () => {
  it('gets the 405 with Allow: POST that GET gets, and its connection serves the next request', async () => {
    const { app } = makeApp({ sessions: false });
    const { port } = await listen(app);
    const connection = connect(port);
    const get = await connection.exchange('GET', { Accept: 'text/event-stream' });
    const head = await connection.exchange('HEAD', { Accept: 'text/event-stream' });
    expect(get.status).toBe(405);
    expect(head.status).toBe(405);
    expect(head.headers.allow).toBe('POST');
    // The length of the 405 body GET would have had (its message names the method).
    expect(Number(head.headers['content-length'])).toBe(
      Buffer.byteLength(get.body.replace('GET is not served', 'HEAD is not served')),
    );
    expect(head.body).toBe('');
    const ping = await connection.exchange(
      'POST',
      { 'Content-Type': 'application/json', Accept: MCP_ACCEPT },
      JSON.stringify(rpc('ping')),
    );
    expect(ping.status).toBe(200);
  });
});

/** Lets every pending promise chain settle (microtasks all run before setImmediate). */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** A session store whose reads wait while held, so a test can hang up in the middle of one. */
class HeldSessionStore extends MemorySessionStore {
  private gate: Promise<void> | undefined;
  private entered: (() => void) | undefined;

  /** Holds the next reads; resolves `reading` once one has started, and returns the release. */
  hold(): { reading: Promise<void>; release: () => void } {
    let release = (): void => undefined;
    this.gate = new Promise((resolve) => (release = resolve));
    const reading = new Promise<void>((resolve) => (this.entered = resolve));
    return {
      reading,
      release: () => {
        this.gate = undefined;
        release();
      },
    };
  }

  override async get(id: string): Promise<SessionRecord | undefined> {
    this.entered?.();
    await this.gate;
    return super.get(id);
  }
}

describe('a GET whose client hangs up before its stream opens', () => {
  /** A listening app whose session reads can be held, with a spy on what its event store records. */
  async function serveHeld(): Promise<{
    url: string;
    mcp: McpRouter;
    append: jest.SpyInstance;
    hangUpDuringLoad: (headers: Record<string, string>) => Promise<void>;
  }> {
    const store = new HeldSessionStore();
    const eventStore = new MemoryEventStore();
    const append = jest.spyOn(eventStore, 'append');
    let onClose: (() => void) | undefined;
    const { app, mcp } = makeApp({ sessions: { store, eventStore } }, (host) =>
      host.use((req, res, next) => {
        if (req.method === 'GET') res.on('close', () => onClose?.());
        next();
      }),
    );
    const { url } = await listen(app);
    /** Sends a GET, hangs up while its session is read, then lets the read finish and the handler run to its end. */
    async function hangUpDuringLoad(headers: Record<string, string>): Promise<void> {
      const { reading, release } = store.hold();
      const closed = new Promise<void>((resolve) => (onClose = resolve));
      const abort = new AbortController();
      const get = fetch(url, { headers: { Accept: 'text/event-stream', ...headers }, signal: abort.signal }).catch(
        () => undefined,
      );
      await reading;
      abort.abort();
      await Promise.all([get, closed]);
      release();
      await settle();
    }
    return { url, mcp, append, hangUpDuringLoad };
  }

  it('attaches nothing to the session: no stream, no priming event recorded', async () => {
    const { url, mcp, append, hangUpDuringLoad } = await serveHeld();
    const id = await initialize(url);
    await hangUpDuringLoad({ 'Mcp-Session-Id': id });
    expect(append).not.toHaveBeenCalled();
    // No standalone stream was made for it, so a change is recorded for no one.
    mcp.tool({ name: 'late', description: 'Added after the GET left', handler: () => 'ok' });
    await settle();
    expect(append).not.toHaveBeenCalled();
  });

  it("does not take the place of the session's open stream when it came to resume it", async () => {
    const { url, mcp, hangUpDuringLoad } = await serveHeld();
    const id = await initialize(url);
    const stream = await openStream(url, { 'Mcp-Session-Id': id });
    const events = new SseReader(stream.body as ReadableStream<Uint8Array>);
    cleanups.push(() => events.cancel());
    const priming = await events.next();
    expect(priming?.id).toEqual(expect.any(String));
    await hangUpDuringLoad({ 'Mcp-Session-Id': id, 'Last-Event-ID': priming?.id ?? '' });
    // The first stream still has its connection, and still gets the session's notifications.
    mcp.tool({ name: 'late', description: 'Added after the resuming GET left', handler: () => 'ok' });
    expect(JSON.parse((await events.next())?.data ?? 'null')).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
    });
  });
});
