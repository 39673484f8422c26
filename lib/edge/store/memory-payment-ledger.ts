// Payment ledgers: the router's (its shared store's, else in memory; made on first use) and the in-memory one.

import type { PaymentClaim, PaymentLedger, PaymentTerms } from '../../core/registry/payment-ledger';
import type { McpStore } from './shared-store';

const IN_USE: PaymentClaim = Object.freeze({ status: 'in-use' });
const SPENT: PaymentClaim = Object.freeze({ status: 'spent' });

/**
 * A {@link PaymentLedger} in this process: payment keys in use (a call is verifying, running or settling with them)
 * or spent (settled). A facilitator refuses a settled payment itself (an EIP-3009 nonce settles once), but only once
 * it has reached the chain; this closes the window before that, and stops two concurrent calls from both running on
 * one payment. Bounded: past the largest `maxRemembered` asked, the oldest spent keys are forgotten (the
 * facilitator still refuses those); keys in use are never dropped (one per running call).
 */
export class MemoryPaymentLedger implements PaymentLedger {
  /** key → when the entry expires (ms since the epoch); Infinity while a call holds it. Insertion order = age. */
  readonly #entries = new Map<string, number>();
  #max = 0;

  constructor(private readonly now: () => number = Date.now) {}

  // No await before the entry is set: of two calls claiming one key, the first takes it.
  async claim(key: string, terms: PaymentTerms): Promise<PaymentClaim> {
    this.#max = Math.max(this.#max, terms.maxRemembered);
    const expires = this.#entries.get(key);
    if (expires === Infinity) return IN_USE;
    if (expires !== undefined && expires > this.now()) return SPENT;
    this.#entries.delete(key);
    this.#evict();
    this.#entries.set(key, Infinity);
    let done = false;
    return {
      status: 'claimed',
      hold: {
        spend: async () => {
          if (done) return;
          done = true;
          this.#entries.delete(key);
          this.#entries.set(key, this.now() + terms.replayTtlMs);
        },
        release: async () => {
          if (done) return;
          done = true;
          if (this.#entries.get(key) === Infinity) this.#entries.delete(key);
        },
      },
    };
  }

  /** How many keys are held (in use or spent). */
  get size(): number {
    return this.#entries.size;
  }

  #evict(): void {
    for (const [key, expires] of this.#entries) {
      if (this.#entries.size < this.#max) return;
      if (expires !== Infinity) this.#entries.delete(key);
    }
  }
}

/**
 * The ledger of one router: its shared store's (`store.payments()`, so every instance sees every claim), else one
 * in memory; made when a paid call first claims, so a router without paid tools makes none.
 */
export function routerPaymentLedger(store: McpStore | undefined): PaymentLedger {
  let ledger: PaymentLedger | undefined;
  return {
    claim: (key, terms) => {
      ledger ??= store?.payments?.() ?? new MemoryPaymentLedger();
      return ledger.claim(key, terms);
    },
  };
}
