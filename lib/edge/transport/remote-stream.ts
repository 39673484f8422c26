// Resuming a POST stream another instance runs (or ran until it stopped): its recorded events, then the live ones, or an error for each lost request.

import { failure } from '../../core/jsonrpc/envelope';
import { ErrorCode, JsonRpcError } from '../../core/jsonrpc/errors';
import type { JsonRpcId } from '../../core/jsonrpc/types';
import { OWED_EVENT, type SseConnection } from '../http/sse';
import { DEFAULT_SESSION_IDLE_TTL_MS } from '../store/memory-session-store';
import { writeRecorded } from '../streams/outbound-stream';
import type { EventStore, StoredEvent } from '../store/session-stores';

/** How often the shared store is read for the stream's new events and its owner's heartbeat. */
export const REMOTE_POLL_MS = 150;

/** What following a stream recorded by another instance needs. */
export interface RemoteStream {
  readonly events: EventStore;
  readonly sessionId: string;
  readonly streamId: string;
  /** The requests the stream answers, as its owner marked them. */
  readonly requestIds: readonly JsonRpcId[];
  /** The events after the client's `Last-Event-ID`, read already. */
  readonly replayed: readonly StoredEvent[];
  /** The id the client resumed from: where reading starts when nothing was replayed. */
  readonly lastEventId: string;
  /** The longest the connection follows the stream (the session's idle TTL: a stream that long silent is lost anyway). */
  readonly limitMs?: number;
}

/** The error a client gets for a request whose instance stopped before answering it. */
function lostResponse(id: JsonRpcId): string {
  const error = new JsonRpcError(
    ErrorCode.InternalError,
    'The server instance serving this request stopped before answering it; it may or may not have run',
  );
  return JSON.stringify(failure(id, error));
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());

/**
 * Writes a stream that runs on another instance to `connection`: the recorded events, then each newly recorded one
 * in order (read every {@link REMOTE_POLL_MS} from the last one delivered, so none is doubled or skipped), until
 * every request of the stream has its response, then ends it (MCP transports › Resumability: the resumed stream
 * continues as the original would have). When the owner's heartbeat lapses first (its process stopped), whatever it
 * recorded is written, then a JSON-RPC error for each request left unanswered: a client never waits for a response
 * no one will send. The errors are not recorded (they are this connection's account of a loss, not the stream's).
 * Stops when the client hangs up, and after `limitMs` at most.
 *
 * @example
 * ```ts
 * const state = await events.streamState?.(sessionId, replay.streamId);
 * if (state !== undefined) await followRemoteStream(connection, { events, sessionId, streamId: replay.streamId, requestIds: state.requestIds, replayed: replay.events, lastEventId });
 * ```
 */
export async function followRemoteStream(connection: SseConnection, stream: RemoteStream): Promise<void> {
  const { events, sessionId, streamId, limitMs = DEFAULT_SESSION_IDLE_TTL_MS } = stream;
  const unanswered = new Set<JsonRpcId>(stream.requestIds);
  let lastId = stream.lastEventId;
  const deliver = (recorded: readonly StoredEvent[], owed: boolean): void => {
    writeRecorded(connection, recorded, owed);
    for (const event of recorded) {
      const message = event.message;
      if (message !== null && !('method' in message) && message.id !== null) unanswered.delete(message.id);
      lastId = event.id;
    }
  };
  // What was recorded before the client came back is owed to it; what is recorded while it follows counts toward its bound.
  deliver(stream.replayed, true);
  const deadline = Date.now() + limitMs;
  try {
    while (unanswered.size > 0 && connection.open && Date.now() < deadline) {
      await sleep(REMOTE_POLL_MS);
      if (!connection.open) return;
      // The state first, then the events: when the owner was gone or done, everything it recorded is in this read.
      const state = await events.streamState?.(sessionId, streamId);
      const replay = await events.replayAfter(sessionId, lastId);
      // The session ended, or the events after `lastId` were trimmed away: nothing can follow without a gap.
      if (replay === undefined) break;
      deliver(replay.events, false);
      if (state === undefined || !state.open) {
        for (const id of unanswered) connection.event(undefined, lostResponse(id), OWED_EVENT);
        unanswered.clear();
      }
    }
  } catch {
    // The store cannot answer (an outage): the connection ends, and the client resumes again from its last event id.
  } finally {
    connection.end();
  }
}
