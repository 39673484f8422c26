// MemorySignInStore: the SignInStore contract, its per-kind cap (oldest evicted first) and TTLs on an injected clock.

import { MemorySignInStore } from '../../lib/store/memory-sign-in-store';
import { describeSignInStore } from './sign-in-store-contract';

describeSignInStore('MemorySignInStore', () => new MemorySignInStore());

describe('MemorySignInStore bounds', () => {
  it('keeps at most max records of one kind, evicting the oldest first, and leaves other kinds alone', async () => {
    const store = new MemorySignInStore(3);
    await store.set('consent', 'kept', { other: 'kind' }, 60_000);
    for (const id of ['c1', 'c2', 'c3', 'c4', 'c5']) await store.add('client', id, { id }, 60_000);
    const found = await Promise.all(['c1', 'c2', 'c3', 'c4', 'c5'].map((id) => store.get('client', id)));
    expect(found.map((record) => record?.id)).toEqual([undefined, undefined, 'c3', 'c4', 'c5']);
    await expect(store.get('consent', 'kept')).resolves.toEqual({ other: 'kind' });
  });

  it('a record written again counts as new: the one not rewritten is evicted', async () => {
    const store = new MemorySignInStore(2);
    await store.set('pending', 'a', { v: 1 }, 60_000);
    await store.set('pending', 'b', { v: 1 }, 60_000);
    await store.set('pending', 'a', { v: 2 }, 60_000);
    await store.set('pending', 'c', { v: 1 }, 60_000);
    await expect(store.get('pending', 'b')).resolves.toBeUndefined();
    await expect(store.get('pending', 'a')).resolves.toEqual({ v: 2 });
  });

  it('a flood of 10,000 registrations keeps the bound, not the flood', async () => {
    const store = new MemorySignInStore(100);
    for (let index = 0; index < 10_000; index++) await store.add('client', `flood-${index}`, { index }, 60_000);
    const kept = await Promise.all(Array.from({ length: 10_000 }, (_, index) => store.get('client', `flood-${index}`)));
    expect(kept.filter((record) => record !== undefined)).toHaveLength(100);
    await expect(store.get('client', 'flood-9999')).resolves.toEqual({ index: 9999 });
  });
});

describe('MemorySignInStore TTLs (injected clock)', () => {
  let clock = 1_000_000;
  const now = (): number => clock;
  beforeEach(() => {
    clock = 1_000_000;
  });

  it('a record lives for its TTL and is gone at its end, to get and to take', async () => {
    const store = new MemorySignInStore(10, now);
    await store.set('code', 'c', { v: 1 }, 60_000);
    await store.set('code', 'd', { v: 1 }, 60_000);
    clock += 59_999;
    await expect(store.get('code', 'c')).resolves.toEqual({ v: 1 });
    clock += 1;
    await expect(store.get('code', 'c')).resolves.toBeUndefined();
    await expect(store.take('code', 'd')).resolves.toBeUndefined();
  });

  it('an expired id is free again for add', async () => {
    const store = new MemorySignInStore(10, now);
    await expect(store.add('keys', 'p1', { n: 1 }, 1_000)).resolves.toBe(true);
    await expect(store.add('keys', 'p1', { n: 2 }, 1_000)).resolves.toBe(false);
    clock += 1_000;
    await expect(store.add('keys', 'p1', { n: 3 }, 1_000)).resolves.toBe(true);
    await expect(store.get('keys', 'p1')).resolves.toEqual({ n: 3 });
  });

  it('over the cap, expired records go before live ones', async () => {
    const store = new MemorySignInStore(2, now);
    await store.set('pending', 'old-expired', {}, 1_000);
    await store.set('pending', 'live', {}, 60_000);
    clock += 2_000;
    await store.set('pending', 'new', {}, 60_000);
    await expect(store.get('pending', 'live')).resolves.toEqual({});
    await expect(store.get('pending', 'new')).resolves.toEqual({});
  });
});
