// Per-tool call limits: a fixed window counted per caller (principal, else session, else client address), for tools that are costly to run.

import { ipKeyGenerator } from 'express-rate-limit';
import { isPositiveInteger, McpConfigError } from '../errors';
import type { RequestContext } from './request-context';

/** At most `limit` calls per `windowMs`, per caller. */
export interface CallLimitOptions {
  limit: number;
  windowMs: number;
}

/** Counts calls of one tool. */
export interface CallLimiter {
  /** Counts a call; resolves the seconds to wait when the caller is over the limit, else undefined. */
  take(ctx: RequestContext): number | undefined;
}

/**
 * Who a request counts against, in every limit of the router: the authenticated principal, else the 2025 session,
 * else the client's address (express-rate-limit's `ipKeyGenerator` groups IPv6 by /56, so one client cannot rotate
 * through its own). A 2026 request, or a stateless 2025 one, has no session: without auth, its address decides.
 */
export function callerKey(principal: string | undefined, sessionId: string | undefined, address: string | undefined): string {
  if (principal !== undefined) return `principal:${principal}`;
  if (sessionId !== undefined) return `session:${sessionId}`;
  return `ip:${ipKeyGenerator(address ?? '')}`;
}

/** Past this many callers, windows that ended are swept, so the counter map cannot grow without bound. */
const SWEEP_AT = 10_000;

/**
 * @throws {McpConfigError} for a limit or window that is not a positive integer
 * @example
 * ```ts
 * const limiter = createCallLimiter({ limit: 5, windowMs: 60_000 }, "tool 'export'");
 * limiter.take(ctx); // undefined five times a minute, then the seconds to wait
 * ```
 */
export function createCallLimiter(options: CallLimitOptions, label: string, now: () => number = Date.now): CallLimiter {
  const { limit, windowMs } = options ?? ({} as CallLimitOptions);
  if (!isPositiveInteger(limit) || !isPositiveInteger(windowMs)) {
    throw new McpConfigError('ERR_MCP_INVALID_DEFINITION', `${label} rateLimit must be { limit, windowMs } with positive integers`);
  }
  const windows = new Map<string, { count: number; endsAt: number }>();
  let nextSweepAt = 0;
  return {
    take(ctx) {
      const key = callerKey(ctx.auth?.subject, ctx.sessionId, ctx.clientAddress);
      const time = now();
      // At most one sweep per window: while every window is still running, a sweep per call would cost each
      // call a walk over all callers.
      if (windows.size > SWEEP_AT && time >= nextSweepAt) {
        for (const [k, w] of windows) if (w.endsAt <= time) windows.delete(k);
        nextSweepAt = time + windowMs;
      }
      let window = windows.get(key);
      if (window === undefined || window.endsAt <= time) windows.set(key, (window = { count: 0, endsAt: time + windowMs }));
      window.count++;
      return window.count > limit ? Math.ceil((window.endsAt - time) / 1000) : undefined;
    },
  };
}
