// DELETE: the client ends its session (MCP transports › Session Management).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../jsonrpc/errors';
import type { AuthInfo } from '../registry/context';
import { SESSION_ID_HEADER } from './headers';
import { sendHttpError } from './http-error';
import type { SessionManager } from './sessions';

/**
 * Creates the DELETE handler of a router that keeps sessions and lets clients end them.
 *
 * @example
 * ```ts
 * router.delete('/', createDeleteHandler(sessions, authOf));
 * ```
 */
export function createDeleteHandler(sessions: SessionManager, authOf: (req: IncomingMessage) => AuthInfo | undefined) {
  return async function mcpDeleteHandler(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const id = req.headers[SESSION_ID_HEADER];
    if (typeof id !== 'string') {
      sendHttpError(res, 400, ErrorCode.ServerError, 'Bad Request: Mcp-Session-Id header is required');
      return;
    }
    if (!(await sessions.delete(id, authOf(req)?.subject))) {
      sendHttpError(res, 404, ErrorCode.ServerError, 'Session not found: it expired or was already deleted');
      return;
    }
    res.writeHead(200, { 'Content-Length': 0 });
    res.end();
  };
}
