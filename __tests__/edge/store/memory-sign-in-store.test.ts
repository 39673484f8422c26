// MemorySignInStore: the SignInStore contract, its per-kind bounds (least recently used evicted first) and TTLs on an injected clock.

import { MemorySignInStore } from '../../../lib/edge/store/memory-sign-in-store';
import { describeSignInStore } from './sign-in-store-contract';

describeSignInStore('MemorySignInStore', () => new MemorySignInStore());

describe('MemorySignInStore bounds', () => {
  it('keeps at most its bound of one kind, evicting the oldest first, and leaves other kinds alone', async () => {
    const store = new MemorySignInStore({ clients: 3, consents: 3 });
    await store.set('consent', 'kept', { other: 'kind' }, 60_000);
    for (const id of ['c1', 'c2', 'c3', 'c4', 'c5']) await store.add('client', id, { id }, 60_000);
    const found = await Promise.all(['c1', 'c2', 'c3', 'c4', 'c5'].map((id) => store.get('client', id)));
    expect(found.map((record) => record?.id)).toEqual([undefined, undefined, 'c3', 'c4', 'c5']);
    await expect(store.get('consent', 'kept')).resolves.toEqual({ other: 'kind' });
  });

  it('a record written again counts as new: the one not rewritten is evicted', async () => {
    const store = new MemorySignInStore({ pendingAuthorizations: 2 });
    await store.set('pending', 'a', { v: 1 }, 60_000);
    await store.set('pending', 'b', { v: 1 }, 60_000);
    await store.set('pending', 'a', { v: 2 }, 60_000);
    await store.set('pending', 'c', { v: 1 }, 60_000);
    await expect(store.get('pending', 'b')).resolves.toBeUndefined();
    await expect(store.get('pending', 'a')).resolves.toEqual({ v: 2 });
  });

  it('a flood of 10,000 registrations keeps the bound, not the flood', async () => {
    const store = new MemorySignInStore({ clients: 100 });
    for (let index = 0; index < 10_000; index++) await store.add('client', `flood-${index}`, { index }, 60_000);
    const kept = await Promise.all(Array.from({ length: 10_000 }, (_, index) => store.get('client', `flood-${index}`)));
    expect(kept.filter((record) => record !== undefined)).toHaveLength(100);
    await expect(store.get('client', 'flood-9999')).resolves.toEqual({ index: 9999 });
  });

  it('a record used is the most recent of its kind: a flood evicts the clients not used since, never the one in use', async () => {
    const store = new MemorySignInStore({ clients: 3 });
    await store.add('client', 'in-use', { id: 'in-use' }, 60_000);
    for (let index = 0; index < 30; index++) {
      await store.add('client', `flood-${index}`, { index }, 60_000);
      // The client in use is used between every two registrations: under a bound of 3, it is never the oldest.
      await expect(store.use('client', 'in-use', 60_000)).resolves.toEqual({ id: 'in-use' });
    }
    await expect(store.get('client', 'flood-27')).resolves.toBeUndefined();
    await expect(store.get('client', 'flood-28')).resolves.toEqual({ index: 28 });
    await expect(store.use('client', 'never', 60_000)).resolves.toBeUndefined();
  });

  it('each kind has its own bound: a flood of pending authorizations and codes leaves families, refresh tokens and clients', async () => {
    const store = new MemorySignInStore({ clients: 2, refreshFamilies: 2, pendingAuthorizations: 5, codes: 5 });
    await store.set('client', 'c', { live: true }, 60_000);
    await store.set('family', 'f', { live: true }, 60_000);
    await store.set('refresh', 'r', { live: true }, 60_000);
    for (let index = 0; index < 1_000; index++) {
      await store.set('pending', `p${index}`, {}, 60_000);
      await store.set('upstream', `u${index}`, {}, 60_000);
      await store.set('code', `k${index}`, {}, 60_000);
    }
    for (const kind of ['client', 'family', 'refresh'] as const)
      await expect(store.get(kind, kind.charAt(0))).resolves.toEqual({ live: true });
    const pending = await Promise.all(Array.from({ length: 1_000 }, (_, index) => store.get('pending', `p${index}`)));
    expect(pending.filter((record) => record !== undefined)).toHaveLength(5);
  });
});

describe('MemorySignInStore TTLs (injected clock)', () => {
  let clock = 1_000_000;
  const now = (): number => clock;
  beforeEach(() => {
    clock = 1_000_000;
  });

  it('a record lives for its TTL and is gone at its end, to get and to take', async () => {
    const store = new MemorySignInStore({}, now);
    await store.set('code', 'c', { v: 1 }, 60_000);
    await store.set('code', 'd', { v: 1 }, 60_000);
    clock += 59_999;
    await expect(store.get('code', 'c')).resolves.toEqual({ v: 1 });
    clock += 1;
    await expect(store.get('code', 'c')).resolves.toBeUndefined();
    await expect(store.take('code', 'd')).resolves.toBeUndefined();
  });

  it('an expired id is free again for add', async () => {
    const store = new MemorySignInStore({}, now);
    await expect(store.add('keys', 'p1', { n: 1 }, 1_000)).resolves.toBe(true);
    await expect(store.add('keys', 'p1', { n: 2 }, 1_000)).resolves.toBe(false);
    clock += 1_000;
    await expect(store.add('keys', 'p1', { n: 3 }, 1_000)).resolves.toBe(true);
    await expect(store.get('keys', 'p1')).resolves.toEqual({ n: 3 });
  });

  it('over the cap, expired records go before live ones', async () => {
    const store = new MemorySignInStore({ pendingAuthorizations: 2 }, now);
    await store.set('pending', 'old-expired', {}, 1_000);
    await store.set('pending', 'live', {}, 60_000);
    clock += 2_000;
    await store.set('pending', 'new', {}, 60_000);
    await expect(store.get('pending', 'live')).resolves.toEqual({});
    await expect(store.get('pending', 'new')).resolves.toEqual({});
  });

  it('use keeps a record another ttlMs from now', async () => {
    const store = new MemorySignInStore({}, now);
    await store.set('client', 'c', { v: 1 }, 1_000);
    clock += 900;
    await expect(store.use('client', 'c', 1_000)).resolves.toEqual({ v: 1 });
    clock += 900;
    await expect(store.get('client', 'c')).resolves.toEqual({ v: 1 });
    clock += 100;
    await expect(store.get('client', 'c')).resolves.toBeUndefined();
  });
});

describe('MemorySignInStore single-use ids (replay)', () => {
  it('a full set refuses a new id rather than forget a live one, and takes ids again once old ones expire', async () => {
    let now = 1_000_000;
    const store = new MemorySignInStore({ replays: 3 }, () => now);
    for (const id of ['a', 'b', 'c']) await expect(store.add('replay', id, {}, 60_000)).resolves.toBe(true);
    await expect(store.add('replay', 'd', {}, 60_000)).resolves.toBe(false);
    // Every id is still remembered: none can be used twice.
    for (const id of ['a', 'b', 'c']) await expect(store.add('replay', id, {}, 60_000)).resolves.toBe(false);
    now += 60_001;
    await expect(store.add('replay', 'd', {}, 60_000)).resolves.toBe(true);
    await expect(store.add('replay', 'd', {}, 60_000)).resolves.toBe(false);
  });
});
