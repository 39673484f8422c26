// The verified-token cache: kept until exp or the max TTL, least recently used evicted past max, keyed by digest only.

import { createHash } from 'node:crypto';
import { createVerifiedTokenCache, tokenDigest } from '../../../lib/edge/security/token-cache';
import type { AuthInfo } from '../../../lib';

const principal = (subject: string, expiresAt?: number): AuthInfo => ({ subject, scopes: [], expiresAt });

it("keeps an entry until the token's exp (seconds), and not at all once expired", () => {
  let clock = 1_000_000;
  const cache = createVerifiedTokenCache({ now: () => clock });
  cache.set('t1', principal('a', 1_010));
  cache.set('t2', principal('b', 999));
  expect(cache.get('t1')).toMatchObject({ subject: 'a' });
  expect(cache.get('t2')).toBeUndefined();
  clock = 1_010_000;
  expect(cache.get('t1')).toBeUndefined();
});

it('keeps an entry no longer than the max TTL, nor the TTL given to set', () => {
  let clock = 0;
  const cache = createVerifiedTokenCache({ maxTtlMs: 1_000, now: () => clock });
  cache.set('no-exp', principal('a'));
  cache.set('short', principal('b'), 500);
  clock = 600;
  expect(cache.get('short')).toBeUndefined();
  expect(cache.get('no-exp')).toBeDefined();
  clock = 1_000;
  expect(cache.get('no-exp')).toBeUndefined();
});

it('evicts the least recently used entry beyond max', () => {
  const cache = createVerifiedTokenCache({ max: 2 });
  cache.set('t1', principal('a'));
  cache.set('t2', principal('b'));
  expect(cache.get('t1')).toBeDefined();
  cache.set('t3', principal('c'));
  expect(cache.size).toBe(2);
  expect(cache.get('t2')).toBeUndefined();
  expect(cache.get('t1')).toBeDefined();
  expect(cache.get('t3')).toBeDefined();
});

it('keys entries by the SHA-256 of the token, so the cache never holds a token', () => {
  expect(tokenDigest('secret-token-value')).toBe(createHash('sha256').update('secret-token-value').digest('base64url'));
});
