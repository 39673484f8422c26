// RedisMessageBus: the MessageBus of several instances — one pub/sub channel per topic, shared by the topic's listeners in this process.

import type { JsonRpcMessage } from '../../core/jsonrpc/types';
import { deliverTo, type Subscription } from '../../edge/store/memory-message-bus';
import type { MessageBus } from '../../edge/store/session-stores';
import { parseChannelPayload, type RedisConnection } from './connection';

type Listener = (message: JsonRpcMessage) => void;

/** A topic this process listens on: its listeners, and the one Redis subscription they share. */
interface Topic {
  readonly subscriptions: Set<Subscription>;
  /** Settles once Redis confirmed SUBSCRIBE; resolves to what ends that subscription. */
  readonly subscribed: Promise<() => Promise<void>>;
}

/**
 * Carries messages between instances through Redis pub/sub: `publish` is a `PUBLISH` of the message as JSON on the
 * topic's channel (`<prefix>bus:<topic>`), heard by every instance subscribed to it, this one included.
 *
 * `subscribe` resolves only once Redis confirmed the `SUBSCRIBE`, so a message published after it resolves, on any
 * instance, is delivered: a handler asking the client something subscribes to the answer's topic before the request
 * goes out (transport/post-reply.ts), and the answer may be POSTed to another instance. The listeners of one topic in
 * this process share one Redis subscription, ended with the last of them, so topics named after short-lived requests
 * leave no channel behind. A payload that is not a JSON object (another program on the channel) is dropped; a listener
 * that throws neither stops the others nor reaches Redis.
 *
 * Pub/sub keeps nothing: a message published while no instance listens on its topic, or while this instance is
 * disconnected, is lost. The router only ever publishes answers and cancellations that a listener is waiting for;
 * a request whose answer is lost ends by its own timeout (`timeoutMs` of `ctx.sample`/`ctx.elicit`), never a hang.
 * node-redis sends `SUBSCRIBE` again for every channel after a reconnection (tested in message-bus.test.ts).
 *
 * @example
 * ```ts
 * const bus = new RedisMessageBus(new RedisConnection({ url: process.env.REDIS_URL }));
 * const unsubscribe = await bus.subscribe('answer-1', (message) => console.log(message));
 * await bus.publish('answer-1', { jsonrpc: '2.0', id: 1, result: {} }); // heard on every instance subscribed to it
 * await unsubscribe();
 * ```
 */
export class RedisMessageBus implements MessageBus {
  readonly #connection: RedisConnection;
  readonly #onListenerError: (err: unknown, topic: string) => void;
  readonly #topics = new Map<string, Topic>();

  /**
   * @param connection - the store's Redis connection (closing it is the store's job)
   * @param onListenerError - called with what a listener threw (or its promise rejected with). Defaults to ignoring it.
   */
  constructor(connection: RedisConnection, onListenerError: (err: unknown, topic: string) => void = () => undefined) {
    this.#connection = connection;
    this.#onListenerError = onListenerError;
  }

  /** How many topics this process listens on (each is one Redis subscription). */
  get topicCount(): number {
    return this.#topics.size;
  }

  /** @throws {StoreUnavailableError} when Redis cannot take the message */
  async publish(topic: string, message: JsonRpcMessage): Promise<void> {
    const channel = this.#channel(topic);
    await this.#connection.send(['PUBLISH', channel, JSON.stringify(message)], channel);
  }

  /**
   * Listens on `topic`; resolves once Redis confirmed the subscription (at once when this process already listens on it).
   *
   * @throws {StoreUnavailableError} when Redis cannot confirm the subscription (the listener is not kept)
   */
  async subscribe(topic: string, listener: Listener): Promise<() => Promise<void>> {
    if (typeof listener !== 'function') throw new TypeError('RedisMessageBus: listener must be a function');
    const subscription: Subscription = { listener };
    let entry = this.#topics.get(topic);
    if (entry === undefined) {
      const subscriptions = new Set<Subscription>();
      const subscribed = this.#connection.subscribe(this.#channel(topic), (text) =>
        this.#deliver(topic, subscriptions, text),
      );
      entry = { subscriptions, subscribed };
      this.#topics.set(topic, entry);
      const created = entry;
      // A SUBSCRIBE that failed leaves no entry behind: the next subscribe tries Redis again.
      subscribed.catch(() => {
        if (this.#topics.get(topic) === created) this.#topics.delete(topic);
      });
    }
    entry.subscriptions.add(subscription);
    try {
      await entry.subscribed;
    } catch (err) {
      entry.subscriptions.delete(subscription);
      throw err;
    }
    const current = entry;
    return async () => {
      if (!current.subscriptions.delete(subscription) || current.subscriptions.size > 0) return;
      // The last listener: the topic goes now, so a subscribe from here on makes a new Redis subscription.
      if (this.#topics.get(topic) === current) this.#topics.delete(topic);
      const unsubscribe = await current.subscribed.catch(() => undefined);
      await unsubscribe?.();
    };
  }

  #channel(topic: string): string {
    return this.#connection.key('bus', topic);
  }

  #deliver(topic: string, subscriptions: Set<Subscription>, text: string): void {
    // Not a JSON object (another program on the channel): dropped, never thrown into the subscriber connection.
    const message = parseChannelPayload(text) as JsonRpcMessage | undefined;
    if (message === undefined) return;
    deliverTo(subscriptions, message, (err) => this.#report(err, topic));
  }

  #report(err: unknown, topic: string): void {
    try {
      this.#onListenerError(err, topic);
    } catch {
      // The error reporter failing must not break delivery either.
    }
  }
}
