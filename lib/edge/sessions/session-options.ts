// The `sessions` option (2025 sessions: limits, stores, hooks) and its resolution: checked once, fully defaulted, frozen.

import { definedOnly, invalidOption, McpConfigError, type OptionKeys } from '../../options/config-error';
import { OptionReader } from '../../options/option-reader';
import { isObject } from '../../core/jsonrpc/types';
import { MemoryEventStore } from '../store/memory-event-store';
import { MemoryMessageBus } from '../store/memory-message-bus';
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_TTL_MS, MemorySessionStore } from '../store/memory-session-store';
import type { SessionHooks, SessionSettings } from './sessions';
import type { McpStore } from '../store/shared-store';
import type { EventStore, MessageBus, SessionStore } from '../store/session-stores';

// Every default of SessionOptions, written once (the default session store's are its own). Not exported by the package.
/** Default `sessions.maxStreams`: SSE streams open at once per session. */
export const DEFAULT_MAX_STREAMS = 100;
/** Default `sessions.maxPendingRequests`: requests to the client waiting at once per session. */
export const DEFAULT_MAX_PENDING_REQUESTS = 100;
/** Default `sessions.maxSubscriptions`: resource URIs one session may subscribe to. */
export const DEFAULT_MAX_SUBSCRIPTIONS = 32;
/** Default `sessions.maxPerPrincipal`: live sessions of one authenticated principal, a tenth of the default `sessions.max`. */
export const DEFAULT_MAX_SESSIONS_PER_PRINCIPAL = DEFAULT_MAX_SESSIONS / 10;

/** The `sessions` option: how the router keeps MCP sessions. */
export interface SessionOptions extends SessionHooks {
  /** Idle time after which a session ends (default store only). Defaults to {@link DEFAULT_SESSION_IDLE_TTL_MS}. */
  idleTtlMs?: number;
  /** Most sessions kept; a new one evicts the least recently active (default store only). Defaults to {@link DEFAULT_MAX_SESSIONS}. */
  max?: number;
  /** Whether clients may end their session with DELETE (else 405). Defaults to `true`. */
  allowDelete?: boolean;
  /**
   * Most SSE streams open at once per session on an instance: POST replies, and resumptions it follows from another
   * instance (a shared store), counted together; past it, replies are JSON (messages mid-request dropped) and such a
   * resumption gets 429. The GET stream is apart (one at a time). Defaults to {@link DEFAULT_MAX_STREAMS}.
   */
  maxStreams?: number;
  /** Most requests to the client (sampling, elicitation, roots) waiting at once per session. Defaults to {@link DEFAULT_MAX_PENDING_REQUESTS}. */
  maxPendingRequests?: number;
  /** Most resource URIs one session may subscribe to; one more is refused with -32602. Defaults to {@link DEFAULT_MAX_SUBSCRIPTIONS}. */
  maxSubscriptions?: number;
  /**
   * Most live sessions of one authenticated principal (auth's `subject`) in this process: a new one ends that
   * principal's least recently active session, so one token cannot fill the store. Anonymous sessions are
   * bounded by `max` only. Defaults to {@link DEFAULT_MAX_SESSIONS_PER_PRINCIPAL}.
   */
  maxPerPrincipal?: number;
  /** Where sessions are kept. Defaults to a `MemorySessionStore` with `idleTtlMs` and `max`. */
  store?: SessionStore;
  /** Where SSE events are recorded for `Last-Event-ID` resumption, or `false` for none. Defaults to a `MemoryEventStore`. */
  eventStore?: EventStore | false;
  /** Carries clients' answers to the handler waiting for them across processes. Defaults to a `MemoryMessageBus`. */
  bus?: MessageBus;
}

/** The `sessions` option after checking, every default filled in (stores included): internal, frozen. */
export interface ResolvedSessions extends Omit<SessionSettings, 'logger' | 'serverEvents'> {
  readonly allowDelete: boolean;
}

const KNOWN_SESSION_OPTIONS: OptionKeys<SessionOptions> = {
  idleTtlMs: true,
  max: true,
  allowDelete: true,
  maxStreams: true,
  maxPendingRequests: true,
  maxSubscriptions: true,
  maxPerPrincipal: true,
  store: true,
  eventStore: true,
  bus: true,
  onSessionCreated: true,
  onSessionClosed: true,
};

/** True for an object with a function under each of `names`: a store or bus the router can call. */
function hasMethods(value: unknown, ...names: string[]): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function')
  );
}

/** The reader of the `sessions` option; its shape (an object, or false) checked first. */
function readerOf(sessions: SessionOptions | false | undefined): OptionReader<SessionOptions> {
  if (sessions !== undefined && sessions !== false && !isObject(sessions))
    throw invalidOption('sessions', 'an object of session options, or false', sessions);
  return OptionReader.of<SessionOptions>(sessions || undefined, 'sessions', KNOWN_SESSION_OPTIONS);
}

/** `sessions.maxSubscriptions`, read apart: listen streams take it as their bound even when no session is kept. */
export function resolveMaxSubscriptions(sessions: SessionOptions | false | undefined): number {
  return readerOf(sessions).positiveInteger('maxSubscriptions', DEFAULT_MAX_SUBSCRIPTIONS);
}

/** The stores the caller gave (`sessions.store`, `eventStore`, `bus`), each checked for the methods the router calls. */
function givenStores(read: OptionReader<SessionOptions>): Pick<SessionOptions, 'store' | 'eventStore' | 'bus'> {
  const store = read.raw('store');
  if (store !== undefined) {
    if (!hasMethods(store, 'get', 'set', 'touch', 'delete', 'onDrop', 'close'))
      throw read.invalid('store', 'a SessionStore', typeof store);
    if (read.raw('idleTtlMs') !== undefined || read.raw('max') !== undefined)
      throw new McpConfigError(
        'ERR_MCP_INVALID_OPTION',
        "options 'sessions.idleTtlMs' and 'sessions.max' configure the default store; configure your own 'sessions.store' instead",
      );
  }
  const eventStore = read.raw('eventStore');
  if (
    eventStore !== undefined &&
    eventStore !== false &&
    !hasMethods(eventStore, 'append', 'replayAfter', 'deleteSession')
  )
    throw read.invalid('eventStore', 'an EventStore or false', typeof eventStore);
  const bus = read.raw('bus');
  if (bus !== undefined && !hasMethods(bus, 'publish', 'subscribe'))
    throw read.invalid('bus', 'a MessageBus', typeof bus);
  return { store, eventStore, bus };
}

/**
 * Checks the `sessions` option and fills in its defaults, the stores included: each one given wins over the
 * router's `store`, which wins over the in-memory ones.
 *
 * @param shared - the router's `store`
 * @returns undefined for `sessions: false`
 * @throws {McpConfigError} `ERR_MCP_UNKNOWN_OPTION` for a key it does not know, `ERR_MCP_INVALID_OPTION` for a bad value
 */
export function resolveSessions(
  sessions: SessionOptions | false | undefined,
  shared?: McpStore,
): ResolvedSessions | undefined {
  const read = readerOf(sessions);
  if (sessions === false) return undefined;
  const idleTtlMs = read.milliseconds('idleTtlMs', DEFAULT_SESSION_IDLE_TTL_MS);
  const max = read.positiveInteger('max', DEFAULT_MAX_SESSIONS);
  const allowDelete = read.boolean('allowDelete', true);
  const counts = {
    maxStreams: read.positiveInteger('maxStreams', DEFAULT_MAX_STREAMS),
    maxPendingRequests: read.positiveInteger('maxPendingRequests', DEFAULT_MAX_PENDING_REQUESTS),
    maxPerPrincipal: read.positiveInteger('maxPerPrincipal', DEFAULT_MAX_SESSIONS_PER_PRINCIPAL),
  };
  const { store, eventStore, bus } = givenStores(read);
  const hooks = definedOnly({
    onSessionCreated: read.fn('onSessionCreated'),
    onSessionClosed: read.fn('onSessionClosed'),
  });
  const limits = { idleTtlMs, max };
  return Object.freeze({
    ...hooks,
    ...counts,
    allowDelete,
    store: store ?? shared?.sessions(limits) ?? new MemorySessionStore(limits),
    events: eventStore === false ? undefined : (eventStore ?? shared?.events(limits) ?? new MemoryEventStore()),
    bus: bus ?? shared?.bus() ?? new MemoryMessageBus(),
  });
}
