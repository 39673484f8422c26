// RedisServerEventBus: list changes and resource updates heard by the streams of every instance — local listeners at once, the others through one pub/sub channel.

import { randomUUID } from 'node:crypto';
import type { ChangedList } from '../registry/registry';
import type { ServerEvent, ServerEventBus } from '../sessions/server-events';
import type { RedisConnection } from './connection';

type Listener = (event: ServerEvent) => void;

/** What travels on the channel: the event, and the instance that published it (which has delivered it already). */
interface Envelope {
  readonly origin: string;
  readonly event: ServerEvent;
}

const LISTS: readonly ChangedList[] = ['tools', 'prompts', 'resources'];
/** First wait before SUBSCRIBE is tried again when Redis could not confirm it; it doubles up to the maximum. */
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;

/**
 * Delivers server events to the listeners of every instance of a router. `publish` hands the event to this
 * instance's listeners synchronously, in order, before it returns (as `MemoryServerEventBus` does: a stream
 * announces a change made in its own process at once), then `PUBLISH`es `{ origin, event }` on the channel
 * `<prefix>events`; every other instance delivers it to its listeners when it arrives, and this one skips it (no
 * double delivery). `publish` rejects with `StoreUnavailableError` when Redis cannot take the event: the
 * router's `publishQuietly` logs it, the local listeners have had it.
 *
 * The channel is subscribed at construction; {@link RedisServerEventBus.ready} resolves once Redis confirmed it, and
 * the router awaits it when it starts, so a change made on another instance after that is heard here. When Redis
 * cannot confirm it, the bus tries again by itself (250 ms, doubling up to 5 s) until it can or is closed. After a
 * reconnection node-redis sends SUBSCRIBE again by itself (tested in server-event-bus.test.ts).
 *
 * Redis pub/sub keeps nothing: an event published while this instance is disconnected from Redis (or before it
 * subscribed) never reaches it, and its streams do not announce that change. A client learns of it at its next
 * list call, and a client whose stream broke re-lists after reconnecting (MCP: a client SHOULD fetch lists again
 * after connecting); nothing in pub/sub can replay it.
 *
 * @example
 * ```ts
 * const events = new RedisServerEventBus(connection, (err) => logger.error(err, 'server event listener failed'));
 * await events.ready();
 * const unsubscribe = events.subscribe((event) => console.log(event.type)); // hears every instance's events
 * await events.publish({ type: 'list_changed', list: 'tools' });
 * unsubscribe();
 * await events.close();
 * ```
 */
export class RedisServerEventBus implements ServerEventBus {
  readonly #connection: RedisConnection;
  readonly #onListenerError: (err: unknown) => void;
  readonly #channel: string;
  /** Names this instance on the channel, so it can skip its own events. */
  readonly #origin = randomUUID();
  // One object per subscribe call, so the same function subscribed twice is two subscriptions.
  readonly #subscriptions = new Set<{ readonly listener: Listener }>();
  /** One function for every SUBSCRIBE attempt: node-redis keeps a set of listeners, so a late one adds nothing twice. */
  readonly #onMessage = (text: string): void => this.#receive(text);
  #attempt: Promise<void>;
  #retries = 0;
  #retryTimer: NodeJS.Timeout | undefined;
  #unsubscribe: (() => Promise<void>) | undefined;
  #closed = false;

  /**
   * @param connection - the store's Redis connection (closing it is the store's job)
   * @param onListenerError - called with what a listener threw
   */
  constructor(connection: RedisConnection, onListenerError: (err: unknown) => void = () => undefined) {
    this.#connection = connection;
    this.#onListenerError = onListenerError;
    this.#channel = connection.key('events');
    this.#attempt = this.#subscribeChannel();
  }

  /** How many listeners are subscribed in this instance. */
  get listenerCount(): number {
    return this.#subscriptions.size;
  }

  /**
   * Resolves once Redis confirmed the subscription of the channel: from then on, events of other instances are heard.
   *
   * @throws {StoreUnavailableError} when the latest attempt failed (the bus keeps trying by itself)
   */
  ready(): Promise<void> {
    return this.#attempt;
  }

  /**
   * Hands `event` to this instance's listeners now, then to the other instances through Redis. After `close()`,
   * only this instance's listeners hear it.
   *
   * @throws {StoreUnavailableError} (as a rejection) when Redis cannot take it
   */
  publish(event: ServerEvent): Promise<void> {
    this.#deliver(event);
    if (this.#closed) return Promise.resolve();
    const envelope: Envelope = { origin: this.#origin, event };
    return this.#connection.send(['PUBLISH', this.#channel, JSON.stringify(envelope)], this.#channel).then(() => undefined);
  }

  subscribe(listener: Listener): () => void {
    const subscription = { listener };
    this.#subscriptions.add(subscription);
    return () => {
      this.#subscriptions.delete(subscription);
    };
  }

  /** Unsubscribes the channel and stops trying to; never waits longer than the connection's command time limit. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#retryTimer);
    const unsubscribe = this.#unsubscribe;
    this.#unsubscribe = undefined;
    await unsubscribe?.();
  }

  #subscribeChannel(): Promise<void> {
    const attempt = this.#connection.subscribe(this.#channel, this.#onMessage).then(
      (unsubscribe) => {
        this.#retries = 0;
        // Closed while SUBSCRIBE was on its way: end it at once.
        if (this.#closed) void unsubscribe();
        else this.#unsubscribe = unsubscribe;
      },
      (err: unknown) => {
        if (!this.#closed) {
          const delay = Math.min(FIRST_RETRY_MS * 2 ** this.#retries++, MAX_RETRY_MS);
          this.#retryTimer = setTimeout(() => (this.#attempt = this.#subscribeChannel()), delay);
          // A retry must not keep the process alive.
          this.#retryTimer.unref();
        }
        throw err;
      },
    );
    // Nobody may be awaiting ready(): a failure is never an unhandled rejection.
    attempt.catch(() => undefined);
    return attempt;
  }

  #receive(text: string): void {
    if (this.#closed) return;
    const envelope = parseEnvelope(text);
    // Ours has been delivered by publish; one that is not an event (another program on the channel) is dropped.
    if (envelope === undefined || envelope.origin === this.#origin) return;
    this.#deliver(envelope.event);
  }

  #deliver(event: ServerEvent): void {
    // A copy, so listeners that subscribe or unsubscribe while this runs don't change the walk.
    for (const subscription of [...this.#subscriptions]) {
      if (!this.#subscriptions.has(subscription)) continue;
      try {
        subscription.listener(event);
      } catch (err) {
        this.#report(err);
      }
    }
  }

  #report(err: unknown): void {
    try {
      this.#onListenerError(err);
    } catch {
      // The error reporter failing must not break delivery, nor the subscriber connection's read loop.
    }
  }
}

/** The envelope in a payload, its event rebuilt from the known fields; undefined when it is not one. */
function parseEnvelope(text: string): Envelope | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(value) || typeof value.origin !== 'string' || !isRecord(value.event)) return undefined;
  const { type, list, uri } = value.event;
  if (type === 'list_changed' && LISTS.includes(list as ChangedList)) return { origin: value.origin, event: { type, list: list as ChangedList } };
  if (type === 'resource_updated' && typeof uri === 'string') return { origin: value.origin, event: { type, uri } };
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
