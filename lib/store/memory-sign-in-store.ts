// MemorySignInStore: the default SignInStore, in this process: records expire after their TTL; each kind is capped.

import { BoundedMap } from '../bounded-map';
import type { SignInKind, SignInRecord, SignInStore } from './sign-in-store';

/** The most records of one kind a memory store keeps; one more evicts the oldest of that kind. */
export const DEFAULT_MAX_SIGN_IN_RECORDS = 10_000;

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
  /** Per kind, each record as JSON text. */
  private readonly kinds = new Map<SignInKind, BoundedMap<string, string>>();

  /**
   * @param max - the most records of one kind; defaults to {@link DEFAULT_MAX_SIGN_IN_RECORDS}
   * @param now - the clock in ms (tests inject one)
   */
  constructor(
    private readonly max = DEFAULT_MAX_SIGN_IN_RECORDS,
    private readonly now: () => number = Date.now,
  ) {}

  async set(kind: SignInKind, id: string, value: SignInRecord, ttlMs: number): Promise<void> {
    this.recordsOf(kind).set(id, JSON.stringify(value), this.now() + ttlMs);
  }

  async add(kind: SignInKind, id: string, value: SignInRecord, ttlMs: number): Promise<boolean> {
    const records = this.recordsOf(kind);
    if (records.get(id) !== undefined) return false;
    records.set(id, JSON.stringify(value), this.now() + ttlMs);
    return true;
  }

  async get(kind: SignInKind, id: string): Promise<SignInRecord | undefined> {
    const json = this.kinds.get(kind)?.get(id);
    return json === undefined ? undefined : (JSON.parse(json) as SignInRecord);
  }

  async take(kind: SignInKind, id: string): Promise<SignInRecord | undefined> {
    const records = this.kinds.get(kind);
    const json = records?.get(id);
    if (json === undefined) return undefined;
    records?.delete(id);
    return JSON.parse(json) as SignInRecord;
  }

  async delete(kind: SignInKind, id: string): Promise<void> {
    this.kinds.get(kind)?.delete(id);
  }

  /** The records of one kind: the oldest written goes first past `max`; expired ones go when read. */
  private recordsOf(kind: SignInKind): BoundedMap<string, string> {
    let records = this.kinds.get(kind);
    if (records === undefined) this.kinds.set(kind, (records = new BoundedMap({ max: this.max, now: this.now })));
    return records;
  }
}
