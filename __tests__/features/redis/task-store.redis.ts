// RedisTaskStore against a real redis-server: the memory store's behaviours, TTL on every key, two instances, limits across them, terminal states kept, outages.

import { randomUUID } from 'node:crypto';
import type { RedisConnection } from '../../../lib/features/redis/connection';
import { RedisTaskStore } from '../../../lib/features/redis/task-store';
import { StoreUnavailableError } from '../../../lib/edge/store/shared-store';
import type { TaskRecord } from '../../../lib/core/protocol/tasks/task-store';
import { until } from '../../helpers/until';
import { useRedis } from './redis-server';

const redis = useRedis();

/** One instance's store; each test has its own prefix, so tests do not see each other's tasks. */
function instance(
  prefix: string,
  settings: { max?: number; maxPerPrincipal?: number; ttlMs?: number } = {},
  commandTimeoutMs?: number,
): { store: RedisTaskStore; connection: RedisConnection } {
  const connection = redis.connect({ prefix, commandTimeoutMs });
  return {
    connection,
    store: new RedisTaskStore(connection, {
      max: settings.max,
      maxPerPrincipal: settings.maxPerPrincipal,
      ttlMs: settings.ttlMs ?? 60_000,
    }),
  };
}

function task(taskId: string, owner: string, extra: Partial<TaskRecord> = {}): TaskRecord {
  const now = Date.now();
  return {
    taskId,
    owner,
    era: '2026',
    method: 'tools/call',
    name: 'job',
    status: 'working',
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: 10_000,
    pollIntervalMs: 100,
    ...extra,
  };
}

const ids = (records: TaskRecord[]): string[] => records.map((record) => record.taskId);
let prefix: string;
beforeEach(() => {
  prefix = `t${randomUUID().slice(0, 8)}:`;
});

describe('the memory store’s behaviours', () => {
  it('finds a task for its owner only: another owner gets undefined, as for an unknown id', async () => {
    const { store } = instance(prefix);
    await store.create(task('t1', 'principal:alice'));
    expect((await store.get('t1', 'principal:alice'))?.taskId).toBe('t1');
    expect(await store.get('t1', 'principal:bob')).toBeUndefined();
    expect(await store.get('nope', 'principal:alice')).toBeUndefined();
    expect(await store.put({ ...task('t1', 'principal:bob'), status: 'cancelled' })).toBe(false);
    expect((await store.get('t1', 'principal:alice'))?.status).toBe('working');
    expect(await store.list('principal:bob')).toEqual([]);
  });

  it('bounds the tasks of one principal: a finished one is evicted first, else the new task is refused', async () => {
    const { store } = instance(prefix, { maxPerPrincipal: 2 });
    const createdAt = Date.now();
    await store.create(task('a', 'p', { createdAt }));
    await store.create(task('b', 'p', { createdAt }));
    await expect(store.create(task('c', 'p', { createdAt }))).rejects.toMatchObject({
      name: 'TaskLimitError',
      limit: 'maxPerPrincipal',
    });
    expect(await store.get('c', 'p')).toBeUndefined();
    await store.create(task('x', 'q'));
    expect(await store.put({ ...task('a', 'p', { createdAt }), status: 'completed', result: { content: [] } })).toBe(
      true,
    );
    await store.create(task('c', 'p', { createdAt }));
    expect(await store.get('a', 'p')).toBeUndefined();
    expect(ids(await store.list('p'))).toEqual(['b', 'c']);
  });

  it('bounds the tasks of the whole store', async () => {
    const { store } = instance(prefix, { max: 2 });
    await store.create(task('a', 'p'));
    await store.create(task('b', 'q'));
    await expect(store.create(task('c', 'r'))).rejects.toMatchObject({ limit: 'max' });
    expect(await store.get('c', 'r')).toBeUndefined();
    // The refused task left no place taken in its owner's scope either.
    await store.put({ ...task('a', 'p'), status: 'failed', error: { code: -32603, message: 'x' } });
    await store.create(task('c', 'r'));
    expect(await store.get('a', 'p')).toBeUndefined();
    expect(await store.list('p')).toEqual([]);
    expect(ids(await store.list('r'))).toEqual(['c']);
  });

  it('forgets a task at createdAt + ttlMs, and Redis drops its keys', async () => {
    const { store, connection } = instance(prefix, { maxPerPrincipal: 1 });
    await store.create(task('t', 'p', { ttlMs: 300 }));
    expect(await store.get('t', 'p')).toBeDefined();
    await until(async () => (await store.get('t', 'p')) === undefined, 'the task to be forgotten', 3_000).catch(
      () => undefined,
    );
    expect(await store.get('t', 'p')).toBeUndefined();
    expect(await store.put(task('t', 'p'))).toBe(false);
    expect(await store.list('p')).toEqual([]);
    // An expired task frees its owner's place.
    await store.create(task('new', 'p'));
    expect(ids(await store.list('p'))).toEqual(['new']);
    // Redis's own expiry may trail the store's clock by the milliseconds its PEXPIRE was sent after createdAt.
    const key = connection.key('task', '{t}');
    await until(
      async () => (await connection.send<number>(['EXISTS', key])) === 0,
      "Redis to drop the task's key",
      3_000,
    );
    expect(await connection.send(['EXISTS', key])).toBe(0);
  });

  it('copies records in and out: callers never change what the store holds', async () => {
    const { store } = instance(prefix);
    const record = task('t', 'p', { result: { content: [{ type: 'text', text: 'a' }] } });
    await store.create(record);
    (record.result as { content: unknown[] }).content.push('mutated');
    const read = await store.get('t', 'p');
    (read?.result as { content: unknown[] }).content.push('again');
    expect((await store.get('t', 'p'))?.result).toEqual({ content: [{ type: 'text', text: 'a' }] });
  });

  it('lists the owner’s tasks oldest first', async () => {
    const { store } = instance(prefix);
    const now = Date.now();
    await store.create(task('late', 'p', { createdAt: now + 5 }));
    await store.create(task('early', 'p', { createdAt: now }));
    await store.create(task('other', 'q', { createdAt: now }));
    expect(ids(await store.list('p'))).toEqual(['early', 'late']);
  });
});

describe('in Redis', () => {
  it('gives every key it writes a TTL no longer than the task’s lifetime, and one hash tag per task', async () => {
    const { store, connection } = instance(prefix, { maxPerPrincipal: 1 });
    await store.create(task('a', 'principal:alice', { ttlMs: 5_000 }));
    await store.put({ ...task('a', 'principal:alice', { ttlMs: 5_000 }), status: 'completed', result: {} });
    // An eviction as well: its keys go.
    await store.create(task('b', 'principal:alice', { ttlMs: 5_000 }));
    await store.create(task('c', '', { ttlMs: 5_000 }));
    const keys = await connection.send<string[]>(['KEYS', `${prefix}*`]);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      const ttl = await connection.send<number>(['PTTL', key]);
      expect([key, ttl > 0 && ttl <= 5_000]).toEqual([key, true]);
      // Every key is under a hash tag (Cluster safe).
      expect(key).toMatch(/\{[^}]+\}/);
    }
    expect(keys).not.toContain(connection.key('task', '{a}'));
    expect(keys.join(' ')).not.toContain('alice');
  });

  it('caps a task’s lifetime at the router’s tasks.ttlMs', async () => {
    const { store, connection } = instance(prefix, { ttlMs: 1_000 });
    await store.create(task('t', 'p', { ttlMs: 60_000 }));
    const ttl = await connection.send<number>(['PTTL', connection.key('task', '{t}')]);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(1_000);
  });

  it('is one store for two instances: a task made on A is read, updated and listed on B; owners stay apart', async () => {
    const a = instance(prefix).store;
    const b = instance(prefix).store;
    await a.create(task('t', 'alice'));
    expect((await b.get('t', 'alice'))?.status).toBe('working');
    expect(await b.get('t', 'bob')).toBeUndefined();
    expect(await b.put({ ...task('t', 'alice'), status: 'input_required' })).toBe(true);
    expect((await a.get('t', 'alice'))?.status).toBe('input_required');
    expect(ids(await b.list('alice'))).toEqual(['t']);
    expect(await b.list('bob')).toEqual([]);
  });

  it('holds its limits across instances, even when they create at once', async () => {
    const [first, second] = [
      instance(prefix, { maxPerPrincipal: 3, max: 5 }),
      instance(prefix, { maxPerPrincipal: 3, max: 5 }),
    ];
    // Connected first: commands sent while a connection is still opening fail (connection.ts sends once isOpen, before ready).
    await Promise.all([first.connection.send(['PING']), second.connection.send(['PING'])]);
    const [a, b] = [first.store, second.store];
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).create(task(`p${i}`, 'p'))),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(3);
    expect(
      outcomes
        .filter((outcome) => outcome.status === 'rejected')
        .map((outcome) => (outcome as PromiseRejectedResult).reason.limit),
    ).toEqual(Array(5).fill('maxPerPrincipal'));
    await a.create(task('q1', 'q'));
    await b.create(task('q2', 'q'));
    await expect(a.create(task('q3', 'q'))).rejects.toMatchObject({ limit: 'max' });
    await expect(b.create(task('r1', 'r'))).rejects.toMatchObject({ limit: 'max' });
    expect((await a.list('p')).length + (await b.list('q')).length).toBe(5);
  });

  it('keeps a terminal state: a cancel on B racing a completion on A, whichever lands second is refused', async () => {
    const a = instance(prefix).store;
    const b = instance(prefix).store;
    for (let round = 0; round < 20; round++) {
      const id = `race${round}`;
      await a.create(task(id, 'p'));
      const [completed, cancelled] = await Promise.all([
        a.put({ ...task(id, 'p'), status: 'completed', result: { n: 1 } }),
        b.put({ ...task(id, 'p'), status: 'cancelled' }),
      ]);
      expect(completed !== cancelled).toBe(true);
      expect((await b.get(id, 'p'))?.status).toBe(completed ? 'completed' : 'cancelled');
      // A late progress write does not bring it back to life either.
      expect(await a.put({ ...task(id, 'p'), status: 'working', statusMessage: 'progress 2' })).toBe(false);
      expect((await a.get(id, 'p'))?.status).toBe(completed ? 'completed' : 'cancelled');
    }
  });

  it('drops index entries whose record is gone, and checks them before refusing', async () => {
    const { store, connection } = instance(prefix, { maxPerPrincipal: 1 });
    await store.create(task('lost', 'p'));
    // A record lost (an outage between steps, a manual DEL): its place must not block the owner for the TTL.
    await connection.send(['DEL', connection.key('task', '{lost}')]);
    await store.create(task('next', 'p'));
    expect(ids(await store.list('p'))).toEqual(['next']);
  });

  it('answers StoreUnavailableError while Redis is down, within the time limit, and works again after', async () => {
    const { store } = instance(prefix, {}, 300);
    await store.create(task('t', 'p'));
    await redis.stop(true);
    const started = Date.now();
    await expect(store.get('t', 'p')).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.create(task('u', 'p'))).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.put({ ...task('t', 'p'), status: 'completed' })).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.list('p')).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(Date.now() - started).toBeLessThan(3_000);
    await redis.start();
    await until(
      () =>
        store.create(task('v', 'p')).then(
          () => true,
          () => false,
        ),
      'a create after the restart',
    ).catch(() => undefined);
    expect((await store.get('v', 'p'))?.taskId).toBe('v');
  });
});
