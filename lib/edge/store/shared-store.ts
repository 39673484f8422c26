// McpStore: everything several instances of one router must share, behind the one `store` option (express-mcp-router/redis implements it).

import type { SignInLimits, SignInStore } from './sign-in-store';
import type { Store as RateLimitStore } from 'express-rate-limit';
import type { TaskStore } from '../../core/protocol/tasks/task-store';
import type { ServerEventBus } from './server-events';
import type { EventStore, MessageBus, SessionStore } from './session-stores';
import type { McpLogger } from '../../core/logger';
import type { TaskCancels } from '../../core/protocol/tasks/task-runner';
import type { PaymentLedger } from '../../core/registry/payment-ledger';

/** How a router's sessions are kept, for {@link McpStore.sessions}. */
export interface SharedSessionSettings {
  /** Idle time after which a session ends: every key of a session lives this long after its last activity. */
  readonly idleTtlMs: number;
  /** Most sessions kept in all. */
  readonly max: number;
}

/** How a router's tasks are kept, for {@link McpStore.tasks}. */
export interface SharedTaskSettings {
  /** Most tasks kept in all, and per principal (undefined: the store's defaults). */
  readonly max: number | undefined;
  /** Most tasks of one principal (undefined: the store's default). */
  readonly maxPerPrincipal: number | undefined;
  /** How long a task is kept from its creation (`tasks.ttlMs`): every key of a task lives no longer. */
  readonly ttlMs: number;
}

/**
 * Everything that instances serving one router must share, so that any instance can serve any request (no sticky
 * sessions): the router's `store` option. Each piece is made once, at `mcpRouter()`, for that router; a piece the
 * router does not use is never made. The in-memory stores are the default when no `store` is given.
 *
 * A store that cannot answer (its server down or too slow) throws {@link StoreUnavailableError}: the request gets
 * HTTP 503 with `Retry-After` and a JSON-RPC error body, never a hang or a crash.
 */
export interface McpStore {
  /** 2025 sessions. */
  sessions(settings: SharedSessionSettings): SessionStore;
  /** Recorded SSE events of 2025 sessions, for `Last-Event-ID` resumption on any instance. */
  events(settings: SharedSessionSettings): EventStore;
  /** Server→client requests, their answers and cancellations between instances. */
  bus(): MessageBus;
  /** List changes and resource updates, heard by the streams of every instance (both eras). */
  serverEvents(onListenerError: (err: unknown) => void): ServerEventBus;
  /** Long-running tasks, polled and cancelled through any instance. */
  tasks(settings: SharedTaskSettings): TaskStore;
  /** express-rate-limit's store for the router's `rateLimit`: counts across every instance. */
  rateLimit(prefix: string): RateLimitStore;
  /**
   * The key that signs 2026 `requestState` (input_required), the same on every instance: made once by the first
   * instance, read by the others. Resolves before the router serves its first request.
   */
  stateKey(): Promise<string>;
  /**
   * The x402 payments the router's paid tools have taken, claimed atomically so that one payment runs one call on
   * whichever instance it reaches, and remembered once settled. Optional: without it, each instance keeps its own.
   */
  payments?(): PaymentLedger;
  /**
   * Sign-in state (`auth.server`): clients, pending authorizations, codes, consents, refresh-token families and the
   * signing keys, so that every instance shares sign-in, each kind within its bound across instances. Optional:
   * without it, each instance keeps its own.
   */
  signIn?(limits: SignInLimits): SignInStore;
  /** Resolves once the store hears the other instances (its subscriptions made); the router waits for it before serving. */
  ready?(): Promise<void>;
  /** Ends the store's connections; bounded in time even when its server is gone. */
  close(): Promise<void>;
}

/** What a request gets when a shared store cannot answer: 503 with `Retry-After` (in seconds). */
export class StoreUnavailableError extends Error {
  /** Always `'StoreUnavailableError'`, so logs can tell it from other errors. */
  override readonly name = 'StoreUnavailableError';

  /**
   * @param message - what failed, without secrets (no URL with a password)
   * @param retryAfterSeconds - when to come back
   */
  constructor(
    message: string,
    readonly retryAfterSeconds = 1,
  ) {
    super(message);
  }
}

/**
 * What a shared store must do before the router serves: its subscriptions made, and the requestState key of every
 * instance the store's.
 * Returns a check that is undefined once done; a failure (the store down) is retried by the next request.
 *
 * @param stateKey - the codec's key buffer, filled in place with the shared key; undefined when
 *   `inputRequired.stateKey` was given (it wins; only the subscriptions are waited for)
 */
export function whenStoreReady(store: McpStore, stateKey: Buffer | undefined): () => Promise<void> | undefined {
  let done = false;
  let pending: Promise<void> | undefined;
  const fillKey = async (): Promise<void> => {
    if (stateKey === undefined) return;
    const bytes = Buffer.from(await store.stateKey(), 'base64url');
    if (bytes.length < stateKey.length)
      throw new Error('mcpRouter: the shared store gave a requestState key shorter than 32 bytes');
    // The codec holds this buffer: filled with the shared key before the first request, it signs as every instance does.
    bytes.copy(stateKey);
  };
  return () => {
    if (done) return undefined;
    pending ??= Promise.all([fillKey(), store.ready?.()]).then(
      () => {
        done = true;
      },
      (err: unknown) => {
        pending = undefined;
        throw err;
      },
    );
    return pending;
  };
}

/** Notices passed between the instances of a router over a shared message bus, on one topic. */
export interface BusNotices {
  /** Tells the other instances (and this one); a bus that fails is logged, never thrown. */
  announce(params: Record<string, unknown>): void;
  /** Hears every notice until the returned function is called; it resolves once unsubscribed. */
  hear(listener: (params: Readonly<Record<string, unknown>>) => void): () => Promise<void>;
}

/**
 * Notices over `bus`: each one a JSON-RPC notification `method` whose params are the notice, on `topic`.
 *
 * @param what - how logs name a notice (`cancellation`: "a cancellation was not passed on")
 * @example
 * ```ts
 * const cancels = noticesOver(bus, 'mcp:cancel', 'notifications/cancelled', logger, 'cancellation');
 * const stop = cancels.hear(({ key }) => abort(key));
 * cancels.announce({ key: 'n:7' });
 * ```
 */
export function noticesOver(
  bus: MessageBus,
  topic: string,
  method: string,
  logger: McpLogger,
  what: string,
): BusNotices {
  return {
    announce(params) {
      bus
        .publish(topic, { jsonrpc: '2.0', method, params })
        .catch((err: unknown) => logger.warn(err, `mcpRouter: a ${what} was not passed on`));
    },
    hear(listener) {
      const subscribed = bus.subscribe(topic, (message) => {
        if ('params' in message && message.params !== undefined && !Array.isArray(message.params))
          listener(message.params);
      });
      subscribed.catch((err: unknown) => logger.error(err, `mcpRouter: cannot hear ${what}s from other instances`));
      return () =>
        subscribed.then(
          (stop) => stop(),
          () => undefined,
        );
    },
  };
}

/**
 * Task cancellations over a shared message bus: `tasks/cancel` may reach any instance, and the one running the task
 * aborts it at once (MCP tasks › Cancellation: the receiver SHOULD stop the work).
 */
export function taskCancelsOver(bus: MessageBus, logger: McpLogger): TaskCancels {
  const notices = noticesOver(bus, 'mcp:task-cancel', 'notifications/tasks/cancelled', logger, 'task cancellation');
  return {
    announce: (taskId) => notices.announce({ taskId }),
    hear(listener) {
      const stop = notices.hear(({ taskId }) => {
        if (typeof taskId === 'string') listener(taskId);
      });
      return () => void stop();
    },
  };
}
