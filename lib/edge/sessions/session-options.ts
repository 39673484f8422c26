// The `sessions` option (2025 sessions: limits, stores, hooks) and its resolution: checked once, fully defaulted, frozen.

import {
  definedOnly,
  invalidOption,
  isPositiveInteger,
  McpConfigError,
  type OptionKeys,
} from '../../options/config-error';
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

export function hasMethods(value: unknown, ...names: string[]): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function')
  );
}

export function resolveMaxSubscriptions(sessions: SessionOptions | false | undefined): number {
  const { maxSubscriptions = DEFAULT_MAX_SUBSCRIPTIONS } = sessions || {};
  if (!isPositiveInteger(maxSubscriptions))
    throw invalidOption('sessions.maxSubscriptions', 'a positive integer', maxSubscriptions);
  return maxSubscriptions;
}

/**
 * @param shared - the router's `store`: the default of `sessions.store`, `eventStore` and `bus` (each given one wins)
 */
export function resolveSessions(
  sessions: SessionOptions | false | undefined,
  shared?: McpStore,
): ResolvedSessions | undefined {
  if (sessions === false) return undefined;
  if (sessions !== undefined && (typeof sessions !== 'object' || sessions === null))
    throw invalidOption('sessions', 'an object of session options, or false', sessions);
  for (const key of Object.keys(sessions ?? {})) {
    if (!Object.hasOwn(KNOWN_SESSION_OPTIONS, key))
      throw new McpConfigError('ERR_MCP_UNKNOWN_OPTION', `unknown option 'sessions.${key}'`);
  }
  const {
    idleTtlMs = DEFAULT_SESSION_IDLE_TTL_MS,
    max = DEFAULT_MAX_SESSIONS,
    allowDelete = true,
    maxStreams = DEFAULT_MAX_STREAMS,
    maxPendingRequests = DEFAULT_MAX_PENDING_REQUESTS,
    maxPerPrincipal = DEFAULT_MAX_SESSIONS_PER_PRINCIPAL,
    store,
    eventStore,
    bus,
    onSessionCreated,
    onSessionClosed,
  } = sessions ?? {};
  if (!isPositiveInteger(idleTtlMs))
    throw invalidOption('sessions.idleTtlMs', 'a positive number of milliseconds', idleTtlMs);
  if (!isPositiveInteger(max)) throw invalidOption('sessions.max', 'a positive integer', max);
  if (typeof allowDelete !== 'boolean') throw invalidOption('sessions.allowDelete', 'a boolean', allowDelete);
  const counts = { maxStreams, maxPendingRequests, maxPerPrincipal };
  for (const [key, value] of Object.entries(counts)) {
    if (!isPositiveInteger(value)) throw invalidOption(`sessions.${key}`, 'a positive integer', value);
  }
  if (store !== undefined) {
    if (!hasMethods(store, 'get', 'set', 'touch', 'delete', 'onDrop', 'close'))
      throw invalidOption('sessions.store', 'a SessionStore', typeof store);
    if (sessions?.idleTtlMs !== undefined || sessions?.max !== undefined) {
      throw new McpConfigError(
        'ERR_MCP_INVALID_OPTION',
        "options 'sessions.idleTtlMs' and 'sessions.max' configure the default store; configure your own 'sessions.store' instead",
      );
    }
  }
  if (
    eventStore !== undefined &&
    eventStore !== false &&
    !hasMethods(eventStore, 'append', 'replayAfter', 'deleteSession')
  ) {
    throw invalidOption('sessions.eventStore', 'an EventStore or false', typeof eventStore);
  }
  if (bus !== undefined && !hasMethods(bus, 'publish', 'subscribe'))
    throw invalidOption('sessions.bus', 'a MessageBus', typeof bus);
  if (onSessionCreated !== undefined && typeof onSessionCreated !== 'function')
    throw invalidOption('sessions.onSessionCreated', 'a function', onSessionCreated);
  if (onSessionClosed !== undefined && typeof onSessionClosed !== 'function')
    throw invalidOption('sessions.onSessionClosed', 'a function', onSessionClosed);
  return Object.freeze({
    ...definedOnly({ onSessionCreated, onSessionClosed }),
    ...counts,
    allowDelete,
    store: store ?? shared?.sessions({ idleTtlMs, max }) ?? new MemorySessionStore({ idleTtlMs, max }),
    events:
      eventStore === false ? undefined : (eventStore ?? shared?.events({ idleTtlMs, max }) ?? new MemoryEventStore()),
    bus: bus ?? shared?.bus() ?? new MemoryMessageBus(),
  });
}
