// MemorySignInStore: the default SignInStore, in this process: records expire after their TTL; each kind is capped.

import type { SignInKind, SignInRecord, SignInStore } from './sign-in-store';

/** The most records of one kind a memory store keeps; one more evicts the oldest of that kind. */
export const DEFAULT_MAX_SIGN_IN_RECORDS = 10_000;

interface Entry {
  readonly json: string;
  readonly expiresAt: number;
}

/**
 * Keeps sign-in state in this process. Each kind holds at most `max` records, the oldest evicted first (a flood of
 * registrations or authorization requests costs its bound, never more); expired records are gone on read, or
 * evicted as the oldest. Records are kept as JSON text, as a shared store would, so no caller can change one in place.
 *
 * @example
 * ```ts
 * const store = new MemorySignInStore();
 * await store.set('code', code, { clientId }, 60_000);
 * const once = await store.take('code', code); // a second take finds nothing
 * ```
 */
export class MemorySignInStore implements SignInStore {
  private readonly kinds = new Map<SignInKind, Map<string, Entry>>();

  /**
   * @param max - the most records of one kind; defaults to {@link DEFAULT_MAX_SIGN_IN_RECORDS}
   * @param now - the clock in ms (tests inject one)
   */
  constructor(
    private readonly max = DEFAULT_MAX_SIGN_IN_RECORDS,
    private readonly now: () => number = Date.now,
  ) {}

  async set(kind: SignInKind, id: string, value: SignInRecord, ttlMs: number): Promise<void> {
    this.put(kind, id, value, ttlMs);
  }

  async add(kind: SignInKind, id: string, value: SignInRecord, ttlMs: number): Promise<boolean> {
    if (this.live(kind, id) !== undefined) return false;
    this.put(kind, id, value, ttlMs);
    return true;
  }

  async get(kind: SignInKind, id: string): Promise<SignInRecord | undefined> {
    const entry = this.live(kind, id);
    return entry && (JSON.parse(entry.json) as SignInRecord);
  }

  async take(kind: SignInKind, id: string): Promise<SignInRecord | undefined> {
    const entry = this.live(kind, id);
    if (entry === undefined) return undefined;
    this.kinds.get(kind)?.delete(id);
    return JSON.parse(entry.json) as SignInRecord;
  }

  async delete(kind: SignInKind, id: string): Promise<void> {
    this.kinds.get(kind)?.delete(id);
  }

  /** The entry when present and not expired; an expired one is dropped. */
  private live(kind: SignInKind, id: string): Entry | undefined {
    const records = this.kinds.get(kind);
    const entry = records?.get(id);
    if (entry === undefined) return undefined;
    if (entry.expiresAt > this.now()) return entry;
    records?.delete(id);
    return undefined;
  }

  private put(kind: SignInKind, id: string, value: SignInRecord, ttlMs: number): void {
    let records = this.kinds.get(kind);
    if (records === undefined) this.kinds.set(kind, (records = new Map()));
    records.delete(id); // re-inserted last: a Map iterates in insertion order, oldest first
    records.set(id, { json: JSON.stringify(value), expiresAt: this.now() + ttlMs });
    // Over the cap: the oldest goes (a Map iterates in insertion order), in O(1); expired records go when read.
    if (records.size > this.max) records.delete(records.keys().next().value as string);
  }
}
