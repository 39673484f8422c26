// GET: the session's standalone SSE stream, or the resumption of a stream with Last-Event-ID.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../jsonrpc/errors';
import { isAtLeast } from '../protocol/versions';
import type { AuthInfo } from '../registry/context';
import { parseAccept } from './accept';
import { LAST_EVENT_ID_HEADER, SESSION_ID_HEADER } from './headers';
import { sendHttpError } from './http-error';
import type { SessionManager } from './sessions';
import { writeRecorded } from './outbound-stream';
import { SseConnection, type SseOptions } from './sse';

/**
 * Creates the GET handler of a router that keeps sessions.
 *
 * @example
 * ```ts
 * router.get('/', createGetHandler(sessions, sseOptions, authOf));
 * ```
 */
export function createGetHandler(sessions: SessionManager, sse: SseOptions, authOf: (req: IncomingMessage) => AuthInfo | undefined) {
  return async function mcpGetHandler(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // MCP transports: the client MUST accept text/event-stream on GET.
    if (!parseAccept(req.headers.accept).sse) {
      sendHttpError(res, 406, ErrorCode.ServerError, 'Not Acceptable: a GET stream needs Accept: text/event-stream');
      return;
    }
    const id = req.headers[SESSION_ID_HEADER];
    if (typeof id !== 'string') {
      sendHttpError(res, 400, ErrorCode.ServerError, 'Bad Request: Mcp-Session-Id header is required (initialize first)');
      return;
    }
    const session = await sessions.load(id, authOf(req)?.subject);
    if (session === undefined) {
      sendHttpError(res, 404, ErrorCode.ServerError, 'Session not found: it expired or was deleted; initialize a new session');
      return;
    }
    const { live, record } = session;
    const open = (): SseConnection => new SseConnection(res, sse, {}, () => sessions.touch(id), () => undefined);
    const lastEventId = req.headers[LAST_EVENT_ID_HEADER];
    const events = sessions.settings.events;
    const replay = typeof lastEventId === 'string' && events ? await events.replayAfter(id, lastEventId) : undefined;
    if (replay !== undefined && events !== undefined) {
      // MCP transports › Resumability: replay only the stream the id belongs to, then continue it.
      const stream = live.streams.get(replay.streamId) ?? (live.standalone?.id === replay.streamId ? live.standalone : undefined);
      const connection = open();
      if (stream !== undefined) {
        // Read again inside the stream's queue, so nothing recorded meanwhile is missed or doubled.
        await stream.resume(connection, async () => (await events.replayAfter(id, lastEventId as string))?.events);
      } else {
        // The stream finished: what it recorded is all there is.
        writeRecorded(connection, replay.events);
        connection.end();
      }
      return;
    }
    // An unknown Last-Event-ID never replays another stream's events: it gets a fresh standalone stream.
    // MCP transports: one standalone stream per session at a time (the SDK's 409).
    if (live.standalone?.connected) {
      sendHttpError(res, 409, ErrorCode.ServerError, 'Conflict: this session already has an open GET stream');
      return;
    }
    const connection = open();
    live.standalone ??= sessions.newStream(id);
    live.standalone.attach(connection);
    if (events && isAtLeast(record.protocolVersion, '2025-11-25')) await live.standalone.prime(sse.retryMs);
  };
}
