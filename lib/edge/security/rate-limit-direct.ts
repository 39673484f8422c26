// The router's plain rate limit (a number per window, in memory) run on express-rate-limit's own MemoryStore directly.
/*
 * express-rate-limit's middleware costs a request more than the counting does: an async chain of six awaits, `req.ip`
 * evaluated for a debug line even when debugging is off, a WeakMap entry per request for a check that the store is
 * not counted twice, and a SHA-256 of the key for every RateLimit-Policy header. For the options the router sets
 * itself and a limit and window of the caller, none of that can change a
 * request's outcome: the package still builds the limiter (it checks the options and initialises the store, once),
 * its MemoryStore still counts and resets, and the fields written are byte for byte its draft-8 ones
 * (__tests__/edge/security/rate-limit-headers.test.ts compares them); only the work around the store is done once.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import type { NextFunction, RequestHandler } from 'express';
import { MemoryStore, rateLimit, type Options as RateLimitOptions, type RateLimitInfo } from 'express-rate-limit';
import { memoizeBounded } from '../http/bounded-memo';

/** Partition keys remembered at most: principals and client addresses in use. */
const MAX_PARTITION_KEYS = 1_024;
/** The longest window a timer can hold: express-rate-limit's MemoryStore refuses longer ones (ERR_ERL_WINDOW_MS). */
const SET_TIMEOUT_MAX = 2 ** 31 - 1;
/** What the router's limiter keys and skips by, answered at once (rate-limit.ts). */
export interface RouterRateLimitKeys {
  readonly skip: (req: IncomingMessage) => boolean;
  readonly keyOf: (req: IncomingMessage) => string;
}

/**
 * Whether {@link createDirectRateLimiter} does exactly what express-rate-limit would with the router's options over
 * the resolved `rateLimit` option: the caller gave a `windowMs` and a `limit` at most (draft-8 headers only, the
 * in-memory store), for which none of the package's per-request checks could warn (a positive whole limit, a window
 * a timer can hold). Any other option (a store, the router's shared one included, an identifier, a function limit,
 * `skipFailedRequests`…) leaves the package's middleware in charge.
 */
export function runsDirectly(resolved: Readonly<Partial<RateLimitOptions>>): boolean {
  const { windowMs, limit } = resolved;
  return (
    Object.keys(resolved).every((key) => key === 'windowMs' || key === 'limit') &&
    Number.isInteger(limit) &&
    (limit as number) >= 1 &&
    Number.isInteger(windowMs) &&
    (windowMs as number) >= 1 &&
    (windowMs as number) <= SET_TIMEOUT_MAX
  );
}

/** express-rate-limit's policy name for a limit and window (its default `identifier`): `1000-in-1min`, `5-in-2hrs`. */
function policyName(limit: number, windowMs: number): string {
  const seconds = windowMs / 1e3;
  const minutes = seconds / 60;
  const hours = minutes / 60;
  const days = hours / 24;
  const window =
    seconds < 60
      ? `${seconds}sec`
      : minutes < 60
        ? `${minutes}min`
        : hours < 24
          ? `${hours}hr${hours > 1 ? 's' : ''}`
          : `${days}day${days > 1 ? 's' : ''}`;
  return `"${limit}-in-${window}"`;
}

/** Adds a field after any value the host app set first, as Express's `res.append` (the package's call) does. */
function appendHeader(res: ServerResponse, name: string, value: string): void {
  const previous = res.getHeader(name);
  res.setHeader(name, previous ? (Array.isArray(previous) ? [...previous, value] : [String(previous), value]) : value);
}

/**
 * The limiter of {@link runsDirectly} options: preflights skipped, the key counted in express-rate-limit's
 * MemoryStore, `req.rateLimit` and the draft-8 `RateLimit` and `RateLimit-Policy` fields as the package sets them,
 * and over the limit `Retry-After` and the router's handler.
 *
 * @example
 * ```ts
 * const limiter = runsDirectly(resolved) ? createDirectRateLimiter(options, { skip, keyOf }) : rateLimit(options);
 * ```
 */
export function createDirectRateLimiter(
  options: Partial<RateLimitOptions> & Pick<RateLimitOptions, 'windowMs' | 'limit' | 'handler'>,
  { skip, keyOf }: RouterRateLimitKeys,
): RequestHandler {
  const store = new MemoryStore();
  // The package checks the options and initialises the store (its window, its reset timer) as for its own limiter.
  rateLimit({ ...options, store });
  const { windowMs, handler } = options;
  const limit = options.limit as number;
  const windowSeconds = Math.ceil(windowMs / 1e3);
  const name = policyName(limit, windowMs);
  const quota = `${name}; q=${limit}; w=${windowSeconds}; pk=:`;
  // The draft's partition key names the caller's quota without revealing the key; the same key, the same text.
  const partitionKeyOf = memoizeBounded(
    (key) => Buffer.from(createHash('sha256').update(key).digest('hex').slice(0, 12)).toString('base64'),
    MAX_PARTITION_KEYS,
  );

  function applyCount(
    req: IncomingMessage,
    res: ServerResponse,
    next: NextFunction,
    key: string,
    hits: number,
    resetTime: Date | undefined,
  ): void {
    const remaining = Math.max(limit - hits, 0);
    const info: RateLimitInfo = { limit, used: hits, remaining, resetTime, key };
    // The deprecated `current`, not enumerable, as the package leaves it.
    Object.defineProperty(info, 'current', { configurable: false, enumerable: false, value: hits });
    (req as unknown as { rateLimit: RateLimitInfo }).rateLimit = info;
    const reset = resetTime ? Math.max(0, Math.ceil((resetTime.getTime() - Date.now()) / 1e3)) : windowSeconds;
    if (!res.headersSent) {
      appendHeader(res, 'RateLimit', `${name}; r=${remaining}; t=${reset}`);
      appendHeader(res, 'RateLimit-Policy', `${quota}${partitionKeyOf(key)}:`);
    }
    if (hits <= limit) return next();
    if (!res.headersSent) res.setHeader('Retry-After', String(reset));
    Promise.resolve(handler(req as never, res as never, next, options as RateLimitOptions)).then(undefined, next);
  }

  return function mcpRateLimit(req, res, next) {
    if (skip(req)) return next();
    const key = keyOf(req);
    // A store error is the request's error, as the package's `passOnStoreError: false` makes it.
    store
      .increment(key)
      .then(({ totalHits, resetTime }) => applyCount(req, res, next, key, totalHits, resetTime), next);
  };
}
