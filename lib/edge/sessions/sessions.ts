// SessionManager: sessions in their store, plus what only this process holds of them (streams, requests in flight).

import { randomUUID } from 'node:crypto';
import type { JsonRpcId, JsonRpcMessage } from '../../core/jsonrpc/types';
import type { McpLogger } from '../../core/logger';
import type { ClientState } from '../../core/protocol/handler-context';
import type { McpObserver } from '../../core/observe/observer';
import type { ProtocolVersion } from '../../core/versions';
import { OutboundStream } from '../streams/outbound-stream';
import { PrincipalSessions } from './principal-sessions';
import { SessionChannel, type LiveSession } from './session-channel';
import { noticesOver, type BusNotices } from '../store/shared-store';
import { notificationOf, type ServerEvent, type ServerEventBus } from '../store/server-events';
import type { EventStore, MessageBus, SessionCloseReason, SessionRecord, SessionStore } from '../store/session-stores';

export type { LiveSession } from './session-channel';

/** Called when sessions begin and end (for metrics, audit, cleanup of your own per-session data). */
export interface SessionHooks {
  /** A client initialized a session. */
  onSessionCreated?(session: Readonly<SessionRecord>): void;
  /** A session ended: deleted by the client, expired, evicted, or closed with the router. */
  onSessionClosed?(sessionId: string, reason: SessionCloseReason): void;
}

/** Everything sessions need, resolved once by the router. */
export interface SessionSettings extends SessionHooks {
  readonly store: SessionStore;
  readonly events: EventStore | undefined;
  readonly bus: MessageBus;
  /** The router's server events: list changes and resource updates, announced on GET streams. */
  readonly serverEvents: ServerEventBus;
  readonly logger: McpLogger;
  /** Most SSE streams open at once per session. */
  readonly maxStreams: number;
  /** Most server→client requests waiting at once per session. */
  readonly maxPendingRequests: number;
  /** Most live sessions of one authenticated principal in this process. */
  readonly maxPerPrincipal: number;
  /** Told each session's duration when it ends; undefined: nothing observes. */
  readonly telemetry?: Pick<McpObserver, 'sessionEnded'>;
}

/** Keeps the sessions of one router. */
export class SessionManager {
  private readonly live = new Map<string, LiveSession>();
  /** The live session ids of each principal, least recently active first (sessions.maxPerPrincipal). */
  private readonly owners = new PrincipalSessions();
  private readonly stopAnnouncing: () => void;
  /** MCP cancellations between instances: the notification may reach another instance than the one running the request. */
  private readonly cancels: BusNotices;
  private readonly stopHearingCancels: () => Promise<void>;

  constructor(readonly settings: SessionSettings) {
    settings.store.onDrop((id, reason) => this.closeQuietly(id, reason));
    this.stopAnnouncing = settings.serverEvents.subscribe((event) => this.announce(event));
    this.cancels = noticesOver(settings.bus, 'mcp:cancel', 'notifications/cancelled', settings.logger, 'cancellation');
    this.stopHearingCancels = this.cancels.hear((params) => this.cancelHere(params));
  }

  /** Tells every instance to abort a request of this session that is not in flight here. */
  cancelElsewhere(sessionId: string, key: string, reason: string): void {
    this.cancels.announce({ sessionId, key, reason });
  }

  /** Aborts the request a cancellation from another instance names, when it runs here. */
  private cancelHere({ sessionId, key, reason }: Readonly<Record<string, unknown>>): void {
    if (typeof sessionId !== 'string' || typeof key !== 'string') return;
    this.live
      .get(sessionId)
      ?.inflight.get(key)
      ?.abort(new Error(typeof reason === 'string' ? reason : 'cancelled by the client'));
  }

  /** True while this process holds the session (it has not ended here). */
  isOpen(id: string): boolean {
    return this.live.has(id);
  }

  /** A new session id: a random UUID, visible ASCII only (MCP transports: Session Management). */
  newId(): string {
    return randomUUID();
  }

  /** Stores a session that `initialize` just created. */
  async create(
    id: string,
    client: ClientState & { readonly protocolVersion: ProtocolVersion },
    principal: string | undefined,
  ): Promise<{ record: SessionRecord; live: LiveSession }> {
    const record: SessionRecord = {
      id,
      ...client,
      createdAt: Date.now(),
      ...(principal === undefined ? {} : { principal }),
    };
    await this.settings.store.set(record);
    const live = this.liveOf(record, true);
    this.callHook('onSessionCreated', () => this.settings.onSessionCreated?.(record));
    if (principal !== undefined) await this.evictPastCap(principal);
    return { record, live };
  }

  /**
   * The session with this id, or undefined when it is unknown, expired, deleted, or another principal's: a
   * stolen session id is worth nothing (MCP security best practices: sessions are bound to their user).
   */
  async load(
    id: string,
    principal: string | undefined,
  ): Promise<{ record: SessionRecord; live: LiveSession } | undefined> {
    const record = await this.settings.store.get(id);
    if (record === undefined) {
      this.closeQuietly(id, 'expired');
      return undefined;
    }
    if (record.principal !== principal) return undefined;
    return { record, live: this.liveOf(record) };
  }

  /** Saves what a request changed (log level, subscriptions). */
  async save(record: SessionRecord, live: LiveSession): Promise<void> {
    live.subscriptions = record.subscriptions;
    await this.settings.store.set(record);
  }

  /** Marks a session active (its stream is open). */
  touch(id: string): void {
    this.settings.store
      .touch(id)
      .catch((err: unknown) => this.settings.logger.warn(err, 'mcpRouter: session store touch failed'));
  }

  /** Ends a session at its principal's request; resolves false when it did not exist (for that principal). */
  async delete(id: string, principal: string | undefined): Promise<boolean> {
    const live = this.live.get(id);
    // Held here, the session's principal is known without reading its record (a record's principal never changes);
    // the store's answer then says whether it still existed there.
    if (live === undefined ? (await this.load(id, principal)) === undefined : live.principal !== principal)
      return false;
    const existed = await this.settings.store.delete(id);
    await this.closeLive(id, existed || live === undefined ? 'deleted' : 'expired');
    return existed;
  }

  /** The channel a POST reply of this session uses: its streams (capped here), its asks of the client and their answers. */
  channel(live: LiveSession, protocolVersion: ProtocolVersion): SessionChannel {
    return new SessionChannel(this, live, protocolVersion);
  }

  /**
   * A stream for this session, recorded for resumption when an event store is configured.
   *
   * @param requestIds - the requests a POST stream answers (a shared event store marks it open with them)
   */
  newStream(sessionId: string, requestIds?: readonly JsonRpcId[]): OutboundStream {
    const { events, logger } = this.settings;
    return new OutboundStream(events ? { sessionId, events, requestIds } : undefined, logger);
  }

  /**
   * Announces a server event on the GET streams of the sessions it concerns: a list change to every session
   * (MCP: servers that declared listChanged SHOULD announce changes), a resource update only to the sessions
   * subscribed to its URI (MCP resources › Subscriptions).
   */
  announce(event: ServerEvent): void {
    const message = notificationOf(event);
    if (event.type === 'resource_updated')
      this.broadcast(message, (session) => session.subscriptions.includes(event.uri));
    else this.broadcast(message);
  }

  /** Sends a message on the standalone stream of every live session `select` picks. */
  private broadcast(message: JsonRpcMessage, select: (session: LiveSession) => boolean = () => true): void {
    for (const session of this.live.values()) {
      if (session.standalone !== undefined && select(session)) void session.standalone.send(message);
    }
  }

  /** Ends every session this process holds, and stops announcing server events (router shutdown). */
  async close(): Promise<void> {
    this.stopAnnouncing();
    await this.stopHearingCancels();
    await Promise.all([...this.live.keys()].map((id) => this.closeLive(id, 'closed')));
    await this.settings.store
      .close()
      .catch((err: unknown) => this.settings.logger.warn(err, 'mcpRouter: the session store did not close cleanly'));
  }

  /** What this process holds of a session, made on first use; each use makes it its principal's most recently active. */
  private liveOf(record: SessionRecord, createdHere = false): LiveSession {
    if (record.principal !== undefined) this.owners.markActive(record.principal, record.id);
    let live = this.live.get(record.id);
    if (live === undefined) {
      live = {
        id: record.id,
        principal: record.principal,
        createdAt: record.createdAt,
        protocolVersion: record.protocolVersion,
        createdHere,
        standalone: undefined,
        streams: new Map(),
        inflight: new Map(),
        subscriptions: record.subscriptions,
        nextRequestId: 1,
        pendingRequests: 0,
        followers: new Map(),
      };
      this.live.set(record.id, live);
    }
    return live;
  }

  /** Aborts the session's requests, ends its streams, forgets its events (no orphaned work, no leaked timers). */
  private async closeLive(id: string, reason: SessionCloseReason): Promise<void> {
    const live = this.live.get(id);
    if (live === undefined) return;
    this.live.delete(id);
    if (live.principal !== undefined) this.owners.forget(live.principal, id);
    for (const controller of live.inflight.values()) controller.abort(new Error(`session ${reason}`));
    if (live.standalone !== undefined || live.streams.size > 0)
      await Promise.all([live.standalone, ...live.streams.values()].map((stream) => stream?.end()));
    for (const follower of live.followers.values()) follower.end();
    // A shared event store that is down must not fail a close (or shutdown): its keys expire by themselves.
    await this.settings.events
      ?.deleteSession(id)
      .catch((err: unknown) =>
        this.settings.logger.warn(err, `mcpRouter: the events of session ${id} were not deleted`),
      );
    this.callHook('onSessionClosed', () => this.settings.onSessionClosed?.(id, reason));
    if (this.endsSession(live, reason))
      this.settings.telemetry?.sessionEnded(Date.now() - live.createdAt, live.protocolVersion, reason);
  }

  /**
   * Whether this close ends the session for `mcp.server.session.duration`: on its creator only, and not when this
   * process shuts down while a shared store keeps the session for the other instances.
   */
  private endsSession(live: LiveSession, reason: SessionCloseReason): boolean {
    return live.createdHere && (reason !== 'closed' || !this.sharedStore);
  }

  /** Whether several instances share the session store: it knows every instance's sessions (`sessionsOf`). */
  private get sharedStore(): boolean {
    return this.settings.store.sessionsOf !== undefined;
  }

  /**
   * Past `maxPerPrincipal`, ends the principal's least recently active sessions: one token cannot fill the
   * store and push out everyone else's sessions; it only ever ends its own.
   */
  private async evictPastCap(principal: string): Promise<void> {
    const { store } = this.settings;
    if (store.sessionsOf !== undefined) {
      // A shared store knows the principal's sessions on every instance: the oldest go, wherever they live.
      const owned = await store.sessionsOf(principal);
      for (const oldest of owned.slice(0, Math.max(0, owned.length - this.settings.maxPerPrincipal))) {
        await store.delete(oldest);
        await this.closeLive(oldest, 'evicted');
      }
      return;
    }
    for (const oldest of this.owners.takePastCap(principal, this.settings.maxPerPrincipal)) {
      await this.settings.store.delete(oldest);
      await this.closeLive(oldest, 'evicted');
    }
  }

  /** Closes a session from a callback that cannot wait for it; failures are logged, never thrown. */
  private closeQuietly(id: string, reason: SessionCloseReason): void {
    this.closeLive(id, reason).catch((err: unknown) =>
      this.settings.logger.error(err, `mcpRouter: closing session ${id} failed`),
    );
  }

  /** The user's hooks must not break a request, nor escape a timer and end the process. */
  private callHook(name: string, call: () => void): void {
    try {
      call();
    } catch (err) {
      this.settings.logger.error(err, `mcpRouter: sessions.${name} threw`);
    }
  }
}
