// DELETE: the client ends its session (MCP transports › Session Management).

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '../../core/registry/request-context';
import type { SessionManager } from '../sessions/sessions';
import { requiredSessionId, sendSessionNotFound } from './session-lookup';

/**
 * Creates the DELETE handler of a router that keeps sessions and lets clients end them. It returns a promise: the
 * caller hands a rejection to its error handler (Express 4 does not).
 *
 * @example
 * ```ts
 * const handleDelete = createDeleteHandler(sessions, authOf);
 * handleDelete(req, res).catch(next);
 * ```
 */
export function createDeleteHandler(sessions: SessionManager, authOf: (req: IncomingMessage) => AuthInfo | undefined) {
  return async function mcpDeleteHandler(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const id = requiredSessionId(req, res);
    if (id === undefined) return;
    if (!(await sessions.delete(id, authOf(req)?.subject))) {
      sendSessionNotFound(res);
      return;
    }
    res.writeHead(200, { 'Content-Length': 0 });
    res.end();
  };
}
