// RedisServerEventBus: list changes and resource updates heard by the streams of every instance — local listeners at once, the others through one pub/sub channel.

import { randomUUID } from 'node:crypto';
import { BoundedMap } from '../../core/bounded-map';
import { isObject } from '../../core/jsonrpc/types';
import type { ChangedList } from '../../core/registry/registry';
import { MemoryServerEventBus, type ServerEvent, type ServerEventBus } from '../../edge/store/server-events';
import { parseChannelPayload, type RedisConnection } from './connection';

type Listener = (event: ServerEvent) => void;

/** What travels on the channel: the event, the instance that published it (which has delivered it already) and its number there. */
interface Envelope {
  readonly origin: string;
  /** 1, 2, 3… per origin: a number skipped is an event this instance did not hear. */
  readonly seq: number | undefined;
  readonly event: ServerEvent;
}

const LISTS: readonly ChangedList[] = ['tools', 'prompts', 'resources'];
/** First wait before SUBSCRIBE is tried again when Redis could not confirm it; it doubles up to the maximum. */
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;
/** Most origins whose last number is kept (instances come and go; the oldest heard is forgotten first). */
const MAX_ORIGINS = 256;

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
 * subscribed), or one whose PUBLISH failed, never reaches it. Each instance numbers its events, so the next event
 * from that instance shows the gap; this bus then announces again every list it has seen change (a
 * `list_changed` more than needed only makes a client list again, MCP lists › List Changed Notification). A lost
 * `resource_updated` cannot be rebuilt: the client learns of it at its next read. Until the next event from that
 * instance, a client learns of the change at its next list call, and a client whose stream broke lists again after
 * reconnecting.
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
  /** This instance's listeners: delivery to them is the in-memory bus's. */
  readonly #local: MemoryServerEventBus;
  readonly #channel: string;
  /** Names this instance on the channel, so it can skip its own events. */
  readonly #origin = randomUUID();
  /** One function for every SUBSCRIBE attempt: node-redis keeps a set of listeners, so a late one adds nothing twice. */
  readonly #onMessage = (text: string): void => this.#receive(text);
  #attempt: Promise<void>;
  #retries = 0;
  #retryTimer: NodeJS.Timeout | undefined;
  #unsubscribe: (() => Promise<void>) | undefined;
  #closed = false;
  /** The number of the last event this instance published. */
  #published = 0;
  /** The number of the last event heard from each other instance, least recently heard first. */
  readonly #heard = new BoundedMap<string, number>({ max: MAX_ORIGINS });
  /** The lists seen changing here: announced again when events were missed. */
  readonly #changedLists = new Set<ChangedList>();

  /**
   * @param connection - the store's Redis connection (closing it is the store's job)
   * @param onListenerError - called with what a listener threw
   */
  constructor(connection: RedisConnection, onListenerError: (err: unknown) => void = () => undefined) {
    this.#connection = connection;
    this.#local = new MemoryServerEventBus((err) => {
      try {
        onListenerError(err);
      } catch {
        // The error reporter failing must not break delivery, nor the subscriber connection's read loop.
      }
    });
    this.#channel = connection.key('events');
    this.#attempt = this.#subscribeChannel();
  }

  /** How many listeners are subscribed in this instance. */
  get listenerCount(): number {
    return this.#local.listenerCount;
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
    const envelope: Envelope = { origin: this.#origin, seq: ++this.#published, event };
    return this.#connection
      .send(['PUBLISH', this.#channel, JSON.stringify(envelope)], this.#channel)
      .then(() => undefined);
  }

  subscribe(listener: Listener): () => void {
    return this.#local.subscribe(listener);
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
    if (this.#missedBefore(envelope)) {
      for (const list of [...this.#changedLists])
        if (!(envelope.event.type === 'list_changed' && envelope.event.list === list))
          this.#deliver({ type: 'list_changed', list });
    }
    this.#deliver(envelope.event);
  }

  /** True when events of the envelope's origin were missed since the last one heard from it. */
  #missedBefore({ origin, seq }: Envelope): boolean {
    if (seq === undefined) return false;
    const last = this.#heard.get(origin);
    // Set again, so the least recently heard origin is the one forgotten.
    this.#heard.set(origin, seq);
    return last !== undefined && seq > last + 1;
  }

  #deliver(event: ServerEvent): void {
    if (event.type === 'list_changed') this.#changedLists.add(event.list);
    this.#local.publish(event);
  }
}

/** The envelope in a payload, its event rebuilt from the known fields; undefined when it is not one. */
function parseEnvelope(text: string): Envelope | undefined {
  const value = parseChannelPayload(text);
  if (value === undefined || typeof value.origin !== 'string' || !isObject(value.event)) return undefined;
  const { origin, seq } = value;
  const numbered = Number.isSafeInteger(seq) ? (seq as number) : undefined;
  const { type, list, uri } = value.event;
  if (type === 'list_changed' && LISTS.includes(list as ChangedList))
    return { origin, seq: numbered, event: { type, list: list as ChangedList } };
  if (type === 'resource_updated' && typeof uri === 'string') return { origin, seq: numbered, event: { type, uri } };
  return undefined;
}
