// Rate-limit settings: keyed by principal (else client IP, IPv6-safe), preflights free, 429 as a JSON-RPC error with the request's id. (Its Redis store: redis/rate-limit.ts.)

import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { rateLimit, type Options as RateLimitOptions } from 'express-rate-limit';
import { definedOnly, invalidOption } from '../../options/config-error';
import { failure } from '../../core/jsonrpc/envelope';
import { ErrorCode, JsonRpcError } from '../../core/jsonrpc/errors';
import { isJsonRpcId, isObject, type JsonRpcId } from '../../core/jsonrpc/types';
import { readBodyPrefix, type BodyPrefix } from '../http/body';
import { sendJson } from '../http/reply';
import { callerKey } from '../../core/registry/call-limit';
import { createDirectRateLimiter, runsDirectly, type RouterRateLimitKeys } from './rate-limit-direct';
import type { McpStore } from '../store/shared-store';

/** Default `rateLimit.windowMs` (options.ts). */
export const DEFAULT_RATE_LIMIT_WINDOW_MS = 60_000;
/** Default `rateLimit.limit` (options.ts): requests per window and key (principal or client IP). */
export const DEFAULT_RATE_LIMIT = 1_000;

/** The `rateLimit` option after defaulting (options.ts): express-rate-limit options with the window and limit set. */
export type ResolvedRateLimit = Readonly<Partial<RateLimitOptions> & Pick<RateLimitOptions, 'windowMs' | 'limit'>>;

/**
 * How much of a refused POST's body is read for its id: 4 KiB holds a whole request of ordinary size (initialize,
 * a list, a tools/call with small arguments), and costs little to scan.
 */
export const REFUSED_ID_PREFIX_BYTES = 4_096;

/** The index of the closing quote of the JSON string opening at `start`; -1 when the text is cut first. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c)
      i++; // backslash: skip the escaped character
    else if (c === 0x22) return i;
  }
  return -1;
}

/** Where the JSON value at `start` ends (objects and arrays skipped by depth, not parsed); -1 when it is cut. */
function valueEnd(text: string, start: number): number {
  const first = text.charCodeAt(start);
  if (first === 0x22) {
    const end = stringEnd(text, start);
    return end < 0 ? -1 : end + 1;
  }
  if (first !== 0x7b && first !== 0x5b) {
    // A number, true, false or null ends at a delimiter: one that runs to the end of the text may be cut short.
    const length = text.slice(start, start + 32).search(/[\s,\]}]/);
    return length <= 0 ? -1 : start + length;
  }
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = stringEnd(text, i);
      if (i < 0) return -1;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if ((c === 0x7d || c === 0x5d) && --depth === 0) return i + 1;
  }
  return -1;
}

/** Skips JSON whitespace (RFC 8259 §2). */
function skipSpace(text: string, from: number): number {
  let i = from;
  for (let c = text.charCodeAt(i); c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; c = text.charCodeAt(++i));
  return i;
}

function parseSmall(token: string): unknown {
  try {
    return JSON.parse(token);
  } catch {
    return undefined;
  }
}

/**
 * The `id` member of a JSON-RPC request from the start of its JSON text, which may be cut anywhere. The
 * top-level members are walked without parsing their values; only the id's value and an escaped key are
 * parsed (a few bytes each). Null for a batch, a body that is no object, or an id the cut hides; with a
 * repeated `id`, the last the text shows, as JSON.parse keeps the last.
 *
 * @example
 * ```ts
 * idInJsonPrefix('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"argu'); // 7
 * ```
 */
export function idInJsonPrefix(text: string): JsonRpcId | null {
  // A byte-order mark is dropped, as the body reader drops it.
  let i = skipSpace(text, text.charCodeAt(0) === 0xfeff ? 1 : 0);
  if (text.charCodeAt(i) !== 0x7b) return null;
  let id: JsonRpcId | null = null;
  for (i = skipSpace(text, i + 1); text.charCodeAt(i) === 0x22; i = skipSpace(text, i + 1)) {
    const keyEnd = stringEnd(text, i);
    if (keyEnd < 0) return id;
    const colon = skipSpace(text, keyEnd + 1);
    if (text.charCodeAt(colon) !== 0x3a) return id;
    const start = skipSpace(text, colon + 1);
    const end = valueEnd(text, start);
    if (end < 0) return id;
    const key = text.slice(i + 1, keyEnd);
    if (key === 'id' || (key.includes('\\') && parseSmall(`"${key}"`) === 'id')) {
      const value = parseSmall(text.slice(start, end));
      id = isJsonRpcId(value) ? value : null;
    }
    i = skipSpace(text, end);
    if (text.charCodeAt(i) !== 0x2c) return id;
  }
  return id;
}

/** The id a 429 echoes, from what was read of the refused request's body. */
function refusedId(prefix: BodyPrefix | undefined): JsonRpcId | null {
  if (prefix?.kind === 'parsed') return isObject(prefix.value) && isJsonRpcId(prefix.value.id) ? prefix.value.id : null;
  return prefix?.kind === 'text' ? idInJsonPrefix(prefix.text) : null;
}

/** What the limiter needs from the router. */
export interface RateLimitSettings {
  /** The authenticated subject of a request, if any. */
  readonly principalOf: (req: IncomingMessage) => string | undefined;
  /** The body limit: a refused POST declared larger is not read at all. */
  readonly bodyLimit: number;
}

/**
 * The rate limiter of a router: express-rate-limit with the resolved `rateLimit` option over these settings, and
 * its draft-8 `RateLimit` and `RateLimit-Policy` headers. Keyed by principal, else by client IP
 * (express-rate-limit's `ipKeyGenerator` groups IPv6 addresses by /56, so one client cannot rotate through its
 * own). Behind a proxy, set Express's `trust proxy` so `req.ip` is the client's address, not the proxy's.
 *
 * @example
 * ```ts
 * frontDoor.push(createRateLimiter(config.rateLimit, { principalOf: (req) => authOf(req)?.subject, bodyLimit: config.bodyLimit }));
 * ```
 */
export function createRateLimiter(resolved: ResolvedRateLimit, settings: RateLimitSettings): RequestHandler {
  const tooManyRequests = new JsonRpcError(
    ErrorCode.ServerError,
    'Too Many Requests: the rate limit is reached; retry after the time in Retry-After',
  );
  const keys: RouterRateLimitKeys = {
    // CORS preflights carry no credentials and do no work: they do not count.
    skip: (req) => req.method === 'OPTIONS',
    // Per request, never per session: a session is not known before the body is read. The client address is read
    // only for a caller without a principal (Express's `req.ip` walks the forwarding headers).
    keyOf(req) {
      const principal = settings.principalOf(req);
      return principal === undefined
        ? callerKey(undefined, undefined, (req as { ip?: string }).ip ?? req.socket.remoteAddress)
        : callerKey(principal, undefined, undefined);
    },
  };
  const options = {
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    // The key generator below does use ipKeyGenerator, which the library's source-text check cannot see.
    validate: { keyGeneratorIpFallback: false },
    skip: keys.skip,
    keyGenerator: keys.keyOf,
    handler: async (req, res) => {
      // The refused request's id, so the client can match the error to it (JSON-RPC 2.0 §5: null when it cannot be
      // known). Only the body's first few KB are read, never parsed whole: a refusal must cost less than the work it
      // refuses, or a flood of refused requests would slow every other client. An id past the prefix (the official
      // SDK writes it after `params`) is null; requests of ordinary size (initialize, lists, most calls) show theirs.
      const prefix =
        req.method === 'POST' ? await readBodyPrefix(req, REFUSED_ID_PREFIX_BYTES, settings.bodyLimit) : undefined;
      const headers = prefix?.kind === 'unread' && prefix.close ? { Connection: 'close' } : undefined;
      sendJson(res, 429, failure(refusedId(prefix), tooManyRequests), headers);
    },
    ...resolved,
  } satisfies Partial<RateLimitOptions>;
  return runsDirectly(resolved) ? createDirectRateLimiter(options, keys) : rateLimit(options);
}

/**
 * Checks the `rateLimit` option once, at router creation, and sets the defaults under the caller's values.
 *
 * @param shared - the router's `store`: its counters are the default `rateLimit.store`, so every instance counts
 * @returns the express-rate-limit options, frozen; false for no rate limit
 * @throws {McpConfigError} `ERR_MCP_INVALID_OPTION` for a value that is neither options nor false
 */
export function resolveRateLimit(
  rateLimit: Partial<RateLimitOptions> | false | undefined,
  shared: McpStore | undefined,
): ResolvedRateLimit | false {
  if (rateLimit === false) return false;
  if (rateLimit !== undefined && (typeof rateLimit !== 'object' || rateLimit === null))
    throw invalidOption('rateLimit', 'express-rate-limit options or false', rateLimit);
  const store = rateLimit?.store ?? shared?.rateLimit('router');
  return Object.freeze({
    windowMs: DEFAULT_RATE_LIMIT_WINDOW_MS,
    limit: DEFAULT_RATE_LIMIT,
    ...(rateLimit && definedOnly(rateLimit)),
    ...(store === undefined ? {} : { store }),
  });
}
