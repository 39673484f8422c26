// MemoryMessageBus: the default MessageBus, handing messages to listeners in this process through a map of topics.

import type { OptionKeys } from '../../options/config-error';
import { OptionReader } from '../../options/option-reader';
import type { JsonRpcMessage } from '../../core/jsonrpc/types';
import type { MessageBus } from './session-stores';

/** Options of {@link MemoryMessageBus}. */
export interface MemoryMessageBusOptions {
  /** Called with what a listener threw (or its promise rejected with); the other listeners still run. Defaults to ignoring it. */
  onListenerError?: (err: unknown, topic: string) => void;
}

type Listener = (message: JsonRpcMessage) => void;

/** One `subscribe` call: its own object, so the same function subscribed twice is two subscriptions. */
export interface Subscription {
  readonly listener: Listener;
}

/**
 * Hands `message` to every subscription of a topic, in order; what a listener throws (or its promise rejects with)
 * goes to `report`, and the others still run. Shared by every MessageBus, in one process or across several.
 */
export function deliverTo(
  subscriptions: Set<Subscription>,
  message: JsonRpcMessage,
  report: (err: unknown) => void,
): void {
  // A copy, so listeners that subscribe or unsubscribe while this runs don't change the walk.
  for (const subscription of [...subscriptions]) {
    // One unsubscribed by an earlier listener of this same delivery gets nothing more.
    if (!subscriptions.has(subscription)) continue;
    try {
      const result: unknown = subscription.listener(message);
      if (isThenable(result)) result.then(undefined, report);
    } catch (err) {
      report(err);
    }
  }
}

const KNOWN_OPTIONS: OptionKeys<MemoryMessageBusOptions> = { onListenerError: true };

/**
 * Delivers messages to listeners in this process, synchronously, before `publish` resolves. A listener that
 * throws neither stops the others nor rejects `publish`. A topic's entry is removed with its last listener,
 * so topics named after short-lived requests leave nothing behind. The message is shared, not copied:
 * listeners must not change it.
 *
 * @example
 * ```ts
 * const bus = new MemoryMessageBus({ onListenerError: (err) => logger.error(err, 'bus listener failed') });
 * const unsubscribe = await bus.subscribe('session-1', (message) => stream.write(message));
 * await bus.publish('session-1', { jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
 * await unsubscribe();
 * ```
 */
export class MemoryMessageBus implements MessageBus {
  readonly #topics = new Map<string, Set<Subscription>>();
  readonly #onListenerError: (err: unknown, topic: string) => void;

  /** @throws {McpConfigError} `ERR_MCP_UNKNOWN_OPTION` or `ERR_MCP_INVALID_OPTION` for a bad option */
  constructor(options: MemoryMessageBusOptions = {}) {
    this.#onListenerError =
      OptionReader.of(options, 'MemoryMessageBus', KNOWN_OPTIONS).fn('onListenerError') ?? (() => undefined);
  }

  /** How many topics have at least one listener. */
  get topicCount(): number {
    return this.#topics.size;
  }

  async publish(topic: string, message: JsonRpcMessage): Promise<void> {
    const subscriptions = this.#topics.get(topic);
    if (subscriptions === undefined) return;
    deliverTo(subscriptions, message, (err) => this.#report(err, topic));
  }

  async subscribe(topic: string, listener: Listener): Promise<() => Promise<void>> {
    if (typeof listener !== 'function') throw new TypeError('MemoryMessageBus: listener must be a function');
    let subscriptions = this.#topics.get(topic);
    if (subscriptions === undefined) {
      subscriptions = new Set();
      this.#topics.set(topic, subscriptions);
    }
    const subscription: Subscription = { listener };
    subscriptions.add(subscription);
    const topics = this.#topics;
    return async function unsubscribe(): Promise<void> {
      // Look the set up again: the topic may have been emptied and re-created since.
      const current = topics.get(topic);
      if (current === undefined || !current.delete(subscription)) return;
      if (current.size === 0) topics.delete(topic);
    };
  }

  #report(err: unknown, topic: string): void {
    try {
      this.#onListenerError(err, topic);
    } catch {
      // The error reporter failing must not break delivery either.
    }
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
