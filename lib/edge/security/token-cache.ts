// The verified-token cache: principals of tokens already checked, keyed by the token's SHA-256, bounded, until expiry.

import * as crypto from 'node:crypto';
import { BoundedMap } from '../../core/bounded-map';
import type { AuthInfo } from '../../core/registry/request-context';

/** How many verified tokens a cache keeps by default. */
export const DEFAULT_TOKEN_CACHE_MAX = 10_000;
/** The longest a verified token is kept, even when it expires later or never: 1 hour. */
export const DEFAULT_TOKEN_CACHE_MAX_TTL_MS = 60 * 60 * 1000;

/** Options of {@link createVerifiedTokenCache}. */
export interface VerifiedTokenCacheOptions {
  /** Entries kept; beyond it the least recently used goes. Defaults to `10000`. */
  max?: number;
  /** The longest an entry is kept, whatever the token's `exp`. Defaults to `3600000` ms (1 hour). */
  maxTtlMs?: number;
  /** The clock, in ms since the epoch. Defaults to `Date.now`. */
  now?: () => number;
}

/** A bounded cache of verified tokens; see {@link createVerifiedTokenCache}. */
export interface VerifiedTokenCache<T extends AuthInfo = AuthInfo> {
  /** The principal of `token` while its entry lives, else undefined. */
  get(token: string): T | undefined;
  /**
   * Remembers `auth` for `token` until `auth.expiresAt` (seconds), the cache's max TTL or `ttlMs`, whichever is
   * first; a token already expired is not kept.
   */
  set(token: string, auth: T, ttlMs?: number): void;
  /** How many entries it holds now (expired ones not yet dropped included). */
  readonly size: number;
}

// crypto.hash (Node 20.12+) hashes in one call, without a Hash object per token for every cache hit to pay for;
// Node 18 has only the latter.
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string, encoding: 'base64url') => string }).hash;

/** The cache key of a token: its SHA-256, so that the cache (and a heap dump of it) never holds a token. */
export const tokenDigest: (token: string) => string = oneShotHash
  ? (token) => oneShotHash('sha256', token, 'base64url')
  : (token) => crypto.createHash('sha256').update(token).digest('base64url');

/**
 * Creates a cache of verified tokens, so that a token presented again costs one lookup, not a signature check or
 * an introspection call. Only successes belong in it: what a client sends must not be able to fill it with
 * garbage (and evict the good entries) — a verifier that caches refusals keeps them in a cache of their own.
 *
 * @example
 * ```ts
 * const cache = createVerifiedTokenCache({ max: 5_000 });
 * const hit = cache.get(token) ?? (await verifySlowly(token));
 * if (hit) cache.set(token, hit);
 * ```
 */
export function createVerifiedTokenCache<T extends AuthInfo = AuthInfo>(
  options: VerifiedTokenCacheOptions = {},
): VerifiedTokenCache<T> {
  const { max = DEFAULT_TOKEN_CACHE_MAX, maxTtlMs = DEFAULT_TOKEN_CACHE_MAX_TTL_MS, now = () => Date.now() } = options;
  // Least recently used goes first: a token presented again is worth keeping.
  const entries = new BoundedMap<string, T>({ max, refreshOnGet: true, now });
  return {
    get: (token) => entries.get(tokenDigest(token)),
    set(token, auth, ttlMs = maxTtlMs) {
      const at = now();
      const until = Math.min(
        at + Math.min(ttlMs, maxTtlMs),
        auth.expiresAt === undefined ? Infinity : auth.expiresAt * 1000,
      );
      if (until > at) entries.set(tokenDigest(token), auth, until);
    },
    get size() {
      return entries.size;
    },
  };
}
