// The router's `sessions` option → a SessionManager: the caller's stores, or the in-memory defaults.

import type { McpLogger } from '../logger';
import { MemoryEventStore } from './memory-event-store';
import { MemoryMessageBus } from './memory-message-bus';
import { MemorySessionStore } from './memory-session-store';
import type { ServerEventBus } from './server-events';
import { SessionManager, type SessionHooks, type SessionSettings } from './sessions';
import type { EventStore, MessageBus, SessionStore } from './stores';

/** The `sessions` option as `resolveOptions()` checked it (options.ts: `SessionOptions`), as far as sessions read it. */
export interface SessionSetup extends SessionHooks {
  readonly idleTtlMs?: number;
  readonly max?: number;
  readonly maxStreams?: number;
  readonly maxPendingRequests?: number;
  readonly maxPerPrincipal?: number;
  readonly store?: SessionStore;
  readonly eventStore?: EventStore | false;
  readonly bus?: MessageBus;
}

/** The limits a session setup may leave out: their defaults, which options.ts owns. */
export type SessionLimits = Pick<SessionSettings, 'maxStreams' | 'maxPendingRequests' | 'maxPerPrincipal'>;

/**
 * Creates the sessions of one router.
 *
 * @param setup - the checked `sessions` option
 * @param defaults - the limits used where `setup` leaves them out
 * @param serverEvents - the router's server event bus, whose events the sessions announce on their GET streams
 * @example
 * ```ts
 * const sessions = createSessionManager(config.sessions, { maxStreams: 100, maxPendingRequests: 100, maxPerPrincipal: 1_000 }, serverEvents, logger);
 * ```
 */
export function createSessionManager(setup: Readonly<SessionSetup>, defaults: SessionLimits, serverEvents: ServerEventBus, logger: McpLogger): SessionManager {
  const { store, idleTtlMs, max, eventStore, bus } = setup;
  return new SessionManager({
    store: store ?? new MemorySessionStore({ idleTtlMs, max }),
    events: eventStore === false ? undefined : (eventStore ?? new MemoryEventStore()),
    bus: bus ?? new MemoryMessageBus(),
    serverEvents,
    logger,
    maxStreams: setup.maxStreams ?? defaults.maxStreams,
    maxPendingRequests: setup.maxPendingRequests ?? defaults.maxPendingRequests,
    maxPerPrincipal: setup.maxPerPrincipal ?? defaults.maxPerPrincipal,
    onSessionCreated: setup.onSessionCreated,
    onSessionClosed: setup.onSessionClosed,
  });
}
