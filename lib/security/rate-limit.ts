// Rate-limit settings: keyed by principal (else client IP, IPv6-safe), preflights free, 429 as a JSON-RPC error with the request's id.

import type { IncomingMessage } from 'node:http';
import type { Options as RateLimitOptions } from 'express-rate-limit';
import { failure } from '../jsonrpc/envelope';
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import { isJsonRpcId, isObject } from '../jsonrpc/types';
import { readJsonBody } from '../transport/body';
import { sendJson } from '../transport/reply';
import { createRateLimitHeaderWriter, writesOwnRateLimitHeaders, type RateLimitHeaderWriter } from './rate-limit-headers';

/** Default window of the rate limit: one minute. */
export const DEFAULT_RATE_LIMIT_WINDOW_MS = 60_000;
/** Default requests per window and key (principal or client IP): about 16 a second, sustained. */
export const DEFAULT_RATE_LIMIT = 1_000;

/** What the limiter needs from the router. */
export interface RateLimitSettings {
  /** The authenticated subject of a request, if any. */
  readonly principalOf: (req: IncomingMessage) => string | undefined;
  /** The body limit, for reading the id of a refused POST. */
  readonly bodyLimit: number;
  /** express-rate-limit's `ipKeyGenerator`: groups IPv6 addresses by /56, so one client cannot rotate through its own. */
  readonly ipKey: (ip: string) => string;
}

/** The limiter of a router: express-rate-limit's options, and the writer of its headers when the router writes them. */
export interface RateLimitSetup {
  readonly options: Partial<RateLimitOptions>;
  /** Set unless the caller chose header options of their own (then express-rate-limit writes every header). */
  readonly writeHeaders?: RateLimitHeaderWriter;
}

/**
 * The express-rate-limit options of a router: the defaults above, then the caller's (`rateLimit` option).
 * Behind a proxy, set Express's `trust proxy` so `req.ip` is the client's address, not the proxy's.
 * The draft-8 `RateLimit` and `RateLimit-Policy` headers are the router's to write (see rate-limit-headers.ts),
 * unless the caller chose header options.
 *
 * @example
 * ```ts
 * const { options, writeHeaders } = rateLimitSetup({ limit: 100 }, { principalOf, bodyLimit, ipKey: ipKeyGenerator });
 * router.use(rateLimit(options), (req, res, next) => { writeHeaders?.(req, res, false); next(); });
 * ```
 */
export function rateLimitSetup(user: Partial<RateLimitOptions> | undefined, settings: RateLimitSettings): RateLimitSetup {
  const windowMs = user?.windowMs ?? DEFAULT_RATE_LIMIT_WINDOW_MS;
  const writeHeaders = writesOwnRateLimitHeaders(user) ? createRateLimitHeaderWriter(windowMs, user?.requestPropertyName ?? 'rateLimit') : undefined;
  const options: Partial<RateLimitOptions> = {
    windowMs,
    limit: DEFAULT_RATE_LIMIT,
    standardHeaders: writeHeaders ? false : 'draft-8',
    legacyHeaders: false,
    // The key generator below does use ipKeyGenerator (through settings.ipKey), which the library's
    // source-text check cannot see.
    validate: { keyGeneratorIpFallback: false },
    // CORS preflights carry no credentials and do no work: they do not count.
    skip: (req) => req.method === 'OPTIONS',
    keyGenerator: (req) => {
      const principal = settings.principalOf(req);
      return principal === undefined ? `ip:${settings.ipKey(req.ip ?? req.socket.remoteAddress ?? '')}` : `principal:${principal}`;
    },
    handler: async (req, res) => {
      writeHeaders?.(req, res, true);
      // The refused request's id, when its body can still be read, so the client can match the error to it.
      const body = req.method === 'POST' ? await readJsonBody(req, settings.bodyLimit) : undefined;
      const id = body?.ok && isObject(body.value) && isJsonRpcId(body.value.id) ? body.value.id : null;
      sendJson(res, 429, failure(id, new JsonRpcError(ErrorCode.ServerError, 'Too Many Requests: the rate limit is reached; retry after the time in Retry-After')));
    },
    ...user,
  };
  return { options, writeHeaders };
}
