// x402 v2 wire types (coinbase/x402 specs/x402-specification-v2.md §5–§7) and the verifier a guard pays through.

/**
 * One way to pay for a tool (x402 v2 `PaymentRequirements`): `amount` in the asset's atomic units, `network` as
 * CAIP-2 (`eip155:84532`), `payTo` the receiving address.
 */
export interface PaymentRequirements {
  scheme: string;
  network: string;
  amount: string;
  asset: string;
  payTo: string;
  maxTimeoutSeconds: number;
  extra?: Record<string, unknown>;
}

/** What a client pays with (x402 v2 `PaymentPayload`): the requirement it accepted and the scheme's signed payload. */
export interface PaymentPayload {
  x402Version: number;
  accepted: PaymentRequirements;
  payload: Record<string, unknown>;
  resource?: { url?: string; description?: string; mimeType?: string };
  extensions?: Record<string, unknown>;
}

/** What a paid tool answers a call without a (good) payment with (x402 v2 `PaymentRequired`). */
export interface PaymentRequired {
  x402Version: 2;
  error?: string;
  resource: { url: string; description?: string; mimeType?: string };
  accepts: PaymentRequirements[];
}

/** A facilitator's answer to `/verify` (x402 v2 §7.1). */
export interface VerifyResponse {
  isValid: boolean;
  invalidReason?: string;
  payer?: string;
}

/** A facilitator's answer to `/settle` (x402 v2 §7.2); sent back to the client in `_meta["x402/payment-response"]`. */
export interface SettleResponse {
  success: boolean;
  errorReason?: string;
  payer?: string;
  transaction: string;
  network: string;
  amount?: string;
}

/** Options of one facilitator call: the guard aborts it when the call is cancelled or its timeout passes. */
export interface FacilitatorCallOptions {
  signal?: AbortSignal;
}

/**
 * What {@link x402Guard} verifies and settles payments with: {@link x402Facilitator}, or any object of this shape
 * (it is a structural subset of `@x402/core`'s `FacilitatorClient`, so `new HTTPFacilitatorClient(…)` fits as is).
 */
export interface PaymentFacilitator {
  verify(
    payload: PaymentPayload,
    requirements: PaymentRequirements,
    options?: FacilitatorCallOptions,
  ): Promise<VerifyResponse>;
  settle(
    payload: PaymentPayload,
    requirements: PaymentRequirements,
    options?: FacilitatorCallOptions,
  ): Promise<SettleResponse>;
}

/**
 * A facilitator that failed (unreachable, timed out, an HTTP error, a malformed answer). Its message is safe to
 * show a client: it never holds the facilitator's URL or what it answered.
 */
export class FacilitatorError extends Error {
  override readonly name = 'FacilitatorError';
}
