// The server event bus: list changes and resource updates, published where they happen, delivered to every stream that announces them.

import type { JsonRpcNotification } from '../../core/jsonrpc/types';
import type { McpLogger } from '../../core/logger';
import type { ChangedList } from '../../core/registry/registry';

/**
 * Something that happened on the server that open streams announce. Plain JSON, so a shared bus can carry it
 * between processes as it is.
 */
export type ServerEvent =
  /** Items of a list were added or removed (a resource template counts as `resources`). */
  | {
      /** The kind of event: a list changed. */
      readonly type: 'list_changed';
      /** Which list: `notifications/<list>/list_changed` is sent for it. */
      readonly list: ChangedList;
    }
  /** The resource at `uri` changed: for the clients subscribed to it. */
  | {
      /** The kind of event: a resource changed. */
      readonly type: 'resource_updated';
      /** The resource's URI, as `notifications/resources/updated` names it. */
      readonly uri: string;
    };

/**
 * Carries server events from where they happen (the registry, `mcp.notifyResourceUpdated`) to every stream
 * that announces them: the GET streams of 2025 sessions (sessions.ts). One bus per router: two routers share
 * nothing. The default (in memory) reaches this process; a shared implementation (Redis)
 * reaches every instance, which is why `publish` may be asynchronous and events are plain JSON.
 */
export interface ServerEventBus {
  /** Hands `event` to every listener; resolves once handed over (nobody listening is not an error). */
  publish(event: ServerEvent): Promise<void> | void;
  /** Calls `listener` with every event published from now on, until the returned function is called. */
  subscribe(listener: (event: ServerEvent) => void): () => void;
}

type Listener = (event: ServerEvent) => void;

/**
 * Delivers events to listeners in this process, synchronously and in order, before `publish` returns. A listener
 * that throws neither stops the others nor fails `publish`: `onListenerError` hears of it. The event is shared,
 * not copied: listeners must not change it.
 *
 * @example
 * ```ts
 * const events = new MemoryServerEventBus((err) => logger.error(err, 'server event listener failed'));
 * const unsubscribe = events.subscribe((event) => console.log(event.type));
 * events.publish({ type: 'list_changed', list: 'tools' });
 * unsubscribe();
 * ```
 */
export class MemoryServerEventBus implements ServerEventBus {
  // One object per subscribe call, so the same function subscribed twice is two subscriptions.
  readonly #subscriptions = new Set<{ readonly listener: Listener }>();
  readonly #onListenerError: (err: unknown) => void;

  /** @param onListenerError - called with what a listener threw. Defaults to ignoring it. */
  constructor(onListenerError: (err: unknown) => void = () => undefined) {
    this.#onListenerError = onListenerError;
  }

  /** How many listeners are subscribed. */
  get listenerCount(): number {
    return this.#subscriptions.size;
  }

  publish(event: ServerEvent): void {
    // A copy, so listeners that subscribe or unsubscribe while this runs don't change the walk.
    for (const subscription of [...this.#subscriptions]) {
      if (!this.#subscriptions.has(subscription)) continue;
      try {
        subscription.listener(event);
      } catch (err) {
        this.#onListenerError(err);
      }
    }
  }

  subscribe(listener: Listener): () => void {
    const subscription = { listener };
    this.#subscriptions.add(subscription);
    return () => {
      this.#subscriptions.delete(subscription);
    };
  }
}

/**
 * Publishes `event` without waiting for it: a bus that fails (a shared one that is down) is logged, never thrown
 * at the code that changed something.
 */
export function publishQuietly(bus: ServerEventBus, event: ServerEvent, logger: McpLogger): void {
  const failed = (err: unknown): void =>
    logger.error(err, `mcpRouter: the server event ${event.type} was not published`);
  try {
    const published = bus.publish(event);
    if (published !== undefined) published.then(undefined, failed);
  } catch (err) {
    failed(err);
  }
}

/**
 * The MCP notification that announces `event`: MCP 2025-11-25 tools, prompts and resources › List Changed
 * Notification, and resources › Subscriptions (`notifications/resources/updated` with the URI).
 */
export function notificationOf(event: ServerEvent): JsonRpcNotification {
  return event.type === 'list_changed'
    ? { jsonrpc: '2.0', method: `notifications/${event.list}/list_changed` }
    : { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: event.uri } };
}
