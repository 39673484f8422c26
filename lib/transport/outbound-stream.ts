// A logical SSE stream: ordered messages, recorded for resumption, written to whichever connection is attached.

import { randomBytes } from 'node:crypto';
import type { JsonRpcMessage } from '../jsonrpc/types';
import type { McpLogger } from '../logger';
import { serializeResponses } from './reply';
import type { SseConnection } from './sse';
import type { EventStore } from './stores';

/** Writes recorded events as they were first sent (priming events as empty data). */
export function writeRecorded(connection: SseConnection, events: readonly { id: string; message: JsonRpcMessage | null }[]): void {
  for (const event of events) connection.event(event.id, event.message === null ? null : JSON.stringify(event.message));
}

/** Where a stream's events are recorded, when the session is resumable. */
export interface StreamRecording {
  readonly sessionId: string;
  readonly events: EventStore;
}

/**
 * A stream outlives its connections: when the connection drops, messages are still recorded and a client
 * that comes back with `Last-Event-ID` gets them (MCP transports › Resumability). All work on a stream runs
 * through one queue, so events keep their order and a resuming client misses none and sees none twice.
 */
export class OutboundStream {
  /** Unique, opaque, and part of every event id of this stream (MCP 2025-11-25: ids encode their stream). */
  readonly id = randomBytes(9).toString('base64url');
  private connection: SseConnection | undefined;
  private queue: Promise<void> = Promise.resolve();
  private ended = false;

  constructor(
    private readonly recording: StreamRecording | undefined,
    private readonly logger: McpLogger,
  ) {}

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
    return this.enqueue(async () => {
      const data = 'method' in message ? JSON.stringify(message) : serializeResponses(message, this.logger);
      // Recorded whether or not a connection is attached: a detached stream is what a client resumes.
      const eventId = await this.record(message);
      this.connection?.event(eventId, data);
    });
  }

  /** The priming event (an id and empty data, with `retry:`) that lets a 2025-11-25 client resume at once. */
  prime(retryMs: number): Promise<void> {
    return this.enqueue(async () => {
      const eventId = await this.record(null);
      this.connection?.event(eventId, null, retryMs);
    });
  }

  /** Writes to `connection` from now on (after what is queued). */
  attach(connection: SseConnection): void {
    this.connection?.end();
    this.connection = connection;
  }

  /**
   * Resumes on a new connection: writes the recorded events after `lastEventId`, then stays attached
   * (or ends the connection, if the stream already finished).
   */
  resume(connection: SseConnection, replay: () => Promise<readonly { id: string; message: JsonRpcMessage | null }[] | undefined>): Promise<void> {
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
    });
  }

  private async record(message: JsonRpcMessage | null): Promise<string | undefined> {
    return this.recording ? this.recording.events.append(this.recording.sessionId, this.id, message) : undefined;
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(task).catch((err: unknown) => this.logger.error(err, 'mcpRouter: an SSE stream failed'));
    return this.queue;
  }
}
