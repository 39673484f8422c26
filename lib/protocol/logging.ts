// logging/setLevel and the eight syslog levels MCP uses.

import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import type { MethodTable } from './methods';

/** RFC 5424 severities, least severe first (MCP logging). */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;

/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** True for one of the eight levels. */
export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && (LOG_LEVELS as readonly string[]).includes(value);
}

/**
 * The logging method. The level is checked here; it takes effect for the session that set it once the
 * router keeps sessions (log messages travel on the session's streams).
 */
export function loggingMethods(): MethodTable {
  return {
    'logging/setLevel': {
      run: (params) => {
        // MCP logging › Error Handling: an invalid level is -32602.
        if (!isLogLevel(params.level)) {
          throw new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: 'level' must be one of ${LOG_LEVELS.join(', ')}`);
        }
        return {};
      },
    },
  };
}
