// RedisEventStore against a real redis-server: ids, replay after Last-Event-ID, trimming, session isolation, concurrent appends, TTLs, outages.

import type { JsonRpcMessage } from '../../../lib/core/jsonrpc/types';
import type { RedisConnection } from '../../../lib/features/redis/connection';
import { RedisEventStore, type RedisEventStoreSettings } from '../../../lib/features/redis/event-store';
import { STREAM_OWNER_TTL_MS } from '../../../lib/features/redis/session-keys';
import { StoreUnavailableError } from '../../../lib/edge/store/shared-store';
import { configError, rejection } from '../../helpers/errors';
import { until } from '../../helpers/until';
import { useRedis } from './redis-server';

const redis = useRedis();
let testNumber = 0;
/** Each test has its own prefix, so `KEYS prefix*` sees only its keys. */
let prefix = '';

beforeEach(() => {
  prefix = `e${++testNumber}:`;
});

const note = (n: number): JsonRpcMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progress: n },
});

/** A connection under this test's prefix (one router instance). */
async function connect(commandTimeoutMs?: number): Promise<RedisConnection> {
  return redis.connect({ prefix, commandTimeoutMs });
}

async function eventStore(
  settings: Partial<RedisEventStoreSettings> = {},
  given?: RedisConnection,
): Promise<RedisEventStore> {
  return new RedisEventStore(given ?? (await connect()), { idleTtlMs: 60_000, max: 100, ...settings });
}

async function appendNotes(
  store: RedisEventStore,
  sessionId: string,
  streamId: string,
  count: number,
): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 1; n <= count; n++) ids.push(await store.append(sessionId, streamId, note(n)));
  return ids;
}

/** The progress values of a replay (null for a priming event), or undefined. */
async function replayed(
  store: RedisEventStore,
  sessionId: string,
  lastEventId: string,
): Promise<unknown[] | undefined> {
  const replay = await store.replayAfter(sessionId, lastEventId);
  return replay?.events.map((event) =>
    event.message && 'params' in event.message ? event.message.params?.progress : event.message,
  );
}

describe('RedisEventStore settings', () => {
  it.each<[string, Partial<RedisEventStoreSettings>, RegExp]>([
    [
      'maxEventsPerSession 0',
      { maxEventsPerSession: 0 },
      /option 'RedisEventStore\.maxEventsPerSession' must be a positive integer, got 0$/,
    ],
    ['idleTtlMs 1.5', { idleTtlMs: 1.5 }, /'RedisEventStore\.idleTtlMs' must be a positive integer/],
  ])('rejects %s', async (_label, settings, message) => {
    const connection = await connect();
    const err = configError(() => new RedisEventStore(connection, { idleTtlMs: 1000, max: 10, ...settings }));
    expect(err.code).toBe('ERR_MCP_INVALID_OPTION');
    expect(err.message).toMatch(message);
  });

  it('defaults to 1000 events per session', async () => {
    const store = await eventStore();
    const ids = await appendNotes(store, 's', 'A', 1000);
    expect(await replayed(store, 's', ids[0]!)).toHaveLength(999);
    await store.append('s', 'A', note(1001));
    expect(await store.replayAfter('s', ids[0]!)).toBeUndefined();
    expect(await replayed(store, 's', ids[1]!)).toHaveLength(999);
  });
});

describe('RedisEventStore ids', () => {
  it('names the stream in every id, visible ASCII, increasing and unique within the session', async () => {
    const store = await eventStore();
    const ids = [
      await store.append('s', 'QUJD', note(1)),
      await store.append('s', 'x-y_Z', null),
      await store.append('s', 'QUJD', note(2)),
    ];
    expect(ids[0]).toMatch(/^QUJD\.\d+-\d+$/);
    expect(ids[1]).toMatch(/^x-y_Z\.\d+-\d+$/);
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect(id).toMatch(/^[\x21-\x7e]+$/);
  });

  it.each(['', 'a.b', 'a b', 'a/b', 'a+b', 'a=', 'ä'])('rejects the non-base64url stream id %j', async (streamId) => {
    const store = await eventStore();
    expect(await rejection(store.append('s', streamId, null))).toBeInstanceOf(TypeError);
  });

  it('allocates distinct ids to 200 concurrent appends from two instances to one session, replayed in order', async () => {
    const [one, two] = [await eventStore(), await eventStore()];
    const first = await one.append('s', 'A', null);
    const ids = await Promise.all(
      Array.from({ length: 200 }, (_, n) => (n % 2 === 0 ? one : two).append('s', 'A', note(n))),
    );
    expect(new Set(ids).size).toBe(200);
    const replay = await two.replayAfter('s', first);
    expect(replay?.events.map((event) => event.id)).toEqual([...ids].sort((x, y) => compareEntryIds(x, y)));
    expect(replay?.events.map((event) => event.id).sort()).toEqual([...ids].sort());
  });
});

/** Orders `<stream>.<ms>-<seq>` ids as Redis does. */
function compareEntryIds(x: string, y: string): number {
  const parts = (id: string): bigint[] => id.split('.')[1]!.split('-').map(BigInt);
  const [[xm, xs], [ym, ys]] = [parts(x), parts(y)] as [[bigint, bigint], [bigint, bigint]];
  return xm === ym ? Number(xs - ys) : Number(xm - ym);
}

describe('RedisEventStore replay', () => {
  it('replays the events of the same stream after the given id, in order, priming events included', async () => {
    const store = await eventStore();
    const priming = await store.append('s', 'A', null);
    await store.append('s', 'B', note(100));
    await store.append('s', 'A', note(1));
    await store.append('s', 'B', note(200));
    const last = await store.append('s', 'A', null);
    const replay = await store.replayAfter('s', priming);
    expect(replay?.streamId).toBe('A');
    expect(replay?.events.map((event) => event.message)).toEqual([note(1), null]);
    expect(replay?.events[1]?.id).toBe(last);
    expect(await store.replayAfter('s', last)).toEqual({ streamId: 'A', events: [] });
    expect(await replayed(store, 's', (await appendNotes(store, 's', 'B', 1))[0]!)).toEqual([]);
  });

  it.each([
    '',
    'A',
    'A.',
    '.1-0',
    'A.1',
    'A.1-',
    'A.-1',
    'A.1-0-0',
    'A.x-0',
    'A.1-0 ',
    'A..1-0',
    'A.99999999999999999999-0',
  ])('answers undefined for the malformed id %j', async (lastEventId) => {
    const store = await eventStore();
    await appendNotes(store, 's', 'A', 3);
    expect(await store.replayAfter('s', lastEventId)).toBeUndefined();
  });

  it('answers undefined for an id of another stream, one never issued, and an unknown session', async () => {
    const store = await eventStore();
    const [id] = await appendNotes(store, 's', 'A', 3);
    const entry = id!.split('.')[1]!;
    expect(await store.replayAfter('s', `B.${entry}`)).toBeUndefined();
    expect(await store.replayAfter('s', 'A.9999999999999-0')).toBeUndefined();
    expect(await store.replayAfter('s', 'A.1-0')).toBeUndefined();
    expect(await store.replayAfter('nobody', id!)).toBeUndefined();
  });

  it("never replays another session's stream, even one with the same stream id", async () => {
    const store = await eventStore();
    const [theirs] = await appendNotes(store, 'them', 'T', 3);
    expect(await store.replayAfter('me', theirs!)).toBeUndefined();
    const [mine] = await appendNotes(store, 'me', 'T', 1);
    expect(await replayed(store, 'me', mine!)).toEqual([]);
    expect(await replayed(store, 'them', theirs!)).toEqual([2, 3]);
  });

  it('keeps the JSON text it is given (what the stream sent) instead of serialising the message again', async () => {
    const store = await eventStore();
    const sent = '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}';
    const priming = await store.append('s', 'A', null);
    const id = await store.append('s', 'A', { jsonrpc: '2.0', id: 1, result: { not: 'what was sent' } }, sent);
    expect((await store.replayAfter('s', priming))?.events).toEqual([{ id, message: JSON.parse(sent) }]);
  });

  it('is read by another instance on another connection', async () => {
    const [one, two] = [await eventStore(), await eventStore()];
    const [first] = await appendNotes(one, 's', 'A', 3);
    expect(await replayed(two, 's', first!)).toEqual([2, 3]);
  });
});

describe('RedisEventStore bounded per session', () => {
  it('trims the oldest events past maxEventsPerSession: a replay after a trimmed id answers undefined, never a gap', async () => {
    const connection = await connect();
    const store = await eventStore({ maxEventsPerSession: 3 }, connection);
    const ids = await appendNotes(store, 's', 'A', 5); // holds 3, 4, 5
    expect(await store.replayAfter('s', ids[0]!)).toBeUndefined();
    expect(await store.replayAfter('s', ids[1]!)).toBeUndefined(); // its own entry is gone: see replayAfter's doc
    expect(await replayed(store, 's', ids[2]!)).toEqual([4, 5]);
    expect(await replayed(store, 's', ids[4]!)).toEqual([]);
    expect(await connection.send(['XLEN', `${prefix}s:{s}:events`])).toBe(3);
  });

  it("counts events per session: one session's events never push out another's", async () => {
    const store = await eventStore({ maxEventsPerSession: 2 });
    const [one] = await appendNotes(store, 'one', 'A', 1);
    await appendNotes(store, 'two', 'B', 5);
    expect(await replayed(store, 'one', one!)).toEqual([]);
  });
});

describe('RedisEventStore keys and TTLs', () => {
  it('keeps the events under the session hash tag with the idle TTL, restarted by every append', async () => {
    const connection = await connect();
    const store = await eventStore({ idleTtlMs: 2_000 }, connection);
    await store.append('s', 'A', null);
    expect(await connection.send(['KEYS', `${prefix}*`])).toEqual([`${prefix}s:{s}:events`]);
    // Until Redis' own clock has run the TTL down below the bound checked after the append.
    await until(
      async () => (await connection.send<number>(['PTTL', `${prefix}s:{s}:events`])) < 1_800,
      'the TTL to run down',
    );
    await store.append('s', 'A', note(1));
    expect(await connection.send<number>(['PTTL', `${prefix}s:{s}:events`])).toBeGreaterThan(1_800);
  });

  it('deleteSession forgets every stream of the session and nothing of the others, leaving no key', async () => {
    const connection = await connect();
    const store = await eventStore({}, connection);
    const [gone] = await appendNotes(store, 'gone', 'A', 2);
    await appendNotes(store, 'gone', 'B', 2);
    const [kept] = await appendNotes(store, 'kept', 'A', 2);
    await store.deleteSession('gone');
    await store.deleteSession('never-existed');
    expect(await store.replayAfter('gone', gone!)).toBeUndefined();
    expect(await replayed(store, 'kept', kept!)).toEqual([2]);
    expect(await connection.send(['KEYS', `${prefix}*`])).toEqual([`${prefix}s:{kept}:events`]);
  });

  it('leaves no key once the session is idle past its TTL', async () => {
    const connection = await connect();
    const store = await eventStore({ idleTtlMs: 300 }, connection);
    await appendNotes(store, 's', 'A', 3);
    await until(
      async () => (await connection.send<string[]>(['KEYS', `${prefix}*`])).length === 0,
      'the keys to expire',
      3_000,
    ).catch(() => undefined);
    expect(await connection.send(['KEYS', `${prefix}*`])).toEqual([]);
  });
});

describe('RedisEventStore stream marks (a POST stream followed from another instance)', () => {
  /** A session record, as the session store would save it: marks are only made for a live session. */
  async function liveSession(connection: RedisConnection, id: string): Promise<void> {
    await connection.send(['SET', `${prefix}s:{${id}}:record`, '{}', 'PX', '60000']);
  }

  it('tells a running stream (its request ids, its owner alive) from a finished one, under the session hash tag with TTLs', async () => {
    const connection = await connect();
    const store = await eventStore({ idleTtlMs: 5_000 }, connection);
    await liveSession(connection, 's');
    expect(await store.streamState('s', 'A')).toBeUndefined();
    await store.markStreamOpen('s', 'A', [7, 'x']);
    expect(await store.streamState('s', 'A')).toEqual({ open: true, requestIds: [7, 'x'] });
    expect(await store.streamState('s', 'B')).toBeUndefined();
    expect(((await connection.send<string[]>(['KEYS', `${prefix}*`])) ?? []).sort()).toEqual([
      `${prefix}s:{s}:record`,
      `${prefix}s:{s}:streams`,
    ]);
    expect(await connection.send<number>(['PTTL', `${prefix}s:{s}:streams`])).toBeGreaterThan(4_000);
    await store.markStreamFinished('s', 'A');
    expect(await store.streamState('s', 'A')).toBeUndefined();
    expect(await connection.send(['KEYS', `${prefix}*`])).toEqual([`${prefix}s:{s}:record`]);
  });

  it("reports the stream not open once its owner's heartbeat lapses, keeping its request ids", async () => {
    const connection = await connect();
    const store = await eventStore({}, connection);
    await liveSession(connection, 's');
    await store.markStreamOpen('s', 'A', [1]);
    await until(
      async () => (await store.streamState('s', 'A'))?.open === false,
      'the heartbeat to lapse',
      STREAM_OWNER_TTL_MS + 3_000,
    ).catch(() => undefined);
    expect(await store.streamState('s', 'A')).toEqual({ open: false, requestIds: [1] });
  });

  it('marks nothing for a session that is gone, and deleteSession forgets the marks', async () => {
    const connection = await connect();
    const store = await eventStore({}, connection);
    await store.markStreamOpen('gone', 'A', [1]);
    expect(await connection.send(['KEYS', `${prefix}*`])).toEqual([]);
    await liveSession(connection, 's');
    await store.markStreamOpen('s', 'A', [1]);
    await store.append('s', 'A', null);
    await store.deleteSession('s');
    expect(await store.streamState('s', 'A')).toBeUndefined();
    expect(await connection.send(['KEYS', `${prefix}*`])).toEqual([`${prefix}s:{s}:record`]);
  });

  it('keeps the marks as long as the session: every append restarts their TTL', async () => {
    const connection = await connect();
    const store = await eventStore({ idleTtlMs: 2_000 }, connection);
    await liveSession(connection, 's');
    await store.markStreamOpen('s', 'A', [1]);
    // Until Redis' own clock has run the TTL down below the bound checked after the append.
    await until(
      async () => (await connection.send<number>(['PTTL', `${prefix}s:{s}:streams`])) < 1_800,
      'the TTL to run down',
    );
    await store.append('s', 'A', note(1));
    expect(await connection.send<number>(['PTTL', `${prefix}s:{s}:streams`])).toBeGreaterThan(1_800);
  });
});

describe('RedisEventStore outages', () => {
  it('rejects with StoreUnavailableError within the command timeout while Redis is down, and works again after a restart', async () => {
    const store = await eventStore({}, await connect(500));
    const [id] = await appendNotes(store, 's', 'A', 1);
    await redis.stop(true);
    for (const operation of [
      () => store.append('s', 'A', null),
      () => store.replayAfter('s', id!),
      () => store.deleteSession('s'),
    ]) {
      const started = Date.now();
      expect(await rejection(operation())).toBeInstanceOf(StoreUnavailableError);
      expect(Date.now() - started).toBeLessThan(1_500);
    }
    await redis.start();
    let after: string | undefined;
    await until(
      async () => (after = await store.append('s', 'A', null).catch(() => undefined)) !== undefined,
      'an append after the restart',
    ).catch(() => undefined);
    expect(after).toMatch(/^A\./);
    // The restarted server kept nothing (no persistence): the old id is unknown, not replayed with a gap.
    expect(await store.replayAfter('s', id!)).toBeUndefined();
  });
});
