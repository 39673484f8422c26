// Resuming a POST stream through another instance (separate processes, one real Redis): live events follow the recorded ones; a killed owner's requests get an error, never a hang.

import { SseReader, type SseEvent } from '../../helpers/sse';
import { startCluster, type Cluster, type Instance } from './cluster/cluster';
import { startRedis, type RedisServer } from './redis-server';
import { until } from '../../helpers/until';

jest.setTimeout(60_000);

let redis: RedisServer;
const clusters: Cluster[] = [];
const readers: SseReader[] = [];

beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  await Promise.all(readers.splice(0).map((reader) => reader.cancel()));
  await Promise.all(clusters.splice(0).map((cluster) => cluster.close()));
});
afterAll(async () => {
  await redis?.close();
});

const VERSION = '2025-11-25';
const urlOf = (instance: Instance): string => `http://127.0.0.1:${instance.port}/mcp`;

/** A fresh cluster for each test: the one that kills an instance leaves the others theirs. */
async function cluster(options: { maxStreams?: number } = {}): Promise<{ a: Instance; b: Instance }> {
  const started = await startCluster(redis.url, options);
  clusters.push(started);
  const [a, b] = started.instances as [Instance, Instance];
  return { a, b };
}

function reader(res: Response): SseReader {
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  const sse = new SseReader(res.body as ReadableStream<Uint8Array>);
  readers.push(sse);
  return sse;
}

/** A 2025-11-25 session made by raw requests on `instance`: the headers of its later requests. */
async function initialize(instance: Instance): Promise<Record<string, string>> {
  const res = await fetch(urlOf(instance), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'resume-test', version: '1.0.0' } },
    }),
  });
  expect(res.status).toBe(200);
  await res.text();
  const headers = { 'mcp-session-id': res.headers.get('mcp-session-id') as string, 'mcp-protocol-version': VERSION };
  const initialized = await fetch(urlOf(instance), {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  expect(initialized.status).toBe(202);
  return headers;
}

/** Calls `slow_steps` on `instance`; the POST's stream ends after step 1 (the tool closes it): its events. */
async function startSlowSteps(
  instance: Instance,
  headers: Record<string, string>,
  steps: number,
  delayMs: number,
): Promise<SseEvent[]> {
  const res = await fetch(urlOf(instance), {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'slow_steps', arguments: { steps, delayMs }, _meta: { progressToken: 'p7' } },
    }),
  });
  return reader(res).rest();
}

async function resume(instance: Instance, headers: Record<string, string>, lastEventId: string): Promise<SseReader> {
  return reader(
    await fetch(urlOf(instance), {
      headers: { ...headers, accept: 'text/event-stream', 'last-event-id': lastEventId },
    }),
  );
}

const messages = (events: readonly SseEvent[]): Record<string, unknown>[] =>
  events.filter((event) => event.data !== '').map((event) => JSON.parse(event.data) as Record<string, unknown>);
const progressOf = (message: Record<string, unknown>): unknown =>
  (message.params as { progress?: unknown } | undefined)?.progress;

it('a client resuming through B a stream A still runs gets the recorded events, then the live ones and the result', async () => {
  const { a, b } = await cluster();
  const headers = await initialize(a);
  const posted = await startSlowSteps(a, headers, 5, 300);
  // The priming event, then step 1: the tool closed the stream after it.
  expect(posted).toHaveLength(2);
  expect(posted[0]?.data).toBe('');
  expect(progressOf(messages(posted)[0] as Record<string, unknown>)).toBe(1);

  const resumed = await resume(b, headers, posted[0]?.id as string);
  const started = Date.now();
  const events = await resumed.rest();
  const got = messages(events);
  // Step 1 again (recorded after the id resumed from), steps 2–5 as they happened on A, then A's result: in order, once each.
  expect(got.slice(0, -1).map(progressOf)).toEqual([1, 2, 3, 4, 5]);
  expect(got.at(-1)).toMatchObject({ id: 7, result: { structuredContent: { instance: 'A', steps: 5 } } });
  expect(
    events.every(
      (event) => event.id !== undefined && event.id.startsWith((posted[0]?.id as string).split('.')[0] as string),
    ),
  ).toBe(true);
  expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
  // Live: the connection stayed open while A worked (four steps of 300 ms), and ended after the result.
  expect(Date.now() - started).toBeGreaterThan(600);
  expect(a.output()).toContain('A slow_steps started');
  expect(b.output()).not.toContain('slow_steps started');

  // Once the stream finished, resuming it from its last event through either instance ends at once, with nothing more.
  for (const instance of [a, b])
    expect(await (await resume(instance, headers, events.at(-1)?.id as string)).rest()).toEqual([]);
});

it('when A is killed mid-call, the client following through B gets what was recorded, then a JSON-RPC error for the request', async () => {
  const { a, b } = await cluster();
  const headers = await initialize(a);
  const posted = await startSlowSteps(a, headers, 1_000, 200);
  const resumed = await resume(b, headers, posted[1]?.id as string);
  // Live steps arrive through B while A runs.
  const live = messages(await resumed.take(2));
  expect(live.map(progressOf)).toEqual([2, 3]);

  await a.kill('SIGKILL');
  const killedAt = Date.now();
  const rest = await resumed.rest();
  const tail = messages(rest);
  const error = tail.at(-1) as { id: unknown; error: { code: number; message: string } };
  // Within a few seconds (the owner's heartbeat lapses in three), never a hang.
  expect(Date.now() - killedAt).toBeLessThan(6_000);
  expect(error.id).toBe(7);
  expect(error.error.code).toBe(-32603);
  expect(error.error.message).toMatch(/instance .* stopped/);
  // Before it, only steps A recorded before it died, in order.
  const steps = tail.slice(0, -1).map(progressOf) as number[];
  expect(steps).toEqual(steps.map((_, index) => 4 + index));
  // The error is not an event to resume from.
  expect(rest.at(-1)?.id).toBeUndefined();

  // A client coming back later through B gets the same: every recorded event, then the error, at once.
  const again = await (await resume(b, headers, posted[1]?.id as string)).rest();
  const replayed = messages(again);
  expect(replayed.slice(0, -1).map(progressOf)).toEqual([2, 3, ...steps]);
  expect(replayed.at(-1)).toEqual(error);
});

it('a second resume of the same stream through B replaces the first follower (one per stream, as a local resume)', async () => {
  const { a, b } = await cluster();
  const headers = await initialize(a);
  const posted = await startSlowSteps(a, headers, 1_000, 200);
  const first = await resume(b, headers, posted[1]?.id as string);
  expect(messages(await first.take(1)).map(progressOf)).toEqual([2]);
  const second = await resume(b, headers, posted[1]?.id as string);
  // The first connection ends (its reader runs out), the second goes on with the live steps.
  await first.rest();
  const next = messages(await second.take(2)).map(progressOf);
  expect(next[0]).toBe(2);
  expect(typeof next[1]).toBe('number');
});

it('past sessions.maxStreams on B (its own streams and its followers together), a resumption through B is refused with 429 before any stream opens; once a follower ends, it is admitted', async () => {
  const { a, b } = await cluster({ maxStreams: 2 });
  const headers = await initialize(a);
  const firstSteps = await startSlowSteps(a, headers, 20, 100);
  const secondSteps = await startSlowSteps(a, headers, 20, 100);
  // B runs a stream of its own (counted while it runs), then follows one of A's: its two.
  await startSlowSteps(b, headers, 20, 100);
  const following = await resume(b, headers, firstSteps[0]!.id as string);
  expect(messages(await following.take(1)).length).toBeGreaterThan(0);
  // B is full: the next resumption gets a status a client backs off from, not an empty stream.
  const refused = await fetch(urlOf(b), {
    headers: { ...headers, accept: 'text/event-stream', 'last-event-id': secondSteps[0]!.id as string },
  });
  expect(refused.status).toBe(429);
  expect(refused.headers.get('retry-after')).toBe('1');
  expect(await refused.json()).toEqual({
    jsonrpc: '2.0',
    id: null,
    error: {
      code: -32000,
      message: 'Too Many Requests: this session has sessions.maxStreams streams open here; resume once one has ended',
    },
  });
  await following.cancel();
  // The follower's place is freed once B sees its client gone: the next resumption is served.
  let admitted: Response | undefined;
  await until(async () => {
    const res = await fetch(urlOf(b), {
      headers: { ...headers, accept: 'text/event-stream', 'last-event-id': secondSteps[0]!.id as string },
    });
    if (res.status === 200) admitted = res;
    else await res.body?.cancel();
    return res.status === 200;
  }, 'B to admit the second resumption');
  expect(messages(await reader(admitted as Response).take(1)).length).toBeGreaterThan(0);
});
