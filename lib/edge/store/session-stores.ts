// The storage interfaces behind sessions: SessionStore, EventStore and MessageBus (async, serialisable, pluggable).

import type { JsonRpcId, JsonRpcMessage } from '../../core/jsonrpc/types';
import type { ProtocolVersion } from '../../core/versions';

/** What is kept of one MCP session between requests: plain JSON, so a store may keep it anywhere. */
export interface SessionRecord {
  /** The `Mcp-Session-Id`: cryptographically random, visible ASCII. */
  readonly id: string;
  /** The revision negotiated by `initialize`. */
  protocolVersion: ProtocolVersion;
  /** `capabilities` the client declared in `initialize`: the ones MCP defines, at most 2,048 characters as JSON. */
  clientCapabilities: Readonly<Record<string, unknown>>;
  /** `clientInfo` the client sent in `initialize`: its string fields (name, version, title, description, websiteUrl). */
  clientInfo: Readonly<Record<string, unknown>> | undefined;
  /** The level set by `logging/setLevel`; undefined until the client sets one. */
  logLevel: string | undefined;
  /** URIs the client subscribed to with `resources/subscribe` (at most `sessions.maxSubscriptions`). */
  subscriptions: readonly string[];
  /** When the session was created (ms since the epoch). */
  readonly createdAt: number;
  /** The authenticated subject that created it: only that principal may use it (MCP security: bind sessions to users). */
  readonly principal?: string;
}

/** Why a session ended. */
export type SessionCloseReason = 'deleted' | 'expired' | 'evicted' | 'closed';

/**
 * Keeps sessions. The default, {@link MemorySessionStore}, keeps them in this process with an idle TTL and a
 * maximum count; a shared store (Redis, a database) lets several instances serve one session.
 */
export interface SessionStore {
  /** Saves a new or changed session. */
  set(record: SessionRecord): Promise<void>;
  /** The session, or undefined when it is unknown, expired or deleted. Counts as activity (the idle TTL restarts). */
  get(id: string): Promise<SessionRecord | undefined>;
  /** Marks the session active without reading it (an open stream keeps its session alive). */
  touch(id: string): Promise<void>;
  /** Removes the session; resolves true when it existed. */
  delete(id: string): Promise<boolean>;
  /** Calls `listener` for every session the store drops by itself (idle TTL, eviction), so its streams can be closed. */
  onDrop(listener: (id: string, reason: 'expired' | 'evicted') => void): void;
  /** Stops timers and forgets everything (router shutdown, tests). */
  close(): Promise<void>;
  /**
   * The sessions of one principal in every instance, least recently active first: a shared store's answer, so
   * `sessions.maxPerPrincipal` bounds them all. Without it, each instance bounds the sessions it holds.
   */
  sessionsOf?(principal: string): Promise<string[]>;
}

/** One recorded SSE event: a message, or null for a priming event (an id with empty data). */
export interface StoredEvent {
  /** The SSE event id, which a client resumes from with `Last-Event-ID`. */
  readonly id: string;
  /** The JSON-RPC message the event carried, or null for a priming event that carried none. */
  readonly message: JsonRpcMessage | null;
}

/**
 * Records the events of every SSE stream of a session, so a client that lost its connection can resume
 * with `Last-Event-ID` (MCP transports › Resumability). Event ids are unique within the session and name
 * their stream.
 */
export interface EventStore {
  /**
   * Records one event on a stream and returns its id.
   *
   * @param json - the message as the JSON text the stream sends, when the caller has it: a store that
   *   serialises can keep it rather than serialise the message again
   */
  append(sessionId: string, streamId: string, message: JsonRpcMessage | null, json?: string): Promise<string>;
  /** The stream `lastEventId` belongs to and its events after that one; undefined when the id is unknown to this session. */
  replayAfter(
    sessionId: string,
    lastEventId: string,
  ): Promise<
    | {
        /** The stream the event id names, which the replayed events belong to. */
        streamId: string;
        /** The events after the given id, oldest first. */
        events: StoredEvent[];
      }
    | undefined
  >;
  /** Forgets every stream of a session. */
  deleteSession(sessionId: string): Promise<void>;
  /**
   * Optional, for a store shared by several instances: marks a POST stream as running in this process, with the
   * requests it will answer. The stream calls it on its first event and again every {@link STREAM_HEARTBEAT_MS}
   * while it runs; the mark lapses by itself (a few heartbeats) when this process stops, so another instance
   * resuming the stream can tell a live stream from a lost one. A store for one process need not implement it:
   * there, a running stream is always in the process the client resumes on.
   */
  markStreamOpen?(sessionId: string, streamId: string, requestIds: readonly JsonRpcId[]): Promise<void>;
  /** Optional, with {@link EventStore.markStreamOpen}: the stream delivered everything (its responses are recorded). */
  markStreamFinished?(sessionId: string, streamId: string): Promise<void>;
  /**
   * Optional, with {@link EventStore.markStreamOpen}: a stream marked by some instance and not finished — whether its
   * instance still runs it (`open`) and the requests it answers; undefined when it was never marked or it finished.
   */
  streamState?(
    sessionId: string,
    streamId: string,
  ): Promise<
    | {
        /** Whether the stream is still running in some process (its open mark has not lapsed). */
        open: boolean;
        /** The requests the stream answers, as marked by {@link EventStore.markStreamOpen}. */
        requestIds: JsonRpcId[];
      }
    | undefined
  >;
}

/** How often a running POST stream renews its open mark in a shared event store ({@link EventStore.markStreamOpen}). */
export const STREAM_HEARTBEAT_MS = 1000;

/**
 * Carries messages between the code that produces them and the process holding the connection that
 * delivers them: a server→client message to the stream it belongs on, and a client's answer back to the
 * handler waiting for it. In one process the default, {@link MemoryMessageBus}, is a map of listeners.
 */
export interface MessageBus {
  /** Delivers `message` to the listeners of `topic`; resolves once handed over (nobody listening is not an error). */
  publish(topic: string, message: JsonRpcMessage): Promise<void>;
  /** Listens on `topic` until the returned function is called. */
  subscribe(topic: string, listener: (message: JsonRpcMessage) => void): Promise<() => Promise<void>>;
}
