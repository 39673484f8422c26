// The session a request names (Mcp-Session-Id), looked up for POST, GET and DELETE alike, with the transport's 400 and 404.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../../core/jsonrpc/errors';
import { SESSION_ID_HEADER } from '../http/mcp-headers';
import { sendHttpError } from '../http/http-error';
import type { SessionManager } from '../sessions/sessions';

/** A session the request named, as the store and this process hold it. */
export type LoadedSession = NonNullable<Awaited<ReturnType<SessionManager['load']>>>;

/** MCP transports › Session Management: a request after initialization without the session id gets 400. */
export function sendSessionRequired(res: ServerResponse): void {
  sendHttpError(res, 400, ErrorCode.ServerError, 'Bad Request: Mcp-Session-Id header is required (initialize first)');
}

/** MCP transports › Session Management: an unknown, expired or deleted session (or another principal's) gets 404. */
export function sendSessionNotFound(res: ServerResponse): void {
  sendHttpError(
    res,
    404,
    ErrorCode.ServerError,
    'Session not found: it expired or was deleted; initialize a new session (without Mcp-Session-Id)',
  );
}

/** The Mcp-Session-Id of a request that must carry one; answers 400 itself and returns undefined without it. */
export function requiredSessionId(req: IncomingMessage, res: ServerResponse): string | undefined {
  const id = req.headers[SESSION_ID_HEADER];
  if (typeof id === 'string') return id;
  sendSessionRequired(res);
  return undefined;
}

/**
 * Loads the session a request names, before its body is read, at no more cost than the lookup. Resolves the session;
 * undefined when the request names none and `required` is false; false when it answered 400 or 404 itself.
 */
export async function loadNamedSession(
  req: IncomingMessage,
  res: ServerResponse,
  sessions: SessionManager,
  subject: string | undefined,
  required: boolean,
): Promise<LoadedSession | undefined | false> {
  const header = req.headers[SESSION_ID_HEADER];
  if (typeof header !== 'string') {
    if (!required) return undefined;
    sendSessionRequired(res);
    return false;
  }
  const loaded = await sessions.load(header, subject);
  if (loaded !== undefined) return loaded;
  sendSessionNotFound(res);
  return false;
}
