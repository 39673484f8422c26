// BoundedMap: a Map with a most-entries bound (the oldest goes first) and an optional expiry per entry.

/** Options of a {@link BoundedMap}. */
export interface BoundedMapOptions {
  /** The most entries kept; one more evicts the oldest. Required: a bound is the point. */
  readonly max: number;
  /**
   * Whether a `get` that finds an entry makes it the youngest (least recently used goes first), rather than only a
   * `set` (least recently written goes first). Defaults to `false`.
   */
  readonly refreshOnGet?: boolean;
  /** The clock, in ms since the epoch, that expiries are read against. Defaults to `Date.now`. */
  readonly now?: () => number;
}

interface Entry<V> {
  readonly value: V;
  /** When the entry stops being found (ms since the epoch); Infinity for never. */
  readonly expiresAt: number;
}

/**
 * The one bounded map of the router's memory of what peers send (caches of verified tokens and parsed headers,
 * sign-in records, …): what a peer sends costs at most `max` entries, evicted oldest first, in O(1) (a `Map`
 * iterates in insertion order, so re-inserting an entry makes it the youngest). An expired entry is dropped when
 * read, or evicted as the oldest; no timer runs. A hand-written helper rather than `lru-cache`: this is the part of
 * it the router uses, with no dependency to install.
 *
 * @example
 * ```ts
 * const cache = new BoundedMap<string, Principal>({ max: 10_000, refreshOnGet: true });
 * cache.set(digest, principal, Date.now() + 60_000);
 * cache.get(digest); // the principal until then, undefined after
 * ```
 */
export class BoundedMap<K, V> {
  readonly #entries = new Map<K, Entry<V>>();
  readonly #max: number;
  readonly #refreshOnGet: boolean;
  readonly #now: () => number;
  /**
   * A live iterator over the keys, standing just before the oldest live entry: everything it has passed was evicted.
   * A fresh `keys()` per eviction would walk over the holes the evictions left at the front of the Map's table
   * (until it rehashes), O(max) per eviction; a live iterator passes each hole once (ECMAScript: an iterator visits
   * entries added after it was made, and skips deleted ones).
   */
  #cursor: Iterator<K> | undefined;

  constructor(options: BoundedMapOptions) {
    this.#max = options.max;
    this.#refreshOnGet = options.refreshOnGet ?? false;
    this.#now = options.now ?? Date.now;
  }

  /** The value of `key` while it has not expired, else undefined (an expired entry is dropped). */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.#now()) {
      this.#entries.delete(key);
      return undefined;
    }
    if (this.#refreshOnGet) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
    }
    return entry.value;
  }

  /**
   * Keeps `value` under `key` as the youngest entry, until `expiresAt`; past `max` entries the oldest goes.
   *
   * @param expiresAt - when it stops being found, in ms since the epoch; defaults to never
   */
  set(key: K, value: V, expiresAt = Infinity): void {
    this.#entries.delete(key);
    this.#entries.set(key, { value, expiresAt });
    while (this.#entries.size > this.#max) {
      let oldest = this.#cursor?.next();
      // An iterator that reached the end stays done (ECMAScript), even when entries are added later: a new one.
      if (oldest === undefined || oldest.done === true) oldest = (this.#cursor = this.#entries.keys()).next();
      if (oldest.done === true) return;
      this.#entries.delete(oldest.value);
    }
  }

  /**
   * True when one more entry fits without evicting a live one: expired entries at the old end are dropped first.
   * For what must never be forgotten early (single-use ids), whose writer refuses rather than evicts.
   */
  hasRoom(): boolean {
    const now = this.#now();
    for (const [key, entry] of this.#entries) {
      if (this.#entries.size < this.#max || entry.expiresAt > now) break;
      this.#entries.delete(key);
    }
    return this.#entries.size < this.#max;
  }

  /** Forgets `key`; true when it was held. */
  delete(key: K): boolean {
    return this.#entries.delete(key);
  }

  /** How many entries it holds (expired ones not yet dropped included). */
  get size(): number {
    return this.#entries.size;
  }
}
