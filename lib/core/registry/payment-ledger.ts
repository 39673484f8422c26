// PaymentLedger: the one-use payments a router's paid tools have taken, shared by every guard of the router. (Its Redis side is redis/payment-ledger.ts: one concern at two layers.)

/**
 * Where a payment may travel in a call, first found wins. `x402/payment` is the MCP transport's key
 * (specs/transports-v2/mcp.md); `x402.payment` is what Vercel's `x402-mcp` sends; the headers are x402 HTTP's (v2
 * `PAYMENT-SIGNATURE`, v1 `X-PAYMENT`), which Cloudflare's `agents/x402` reads too. Here, below both the guard that
 * reads them and the gateway that must not pass on a payment it consumed.
 */
export const PAYMENT_META_KEYS = Object.freeze(['x402/payment', 'x402.payment'] as const);
export const PAYMENT_HEADER_NAMES = Object.freeze(['payment-signature', 'x-payment'] as const);

/** What a payment guard asks of the ledger for one payment. */
export interface PaymentTerms {
  /** How long a settled payment stays refused, in ms. */
  readonly replayTtlMs: number;
  /** Most settled payments an in-memory ledger keeps; a ledger shared by several guards keeps the largest asked. */
  readonly maxRemembered: number;
}

/** A payment held by one call until it pays (`spend`) or does not (`release`). */
export interface PaymentHold {
  /** The call paid (settled): the payment is refused for `replayTtlMs`. */
  spend(): Promise<void>;
  /** The call did not pay (verification refused, the tool failed, settlement failed, cancelled): it may be used again. */
  release(): Promise<void>;
}

/** The answer to a claim: the payment is now this call's, or another call holds it, or it already paid for one. */
export type PaymentClaim =
  | {
      /** The payment is now this call's. */
      readonly status: 'claimed';
      /** `spend()` it once the call has paid (settled), or `release()` it when the call did not pay. */
      readonly hold: PaymentHold;
    }
  | {
      /** `in-use`: another call holds it now; `spent`: it already paid for a call. */
      readonly status: 'in-use' | 'spent';
    };

/**
 * The payments every paid tool of one router has taken, keyed by what the payer signed. The router owns one and
 * hands it to guards on {@link ToolGuardCall.payments}, so a payment is in use once whichever guard (a tool's, the
 * router's, a gateway upstream's) sees it; kept in memory, or in the router's shared `store` so that every instance
 * sees the same claims. A claim is atomic: of calls claiming one key at once, exactly one gets it.
 */
export interface PaymentLedger {
  /**
   * Takes `key` for one call.
   *
   * @throws {StoreUnavailableError} when a shared store cannot answer (the guard then refuses the call)
   */
  claim(key: string, terms: PaymentTerms): Promise<PaymentClaim>;
}
