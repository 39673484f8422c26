// MemorySignInStore: the default SignInStore, in this process: records expire after their TTL; each kind has its own bound.

import { BoundedMap } from '../../core/bounded-map';
import { boundOf, type SignInKind, type SignInLimits, type SignInRecord, type SignInStore } from './sign-in-store';

/** The most signing-key records kept: the router writes one per rotation period, and each lives three periods. */
const MAX_KEY_RECORDS = 16;

/**
 * Keeps sign-in state in this process. Each kind holds at most its bound of {@link SignInLimits}, the least recently
 * used record evicted first (a write, or a `use`, makes a record the most recent): a flood of registrations or
 * authorization requests costs its own kind's bound, never a signed-in user's refresh family or a client in use.
 * Expired records are gone on read, or evicted as the oldest. Records are kept as JSON text, as a shared store
 * would, so no caller can change one in place.
 *
 * @example
 * ```ts
 * const store = new MemorySignInStore({ clients: 1_000 });
 * await store.set('code', code, { clientId }, 60_000);
 * const once = await store.take('code', code); // a second take finds nothing
 * ```
 */
export class MemorySignInStore implements SignInStore {
  /** Per kind, each record as JSON text. */
  private readonly kinds = new Map<SignInKind, BoundedMap<string, string>>();

  /**
   * @param limits - the bound of each kind; a missing one is `10000`
   * @param now - the clock in ms (tests inject one)
   */
  constructor(
    private readonly limits: Partial<SignInLimits> = {},
    private readonly now: () => number = Date.now,
  ) {}

  async set(kind: SignInKind, id: string, value: SignInRecord, ttlMs: number): Promise<void> {
    this.recordsOf(kind).set(id, JSON.stringify(value), this.now() + ttlMs);
  }

  async add(kind: SignInKind, id: string, value: SignInRecord, ttlMs: number): Promise<boolean> {
    const records = this.recordsOf(kind);
    if (records.get(id) !== undefined) return false;
    // A single-use id forgotten before it expires could be used again: a full set refuses instead (sign-in-store.ts).
    if (kind === 'replay' && !records.hasRoom()) return false;
    records.set(id, JSON.stringify(value), this.now() + ttlMs);
    return true;
  }

  async get(kind: SignInKind, id: string): Promise<SignInRecord | undefined> {
    const json = this.kinds.get(kind)?.get(id);
    return json === undefined ? undefined : (JSON.parse(json) as SignInRecord);
  }

  async use(kind: SignInKind, id: string, ttlMs: number): Promise<SignInRecord | undefined> {
    const records = this.kinds.get(kind);
    const json = records?.get(id);
    if (json === undefined) return undefined;
    // Written again: the youngest entry, so the last its kind's bound evicts.
    records?.set(id, json, this.now() + ttlMs);
    return JSON.parse(json) as SignInRecord;
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

  /** The records of one kind: the least recently written (or used) goes first past its bound; expired ones go when read. */
  private recordsOf(kind: SignInKind): BoundedMap<string, string> {
    let records = this.kinds.get(kind);
    if (records === undefined) {
      const max = boundOf(kind, this.limits) ?? MAX_KEY_RECORDS;
      this.kinds.set(kind, (records = new BoundedMap({ max, now: this.now })));
    }
    return records;
  }
}
