// Per-tool call limits: a fixed window counted per caller (principal, else session, else client address) in an express-rate-limit store.

import { ipKeyGenerator, MemoryStore, type Options as RateLimitOptions, type Store } from 'express-rate-limit';
import { isPositiveInteger, McpConfigError, type OptionKeys } from '../../options/config-error';
import type { RequestContext } from './request-context';

/** At most `limit` calls per `windowMs`, per caller. */
export interface CallLimitOptions {
  /** The most calls one caller may make in a window; one more is refused until the window ends. */
  limit: number;
  /** The window's length in ms; the count starts again after it. */
  windowMs: number;
  /**
   * Where the calls are counted: any express-rate-limit store (`rate-limit-redis`, …). Defaults to the router's
   * `store` when it has one (so every instance counts, as the router's `rateLimit` does), else one in memory.
   */
  store?: Store;
}

/** The keys of a `rateLimit`. */
export const CALL_LIMIT_KEYS: OptionKeys<CallLimitOptions> = { limit: true, windowMs: true, store: true };

/** Counts calls of one tool. */
export interface CallLimiter {
  /** Counts a call; resolves the seconds to wait when the caller is over the limit, else undefined. Rejects when the store fails. */
  take(ctx: RequestContext): Promise<number | undefined>;
}

/** Makes the store a tool's calls are counted in when its `rateLimit` names none (the router's shared store). */
export type CallLimitStores = (toolName: string) => Store;

/**
 * Who a request counts against, in every limit of the router: the authenticated principal, else the 2025 session,
 * else the client's address (express-rate-limit's `ipKeyGenerator` groups IPv6 by /56, so one client cannot rotate
 * through its own). A 2026 request, or a stateless 2025 one, has no session: without auth, its address decides.
 */
export function callerKey(
  principal: string | undefined,
  sessionId: string | undefined,
  address: string | undefined,
): string {
  if (principal !== undefined) return `principal:${principal}`;
  if (sessionId !== undefined) return `session:${sessionId}`;
  return `ip:${ipKeyGenerator(address ?? '')}`;
}

/**
 * @param stores - the router's store of counters, when it shares one; undefined: in memory
 * @throws {McpConfigError} for a limit or window that is not a positive integer, or a store without `increment`
 * @example
 * ```ts
 * const limiter = createCallLimiter({ limit: 5, windowMs: 60_000 }, 'export', "tool 'export'");
 * await limiter.take(ctx); // undefined five times a minute, then the seconds to wait
 * ```
 */
export function createCallLimiter(
  options: CallLimitOptions,
  name: string,
  label: string,
  stores?: CallLimitStores,
): CallLimiter {
  const { limit, windowMs, store: given } = options ?? ({} as CallLimitOptions);
  if (!isPositiveInteger(limit) || !isPositiveInteger(windowMs)) {
    throw new McpConfigError(
      'ERR_MCP_INVALID_DEFINITION',
      `${label} rateLimit must be { limit, windowMs } with positive integers`,
    );
  }
  if (given !== undefined && (typeof given !== 'object' || given === null || typeof given.increment !== 'function')) {
    throw new McpConfigError(
      'ERR_MCP_INVALID_DEFINITION',
      `${label} rateLimit.store must be an express-rate-limit store (an object with increment())`,
    );
  }
  const store = given ?? stores?.(name) ?? new MemoryStore();
  // express-rate-limit's stores read only their window (and, for some, the limit) from the options they are given.
  void Promise.resolve(store.init?.({ windowMs, limit } as RateLimitOptions)).catch(() => undefined);
  return {
    async take(ctx) {
      const { totalHits, resetTime } = await store.increment(
        callerKey(ctx.auth?.subject, ctx.sessionId, ctx.clientAddress),
      );
      if (totalHits <= limit) return undefined;
      return Math.max(1, Math.ceil(((resetTime?.getTime() ?? Date.now() + windowMs) - Date.now()) / 1000));
    },
  };
}
