// A logical SSE stream: ordered messages, recorded for resumption, written to whichever connection is attached.

import { randomUUID } from 'node:crypto';
import type { JsonRpcId, JsonRpcMessage } from '../../core/jsonrpc/types';
import type { McpLogger } from '../../core/logger';
import { serializeResponses } from '../http/reply';
import { LIVE_EVENT, OWED_EVENT, type SseConnection, type SseEventOptions } from '../http/sse';
import { synchronousAppend } from '../store/memory-event-store';
import { STREAM_HEARTBEAT_MS, type EventStore } from '../store/session-stores';

/**
 * Writes recorded events as they were first sent (priming events as empty data).
 *
 * @param owed - a replay is owed to the client (see {@link SseEventOptions.owed}): the store held it already, and a
 *   client resuming after its connection was cut for reading too slowly may have more to catch up on than
 *   `streamBufferLimit`; false for events newly recorded while the client follows the stream
 */
export function writeRecorded(
  connection: SseConnection,
  events: readonly { id: string; message: JsonRpcMessage | null }[],
  owed = true,
): void {
  for (const event of events)
    connection.event(
      event.id,
      event.message === null ? null : JSON.stringify(event.message),
      owed ? OWED_EVENT : LIVE_EVENT,
    );
}

/**
 * 72 random bits as 18 hex digits (valid base64url) cut from `randomUUID()`: Node serves UUIDs from a cache
 * of random bytes, where `randomBytes(9)` asks OpenSSL each time.
 */
function randomStreamId(): string {
  const uuid = randomUUID(); // xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx: '4' and 'y' are not random, so are left out
  return uuid.slice(0, 8) + uuid.slice(9, 13) + uuid.slice(15, 18) + uuid.slice(20, 23);
}

const RESOLVED: Promise<void> = Promise.resolve();

/** Where a stream's events are recorded, when the session is resumable. */
export interface StreamRecording {
  readonly sessionId: string;
  readonly events: EventStore;
  /** The requests a POST stream answers: a shared store marks the stream open with them (none for a GET stream). */
  readonly requestIds?: readonly JsonRpcId[];
}

/**
 * A stream outlives its connections: when the connection drops, messages are still recorded and a client
 * that comes back with `Last-Event-ID` gets them (MCP transports › Resumability). All work on a stream runs
 * through one queue, so events keep their order and a resuming client misses none and sees none twice.
 */
export class OutboundStream {
  /** Unique, opaque, and part of every event id of this stream (MCP 2025-11-25: ids encode their stream). */
  readonly id = randomStreamId();
  private connection: SseConnection | undefined;
  private queue: Promise<void> = RESOLVED;
  /** Tasks queued and not yet finished: with none, a task that needs no promise runs at once. */
  private pending = 0;
  private ended = false;
  /** Renews the stream's open mark in a shared event store while it runs (see `EventStore.markStreamOpen`). */
  private heartbeat: NodeJS.Timeout | undefined;
  private marked = false;
  /** The recording store's append that needs no promise (the memory store's), if it has one. */
  private readonly appendNow: ReturnType<typeof synchronousAppend>;

  constructor(
    private readonly recording: StreamRecording | undefined,
    private readonly logger: McpLogger,
  ) {
    this.appendNow = recording && synchronousAppend(recording.events);
  }

  /** True while a connection is attached and open. */
  get connected(): boolean {
    return this.connection?.open === true;
  }

  /** True once the stream has delivered everything it will (its responses). */
  get finished(): boolean {
    return this.ended;
  }

  /** Records `message` and writes it to the connection, after everything queued before it. */
  send(message: JsonRpcMessage): Promise<void> {
    return this.enqueue(() => {
      // A response is the answer the client is owed, as it would be in a JSON reply: never cut for its size.
      if ('method' in message) return this.recordAndWrite(message, JSON.stringify(message), LIVE_EVENT);
      return this.recordAndWrite(message, serializeResponses(message, this.logger), OWED_EVENT);
    });
  }

  /** The priming event (an id and empty data, with `retry:`) that lets a 2025-11-25 client resume at once. */
  prime(retryMs: number): Promise<void> {
    return this.enqueue(() => this.recordAndWrite(null, null, { retryMs }));
  }

  /** Writes to `connection` from now on (after what is queued). */
  attach(connection: SseConnection): void {
    this.connection?.end();
    this.connection = connection;
    // A stream outlives its connections (a session's GET stream lives as long as the session): once the client is
    // gone, the stream lets go of the connection, its response and socket, instead of holding them until the next.
    connection.whenClosed(() => {
      if (this.connection === connection) this.connection = undefined;
    });
  }

  /**
   * Resumes on a new connection: writes the recorded events after `lastEventId`, then stays attached
   * (or ends the connection, if the stream already finished).
   */
  resume(
    connection: SseConnection,
    replay: () => Promise<readonly { id: string; message: JsonRpcMessage | null }[] | undefined>,
  ): Promise<void> {
    return this.enqueue(async () => {
      writeRecorded(connection, (await replay()) ?? []);
      if (this.ended) connection.end();
      else this.attach(connection);
    });
  }

  /** Ends the connection but not the stream: later messages are recorded for a resuming client. */
  detach(): Promise<void> {
    return this.enqueue(async () => {
      const connection = this.connection;
      this.connection = undefined;
      connection?.end();
    });
  }

  /** Ends the stream and its connection, after what is queued. */
  end(): Promise<void> {
    return this.enqueue(async () => {
      this.ended = true;
      this.connection?.end();
      this.connection = undefined;
      clearInterval(this.heartbeat);
      this.heartbeat = undefined;
      // After the responses were recorded (they are queued before): another instance tailing it then finds them all.
      if (this.marked) await this.recording?.events.markStreamFinished?.(this.recording.sessionId, this.id);
    });
  }

  /**
   * Marks a POST stream open in a shared event store before its first event, then renews the mark while it runs,
   * so an instance resuming it elsewhere follows it live, and learns when this process stopped (the mark lapses).
   */
  private markOpen(recording: StreamRecording): Promise<void> | undefined {
    const { events, sessionId, requestIds } = recording;
    if (
      this.marked ||
      this.ended ||
      events.markStreamOpen === undefined ||
      requestIds === undefined ||
      requestIds.length === 0
    )
      return undefined;
    this.marked = true;
    const mark = (): Promise<void> => events.markStreamOpen?.(sessionId, this.id, requestIds) ?? Promise.resolve();
    this.heartbeat = setInterval(() => {
      mark().catch((err: unknown) =>
        this.logger.warn(err, 'mcpRouter: renewing an SSE stream in the event store failed'),
      );
    }, STREAM_HEARTBEAT_MS);
    this.heartbeat.unref();
    return mark();
  }

  /**
   * Records an event, whether or not a connection is attached (a detached stream is what a client resumes),
   * then writes it to the connection attached by then. Plain promise code, not async functions: this runs for
   * every progress notification, and each async layer costs a promise and microtask turns.
   */
  private recordAndWrite(
    message: JsonRpcMessage | null,
    data: string | null,
    options: SseEventOptions,
  ): Promise<void> | undefined {
    const recording = this.recording;
    if (recording === undefined) {
      this.connection?.event(undefined, data, options);
      return undefined;
    }
    const marking = this.markOpen(recording);
    const { events, sessionId } = recording;
    if (marking === undefined && this.appendNow !== undefined) {
      // Recorded whether or not a connection is attached: a detached stream is what a client resumes.
      const eventId = this.appendNow(sessionId, this.id, message, data ?? undefined);
      this.connection?.event(eventId, data, options);
      return undefined;
    }
    const append = (): Promise<void> =>
      events.append(sessionId, this.id, message, data ?? undefined).then((eventId) => {
        this.connection?.event(eventId, data, options);
      });
    return marking === undefined ? append() : marking.then(append);
  }

  /**
   * Runs `task` after everything queued before it. With nothing queued and a connection attached, it runs at once,
   * and when it needs no promise (the memory store's `appendSync`) nothing is queued: the order is
   * the same. Without a connection it waits its turn, so that one attached in the same tick still gets the event.
   */
  private enqueue(task: () => Promise<void> | undefined): Promise<void> {
    if (this.pending === 0 && this.connected) {
      let running: Promise<void> | undefined;
      try {
        running = task();
      } catch (err) {
        this.failed(err);
        return RESOLVED;
      }
      if (running === undefined) return RESOLVED;
      return this.track(running);
    }
    return this.track(this.queue.then(task));
  }

  private track(running: Promise<void>): Promise<void> {
    this.pending++;
    this.queue = running.then(
      () => {
        this.pending--;
      },
      (err: unknown) => {
        this.pending--;
        this.failed(err);
      },
    );
    return this.queue;
  }

  private failed(err: unknown): void {
    this.logger.error(err, 'mcpRouter: an SSE stream failed');
  }
}
