// RedisSignInStore against a real redis-server: the SignInStore contract, instances sharing records, atomic take, TTLs, junk in Redis, and signing keys agreed across instances.

import { jose } from '../../../lib/edge/security/jose';
import { createSigningKeys, resolveSigningKeysOptions } from '../../../lib/features/sign-in/tokens/keys';
import { redisStore } from '../../../lib/redis';
import type { RedisConnection } from '../../../lib/features/redis/connection';
import { RedisSignInStore } from '../../../lib/features/redis/sign-in-store';
import { StoreUnavailableError } from '../../../lib/edge/store/shared-store';
import type { SignInLimits } from '../../../lib/edge/store/sign-in-store';
import { describeSignInStore } from '../../edge/store/sign-in-store-contract';
import { until } from '../../helpers/until';
import { useRedis } from './redis-server';

const redis = useRedis();
let testNumber = 0;
/** Each store of the contract, and each test here, has its own prefix: a fresh, empty store. */
const freshPrefix = (): string => `si${++testNumber}:`;

describeSignInStore('RedisSignInStore', () => new RedisSignInStore(redis.connect({ prefix: freshPrefix() })));

/** Small bounds, each its own. */
const LIMITS: SignInLimits = {
  clients: 5,
  refreshFamilies: 5,
  consents: 5,
  pendingAuthorizations: 3,
  codes: 3,
  replays: 3,
  exchangedTokens: 3,
};

/** Two instances of one router: two connections under one prefix, a store on each. */
function twoInstances(): { a: RedisSignInStore; b: RedisSignInStore; connection: RedisConnection } {
  const prefix = freshPrefix();
  const connection = redis.connect({ prefix });
  return { a: new RedisSignInStore(connection), b: new RedisSignInStore(redis.connect({ prefix })), connection };
}

describe('RedisSignInStore shared by instances', () => {
  it("two stores on one Redis see each other's records: set, add, take and delete on one show on the other", async () => {
    const { a, b } = twoInstances();
    await a.set('code', 'c1', { clientId: 'x' }, 60_000);
    await expect(b.get('code', 'c1')).resolves.toEqual({ clientId: 'x' });
    await expect(a.add('keys', 'p1', { by: 'a' }, 60_000)).resolves.toBe(true);
    await expect(b.add('keys', 'p1', { by: 'b' }, 60_000)).resolves.toBe(false);
    await expect(b.get('keys', 'p1')).resolves.toEqual({ by: 'a' });
    await expect(b.take('code', 'c1')).resolves.toEqual({ clientId: 'x' });
    await expect(a.take('code', 'c1')).resolves.toBeUndefined();
    await b.delete('keys', 'p1');
    await expect(a.get('keys', 'p1')).resolves.toBeUndefined();
  });

  it('routers with different prefixes do not see each other', async () => {
    const mine = new RedisSignInStore(redis.connect({ prefix: freshPrefix() }));
    const theirs = new RedisSignInStore(redis.connect({ prefix: freshPrefix() }));
    await mine.set('client', 'c', { owner: 'mine' }, 60_000);
    await expect(theirs.get('client', 'c')).resolves.toBeUndefined();
  });

  it('of 50 concurrent takes from five instances, exactly one gets the code', async () => {
    const prefix = freshPrefix();
    const stores = Array.from({ length: 5 }, () => new RedisSignInStore(redis.connect({ prefix })));
    for (let round = 0; round < 5; round++) {
      await stores[0]?.set('code', `c${round}`, { round }, 60_000);
      const taken = await Promise.all(
        Array.from({ length: 50 }, (_, index) => stores[index % 5]?.take('code', `c${round}`)),
      );
      expect(taken.filter((record) => record !== undefined)).toEqual([{ round }]);
    }
  });

  it('redisStore() gives a sign-in store that shares with another instance', async () => {
    const prefix = freshPrefix();
    const one = redis.closeAfter(redisStore({ url: redis.url, prefix }));
    const two = redis.closeAfter(redisStore({ url: redis.url, prefix }));
    await one.signIn?.(LIMITS).set('client', 'dcr-1', { clientName: 'Claude' }, 60_000);
    await expect(two.signIn?.(LIMITS).get('client', 'dcr-1')).resolves.toEqual({ clientName: 'Claude' });
  });
});

describe('RedisSignInStore single-use ids (replay), across instances', () => {
  it('a full set refuses a new id on any instance rather than forget a live one', async () => {
    const prefix = freshPrefix();
    const [a, b] = [0, 1].map(() => new RedisSignInStore(redis.connect({ prefix }), LIMITS)) as [
      RedisSignInStore,
      RedisSignInStore,
    ];
    for (const id of ['j1', 'j2', 'j3']) await expect(a.add('replay', id, {}, 60_000)).resolves.toBe(true);
    await expect(b.add('replay', 'j4', {}, 60_000)).resolves.toBe(false);
    for (const id of ['j1', 'j2', 'j3']) await expect(b.add('replay', id, {}, 60_000)).resolves.toBe(false);
    // The refused id left nothing behind: it is refused for want of room, not remembered.
    await expect(a.get('replay', 'j4')).resolves.toBeUndefined();
  });
});

describe('RedisSignInStore bounds, across instances', () => {
  /** The ids of `kind` whose records are in Redis. */
  async function held(connection: RedisConnection, prefix: string, kind: string): Promise<string[]> {
    const keys = await connection.send<string[]>(['KEYS', `${prefix}signin:${kind}:*`]);
    return keys.map((key) => key.slice(`${prefix}signin:${kind}:`.length)).sort();
  }

  it('three instances writing 30 clients keep 5 across them, the one in use among them', async () => {
    const prefix = freshPrefix();
    const connection = redis.connect({ prefix });
    const stores = Array.from({ length: 3 }, () => new RedisSignInStore(redis.connect({ prefix }), LIMITS));
    await stores[0]?.set('client', 'in-use', { id: 'in-use' }, 60_000);
    for (let index = 0; index < 30; index++) {
      await stores[index % 3]?.add('client', `flood-${String(index).padStart(2, '0')}`, { index }, 60_000);
      await expect(stores[(index + 1) % 3]?.use('client', 'in-use', 60_000)).resolves.toEqual({ id: 'in-use' });
    }
    expect(await held(connection, prefix, 'client')).toEqual([
      'flood-26',
      'flood-27',
      'flood-28',
      'flood-29',
      'in-use',
    ]);
    expect(await connection.send<number>(['ZCARD', `${prefix}signin:client`])).toBe(5);
  });

  it('concurrent writes from five instances stay within the bound', async () => {
    const prefix = freshPrefix();
    const connection = redis.connect({ prefix });
    const stores = Array.from({ length: 5 }, () => new RedisSignInStore(redis.connect({ prefix }), LIMITS));
    await Promise.all(
      Array.from({ length: 100 }, (_, index) => stores[index % 5]?.set('pending', `p${index}`, {}, 60_000)),
    );
    expect(await held(connection, prefix, 'pending')).toHaveLength(3);
    expect(await connection.send<number>(['ZCARD', `${prefix}signin:pending`])).toBe(3);
  });

  it('each kind has its own bound: a flood of pending authorizations and codes leaves families and clients', async () => {
    const prefix = freshPrefix();
    const store = new RedisSignInStore(redis.connect({ prefix }), LIMITS);
    await store.set('client', 'c', { live: true }, 60_000);
    await store.set('family', 'f', { live: true }, 60_000);
    await store.set('refresh', 'r', { live: true }, 60_000);
    for (let index = 0; index < 50; index++) {
      await store.set('pending', `p${index}`, {}, 60_000);
      await store.set('upstream', `u${index}`, {}, 60_000);
      await store.set('code', `k${index}`, {}, 60_000);
    }
    for (const kind of ['client', 'family', 'refresh'] as const)
      await expect(store.get(kind, kind.charAt(0))).resolves.toEqual({ live: true });
    await expect(store.get('pending', 'p0')).resolves.toBeUndefined();
    await expect(store.get('pending', 'p49')).resolves.toEqual({});
  });

  it('a record taken or deleted frees its place: live records are not evicted for it', async () => {
    const prefix = freshPrefix();
    const store = new RedisSignInStore(redis.connect({ prefix }), LIMITS);
    await store.set('code', 'live', {}, 60_000);
    for (let index = 0; index < 10; index++) {
      await store.set('code', `c${index}`, {}, 60_000);
      if (index % 2 === 0) await store.take('code', `c${index}`);
      else await store.delete('code', `c${index}`);
    }
    await expect(store.get('code', 'live')).resolves.toEqual({});
  });

  it('use extends the record and its index entry; the index expires with its longest-lived entry', async () => {
    const prefix = freshPrefix();
    const connection = redis.connect({ prefix });
    const store = new RedisSignInStore(connection, LIMITS);
    await store.set('client', 'c', {}, 5_000);
    await store.use('client', 'c', 60_000);
    const recordTtl = await connection.send<number>(['PTTL', `${prefix}signin:client:c`]);
    const indexTtl = await connection.send<number>(['PTTL', `${prefix}signin:client`]);
    expect([recordTtl > 55_000, indexTtl > 55_000, indexTtl <= 60_000]).toEqual([true, true, true]);
    // An entry whose record is gone (expired, not yet dropped) is not placed again by a use.
    await connection.send(['ZADD', `${prefix}signin:client`, '1', 'gone']);
    await expect(store.use('client', 'gone', 60_000)).resolves.toBeUndefined();
    expect(Number(await connection.send(['ZSCORE', `${prefix}signin:client`, 'gone']))).toBe(1);
    // Signing keys are the router's own writes: no index.
    await store.add('keys', 'p1', {}, 60_000);
    expect(await connection.send<number>(['EXISTS', `${prefix}signin:keys`])).toBe(0);
  });
});

describe('RedisSignInStore keys and TTLs', () => {
  it('keeps each record under <prefix>signin:<kind>:<id> with its TTL as the key TTL', async () => {
    const prefix = freshPrefix();
    const connection = redis.connect({ prefix });
    const store = new RedisSignInStore(connection);
    await store.set('code', 'c', {}, 60_000);
    await store.add('keys', 'p9', {}, 5_000);
    const codeTtl = await connection.send<number>(['PTTL', `${prefix}signin:code:c`]);
    const keyTtl = await connection.send<number>(['PTTL', `${prefix}signin:keys:p9`]);
    expect([codeTtl > 55_000 && codeTtl <= 60_000, keyTtl > 0 && keyTtl <= 5_000]).toEqual([true, true]);
  });

  it('a record is gone once its TTL has passed, and its id is free for add again', async () => {
    const store = new RedisSignInStore(redis.connect({ prefix: freshPrefix() }));
    await store.set('pending', 'short', { v: 1 }, 50);
    await store.set('pending', 'long', { v: 1 }, 60_000);
    await until(async () => (await store.get('pending', 'short')) === undefined, 'the short record to expire');
    await expect(store.get('pending', 'long')).resolves.toEqual({ v: 1 });
    await expect(store.add('pending', 'short', { v: 2 }, 60_000)).resolves.toBe(true);
  });

  it('a fractional or zero TTL is stored as at least 1 ms (PX refuses both), a non-finite one is refused before Redis', async () => {
    const prefix = freshPrefix();
    const connection = redis.connect({ prefix });
    const store = new RedisSignInStore(connection);
    await store.set('code', 'frac', {}, 1500.2);
    expect(await connection.send<number>(['PTTL', `${prefix}signin:code:frac`])).toBeLessThanOrEqual(1501);
    await expect(store.set('code', 'zero', {}, 0)).resolves.toBeUndefined();
    await expect(store.set('code', 'nan', {}, Number.NaN)).rejects.toThrow(RangeError);
    await expect(store.add('code', 'inf', {}, Number.POSITIVE_INFINITY)).rejects.toThrow(RangeError);
  });
});

describe('RedisSignInStore hostile contents (anything may be in Redis)', () => {
  it.each([
    ['not JSON', '{"clientId":'],
    ['a JSON array', '["a"]'],
    ['a JSON string', '"text"'],
    ['a JSON number', '42'],
    ['JSON null', 'null'],
    ['empty', ''],
  ])('a value that is %s reads as undefined, to get and to take (and take removes it)', async (_what, junk) => {
    const prefix = freshPrefix();
    const connection = redis.connect({ prefix });
    const store = new RedisSignInStore(connection);
    await connection.send(['SET', `${prefix}signin:code:junk`, junk]);
    await expect(store.get('code', 'junk')).resolves.toBeUndefined();
    await expect(store.take('code', 'junk')).resolves.toBeUndefined();
    expect(await connection.send<number>(['EXISTS', `${prefix}signin:code:junk`])).toBe(0);
  });

  it('Redis down: every operation fails with StoreUnavailableError, and works again once Redis is back', async () => {
    const store = new RedisSignInStore(redis.connect({ prefix: freshPrefix(), commandTimeoutMs: 500 }));
    await store.set('code', 'c', { v: 1 }, 60_000);
    await redis.stop();
    await expect(store.get('code', 'c')).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.take('code', 'c')).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.add('code', 'd', {}, 1_000)).rejects.toBeInstanceOf(StoreUnavailableError);
    await redis.start();
    await until(
      async () =>
        await store.set('code', 'e', { v: 2 }, 60_000).then(
          () => true,
          () => false,
        ),
      'Redis to answer again',
    );
    await expect(store.get('code', 'e')).resolves.toEqual({ v: 2 });
  });
});

describe('signing keys on a shared Redis', () => {
  it('two instances on one Redis agree on the generated key: what one signs, the other verifies', async () => {
    const prefix = freshPrefix();
    const options = resolveSigningKeysOptions({}, 'auth.server');
    const one = createSigningKeys(options, new RedisSignInStore(redis.connect({ prefix })));
    const two = createSigningKeys(options, new RedisSignInStore(redis.connect({ prefix })));
    const [signerOne, signerTwo] = await Promise.all([one.current(), two.current()]);
    expect(signerOne.kid).toBe(signerTwo.kid);
    const { SignJWT, jwtVerify } = jose();
    const token = await new SignJWT({ sub: 'alice' })
      .setProtectedHeader({ alg: signerOne.alg, kid: signerOne.kid })
      .sign(signerOne.key);
    const verifier = await two.verificationKey(signerOne.kid);
    if (verifier === undefined) throw new Error('the other instance does not know the kid');
    await expect(jwtVerify(token, verifier.key, { algorithms: [verifier.alg] })).resolves.toEqual(
      expect.objectContaining({ payload: { sub: 'alice' } }),
    );
    expect((await one.jwks()).keys.map((key) => key.kid)).toEqual((await two.jwks()).keys.map((key) => key.kid));
  });
});
