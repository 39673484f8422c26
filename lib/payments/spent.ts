// The payments a guard has taken: a bounded, expiring set of payload digests, so that one payment buys one call.

/** What the guard does with a payment it is about to use. */
export type Claim = 'claimed' | 'in-use' | 'spent';

/**
 * Payload digests in use (a call is verifying, running or settling with them) or spent (settled). A facilitator
 * refuses a settled payment itself (an EIP-3009 nonce settles once), but only once it has reached the chain; this
 * set closes the window before that and stops two concurrent calls from both running on one payment.
 */
export class SpentPayments {
  /** digest → when the entry expires (ms since the epoch); Infinity while a call holds it. Insertion order = age. */
  readonly #entries = new Map<string, number>();

  /**
   * @param max - most digests kept; past it the oldest spent ones go first (the facilitator still refuses those)
   * @param ttlMs - how long a spent digest is remembered
   */
  constructor(
    private readonly max: number,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes `digest` for one call: refused when another call holds it or it was spent. */
  claim(digest: string): Claim {
    const expires = this.#entries.get(digest);
    if (expires === Infinity) return 'in-use';
    if (expires !== undefined && expires > this.now()) return 'spent';
    this.#entries.delete(digest);
    this.#evict();
    this.#entries.set(digest, Infinity);
    return 'claimed';
  }

  /** The call did not pay (verification refused, the tool failed, settlement failed): the payment may be used again. */
  release(digest: string): void {
    if (this.#entries.get(digest) === Infinity) this.#entries.delete(digest);
  }

  /** The call paid: the digest is refused until its entry expires. */
  spend(digest: string): void {
    this.#entries.delete(digest);
    this.#entries.set(digest, this.now() + this.ttlMs);
  }

  /** How many digests are held (in use or spent). */
  get size(): number {
    return this.#entries.size;
  }

  #evict(): void {
    for (const [digest, expires] of this.#entries) {
      if (this.#entries.size < this.max) return;
      // Entries in use are never dropped: they are few (one per running call) and dropping one would admit a double run.
      if (expires !== Infinity) this.#entries.delete(digest);
    }
  }
}
