// followRemoteStream: following a stream another instance records, through a shared store (here a memory store with marks), over a real HTTP connection.

import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { SseConnection, type SseOptions } from '../../../lib/edge/http/sse';
import type { JsonRpcId, JsonRpcMessage } from '../../../lib/core/jsonrpc/types';
import { MemoryEventStore } from '../../../lib/edge/store/memory-event-store';
import type { EventStore } from '../../../lib/edge/store/session-stores';
import { followRemoteStream, REMOTE_POLL_MS } from '../../../lib/edge/transport/remote-stream';
import { messagesOf, SseReader } from '../../helpers/sse';
import { silentLogger } from '../../helpers/messages';
import { within } from '../../helpers/events';

/** A memory event store with the optional stream marks a shared store has, set by the test. */
class MarkedStore extends MemoryEventStore implements EventStore {
  state: { open: boolean; requestIds: JsonRpcId[] } | undefined = { open: true, requestIds: [1] };
  reads = 0;
  failing = false;
  private readers: Array<() => void> = [];
  async streamState(): Promise<{ open: boolean; requestIds: JsonRpcId[] } | undefined> {
    this.reads++;
    for (const reader of this.readers.splice(0)) reader();
    if (this.failing) throw new Error('the store is down');
    return this.state;
  }
  /** Resolves after the follower's next `count` reads of the stream's marks (one a poll). */
  async nextReads(count = 1): Promise<void> {
    for (let read = 0; read < count; read++) await new Promise<void>((resolve) => this.readers.push(resolve));
  }
}

const progress = (n: number): JsonRpcMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken: 't', progress: n },
});
const result = (id: JsonRpcId): JsonRpcMessage => ({ jsonrpc: '2.0', id, result: { content: [] } });

let server: Server | undefined;
let followed: Promise<void> | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  await followed;
  server = undefined;
});

/** Serves one follower of stream 'S' of session 's' from `lastEventId` (its connection bounded as `sse` says), and listens. */
async function serveFollower(
  store: MarkedStore,
  lastEventId: string,
  limitMs?: number,
  sse: Partial<SseOptions> = {},
): Promise<number> {
  server = createServer((_req, res) => {
    const connection = new SseConnection(
      res,
      { keepAliveMs: false, retryMs: 1000, streamBufferLimit: 1024 * 1024, logger: console, ...sse },
      {},
    );
    followed = store.replayAfter('s', lastEventId).then((replay) =>
      followRemoteStream(connection, {
        events: store,
        sessionId: 's',
        streamId: 'S',
        requestIds: store.state?.requestIds ?? [],
        replayed: replay?.events ?? [],
        lastEventId,
        ...(limitMs === undefined ? {} : { limitMs }),
      }),
    );
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** Serves one follower of stream 'S' of session 's' from `lastEventId`, and reads it. */
async function follow(store: MarkedStore, lastEventId: string, limitMs?: number): Promise<SseReader> {
  const port = await serveFollower(store, lastEventId, limitMs);
  return new SseReader((await fetch(`http://127.0.0.1:${port}/`)).body as ReadableStream<Uint8Array>);
}

it('writes the recorded events, then each new one once and in order, and ends after the response', async () => {
  const store = new MarkedStore();
  const first = await store.append('s', 'S', null);
  await store.append('s', 'S', progress(1));
  const reader = await follow(store, first);
  expect(messagesOf(await reader.take(1))).toEqual([progress(1)]);
  for (let n = 2; n <= 4; n++) {
    await store.append('s', 'S', progress(n));
    await store.nextReads();
  }
  await store.append('s', 'S', result(1));
  const rest = await reader.rest();
  expect(messagesOf(rest)).toEqual([progress(2), progress(3), progress(4), result(1)]);
  expect(rest.map((event) => event.id)).toEqual(['S.3', 'S.4', 'S.5', 'S.6']);
});

it("ends with an error response for each unanswered request once the owner's heartbeat lapses, after what it recorded", async () => {
  const store = new MarkedStore();
  store.state = { open: true, requestIds: [1, 'two'] };
  const first = await store.append('s', 'S', null);
  const reader = await follow(store, first);
  await store.append('s', 'S', result('two'));
  await store.append('s', 'S', progress(1));
  store.state = { open: false, requestIds: [1, 'two'] };
  const events = await reader.rest();
  expect(messagesOf(events)).toEqual([
    result('two'),
    progress(1),
    {
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32603, message: expect.stringMatching(/instance .* stopped/) as unknown },
    },
  ]);
  expect(events.at(-1)?.id).toBeUndefined();
  // Nothing recorded for the error: a later resume replays only what the owner recorded.
  expect((await store.replayAfter('s', first))?.events).toHaveLength(2);
});

it('ends (without an error) when the stream finished between two reads: its response is in the store', async () => {
  const store = new MarkedStore();
  const first = await store.append('s', 'S', null);
  const reader = await follow(store, first);
  await store.append('s', 'S', result(1));
  store.state = undefined;
  expect(messagesOf(await reader.rest())).toEqual([result(1)]);
});

it('stops reading the store once the client hangs up', async () => {
  const store = new MarkedStore();
  const reader = await follow(store, await store.append('s', 'S', null));
  await store.nextReads(2);
  await reader.cancel();
  await followed;
  const reads = store.reads;
  server?.closeAllConnections();
  server?.close();
  // The clock: a second follower's three polls, past the interval at which the first would have read again.
  const clock = new MarkedStore();
  await follow(clock, await clock.append('s', 'S', null));
  await clock.nextReads(3);
  expect(store.reads).toBe(reads);
});

it('ends the connection when the store fails (the client resumes again), and after limitMs at most', async () => {
  const store = new MarkedStore();
  const failing = await follow(store, await store.append('s', 'S', null));
  store.failing = true;
  expect(await failing.rest()).toEqual([]);
  await followed;
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));

  const healthy = new MarkedStore();
  const started = Date.now();
  expect(await (await follow(healthy, await healthy.append('s', 'S', null), REMOTE_POLL_MS * 2)).rest()).toEqual([]);
  expect(Date.now() - started).toBeLessThan(REMOTE_POLL_MS * 8);
});

it('cuts a follower whose client stops reading: what is newly recorded counts toward streamBufferLimit', async () => {
  const store = new MarkedStore({ maxBytesPerSession: 256 * 1024 * 1024, maxBytes: 256 * 1024 * 1024 });
  const logger = silentLogger();
  const limit = 1024 * 1024;
  const port = await serveFollower(store, await store.append('s', 'S', null), undefined, {
    streamBufferLimit: limit,
    logger,
  });
  const client = connect(port, '127.0.0.1');
  client.on('error', () => undefined);
  client.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  // Headers only, then no more reading: the kernel's buffers fill, then the server's.
  await new Promise((resolve) => client.once('data', resolve));
  client.pause();
  // Each poll brings 900 KB, under the bound: a client that reads is never cut, one that does not is.
  const large = (n: number): JsonRpcMessage => ({
    jsonrpc: '2.0',
    method: 'notifications/progress',
    params: { progressToken: 't', progress: n, message: 'z'.repeat(100_000) },
  });
  // The follower cut: told by the logger, as a poll is by the store's read.
  const cut = new Promise<void>((resolve) => logger.warn.mockImplementation(() => resolve()));
  let n = 0;
  while (logger.warn.mock.calls.length === 0) {
    if (n > 640) throw new Error('64 MB followed, and the follower was never cut');
    for (let i = 0; i < 9; i++) await store.append('s', 'S', large(++n));
    await within(Promise.race([store.nextReads(), cut]), 'a poll of the follower');
  }
  await followed;
  expect(n).toBeGreaterThan(9);
  expect(logger.warn).toHaveBeenCalledTimes(1);
  expect(logger.warn).toHaveBeenCalledWith(expect.stringContaining(`streamBufferLimit: ${limit}`));
  client.destroy();
  // Polls of 150 ms until the kernel's buffers are full (several MB on loopback).
}, 30_000);
