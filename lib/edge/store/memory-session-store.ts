// MemorySessionStore: the default SessionStore, keeping sessions in this process with an idle TTL and an LRU cap.

import type { OptionKeys } from '../../options/config-error';
import { OptionReader } from '../../options/option-reader';
import type { SessionRecord, SessionStore } from './session-stores';

/** How long a session may stay idle before it expires. */
export const DEFAULT_SESSION_IDLE_TTL_MS = 30 * 60 * 1000;
/** How many sessions one store keeps before it evicts the least recently active. */
export const DEFAULT_MAX_SESSIONS = 10_000;
/** The longest delay setTimeout accepts; a longer one fires after 1 ms (Node prints TimeoutOverflowWarning). */
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/** Options of {@link MemorySessionStore}. */
export interface MemorySessionStoreOptions {
  /** A session idle (no `get`, `touch` or `set`) for longer than this many ms expires. Defaults to {@link DEFAULT_SESSION_IDLE_TTL_MS}. */
  idleTtlMs?: number;
  /** The most sessions kept; adding one more evicts the least recently active. Defaults to {@link DEFAULT_MAX_SESSIONS}. */
  max?: number;
  /** The clock, in ms since the epoch (tests inject one). Defaults to `Date.now`. */
  now?: () => number;
}

type DropListener = (id: string, reason: 'expired' | 'evicted') => void;
type DropReason = Parameters<DropListener>[1];

interface Entry {
  readonly record: SessionRecord;
  lastActive: number;
}

const KNOWN_OPTIONS: OptionKeys<MemorySessionStoreOptions> = {
  idleTtlMs: true,
  max: true,
  now: true,
};

/**
 * A deep, frozen copy of plain data, which is all a session record holds (parsed JSON from the client, strings,
 * numbers). Made once per `set`; frozen so that `get`, which runs on every request, can hand out the nested
 * values themselves: a request's cost must not grow with what its client sent earlier.
 */
function frozenCopy<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return Object.freeze(value.map(frozenCopy)) as T;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    // A client's JSON may hold a "__proto__" key: keep it as data, as JSON.parse did, not as the prototype.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: frozenCopy(item), enumerable: true });
    else copy[key] = frozenCopy(item);
  }
  return Object.freeze(copy) as T;
}

/**
 * Keeps sessions in this process. A session idle for longer than `idleTtlMs` is gone (`get` already returns
 * undefined before the sweep drops it); adding a new session while `max` exist evicts the least recently
 * active one. Both are reported to {@link MemorySessionStore.onDrop} listeners so their streams can be closed.
 * A record is copied in, as a store that serialises it would, and handed out as a fresh top level over frozen
 * nested values: a caller may reassign the record's fields, never change what the store holds. One unref'd
 * timer runs only while the store holds sessions.
 *
 * @example
 * ```ts
 * const store = new MemorySessionStore({ idleTtlMs: 10 * 60 * 1000, max: 1000 });
 * store.onDrop((id, reason) => console.log(`session ${id} ${reason}`));
 * await store.set(record);
 * const session = await store.get(record.id); // a copy of the top level (nested values frozen); the idle TTL restarts
 * ```
 */
export class MemorySessionStore implements SessionStore {
  readonly #idleTtlMs: number;
  readonly #max: number;
  readonly #now: () => number;
  /** Insertion order is recency: activity re-inserts an entry, so the first key is the least recently active. */
  readonly #entries = new Map<string, Entry>();
  readonly #listeners: DropListener[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** @throws {McpConfigError} `ERR_MCP_UNKNOWN_OPTION` or `ERR_MCP_INVALID_OPTION` for a bad option */
  constructor(options: MemorySessionStoreOptions = {}) {
    const read = OptionReader.of(options, 'MemorySessionStore', KNOWN_OPTIONS);
    this.#idleTtlMs = read.positiveInteger('idleTtlMs', DEFAULT_SESSION_IDLE_TTL_MS);
    this.#max = read.positiveInteger('max', DEFAULT_MAX_SESSIONS);
    this.#now = read.fn('now') ?? Date.now;
  }

  /** How many sessions the store holds, expired ones not yet swept included. */
  get size(): number {
    return this.#entries.size;
  }

  async set(record: SessionRecord): Promise<void> {
    const isNew = this.#live(record.id) === undefined;
    if (isNew) this.#makeRoom();
    this.#entries.delete(record.id);
    this.#entries.set(record.id, { record: frozenCopy(record), lastActive: this.#now() });
    this.#schedule();
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    const entry = this.#activate(id);
    // Constant work whatever the record holds: its nested values are frozen, so they need no copy.
    return entry && { ...entry.record };
  }

  async touch(id: string): Promise<void> {
    this.#activate(id);
  }

  async delete(id: string): Promise<boolean> {
    if (this.#live(id) === undefined) return false;
    this.#entries.delete(id);
    this.#unscheduleIfEmpty();
    return true;
  }

  onDrop(listener: DropListener): void {
    this.#listeners.push(listener);
  }

  /** Stops the timer and forgets every session, without calling the drop listeners. */
  async close(): Promise<void> {
    this.#entries.clear();
    this.#unscheduleIfEmpty();
  }

  #isExpired(entry: Entry, now = this.#now()): boolean {
    return now - entry.lastActive > this.#idleTtlMs;
  }

  /** The entry when it exists and has not expired; an expired one is dropped here, before any sweep. */
  #live(id: string): Entry | undefined {
    const entry = this.#entries.get(id);
    if (entry === undefined || !this.#isExpired(entry)) return entry;
    this.#drop([id], 'expired');
    return undefined;
  }

  /** Counts as activity: restarts the idle TTL and moves the session to the most recent end. */
  #activate(id: string): Entry | undefined {
    const entry = this.#live(id);
    if (entry === undefined) return undefined;
    entry.lastActive = this.#now();
    this.#entries.delete(id);
    this.#entries.set(id, entry);
    return entry;
  }

  /** Before a new session is added at the cap: drop the least recently active (expired, or else evicted). */
  #makeRoom(): void {
    while (this.#entries.size >= this.#max) {
      const [id, entry] = this.#entries.entries().next().value as [string, Entry];
      this.#drop([id], this.#isExpired(entry) ? 'expired' : 'evicted');
    }
  }

  #drop(ids: readonly string[], reason: DropReason): void {
    for (const id of ids) this.#entries.delete(id);
    this.#unscheduleIfEmpty();
    for (const id of ids) {
      for (const listener of this.#listeners) {
        try {
          listener(id, reason);
        } catch {
          // A listener's failure must not break the store, nor escape the sweep timer and crash the process.
        }
      }
    }
  }

  /** Drops every expired session. Recency order means the first fresh one ends the scan. */
  #sweep(): void {
    const now = this.#now();
    const expired: string[] = [];
    for (const [id, entry] of this.#entries) {
      if (!this.#isExpired(entry, now)) break;
      expired.push(id);
    }
    if (expired.length > 0) this.#drop(expired, 'expired');
  }

  /** One timer per store, due when the least recently active session would expire. */
  #schedule(): void {
    const first = this.#entries.values().next().value;
    if (this.#timer !== undefined || first === undefined) return;
    const delay = first.lastActive + this.#idleTtlMs + 1 - this.#now();
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#sweep();
        this.#schedule();
      },
      Math.min(Math.max(delay, 1), MAX_TIMER_DELAY_MS),
    );
    this.#timer.unref();
  }

  #unscheduleIfEmpty(): void {
    if (this.#entries.size > 0 || this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
