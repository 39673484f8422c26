// The SignInStore contract, one suite run against every store (memory here, Redis in __tests__/features/redis/): what sign-in relies on.

import type { SignInKind, SignInStore } from '../../../lib/edge/store/sign-in-store';

/** A long TTL: nothing in the contract expires (TTLs are each store's own tests, with its own clock). */
const HOUR = 3_600_000;

/**
 * Runs the contract against the stores `make` gives; each call is a fresh, empty store.
 *
 * @example
 * ```ts
 * describeSignInStore('MemorySignInStore', () => new MemorySignInStore());
 * ```
 */
export function describeSignInStore(name: string, make: () => SignInStore | Promise<SignInStore>): void {
  describe(`${name}: the SignInStore contract`, () => {
    let store: SignInStore;
    beforeEach(async () => {
      store = await make();
    });

    it('answers undefined for a record it never had, to get and to take', async () => {
      await expect(store.get('code', 'never')).resolves.toBeUndefined();
      await expect(store.take('code', 'never')).resolves.toBeUndefined();
    });

    it('keeps a record as JSON: nested objects, arrays, numbers, booleans, null and non-ASCII text come back equal', async () => {
      const record = {
        clientId: 'c1',
        redirectUris: ['https://a.example/cb', 'http://127.0.0.1:3000/cb'],
        n: 1.5,
        ok: true,
        none: null,
        nested: { name: 'Zoë ✓ 日本' },
      };
      await store.set('client', 'c1', record, HOUR);
      await expect(store.get('client', 'c1')).resolves.toEqual(record);
    });

    it('hands out copies: changing a record read or written does not change the stored one', async () => {
      const written: Record<string, unknown> = { scopes: ['read'] };
      await store.set('consent', 'u1', written, HOUR);
      written.scopes = ['admin'];
      const read = (await store.get('consent', 'u1')) as Record<string, string[]>;
      read.scopes?.push('write');
      await expect(store.get('consent', 'u1')).resolves.toEqual({ scopes: ['read'] });
    });

    it('set replaces a record of the same kind and id', async () => {
      await store.set('pending', 'p1', { step: 1 }, HOUR);
      await store.set('pending', 'p1', { step: 2 }, HOUR);
      await expect(store.get('pending', 'p1')).resolves.toEqual({ step: 2 });
    });

    it('add saves only when the id is free: the first record stays, and a deleted id is free again', async () => {
      await expect(store.add('keys', 'p1', { first: true }, HOUR)).resolves.toBe(true);
      await expect(store.add('keys', 'p1', { first: false }, HOUR)).resolves.toBe(false);
      await expect(store.get('keys', 'p1')).resolves.toEqual({ first: true });
      await store.delete('keys', 'p1');
      await expect(store.add('keys', 'p1', { second: true }, HOUR)).resolves.toBe(true);
      await expect(store.get('keys', 'p1')).resolves.toEqual({ second: true });
    });

    it('use reads a record as get does, and an unknown or taken one is undefined', async () => {
      await store.set('client', 'c1', { clientId: 'c1' }, HOUR);
      await expect(store.use('client', 'c1', HOUR)).resolves.toEqual({ clientId: 'c1' });
      await expect(store.get('client', 'c1')).resolves.toEqual({ clientId: 'c1' });
      await expect(store.use('client', 'never', HOUR)).resolves.toBeUndefined();
      await store.take('client', 'c1');
      await expect(store.use('client', 'c1', HOUR)).resolves.toBeUndefined();
    });

    it('take reads and removes: a second take, and a get, find nothing', async () => {
      await store.set('code', 'abc', { clientId: 'c1' }, HOUR);
      await expect(store.take('code', 'abc')).resolves.toEqual({ clientId: 'c1' });
      await expect(store.take('code', 'abc')).resolves.toBeUndefined();
      await expect(store.get('code', 'abc')).resolves.toBeUndefined();
    });

    it('of many concurrent takes of one record, exactly one gets it', async () => {
      await store.set('refresh', 'r1', { family: 'f1' }, HOUR);
      const taken = await Promise.all(Array.from({ length: 20 }, () => store.take('refresh', 'r1')));
      expect(taken.filter((record) => record !== undefined)).toEqual([{ family: 'f1' }]);
    });

    it('of many concurrent adds of one id, exactly one saves, and its record is the one kept', async () => {
      const added = await Promise.all(
        Array.from({ length: 20 }, (_, index) => store.add('keys', 'p7', { index }, HOUR)),
      );
      expect(added.filter(Boolean)).toHaveLength(1);
      await expect(store.get('keys', 'p7')).resolves.toEqual({ index: added.indexOf(true) });
    });

    it('delete removes a record, and deleting an absent one is no error', async () => {
      await store.set('family', 'f1', { revoked: false }, HOUR);
      await store.delete('family', 'f1');
      await expect(store.get('family', 'f1')).resolves.toBeUndefined();
      await expect(store.delete('family', 'f1')).resolves.toBeUndefined();
    });

    it('keeps kinds apart: one id in two kinds is two records, and deleting one leaves the other', async () => {
      const kinds: SignInKind[] = ['client', 'pending', 'code', 'consent', 'refresh', 'family', 'keys', 'upstream'];
      for (const kind of kinds) await store.set(kind, 'same', { kind }, HOUR);
      await store.delete('code', 'same');
      for (const kind of kinds)
        await expect(store.get(kind, 'same')).resolves.toEqual(kind === 'code' ? undefined : { kind });
    });

    it('keeps ids apart whatever they contain: separators, URLs (a client id may be one), braces, spaces, the empty id', async () => {
      const ids = ['a', 'a:b', 'a:b:c', 'https://client.example/meta?x=1#f', '{tag}', 'with space', 'ünï', ''];
      for (const id of ids) await store.set('client', id, { id }, HOUR);
      for (const id of ids) await expect(store.get('client', id)).resolves.toEqual({ id });
    });
  });
}
