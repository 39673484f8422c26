// What this process holds of a session, and the channel its requests use: its streams and their cap, server→client request ids, answers routed back.

import type { JsonRpcId, JsonRpcResponse } from '../../core/jsonrpc/types';
import type { McpLogger } from '../../core/logger';
import type { Abortable } from '../../core/protocol/abort';
import { requestKey } from '../../core/protocol/handler-context';
import { isAtLeast, type ProtocolVersion } from '../../core/versions';
import type { SseConnection } from '../http/sse';
import type { OutboundStream } from '../streams/outbound-stream';
import type { EventStore, MessageBus } from '../store/session-stores';

/** What this process holds of a session: never stored, since it cannot be serialised. */
export interface LiveSession {
  readonly id: string;
  /** The authenticated subject the session belongs to, if any. */
  readonly principal: string | undefined;
  /** When the session was created (its record's `createdAt`) and its revision: for `mcp.server.session.duration`. */
  readonly createdAt: number;
  readonly protocolVersion: string;
  /**
   * Whether `initialize` created it in this process. With a shared store every instance that served the session
   * holds it and closes it; only its creator records its duration, so a session is counted once.
   */
  readonly createdHere: boolean;
  /** The standalone GET stream, once the client opened it (it survives reconnections). */
  standalone: OutboundStream | undefined;
  /** POST streams still running, by stream id, so a client can resume them. */
  readonly streams: Map<string, OutboundStream>;
  /** Requests in flight, for `notifications/cancelled`. */
  readonly inflight: Map<string, Abortable>;
  /** A copy of the session's subscriptions, for `notifications/resources/updated`. */
  subscriptions: readonly string[];
  /** The next id of a server→client request. */
  nextRequestId: number;
  /** Server→client requests waiting for the client's answer. */
  pendingRequests: number;
  /** Connections following a stream that runs on another instance (a shared store), by stream id: one per stream. */
  readonly followers: Map<string, { end(): void }>;
}

/** What a channel needs of the session manager that made it. */
export interface ChannelOwner {
  readonly settings: {
    readonly events: EventStore | undefined;
    readonly bus: MessageBus;
    readonly logger: McpLogger;
    /** Most SSE streams open at once per session. */
    readonly maxStreams: number;
    /** Most server→client requests waiting at once per session. */
    readonly maxPendingRequests: number;
  };
  isOpen(id: string): boolean;
  touch(id: string): void;
  newStream(sessionId: string, requestIds?: readonly JsonRpcId[]): OutboundStream;
}

/** The bus topic on which the answer to a server→client request travels back (to whichever instance waits). */
function answerTopic(sessionId: string, id: JsonRpcId): string {
  return `mcp:answer:${sessionId}:${requestKey(id)}`;
}

/**
 * A 2025 session as one request uses it: a POST's reply, or a GET that opens or resumes a stream. The session's
 * streams (its POST streams, its standalone stream, connections following a stream of another instance) and pending
 * asks are kept here, so the caps (`sessions.maxStreams`, `sessions.maxPendingRequests`) are enforced in one place;
 * the transport only writes.
 */
export class SessionChannel {
  /**
   * @param protocolVersion - the session's negotiated revision
   */
  constructor(
    private readonly owner: ChannelOwner,
    private readonly live: LiveSession,
    readonly protocolVersion: ProtocolVersion,
  ) {}

  /** The session id. */
  get id(): string {
    return this.live.id;
  }

  /** Requests of the session in flight here, for `notifications/cancelled`. */
  get inflight(): Map<string, Abortable> {
    return this.live.inflight;
  }

  /** Where its streams' events are recorded, for a client to resume one (undefined: none is configured). */
  get events(): EventStore | undefined {
    return this.owner.settings.events;
  }

  /** Whether its streams are recorded, so a client can resume one (an event store is configured). */
  get resumable(): boolean {
    return this.owner.settings.events !== undefined;
  }

  /** MCP 2025-11-25: resumable streams start with a priming event (before it, a stream SHOULD NOT close early). */
  get primes(): boolean {
    return this.resumable && isAtLeast(this.protocolVersion, '2025-11-25');
  }

  /** True while this process holds the session (it has not ended while the request ran). */
  get open(): boolean {
    return this.owner.isOpen(this.live.id);
  }

  /**
   * Whether one more stream may open: a session holds at most `maxStreams` at once.
   *
   * @param warn - log the refusal (once per reply: the reply then stays JSON)
   */
  admitsStream(warn: boolean): boolean {
    const { id } = this.live;
    const { logger } = this.owner.settings;
    const open = this.openStreams;
    if (open < this.owner.settings.maxStreams) return true;
    if (warn)
      logger.warn(`mcpRouter: session ${id} has ${open} open streams (sessions.maxStreams); replying with JSON`);
    return false;
  }

  /** The streams counted against `maxStreams`: POST streams running here and connections following another instance's. */
  private get openStreams(): number {
    return this.live.streams.size + this.live.followers.size;
  }

  /** A stream of the session, counted against its cap until {@link SessionChannel.closeStream}. */
  openStream(requestIds: readonly JsonRpcId[]): OutboundStream {
    const stream = this.owner.newStream(this.live.id, requestIds);
    this.live.streams.set(stream.id, stream);
    return stream;
  }

  /** A stream that ended: no longer counted, no longer resumable here. */
  closeStream(stream: OutboundStream): void {
    this.live.streams.delete(stream.id);
  }

  /** The stream `streamId` when it runs in this process (a POST stream, or the standalone one): resumable here. */
  localStream(streamId: string): OutboundStream | undefined {
    const { streams, standalone } = this.live;
    return streams.get(streamId) ?? (standalone?.id === streamId ? standalone : undefined);
  }

  /**
   * Admits `connection` to follow the stream `streamId`, which runs on another instance (a shared store tells): one
   * connection per stream, a new one replacing the old as a local resume does, and counted against `maxStreams` with
   * the session's streams, since each polls the store while it lasts.
   *
   * @returns what to call when the connection ends; undefined when the session has no room for it
   */
  follow(streamId: string, connection: { end(): void }): (() => void) | undefined {
    const { followers } = this.live;
    const replaced = followers.get(streamId);
    replaced?.end();
    if (replaced === undefined && this.openStreams >= this.owner.settings.maxStreams) return undefined;
    followers.set(streamId, connection);
    return () => {
      if (followers.get(streamId) === connection) followers.delete(streamId);
    };
  }

  /** MCP transports: a session has one standalone GET stream at a time (another GET is a conflict). */
  get standaloneConnected(): boolean {
    return this.live.standalone?.connected === true;
  }

  /** Attaches `connection` to the session's standalone stream, made at the first GET (it outlives its connections). */
  attachStandalone(connection: SseConnection): OutboundStream {
    const stream = (this.live.standalone ??= this.owner.newStream(this.live.id));
    stream.attach(connection);
    return stream;
  }

  /** Marks the session active (its stream is open). */
  touch(): void {
    this.owner.touch(this.live.id);
  }

  /** The id of the next server→client request of the session. */
  nextRequestId(): JsonRpcId {
    return this.live.nextRequestId++;
  }

  /**
   * Waits for the client's answer to a server→client request, on any instance (a shared bus).
   *
   * @throws {Error} when `sessions.maxPendingRequests` asks are already waiting
   */
  async awaitAnswer(id: JsonRpcId): Promise<{ answer: Promise<JsonRpcResponse>; stop(): void }> {
    const { live } = this;
    if (live.pendingRequests >= this.owner.settings.maxPendingRequests) {
      throw new Error(
        `ctx: ${live.pendingRequests} requests to the client are already waiting in this session (sessions.maxPendingRequests)`,
      );
    }
    let resolve: (response: JsonRpcResponse) => void = () => undefined;
    const answer = new Promise<JsonRpcResponse>((done) => (resolve = done));
    // Counted before the (possibly remote) subscription is awaited: asks made meanwhile see this one, so the cap holds.
    live.pendingRequests++;
    let unsubscribe: () => Promise<void>;
    try {
      unsubscribe = await this.owner.settings.bus.subscribe(answerTopic(live.id, id), (message) =>
        resolve(message as JsonRpcResponse),
      );
    } catch (err) {
      live.pendingRequests--;
      throw err;
    }
    return {
      answer,
      stop: () => {
        live.pendingRequests--;
        void unsubscribe();
      },
    };
  }

  /** Routes a client's answer to whoever waits for it (this instance or another). */
  async deliver(response: JsonRpcResponse): Promise<void> {
    if (response.id === null) return;
    await this.owner.settings.bus.publish(answerTopic(this.live.id, response.id), response);
  }
}
