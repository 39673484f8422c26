// MemoryEventStore: the default EventStore, keeping a bounded buffer of recent SSE events per stream in this process.

import type { JsonRpcMessage } from '../../core/jsonrpc/types';
import type { EventStore } from './session-stores';
import type { OptionKeys } from '../../options/config-error';
import { OptionReader } from '../../options/option-reader';

/** How many events of one stream are kept for replay. */
export const DEFAULT_MAX_EVENTS_PER_STREAM = 1000;
/** How many streams of one session are kept for replay. */
export const DEFAULT_MAX_STREAMS_PER_SESSION = 100;
/** How much JSON text one session's recorded events may hold: 4 MiB. */
export const DEFAULT_MAX_BYTES_PER_SESSION = 4 * 1024 * 1024;
/** How much JSON text the whole store may hold. */
export const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
/** What an event that JSON could not hold (a BigInt in a result) is counted as. */
const UNSERIALISED_EVENT_SIZE = 1024;

/** Options of {@link MemoryEventStore}. */
export interface MemoryEventStoreOptions {
  /** The most recent events kept per stream; older ones can no longer be replayed. Defaults to {@link DEFAULT_MAX_EVENTS_PER_STREAM}. */
  maxEventsPerStream?: number;
  /** The most streams kept per session; a new one forgets the least recently written. Defaults to {@link DEFAULT_MAX_STREAMS_PER_SESSION}. */
  maxStreamsPerSession?: number;
  /**
   * The most JSON text (in characters) one session's events may hold; past it, its least recently written
   * streams are forgotten, then the oldest events of the newest. Defaults to {@link DEFAULT_MAX_BYTES_PER_SESSION}.
   */
  maxBytesPerSession?: number;
  /** The most JSON text the store holds for all sessions; past it, the least recently written sessions' events are forgotten. Defaults to {@link DEFAULT_MAX_BYTES}. */
  maxBytes?: number;
}

/**
 * An event's message as held: JSON text, as a serialising store would keep it (and cheaper than a
 * `structuredClone` of every event); a structured copy of a message JSON cannot
 * hold (a BigInt in a result); null for a priming event.
 */
type Held = string | JsonRpcMessage | null;

interface Stream {
  /** The sequence number the next event gets; the first is 1. */
  nextSeq: number;
  /**
   * The most recent events, oldest first; the first has sequence number `nextSeq - events.length`. Ids are
   * not kept: they follow from the position, and a stream of a hundred events keeps a hundred fewer objects.
   */
  readonly events: Held[];
  /** The size of the events held, as counted by {@link sizeOf}. */
  bytes: number;
}

/** One session's streams, in the order they were last written, and the size of all their events. */
interface SessionEvents {
  readonly id: string;
  readonly streams: Map<string, Stream>;
  bytes: number;
  /** The stream written last, the last key of `streams` while it is held. */
  last: { readonly id: string; readonly stream: Stream } | undefined;
}

/** An event's size: the length of its JSON text (what a client could make the server hold), not the heap's exact count. */
function sizeOf(held: Held): number {
  return held === null ? 0 : typeof held === 'string' ? held.length : UNSERIALISED_EVENT_SIZE;
}

/** A message as the store holds it: its JSON text (given, or written here), else a structured copy. */
function toHeld(message: JsonRpcMessage | null, json: string | undefined): Held {
  if (message === null) return null;
  if (json !== undefined) return json;
  try {
    return JSON.stringify(message);
  } catch {
    return structuredClone(message);
  }
}

/** A held message as a replay hands it out: a fresh object each time. */
function fromHeld(held: Held): JsonRpcMessage | null {
  return held === null ? null : typeof held === 'string' ? (JSON.parse(held) as JsonRpcMessage) : structuredClone(held);
}

const KNOWN_OPTIONS: OptionKeys<MemoryEventStoreOptions> = {
  maxEventsPerStream: true,
  maxStreamsPerSession: true,
  maxBytesPerSession: true,
  maxBytes: true,
};
/** Stream ids are base64url (no '.'), so the '.' of an event id separates the stream from the sequence number. */
const STREAM_ID = /^[A-Za-z0-9_-]+$/;
const EVENT_ID = /^([A-Za-z0-9_-]+)\.([1-9][0-9]{0,15})$/;

/**
 * Keeps the recent events of every SSE stream of every session, so a client can resume a stream with
 * `Last-Event-ID` (MCP transports › Resumability). Event ids are `<streamId>.<seq>`, `seq` counting from 1 per
 * stream, so an id is unique within the session and names its stream (MCP 2025-11-25: SHOULD encode the stream).
 * Buffers are bounded in count and in size, per stream, per session and in all: a client cannot make the server
 * hold more by asking for large or many results. When events a resume would need were dropped, `replayAfter`
 * answers undefined rather than replay with a gap. Messages are copied in and out, as a store that serialises them would.
 *
 * @example
 * ```ts
 * const events = new MemoryEventStore({ maxEventsPerStream: 200 });
 * const id = await events.append(sessionId, 'c3RyZWFt', message); // 'c3RyZWFt.1'
 * const replay = await events.replayAfter(sessionId, id); // { streamId: 'c3RyZWFt', events: [] }
 * ```
 */
export class MemoryEventStore implements EventStore {
  readonly #maxEvents: number;
  readonly #maxStreams: number;
  readonly #maxSessionBytes: number;
  readonly #maxBytes: number;
  /** Session id → its streams. Insertion order (of sessions, and of each session's streams) is the order they were last written. */
  readonly #sessions = new Map<string, SessionEvents>();
  /** The session written last, the last key of `#sessions` while it is held. */
  #lastWritten: SessionEvents | undefined;
  #bytes = 0;

  /** @throws {McpConfigError} `ERR_MCP_UNKNOWN_OPTION` or `ERR_MCP_INVALID_OPTION` for a bad option */
  constructor(options: MemoryEventStoreOptions = {}) {
    const read = OptionReader.of(options, 'MemoryEventStore', KNOWN_OPTIONS);
    this.#maxEvents = read.positiveInteger('maxEventsPerStream', DEFAULT_MAX_EVENTS_PER_STREAM);
    this.#maxStreams = read.positiveInteger('maxStreamsPerSession', DEFAULT_MAX_STREAMS_PER_SESSION);
    this.#maxSessionBytes = read.positiveInteger('maxBytesPerSession', DEFAULT_MAX_BYTES_PER_SESSION);
    this.#maxBytes = read.positiveInteger('maxBytes', DEFAULT_MAX_BYTES);
  }

  /** How many sessions have at least one stream recorded. */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  /** The size of every event held, as counted against `maxBytes`. */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * @param streamId - base64url (no '.'), chosen by the caller
   * @param message - the event's message, or null for a priming event
   * @param json - the message's JSON text as sent, kept instead of serialising it again
   * @returns the event id, `<streamId>.<seq>`
   */
  async append(sessionId: string, streamId: string, message: JsonRpcMessage | null, json?: string): Promise<string> {
    return this.appendSync(sessionId, streamId, message, json);
  }

  /**
   * {@link MemoryEventStore.append}, returning the event id at once: the router records an event of its own
   * memory store (100 progress notifications are 100) without a promise turn each.
   */
  appendSync(sessionId: string, streamId: string, message: JsonRpcMessage | null, json?: string): string {
    const session = this.#latestSession(sessionId);
    const stream = this.#latestStream(session, streamId);
    const held = toHeld(message, json);
    stream.events.push(held);
    this.#count(session, stream, sizeOf(held));
    if (stream.events.length > this.#maxEvents) this.#forgetOldestEvent(session, stream);
    while (session.bytes > this.#maxSessionBytes && this.#shrink(session, stream));
    while (this.#bytes > this.#maxBytes) {
      const oldest = this.#sessions.values().next().value as SessionEvents;
      if (oldest !== session) this.#forgetSession(oldest);
      else if (!this.#shrink(session, stream)) break;
    }
    return `${streamId}.${stream.nextSeq++}`;
  }

  /**
   * The session, made the most recently written: re-inserted, so the first key stays the least recently written
   * one, the one to forget. Writing the session written last (a stream's every event after its first) moves nothing.
   */
  #latestSession(sessionId: string): SessionEvents {
    const last = this.#lastWritten;
    if (last !== undefined && last.id === sessionId && this.#sessions.get(sessionId) === last) return last;
    const session = this.#sessions.get(sessionId) ?? { id: sessionId, streams: new Map(), bytes: 0, last: undefined };
    this.#sessions.delete(sessionId);
    this.#sessions.set(sessionId, session);
    this.#lastWritten = session;
    return session;
  }

  /** The stream, made its session's most recently written (as {@link #latestSession}); a new one is checked and made room for. */
  #latestStream(session: SessionEvents, streamId: string): Stream {
    const { streams, last } = session;
    if (last !== undefined && last.id === streamId && streams.get(streamId) === last.stream) return last.stream;
    let stream = streams.get(streamId);
    if (stream === undefined) {
      if (!STREAM_ID.test(streamId))
        throw new TypeError(`MemoryEventStore: stream id must be base64url, got ${JSON.stringify(streamId)}`);
      while (streams.size >= this.#maxStreams) this.#forgetOldestStream(session);
      stream = { nextSeq: 1, events: [], bytes: 0 };
    }
    streams.delete(streamId);
    streams.set(streamId, stream);
    session.last = { id: streamId, stream };
    return stream;
  }

  /**
   * The events of `lastEventId`'s stream after it: an empty list when it was the last one. Undefined when the id
   * is malformed, belongs to another session or a forgotten stream, was never issued, or when some event after it
   * has already left the bounded buffer (replaying would skip it).
   */
  async replayAfter(sessionId: string, lastEventId: string): ReturnType<EventStore['replayAfter']> {
    const match = EVENT_ID.exec(lastEventId);
    if (match === null) return undefined;
    const [, streamId = '', seqText = ''] = match;
    const seq = Number(seqText);
    const stream = this.#sessions.get(sessionId)?.streams.get(streamId);
    if (stream === undefined || seq >= stream.nextSeq) return undefined;
    const firstHeld = stream.nextSeq - stream.events.length;
    // The event right after `seq` must still be held; the one at `seq` itself may already be gone.
    if (seq + 1 < firstHeld) return undefined;
    const events = stream.events
      .slice(seq + 1 - firstHeld)
      .map((held, index) => ({ id: `${streamId}.${seq + 1 + index}`, message: fromHeld(held) }));
    return { streamId, events };
  }

  async deleteSession(sessionId: string): Promise<void> {
    const session = this.#sessions.get(sessionId);
    if (session !== undefined) this.#forgetSession(session);
  }

  #count(session: SessionEvents, stream: Stream, size: number): void {
    stream.bytes += size;
    session.bytes += size;
    this.#bytes += size;
  }

  /**
   * Frees room in a session: its least recently written other stream, or else the oldest event of `current`
   * (its newest is kept: it is what a client resuming right now needs). False when nothing more can go.
   */
  #shrink(session: SessionEvents, current: Stream): boolean {
    const oldest = session.streams.values().next().value as Stream;
    if (oldest !== current) this.#forgetOldestStream(session);
    else if (current.events.length > 1) this.#forgetOldestEvent(session, current);
    else return false;
    return true;
  }

  #forgetOldestEvent(session: SessionEvents, stream: Stream): void {
    this.#count(session, stream, -sizeOf(stream.events.shift() as Held));
  }

  #forgetOldestStream(session: SessionEvents): void {
    const [id, stream] = session.streams.entries().next().value as [string, Stream];
    session.streams.delete(id);
    session.bytes -= stream.bytes;
    this.#bytes -= stream.bytes;
  }

  #forgetSession(session: SessionEvents): void {
    this.#sessions.delete(session.id);
    this.#bytes -= session.bytes;
  }
}

/**
 * The store's synchronous append, when it is a memory store that records as {@link MemoryEventStore.append} does:
 * a subclass overriding `append` (to log, or to mirror events elsewhere) is called through it, never bypassed.
 */
export function synchronousAppend(
  events: EventStore,
): ((sessionId: string, streamId: string, message: JsonRpcMessage | null, json?: string) => string) | undefined {
  if (!(events instanceof MemoryEventStore) || events.append !== MemoryEventStore.prototype.append) return undefined;
  return (sessionId, streamId, message, json) => events.appendSync(sessionId, streamId, message, json);
}
