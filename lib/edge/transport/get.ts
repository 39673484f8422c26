// GET: the session's standalone SSE stream, or the resumption of a stream with Last-Event-ID; HEAD: the same answer, headers only.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../../core/jsonrpc/errors';
import type { AuthInfo } from '../../core/registry/request-context';
import { parseAccept } from '../http/accept';
import { LAST_EVENT_ID_HEADER } from '../http/mcp-headers';
import { sendHttpError } from '../http/http-error';
import type { JsonRpcId } from '../../core/jsonrpc/types';
import type { SessionChannel } from '../sessions/session-channel';
import type { SessionManager } from '../sessions/sessions';
import type { EventStore } from '../store/session-stores';
import { writeRecorded } from '../streams/outbound-stream';
import { SseConnection, type SseOptions } from '../http/sse';
import { followRemoteStream } from './remote-stream';
import { loadNamedSession } from './session-lookup';

/** MCP transports: one standalone stream per session at a time (the SDK's 409). */
function sendConflict(res: ServerResponse): void {
  sendHttpError(res, 409, ErrorCode.ServerError, 'Conflict: this session already has an open GET stream');
}

/**
 * HEAD is GET without content (RFC 9110 §9.3.2): the status and header fields a GET would get, then the end.
 * A HEAD opens no stream: nothing attaches to the session, no event is replayed or primed, no keep-alive timer
 * starts, so the connection is free for its next request and a later GET is not refused as a second stream.
 * With Last-Event-ID the GET would resume, which never conflicts; an id the store does not know is not looked
 * up (that read is for content HEAD does not send).
 */
function answerHead(req: IncomingMessage, res: ServerResponse, channel: SessionChannel, sse: SseOptions): void {
  if (typeof req.headers[LAST_EVENT_ID_HEADER] !== 'string' && channel.standaloneConnected) {
    sendConflict(res);
    return;
  }
  // A stream that is complete at opening writes a GET stream's headers, starts no timer, and ends at once.
  new SseConnection(res, sse, {}, undefined, true).end();
}

/** A GET whose Last-Event-ID the session's event store knows: what resuming its stream takes. */
interface Resumption {
  readonly res: ServerResponse;
  readonly channel: SessionChannel;
  readonly events: EventStore;
  readonly sessionId: string;
  readonly lastEventId: string;
  /** The store's first answer: the stream the id names and its events after it. */
  readonly replay: NonNullable<Awaited<ReturnType<EventStore['replayAfter']>>>;
  /** Opens the reply's SSE stream. */
  readonly open: () => SseConnection;
}

/**
 * MCP transports › Resumability: replays only the stream the id belongs to, then continues it: here when it runs
 * here, followed when another instance runs it (a shared store tells), else what it recorded and the end.
 */
async function resumeStream(resumption: Resumption): Promise<void> {
  const { res, channel, events, sessionId, lastEventId, replay, open } = resumption;
  const stream = channel.localStream(replay.streamId);
  if (stream !== undefined) {
    // Read again inside the stream's queue, so nothing recorded meanwhile is missed or doubled.
    await stream.resume(open(), async () => (await events.replayAfter(sessionId, lastEventId))?.events);
    return;
  }
  // Not running here: another instance may run it (or ran it until it stopped), which a shared store tells.
  const state = await events.streamState?.(sessionId, replay.streamId);
  if (res.destroyed) return;
  if (state !== undefined) {
    await followElsewhere(resumption, state.requestIds);
    return;
  }
  // The stream finished: what it recorded is all there is. Read again when a shared store said so: it may have
  // finished on its instance after the first read, and its last events would be missing from it.
  const recorded =
    events.streamState === undefined
      ? replay.events
      : ((await events.replayAfter(sessionId, lastEventId))?.events ?? replay.events);
  const connection = open();
  writeRecorded(connection, recorded);
  connection.end();
}

/** Follows a stream another instance runs (or ran), within the session's bound of streams followed here. */
async function followElsewhere(resumption: Resumption, requestIds: readonly JsonRpcId[]): Promise<void> {
  const { res, channel, events, sessionId, lastEventId, replay, open } = resumption;
  let connection: SseConnection | undefined;
  const release = channel.follow(replay.streamId, { end: () => connection?.end() });
  // Refused before the stream opens: an empty 200 stream would read as a dropped one, resumed again at once.
  if (release === undefined) {
    sendHttpError(
      res,
      429,
      ErrorCode.ServerError,
      'Too Many Requests: this session has sessions.maxStreams streams open here; resume once one has ended',
      { 'Retry-After': '1' },
    );
    return;
  }
  connection = open();
  try {
    await followRemoteStream(connection, {
      events,
      sessionId,
      streamId: replay.streamId,
      requestIds,
      replayed: replay.events,
      lastEventId,
    });
  } finally {
    release();
  }
}

/**
 * Creates the GET handler of a router that keeps sessions; it answers HEAD too. It returns a promise: the caller
 * hands a rejection to its error handler (Express 4 does not).
 *
 * @example
 * ```ts
 * const handleGet = createGetHandler(sessions, { keepAliveMs: config.keepAliveMs, retryMs: config.retryMs }, authOf);
 * handleGet(req, res).catch(next);
 * ```
 */
export function createGetHandler(
  sessions: SessionManager,
  sse: SseOptions,
  authOf: (req: IncomingMessage) => AuthInfo | undefined,
) {
  return async function mcpGetHandler(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // MCP transports: the client MUST accept text/event-stream on GET.
    if (!parseAccept(req.headers.accept).sse) {
      sendHttpError(res, 406, ErrorCode.ServerError, 'Not Acceptable: a GET stream needs Accept: text/event-stream');
      return;
    }
    const session = await loadNamedSession(req, res, sessions, authOf(req)?.subject, true);
    if (session === false || session === undefined) return;
    const { record } = session;
    const id = record.id;
    // The session's streams are its channel's: which one resumes, how many follow another instance, the standalone one.
    const channel = sessions.channel(session.live, record.protocolVersion);
    if (req.method === 'HEAD') {
      answerHead(req, res, channel, sse);
      return;
    }
    const lastEventId = req.headers[LAST_EVENT_ID_HEADER];
    const { events } = channel;
    const replay = typeof lastEventId === 'string' && events ? await events.replayAfter(id, lastEventId) : undefined;
    // The client may have hung up while the session and its events were read: a stream attached for no one would
    // take the place of the session's live connection, or record events no client asked for.
    if (res.destroyed) return;
    const open = (): SseConnection => new SseConnection(res, sse, {}, () => sessions.touch(id));
    if (replay !== undefined && events !== undefined) {
      await resumeStream({ res, channel, events, sessionId: id, lastEventId: lastEventId as string, replay, open });
      return;
    }
    // An unknown Last-Event-ID never replays another stream's events: it gets a fresh standalone stream.
    if (channel.standaloneConnected) {
      sendConflict(res);
      return;
    }
    const standalone = channel.attachStandalone(open());
    if (channel.primes) await standalone.prime(sse.retryMs);
  };
}
