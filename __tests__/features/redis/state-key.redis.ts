// The shared requestState key against a real redis-server: one key for every instance, so state sealed on one opens on another.

import { randomUUID } from 'node:crypto';
import {
  createRequestStateCodec,
  MIN_STATE_KEY_BYTES,
  resolveInputRequired,
  type StateBinding,
} from '../../../lib/core/protocol/era-2026/request-state';
import type { RedisConnection } from '../../../lib/features/redis/connection';
import { sharedStateKey } from '../../../lib/features/redis/state-key';
import { StoreUnavailableError } from '../../../lib/edge/store/shared-store';
import { useRedis } from './redis-server';

const redis = useRedis();

function connect(prefix: string, commandTimeoutMs?: number): RedisConnection {
  return redis.connect({ prefix, commandTimeoutMs });
}

const call: StateBinding = { principal: 'alice', method: 'tools/call', item: 'deploy', arguments: { env: 'prod' } };

it('gives two instances starting together the same key, of the length the router asks for', async () => {
  const prefix = `k${randomUUID().slice(0, 8)}:`;
  const [a, b] = [connect(prefix), connect(prefix)];
  await Promise.all([a.send(['PING']), b.send(['PING'])]);
  const [keyA, keyB] = await Promise.all([sharedStateKey(a), sharedStateKey(b)]);
  expect(keyA).toBe(keyB);
  expect(Buffer.byteLength(keyA)).toBeGreaterThanOrEqual(MIN_STATE_KEY_BYTES);
  expect(keyA).toMatch(/^[A-Za-z0-9_-]{43}$/);
  // Asked again (a restart), the same key.
  expect(await sharedStateKey(connect(prefix))).toBe(keyA);
  // No TTL: rotating it would fail every retry in flight.
  expect(await a.send(['PTTL', a.key('state-key')])).toBe(-1);
  // Another router (prefix) has its own.
  expect(await sharedStateKey(connect(`other${prefix}`))).not.toBe(keyA);
});

it('opens on instance B a requestState sealed on instance A', async () => {
  const prefix = `k${randomUUID().slice(0, 8)}:`;
  const codecA = createRequestStateCodec(resolveInputRequired({ stateKey: await sharedStateKey(connect(prefix)) }));
  const codecB = createRequestStateCodec(resolveInputRequired({ stateKey: await sharedStateKey(connect(prefix)) }));
  const answers = { confirm: { action: 'accept', content: { ok: true } } };
  expect(codecB.open(codecA.seal(call, answers), call)).toEqual(answers);
  // A router with its own key (another prefix) refuses it.
  const codecC = createRequestStateCodec(
    resolveInputRequired({ stateKey: await sharedStateKey(connect(`c${prefix}`)) }),
  );
  expect(() => codecC.open(codecA.seal(call, answers), call)).toThrow(/requestState/);
});

it('makes a new key once the stored one is deleted (the documented rotation)', async () => {
  const prefix = `k${randomUUID().slice(0, 8)}:`;
  const connection = connect(prefix);
  const first = await sharedStateKey(connection);
  await connection.send(['DEL', connection.key('state-key')]);
  const second = await sharedStateKey(connection);
  expect(second).not.toBe(first);
  expect(await sharedStateKey(connect(prefix))).toBe(second);
});

it('refuses a stored key too short to sign with', async () => {
  const prefix = `k${randomUUID().slice(0, 8)}:`;
  const connection = connect(prefix);
  await connection.send(['SET', connection.key('state-key'), 'short']);
  await expect(sharedStateKey(connection)).rejects.toThrow(/shorter than 32 bytes/);
});

it('rejects with StoreUnavailableError when Redis is down, within the time limit', async () => {
  const connection = connect(`k${randomUUID().slice(0, 8)}:`, 300);
  await connection.send(['PING']);
  await redis.stop(true);
  const started = Date.now();
  await expect(sharedStateKey(connection)).rejects.toBeInstanceOf(StoreUnavailableError);
  expect(Date.now() - started).toBeLessThan(2_000);
});
