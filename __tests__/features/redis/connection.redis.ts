// The Redis connection of the shared store against a real redis-server: commands, prefix, pub/sub, outages as StoreUnavailableError, bounded close.

import type { RedisConnection } from '../../../lib/features/redis/connection';
import { StoreUnavailableError } from '../../../lib/edge/store/shared-store';
import { Signal } from '../../helpers/events';
import { until } from '../../helpers/until';
import { useRedis } from './redis-server';

const redis = useRedis();

function connect(options: { commandTimeoutMs?: number; prefix?: string } = {}): RedisConnection {
  return redis.connect(options);
}

it('sends commands under its prefix', async () => {
  const connection = connect({ prefix: 'test:' });
  expect(connection.key('s', '{abc}', 'record')).toBe('test:s:{abc}:record');
  await connection.send(['SET', connection.key('x'), '1']);
  await expect(connection.send(['GET', 'test:x'])).resolves.toBe('1');
});

it('delivers a published message to a subscriber, and stops after unsubscribe', async () => {
  const connection = connect();
  const heard: string[] = [];
  const delivered = new Signal();
  const unsubscribe = await connection.subscribe(connection.key('channel'), (message) => {
    heard.push(message);
    delivered.notify();
  });
  await connection.send(['PUBLISH', connection.key('channel'), 'one']);
  await delivered.when(() => heard.length === 1, "'one'");
  await unsubscribe();
  // A second subscription, made after, hears 'two': the first would have heard it by then.
  const marker: string[] = [];
  const unsubscribeMarker = await connection.subscribe(connection.key('channel'), (message) => {
    marker.push(message);
    delivered.notify();
  });
  await connection.send(['PUBLISH', connection.key('channel'), 'two']);
  await delivered.when(() => marker.length === 1, "the marker's 'two'");
  await unsubscribeMarker();
  expect(heard).toEqual(['one']);
});

it('fails fast with StoreUnavailableError while Redis is down, and works again once it is back', async () => {
  const connection = connect({ commandTimeoutMs: 500 });
  await connection.send(['PING']);
  await redis.stop(true);
  const started = Date.now();
  await expect(connection.send(['PING'])).rejects.toBeInstanceOf(StoreUnavailableError);
  expect(Date.now() - started).toBeLessThan(2_000);
  await redis.start();
  let answer: unknown;
  await until(
    async () => (answer = await connection.send(['PING']).catch(() => undefined)) !== undefined,
    'PONG',
  ).catch(() => undefined);
  expect(answer).toBe('PONG');
});

it('closes within a bounded time when Redis is gone', async () => {
  const connection = connect({ commandTimeoutMs: 500 });
  await connection.subscribe(connection.key('c'), () => undefined);
  await redis.stop(true);
  const started = Date.now();
  await connection.close();
  expect(Date.now() - started).toBeLessThan(3_000);
  await expect(connection.send(['PING'])).rejects.toBeInstanceOf(StoreUnavailableError);
});

it('passes a Redis reply error on as it is (not an outage)', async () => {
  const connection = connect();
  await connection.send(['SET', connection.key('s'), 'text']);
  await expect(connection.send(['LPUSH', connection.key('s'), 'x'])).rejects.toThrow(/WRONGTYPE/);
});

it('answers every command of a burst sent while it first connects', async () => {
  const connection = connect();
  await expect(
    Promise.all([connection.send(['PING']), connection.send(['PING']), connection.send(['PING'])]),
  ).resolves.toEqual(['PONG', 'PONG', 'PONG']);
});

it('takes a reply that arrived while the process was stalled past the time limit (timers run before I/O)', async () => {
  const connection = connect({ commandTimeoutMs: 200 });
  await connection.send(['SET', connection.key('k'), 'v']);
  const reply = connection.send(['GET', connection.key('k')]);
  // On the wire, and no reply read yet: node-redis writes in a setImmediate it queues once the command is sent (a few
  // microtasks on); an immediate queued after those runs right after the write, in the same turn, before any I/O.
  for (let turn = 0; turn < 20; turn++) await null;
  await new Promise((resolve) => setImmediate(resolve));
  // A stall well past the limit (a GC pause, a starved CPU): Redis answers meanwhile, and the timer is due too.
  const stalledUntil = Date.now() + 1_200;
  while (Date.now() < stalledUntil);
  await expect(reply).resolves.toBe('v');
});
