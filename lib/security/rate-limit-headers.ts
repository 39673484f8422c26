// The IETF RateLimit / RateLimit-Policy fields (express-rate-limit's 'draft-8'), written from the package's count.
/*
 * express-rate-limit writes the same fields, but spends more on them per request than on counting: it hashes the
 * partition key on every request, builds the policy name anew, and appends through Express's res.append
 * (bench/README.md has the measurements). Here the policy text is built once per limit, the partition key once per key.
 */

import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Options as RateLimitOptions, RateLimitInfo } from 'express-rate-limit';
import { remembered } from '../http/remembered';

/**
 * The options that choose or shape headers, and `handler` (a 429 of the caller's own, which this module would not
 * see): given any, express-rate-limit writes every header, as the caller asked.
 */
const HEADER_OPTIONS = ['standardHeaders', 'legacyHeaders', 'identifier', 'retryAfter', 'handler'] as const;

/** Partition keys remembered at most: principals and client addresses in use; forgotten all at once past it. */
const MAX_PARTITION_KEYS = 1_024;

/** Writes a request's rate-limit headers; `refused` adds `Retry-After` to a 429. */
export type RateLimitHeaderWriter = (req: IncomingMessage, res: ServerResponse, refused: boolean) => void;

/** Whether the router writes the headers (the caller chose none of the header options), not the package. */
export function writesOwnRateLimitHeaders(user: Readonly<Partial<RateLimitOptions>> | undefined): boolean {
  return !HEADER_OPTIONS.some((key) => user?.[key] !== undefined);
}

/** express-rate-limit's default policy name for a window: `1min`, `30sec`, `2hrs`, `1day`. */
function windowName(windowMs: number): string {
  const seconds = windowMs / 1_000;
  const minutes = seconds / 60;
  const hours = minutes / 60;
  const days = hours / 24;
  if (seconds < 60) return `${seconds}sec`;
  if (minutes < 60) return `${minutes}min`;
  if (hours < 24) return `${hours}hr${hours > 1 ? 's' : ''}`;
  return `${days}day${days > 1 ? 's' : ''}`;
}

/** Adds a field value after any the host app already set (a limiter of its own, say), as res.append would. */
function appendHeader(res: ServerResponse, name: string, value: string): void {
  const previous = res.getHeader(name);
  res.setHeader(name, previous === undefined ? value : [...(Array.isArray(previous) ? previous : [String(previous)]), value]);
}

/**
 * Creates the writer of `RateLimit: "<limit>-in-<window>"; r=<remaining>; t=<reset s>` and
 * `RateLimit-Policy: "<name>"; q=<limit>; w=<window s>; pk=:<partition key>:`, byte for byte what
 * express-rate-limit writes with `standardHeaders: 'draft-8'`.
 *
 * @param windowMs - the limiter's window
 * @param property - where express-rate-limit leaves its count on the request (`requestPropertyName`)
 * @example
 * ```ts
 * const writeHeaders = createRateLimitHeaderWriter(60_000, 'rateLimit');
 * writeHeaders(req, res, false); // after the limiter let the request through
 * ```
 */
export function createRateLimitHeaderWriter(windowMs: number, property: string): RateLimitHeaderWriter {
  const windowSeconds = Math.ceil(windowMs / 1_000);
  const window = windowName(windowMs);
  // The limit may be a function of the request: the policy text is rebuilt only when it changes.
  let policyLimit: number | undefined;
  let name = '';
  let quota = '';

  // The draft's partition key names the caller's quota without revealing the key (an IP, a principal).
  const partitionKeyOf = remembered((key) => Buffer.from(createHash('sha256').update(key).digest('hex').slice(0, 12)).toString('base64'), MAX_PARTITION_KEYS);

  return function writeRateLimitHeaders(req, res, refused) {
    const info = (req as unknown as Record<string, RateLimitInfo | undefined>)[property];
    if (info === undefined || res.headersSent) return;
    if (info.limit !== policyLimit) {
      policyLimit = info.limit;
      name = `"${info.limit}-in-${window}"`;
      quota = `; q=${info.limit}; w=${windowSeconds}; pk=:`;
    }
    const reset = info.resetTime === undefined ? windowSeconds : Math.max(0, Math.ceil((info.resetTime.getTime() - Date.now()) / 1_000));
    appendHeader(res, 'RateLimit', `${name}; r=${info.remaining}; t=${reset}`);
    appendHeader(res, 'RateLimit-Policy', `${name}${quota}${partitionKeyOf(info.key)}:`);
    if (refused) res.setHeader('Retry-After', String(reset));
  };
}
