// 405 for every HTTP method the endpoint does not serve (GET streams and DELETE come with sessions).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../../core/jsonrpc/errors';
import { sendHttpError } from './http-error';

/**
 * Creates the handler that answers 405 with `Allow`.
 *
 * @param allowed - the methods the endpoint does serve, e.g. `['POST']`
 */
export function createMethodNotAllowedHandler(allowed: readonly string[]) {
  const allow = allowed.join(', ');
  return function mcpMethodNotAllowed(req: IncomingMessage, res: ServerResponse): void {
    // MCP transports: a server that offers no SSE stream answers GET with 405 Method Not Allowed, and so HEAD,
    // which gets GET's answer without its body (RFC 9110 §9.3.2). The response ends here: Node drops an unread body.
    sendHttpError(
      res,
      405,
      ErrorCode.ServerError,
      `Method Not Allowed: ${req.method ?? ''} is not served here; use ${allow}`,
      { Allow: allow },
    );
  };
}
