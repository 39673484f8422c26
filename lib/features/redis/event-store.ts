// RedisEventStore: the recorded SSE events of 2025 sessions in one Redis Stream per session, for Last-Event-ID resumption through any instance.

import type { JsonRpcId, JsonRpcMessage } from '../../core/jsonrpc/types';
import { DEFAULT_MAX_EVENTS_PER_STREAM } from '../../edge/store/memory-event-store';
import type { SharedSessionSettings } from '../../edge/store/shared-store';
import type { EventStore, StoredEvent } from '../../edge/store/session-stores';
import type { OptionKeys } from '../../options/config-error';
import { OptionReader } from '../../options/option-reader';
import type { RedisConnection } from './connection';
import {
  APPEND_EVENT,
  MARK_STREAM_FINISHED,
  MARK_STREAM_OPEN,
  REPLAY_EVENTS,
  scriptKeys,
  sessionKeys,
  STREAM_OWNER_TTL_MS,
  STREAM_STATE,
} from './session-keys';

/** How many events of one session are kept for replay (all its SSE streams together): the memory store's count per stream. */
export const DEFAULT_MAX_EVENTS_PER_SESSION = DEFAULT_MAX_EVENTS_PER_STREAM;

/** Settings of {@link RedisEventStore}: the router's session settings, and how many events a session keeps. */
export type RedisEventStoreSettings = SharedSessionSettings & {
  /** The most recent events kept per session; older ones can no longer be replayed. Defaults to {@link DEFAULT_MAX_EVENTS_PER_SESSION}. */
  readonly maxEventsPerSession?: number;
};

const SETTINGS_KEYS: OptionKeys<RedisEventStoreSettings> = { idleTtlMs: true, max: true, maxEventsPerSession: true };

/** SSE stream ids are base64url (no '.'), so the first '.' of an event id ends the stream id. */
const STREAM_ID = /^[A-Za-z0-9_-]+$/;
/** `<streamId>.<Redis stream entry id>`; at most 19 digits a part, so the entry id always fits Redis's 64-bit parts. */
const EVENT_ID = /^([A-Za-z0-9_-]+)\.([0-9]{1,19}-[0-9]{1,19})$/;

/**
 * Records the SSE events of every stream of a session in one Redis Stream (key `s:{id}:events`, hash-tagged with
 * the session), so a client can resume with `Last-Event-ID` through any instance (MCP transports › Resumability).
 *
 * Event ids are `<streamId>.<entry id>`, the entry id allocated by Redis's XADD inside the append script: unique
 * within the session even when several instances append at once (never read-modify-write), visible ASCII, and
 * naming their stream (MCP 2025-11-25: SHOULD encode the stream). Every append restarts the idle TTL of all the
 * session's keys, its record included, so a busy stream keeps its session alive. At most `maxEventsPerSession`
 * events are kept (XADD MAXLEN): `replayAfter` an id trimmed away answers undefined rather than replay with a gap.
 * The JSON text a stream sent is kept as given.
 *
 * Where {@link MemoryEventStore} also bounds streams per session and bytes, this store bounds the count of events
 * per session; the TTL bounds how long they stay.
 *
 * @example
 * ```ts
 * const events = new RedisEventStore(connection, { idleTtlMs: 30 * 60 * 1000, max: 10_000 });
 * const id = await events.append(sessionId, 'c3RyZWFt', message); // 'c3RyZWFt.1732560000000-0'
 * const replay = await events.replayAfter(sessionId, id); // { streamId: 'c3RyZWFt', events: [] }, on any instance
 * ```
 */
export class RedisEventStore implements EventStore {
  readonly #connection: RedisConnection;
  readonly #idleTtlMs: number;
  readonly #maxEvents: number;

  /** @throws {McpConfigError} `ERR_MCP_INVALID_OPTION` for a setting that is not a positive integer, `ERR_MCP_UNKNOWN_OPTION` */
  constructor(connection: RedisConnection, settings: RedisEventStoreSettings) {
    const read = OptionReader.of(settings, 'RedisEventStore', SETTINGS_KEYS);
    const idleTtlMs = read.positiveInteger('idleTtlMs');
    if (idleTtlMs === undefined) throw read.invalid('idleTtlMs', 'a positive integer');
    this.#connection = connection;
    this.#idleTtlMs = idleTtlMs;
    this.#maxEvents = read.positiveInteger('maxEventsPerSession', DEFAULT_MAX_EVENTS_PER_SESSION);
  }

  /**
   * @param streamId - base64url (no '.'), chosen by the caller
   * @param message - the event's message, or null for a priming event
   * @param json - the message's JSON text as sent, kept as it is
   * @returns the event id, `<streamId>.<entry id>`
   * @throws {TypeError} for a stream id that is not base64url, or a message JSON cannot hold (a BigInt) given without `json`
   * @throws {StoreUnavailableError} when Redis cannot answer
   */
  async append(sessionId: string, streamId: string, message: JsonRpcMessage | null, json?: string): Promise<string> {
    if (!STREAM_ID.test(streamId))
      throw new TypeError(`RedisEventStore: stream id must be base64url, got ${JSON.stringify(streamId)}`);
    // '' marks a priming event: a message's JSON text is never empty.
    const text = message === null ? '' : (json ?? JSON.stringify(message));
    const entryId = await APPEND_EVENT.run<string>(this.#connection, this.#keysOf(sessionId), [
      this.#idleTtlMs,
      this.#maxEvents,
      streamId,
      text,
    ]);
    return `${streamId}.${entryId}`;
  }

  /**
   * The events of `lastEventId`'s stream after it: an empty list when it was the last one. Undefined when the id
   * is malformed, belongs to another session or stream, was never issued, or was trimmed away (stricter than the
   * memory store, which also replays when only the event at `lastEventId` itself is gone: in one Redis Stream
   * shared by a session's SSE streams, a trimmed entry does not say which stream it was on).
   */
  async replayAfter(
    sessionId: string,
    lastEventId: string,
  ): Promise<{ streamId: string; events: StoredEvent[] } | undefined> {
    const match = EVENT_ID.exec(lastEventId);
    if (match === null) return undefined;
    const [, streamId = '', entryId = ''] = match;
    const flat = await REPLAY_EVENTS.run<string[] | null>(this.#connection, this.#keysOf(sessionId), [
      this.#idleTtlMs,
      entryId,
      streamId,
    ]);
    if (flat === null) return undefined;
    const events: StoredEvent[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const text = flat[i + 1] as string;
      events.push({
        id: `${streamId}.${flat[i] as string}`,
        message: text === '' ? null : (JSON.parse(text) as JsonRpcMessage),
      });
    }
    return { streamId, events };
  }

  /** Forgets every stream of a session, and the marks of its running ones (its record is the session store's). */
  async deleteSession(sessionId: string): Promise<void> {
    const { events, streams } = sessionKeys(this.#connection, sessionId);
    await this.#connection.send(['DEL', events, streams], events);
  }

  /**
   * Marks a POST stream running in this process with its request ids, and renews its owner's heartbeat (a deadline
   * {@link STREAM_OWNER_TTL_MS} ahead, in the session's `streams` hash): an instance resuming the stream follows it
   * live while the heartbeat holds, and answers its requests with an error once it lapsed (this process stopped).
   */
  async markStreamOpen(sessionId: string, streamId: string, requestIds: readonly JsonRpcId[]): Promise<void> {
    const { record, streams } = sessionKeys(this.#connection, sessionId);
    await MARK_STREAM_OPEN.run(
      this.#connection,
      [record, streams],
      [this.#idleTtlMs, streamId, JSON.stringify(requestIds), STREAM_OWNER_TTL_MS],
    );
  }

  /** The stream delivered its responses (recorded before): no one waits for it any more. */
  async markStreamFinished(sessionId: string, streamId: string): Promise<void> {
    const { streams } = sessionKeys(this.#connection, sessionId);
    await MARK_STREAM_FINISHED.run(this.#connection, [streams], [streamId]);
  }

  /** Whether a marked, unfinished stream's owner still runs it, and its request ids; undefined when not marked or finished. */
  async streamState(
    sessionId: string,
    streamId: string,
  ): Promise<{ open: boolean; requestIds: JsonRpcId[] } | undefined> {
    const { streams } = sessionKeys(this.#connection, sessionId);
    const state = await STREAM_STATE.run<[string, number] | null>(this.#connection, [streams], [streamId]);
    if (state === null || state === undefined) return undefined;
    return { open: state[1] === 1, requestIds: JSON.parse(state[0]) as JsonRpcId[] };
  }

  #keysOf(sessionId: string): string[] {
    return scriptKeys(sessionKeys(this.#connection, sessionId));
  }
}
