// logging/setLevel and the eight syslog levels MCP uses.

import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors';
import { LOG_LEVELS, type LogLevel } from '../../registry/request-context';
import { ClientUpdate } from '../handler-context';
import { SESSION_ERAS } from '../../era-policy';
import type { MethodTable } from './method-spec';

export { LOG_LEVELS, type LogLevel };

/** True for one of the eight levels. */
export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && (LOG_LEVELS as readonly string[]).includes(value);
}

/** The logging method: the level holds for the session that set it (for one request in stateless mode). */
export function loggingMethods(): MethodTable {
  return {
    'logging/setLevel': {
      eras: SESSION_ERAS,
      run: (params) => {
        // MCP logging › Error Handling: an invalid level is -32602.
        if (!isLogLevel(params.level)) {
          throw new JsonRpcError(
            ErrorCode.InvalidParams,
            `Invalid params: 'level' must be one of ${LOG_LEVELS.join(', ')}`,
          );
        }
        return new ClientUpdate({}, { logLevel: params.level });
      },
    },
  };
}
