// Streams against hostile or careless clients (issue 29): clients that stop reading (every SSE stream is cut at
// `streamBufferLimit`, and a 2025 client resumes without loss), the router-wide cap on listen streams, and clients
// that ask for `Connection: close` (or speak HTTP/1.0) on an SSE answer. Real sockets throughout.

import type { Server, ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import express from 'express';
import { MemoryEventStore, mcpRouter, type McpRouter, type McpRouterOptions } from '../../lib';
import { MCP_ACCEPT, notification, rpc, silentLogger } from '../helpers/messages';
import { envelope, MODERN } from '../helpers/modern';
import { listenLocally } from '../helpers/ports';
import { RawConnection } from '../helpers/raw-connection';
import { messageOf, SseReader, type SseEvent } from '../helpers/sse';

// Clients are stalled until the kernel's socket buffers (several MB on loopback) are full: generous, on a shared machine.
jest.setTimeout(60_000);

/** The bound every router of this file is given: small, so a stalled client reaches it soon after the kernel's buffers. */
const LIMIT = 128 * 1024;
/** A subscribed URI near the 1,024-character cap, so each update is an event of about 1.1 KB. */
const URI = `docs://${'x'.repeat(1_000)}`;
/** One event as written: the largest a cut may let through beyond the bound (with its framing). */
const EVENT_BYTES = 1_400;
/** Updates pushed at once, between two turns of the event loop. */
const BATCH = 100;
/** Past this many updates without a cut, a stream was never bounded. */
const MAX_UPDATES = 40_000;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (let cleanup = cleanups.pop(); cleanup !== undefined; cleanup = cleanups.pop()) await cleanup();
});

interface Served {
  readonly port: number;
  readonly url: string;
  readonly mcp: McpRouter;
  readonly logger: ReturnType<typeof silentLogger>;
  readonly server: Server;
  /** The server's side of every request, in arrival order: what it holds unsent for each client. */
  readonly responses: ServerResponse[];
}

/** A router on a real port with a resource at {@link URI}; every server-side response is kept for measuring. */
async function serve(options: Partial<McpRouterOptions> = {}, setup?: (mcp: McpRouter) => void): Promise<Served> {
  const logger = silentLogger();
  const mcp = mcpRouter({
    name: 'streams',
    version: '1.0.0',
    logger,
    keepAliveMs: false,
    streamBufferLimit: LIMIT,
    ...options,
  });
  mcp.resource({ uri: URI, name: 'long', read: () => 'long' });
  setup?.(mcp);
  const app = express();
  const responses: ServerResponse[] = [];
  app.use((_req, res, next) => {
    responses.push(res);
    next();
  });
  app.use('/mcp', mcp);
  const { server, port, close } = await listenLocally(app);
  cleanups.push(close, () => mcp.close());
  return { port, url: `http://127.0.0.1:${port}/mcp`, mcp, logger, server, responses };
}

/** One HTTP/1.1 request as bytes. */
function requestText(method: string, headers: Record<string, string>, body = ''): string {
  const all = {
    Host: '127.0.0.1',
    ...headers,
    ...(body === '' ? {} : { 'Content-Length': String(Buffer.byteLength(body)) }),
  };
  return `${method} /mcp HTTP/1.1\r\n${Object.entries(all)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\r\n')}\r\n\r\n${body}`;
}

/** A client on a raw socket that reads the start of its answer, then stops reading: the kernel's buffers fill, then the server's. */
class StalledClient {
  private text = '';
  private wake: (() => void) | undefined;
  private readonly socket: Socket;
  /** Resolves once the socket is closed (read to its end after {@link readToEnd}). */
  readonly closed: Promise<void>;

  constructor(port: number, request: string) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.setEncoding('latin1');
    this.socket.on('data', (text: string) => {
      this.text += text;
      this.wake?.();
    });
    this.socket.on('error', () => undefined);
    this.closed = new Promise((resolve) => this.socket.once('close', () => resolve()));
    this.socket.write(request);
    cleanups.push(() => void this.socket.destroy());
  }

  /** Reads until `fragment` arrived, then stops reading. */
  async readUntilThenStall(fragment: string): Promise<void> {
    while (!this.text.includes(fragment)) await new Promise<void>((resolve) => (this.wake = resolve));
    this.socket.pause();
  }

  /** Reads again, to the end the server wrote: the SSE events that arrived whole (the chunked body decoded). */
  async readToEnd(): Promise<SseEvent[]> {
    this.socket.resume();
    await this.closed;
    return new SseReader(new Response(dechunk(this.text)).body as ReadableStream<Uint8Array>).rest();
  }
}

/** The body of a chunked HTTP response, as far as it arrived (a cut mid-chunk keeps the part that came). */
function dechunk(response: string): string {
  let at = response.indexOf('\r\n\r\n') + 4;
  let body = '';
  while (at < response.length) {
    const lineEnd = response.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = parseInt(response.slice(at, lineEnd), 16);
    if (!(size > 0)) break;
    body += response.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.from(body, 'latin1').toString('utf8');
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const ended = (res: ServerResponse): boolean => res.destroyed || res.writableEnded;

/**
 * Pushes resource updates in batches until every one of `streams` was ended by the server; after every batch, checks
 * that none holds more than the bound plus one event unsent. Returns how many updates were pushed.
 */
async function pushUntilCut(served: Served, streams: readonly ServerResponse[]): Promise<number> {
  let pushed = 0;
  while (!streams.every(ended)) {
    if (pushed >= MAX_UPDATES)
      throw new Error(
        `${MAX_UPDATES} updates pushed, and ${streams.filter((res) => !ended(res)).length} streams still open`,
      );
    for (let i = 0; i < BATCH; i++) served.mcp.notifyResourceUpdated(URI);
    pushed += BATCH;
    await turn();
    const held = streams.map((res) => res.writableLength);
    for (const bytes of held) expect(bytes).toBeLessThanOrEqual(LIMIT + EVENT_BYTES);
  }
  return pushed;
}

/** The sequence number of an event id (`<stream>.<n>`, as MemoryEventStore makes them). */
const seqOf = (id: string | undefined): number => Number(id?.slice(id.lastIndexOf('.') + 1));

/** A 2025-11-25 session over fetch: initialized, and subscribed to {@link URI}. */
async function session(url: string): Promise<string> {
  const headers = { 'Content-Type': 'application/json', Accept: MCP_ACCEPT };
  const init = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify(
      rpc('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'slow', version: '1' },
      }),
    ),
  });
  const id = init.headers.get('mcp-session-id') as string;
  await init.text();
  const inSession = { ...headers, 'Mcp-Session-Id': id, 'MCP-Protocol-Version': '2025-11-25' };
  await (
    await fetch(url, {
      method: 'POST',
      headers: inSession,
      body: JSON.stringify(notification('notifications/initialized')),
    })
  ).text();
  await (
    await fetch(url, {
      method: 'POST',
      headers: inSession,
      body: JSON.stringify(rpc('resources/subscribe', { uri: URI }, 2)),
    })
  ).text();
  return id;
}

/** Resumes a 2025 stream with `Last-Event-ID` and reads its events up to the one numbered `lastSeq`. */
async function resume(url: string, sessionId: string, lastEventId: string, lastSeq: number): Promise<SseEvent[]> {
  const headers = {
    Accept: 'text/event-stream',
    'Mcp-Session-Id': sessionId,
    'MCP-Protocol-Version': '2025-11-25',
    'Last-Event-ID': lastEventId,
  };
  const res = await fetch(url, { headers });
  expect(res.status).toBe(200);
  const reader = new SseReader(res.body as ReadableStream<Uint8Array>);
  cleanups.push(() => reader.cancel());
  const events: SseEvent[] = [];
  while (events.length === 0 || seqOf(events[events.length - 1]?.id) < lastSeq) {
    const event = await reader.next();
    if (event === undefined) break;
    events.push(event);
  }
  return events;
}

/** An event store that keeps everything these tests push, so a resumption can be checked event by event. */
const roomyEvents = (): MemoryEventStore =>
  new MemoryEventStore({
    maxEventsPerStream: 100_000,
    maxBytesPerSession: 512 * 1024 * 1024,
    maxBytes: 512 * 1024 * 1024,
  });

describe('a client that stops reading', () => {
  it('four listen streams are each cut at streamBufferLimit, never holding more than it plus one event; each cut is logged once and frees its place', async () => {
    const served = await serve({ sessions: false, listen: { maxStreamsPerPrincipal: 4 } });
    const listen = (id: number): string =>
      requestText(
        'POST',
        {
          'Content-Type': 'application/json',
          Accept: MCP_ACCEPT,
          'MCP-Protocol-Version': MODERN,
          'Mcp-Method': 'subscriptions/listen',
        },
        JSON.stringify(
          rpc('subscriptions/listen', { notifications: { resourceSubscriptions: [URI] }, _meta: envelope() }, id),
        ),
      );
    const clients = [1, 2, 3, 4].map((id) => new StalledClient(served.port, listen(id)));
    for (const client of clients) await client.readUntilThenStall('notifications/subscriptions/acknowledged');
    const streams = served.responses.slice(-4);
    const pushed = await pushUntilCut(served, streams);
    // Enough was pushed that only a bound could have kept it from the heap: several MB per stream.
    expect(pushed * EVENT_BYTES).toBeGreaterThan(LIMIT);
    expect(served.logger.warn).toHaveBeenCalledTimes(4);
    expect(served.logger.warn).toHaveBeenCalledWith(expect.stringContaining(`streamBufferLimit: ${LIMIT}`));
    // A cut stream released its place: the caller may listen again, and later updates cost the cut streams nothing.
    const again = await fetch(served.url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: MCP_ACCEPT,
        'MCP-Protocol-Version': MODERN,
        'Mcp-Method': 'subscriptions/listen',
      },
      body: JSON.stringify(
        rpc('subscriptions/listen', { notifications: { resourceSubscriptions: [URI] }, _meta: envelope() }, 5),
      ),
    });
    cleanups.push(() => again.body?.cancel());
    expect(again.status).toBe(200);
    served.mcp.notifyResourceUpdated(URI);
    expect(served.logger.warn).toHaveBeenCalledTimes(4);
  });

  it('a 2025 GET stream is cut, and a GET with Last-Event-ID replays every event the client did not read, even past the bound', async () => {
    const served = await serve({ sessions: { eventStore: roomyEvents() } });
    const sessionId = await session(served.url);
    const client = new StalledClient(
      served.port,
      requestText('GET', {
        Accept: 'text/event-stream',
        'Mcp-Session-Id': sessionId,
        'MCP-Protocol-Version': '2025-11-25',
      }),
    );
    await client.readUntilThenStall('data: \n\n');
    const stream = served.responses[served.responses.length - 1] as ServerResponse;
    let pushed = await pushUntilCut(served, [stream]);
    expect(served.logger.warn).toHaveBeenCalledTimes(1);
    // Recorded while the client is away: more than the bound, which a resumption must replay whole.
    for (let i = 0; i < 2 * Math.ceil(LIMIT / EVENT_BYTES); i++) served.mcp.notifyResourceUpdated(URI);
    pushed += 2 * Math.ceil(LIMIT / EVENT_BYTES);
    const read = await client.readToEnd();
    const last = read[read.length - 1] as SseEvent;
    const replayed = await resume(served.url, sessionId, last.id as string, pushed + 1);
    // The priming event is 1, the updates 2 … pushed + 1: each exactly once, in order, across the two connections.
    expect([...read, ...replayed].map((event) => seqOf(event.id))).toEqual(
      Array.from({ length: pushed + 1 }, (_, i) => i + 1),
    );
    expect(messageOf(replayed[replayed.length - 1] as SseEvent)).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri: URI },
    });
    expect(served.logger.warn).toHaveBeenCalledTimes(1);
  });

  it('a 2025 POST stream is cut without cancelling its request; the client resumes to the end and the response', async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let aborted = false;
    let emitted = 0;
    let mostHeld = 0;
    let capped: () => void = () => undefined;
    const reachedCap = new Promise<void>((resolve) => (capped = resolve));
    const served: Served = await serve({ sessions: { eventStore: roomyEvents() } }, (mcp) => {
      mcp.tool({
        name: 'chatty',
        description: 'Reports progress until released',
        handler: async (_args, ctx) => {
          ctx.signal.addEventListener('abort', () => (aborted = true));
          let done = false;
          void released.then(() => (done = true));
          const stream = served.responses[served.responses.length - 1] as ServerResponse;
          while (!done) {
            if (emitted >= MAX_UPDATES) {
              capped();
              break;
            }
            for (let i = 0; i < BATCH; i++) void ctx.progress(++emitted, undefined, URI);
            await turn();
            mostHeld = Math.max(mostHeld, stream.writableLength);
          }
          return 'finished';
        },
      });
    });
    const sessionId = await session(served.url);
    const call = rpc('tools/call', { name: 'chatty', arguments: {}, _meta: { progressToken: 'p' } }, 9);
    const headers = {
      'Content-Type': 'application/json',
      Accept: MCP_ACCEPT,
      'Mcp-Session-Id': sessionId,
      'MCP-Protocol-Version': '2025-11-25',
    };
    const client = new StalledClient(served.port, requestText('POST', headers, JSON.stringify(call)));
    await client.readUntilThenStall('data: \n\n');
    const stream = served.responses[served.responses.length - 1] as ServerResponse;
    // The cut, or every update pushed without one.
    await Promise.race([new Promise<void>((resolve) => stream.once('close', () => resolve())), reachedCap]);
    expect(mostHeld).toBeLessThanOrEqual(LIMIT + EVENT_BYTES);
    expect(stream.destroyed).toBe(true);
    expect(served.logger.warn).toHaveBeenCalledTimes(1);
    expect(aborted).toBe(false);
    release();
    const read = await client.readToEnd();
    const replayed = await resume(served.url, sessionId, (read[read.length - 1] as SseEvent).id as string, emitted + 2);
    const events = [...read, ...replayed];
    // Priming, every progress notification, then the response: each exactly once, in order.
    expect(events.map((event) => seqOf(event.id))).toEqual(Array.from({ length: emitted + 2 }, (_, i) => i + 1));
    expect(messageOf(events[events.length - 1] as SseEvent)).toMatchObject({
      id: 9,
      result: { content: [{ type: 'text', text: 'finished' }] },
    });
  });

  it('a client that reads gets a response and a replay larger than the bound, uncut', async () => {
    const large = 'y'.repeat(4 * LIMIT);
    const served = await serve({ sessions: { eventStore: roomyEvents() }, responseMode: 'sse' }, (mcp) => {
      mcp.tool({ name: 'large', description: 'A result four times the bound', handler: () => large });
    });
    const sessionId = await session(served.url);
    const headers = {
      'Content-Type': 'application/json',
      Accept: MCP_ACCEPT,
      'Mcp-Session-Id': sessionId,
      'MCP-Protocol-Version': '2025-11-25',
    };
    const res = await fetch(served.url, {
      method: 'POST',
      headers,
      body: JSON.stringify(rpc('tools/call', { name: 'large', arguments: {} }, 3)),
    });
    const events = await new SseReader(res.body as ReadableStream<Uint8Array>).rest();
    expect(messageOf(events[events.length - 1] as SseEvent)).toMatchObject({
      id: 3,
      result: { content: [{ text: large }] },
    });
    // The finished stream replayed from its priming event: the response again, whole.
    const replay = await fetch(served.url, {
      headers: {
        Accept: 'text/event-stream',
        'Mcp-Session-Id': sessionId,
        'MCP-Protocol-Version': '2025-11-25',
        'Last-Event-ID': events[0]?.id as string,
      },
    });
    expect(
      messageOf((await new SseReader(replay.body as ReadableStream<Uint8Array>).rest())[0] as SseEvent),
    ).toMatchObject({ id: 3 });
    expect(served.logger.warn).not.toHaveBeenCalled();
  });
});

describe('the router-wide cap on listen streams', () => {
  const listenBody = (id: number): string =>
    JSON.stringify(
      rpc('subscriptions/listen', { notifications: { resourceSubscriptions: [URI] }, _meta: envelope() }, id),
    );
  const listenAs = (url: string, token: string, id: number): Promise<Response> =>
    fetch(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: MCP_ACCEPT,
        'MCP-Protocol-Version': MODERN,
        'Mcp-Method': 'subscriptions/listen',
        Authorization: `Bearer ${token}`,
      },
      body: listenBody(id),
    });

  it('answers 503 with the request id and names listen.maxStreams once the router holds that many, whoever asks; a hang-up frees a place', async () => {
    const served = await serve({
      sessions: false,
      auth: { tokens: ['alice', 'bob', 'carol'] },
      listen: { maxStreams: 2 },
    });
    const alice = await listenAs(served.url, 'alice', 1);
    const bob = await listenAs(served.url, 'bob', 2);
    expect([alice.status, bob.status]).toEqual([200, 200]);
    cleanups.push(() => bob.body?.cancel());
    const refused = await listenAs(served.url, 'carol', 3);
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32000, message: expect.stringContaining('listen.maxStreams') },
    });
    const closed = new Promise<void>((resolve) => served.responses[0]?.once('close', () => resolve()));
    await alice.body?.cancel();
    await closed;
    const admitted = await listenAs(served.url, 'carol', 4);
    cleanups.push(() => admitted.body?.cancel());
    expect(admitted.status).toBe(200);
  });
});

describe('a client that asks to close the connection', () => {
  const initialize = async (url: string): Promise<string> => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: MCP_ACCEPT },
      body: JSON.stringify(
        rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } }),
      ),
    });
    await res.text();
    return res.headers.get('mcp-session-id') as string;
  };

  it.each([
    ['HTTP/1.1 with Connection: close', '1.1', { Connection: 'close' }],
    ['HTTP/1.0 without keep-alive', '1.0', {}],
  ] as const)(
    'a HEAD of the GET stream (%s) is answered Connection: close, and the server closes the socket',
    async (_name, version, extra) => {
      const served = await serve({ sessions: {} });
      // Longer than the test: a socket the server kept would stay open.
      served.server.keepAliveTimeout = 120_000;
      const sessionId = await initialize(served.url);
      const connection = new RawConnection(served.port, version);
      cleanups.push(() => connection.close());
      const head = await connection.exchange('HEAD', {
        Accept: 'text/event-stream',
        'Mcp-Session-Id': sessionId,
        'MCP-Protocol-Version': '2025-11-25',
        ...extra,
      });
      expect(head.status).toBe(200);
      expect(head.headers['content-type']).toBe('text/event-stream');
      expect(head.headers.connection).toBe('close');
      await connection.closed;
    },
  );

  it('an SSE reply to a POST with Connection: close ends with the socket closed', async () => {
    const served = await serve({ sessions: false, responseMode: 'sse' }, (mcp) => {
      mcp.tool({ name: 'echo', description: 'Echoes', handler: () => 'echoed' });
    });
    served.server.keepAliveTimeout = 120_000;
    const connection = new RawConnection(served.port);
    cleanups.push(() => connection.close());
    const body = JSON.stringify(rpc('tools/call', { name: 'echo', arguments: {} }));
    connection.sendHead(
      'POST',
      {
        'Content-Type': 'application/json',
        Accept: MCP_ACCEPT,
        'MCP-Protocol-Version': '2025-11-25',
        Connection: 'close',
        'Content-Length': Buffer.byteLength(body),
      },
      body,
    );
    const reply = await connection.response('POST');
    expect(reply.headers['content-type']).toBe('text/event-stream');
    expect(reply.headers.connection).toBe('close');
    await connection.closed;
  });

  it('a keep-alive client is still answered Connection: keep-alive on an SSE reply', async () => {
    const served = await serve({ sessions: false, responseMode: 'sse' }, (mcp) => {
      mcp.tool({ name: 'echo', description: 'Echoes', handler: () => 'echoed' });
    });
    const connection = new RawConnection(served.port);
    cleanups.push(() => connection.close());
    const headers = { 'Content-Type': 'application/json', Accept: MCP_ACCEPT, 'MCP-Protocol-Version': '2025-11-25' };
    const first = await connection.exchange('POST', headers, JSON.stringify(rpc('ping')));
    expect(first.headers.connection).toBe('keep-alive');
    expect(first.headers['transfer-encoding']).toBe('chunked');
  });
});
