// x402 v2 wire types (coinbase/x402 specs/x402-specification-v2.md §5–§7) and the verifier a guard pays through.

/**
 * One way to pay for a tool (x402 v2 `PaymentRequirements`): `amount` in the asset's atomic units, `network` as
 * CAIP-2 (`eip155:84532`), `payTo` the receiving address.
 */
export interface PaymentRequirements {
  /** How the payment is made: `exact` (a signed transfer of exactly `amount`) is the one x402 defines today. */
  scheme: string;
  /** The chain, as a CAIP-2 id: `eip155:8453` (Base), `eip155:84532` (Base Sepolia), …. */
  network: string;
  /** The price in the asset's smallest unit, as a decimal string (`10000` is 0.01 USDC, which has 6 decimals). */
  amount: string;
  /** The token paid in: its contract address on `network`. */
  asset: string;
  /** The address that receives the payment. */
  payTo: string;
  /** How long a signed payment stays valid for this request, in seconds. */
  maxTimeoutSeconds: number;
  /** What the scheme needs besides (for `exact` on EVM, the token's EIP-712 `name` and `version`). */
  extra?: Record<string, unknown>;
}

/** What a client pays with (x402 v2 `PaymentPayload`): the requirement it accepted and the scheme's signed payload. */
export interface PaymentPayload {
  /** The x402 protocol version the client speaks (2). */
  x402Version: number;
  /** The one of the server's `accepts` the client chose to pay by. */
  accepted: PaymentRequirements;
  /** The scheme's signed proof of payment (for `exact` on EVM, an EIP-3009 authorization and its signature). */
  payload: Record<string, unknown>;
  /** What the client paid for, as the server described it. */
  resource?: {
    /** The resource's URL (for a tool, its MCP name). */
    url?: string;
    /** What it is, for people. */
    description?: string;
    /** The media type of what is delivered. */
    mimeType?: string;
  };
  /** Data of x402 extensions the client uses, by extension name. */
  extensions?: Record<string, unknown>;
}

/** What a paid tool answers a call without a (good) payment with (x402 v2 `PaymentRequired`). */
export interface PaymentRequired {
  /** The x402 protocol version: always 2. */
  x402Version: 2;
  /** Why an earlier payment was refused, when one was sent. */
  error?: string;
  /** What is being paid for: the tool, for the client to show its user. */
  resource: {
    /** The resource's URL (for a tool, its MCP name). */
    url: string;
    /** What it is, for people. */
    description?: string;
    /** The media type of what is delivered. */
    mimeType?: string;
  };
  /** The ways the client may pay, any one of which is enough. */
  accepts: PaymentRequirements[];
}

/** A facilitator's answer to `/verify` (x402 v2 §7.1). */
export interface VerifyResponse {
  /**
   * Whether the payment would settle: signed by its payer, for the right amount and recipient, funded and unexpired.
   */
  isValid: boolean;
  /** Why it would not, as an x402 error code (`insufficient_funds`, …). */
  invalidReason?: string;
  /** The address that signed the payment. */
  payer?: string;
}

/** A facilitator's answer to `/settle` (x402 v2 §7.2); sent back to the client in `_meta["x402/payment-response"]`. */
export interface SettleResponse {
  /** Whether the payment was executed on chain. */
  success: boolean;
  /** Why it was not, as an x402 error code. */
  errorReason?: string;
  /** The address that paid. */
  payer?: string;
  /** The transaction hash on `network` (empty when settlement failed). */
  transaction: string;
  /** The chain it settled on, as a CAIP-2 id. */
  network: string;
  /** The amount settled, in the asset's smallest unit. */
  amount?: string;
}

/** Options of one facilitator call: the guard aborts it when the call is cancelled or its timeout passes. */
export interface FacilitatorCallOptions {
  /** Aborts the call (the tool call was cancelled, or the router gave up waiting). */
  signal?: AbortSignal;
}

/**
 * What {@link x402Guard} verifies and settles payments with: {@link x402Facilitator}, or any object of this shape
 * (it is a structural subset of `@x402/core`'s `FacilitatorClient`, so `new HTTPFacilitatorClient(…)` fits as is).
 */
export interface PaymentFacilitator {
  /** Checks a payment without executing it: whether it is signed, sufficient and unspent. */
  verify(
    payload: PaymentPayload,
    requirements: PaymentRequirements,
    options?: FacilitatorCallOptions,
  ): Promise<VerifyResponse>;
  /** Executes a verified payment on chain; called once the paid tool has succeeded. */
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
  /** Always `'FacilitatorError'`, so logs can tell it from other errors. */
  override readonly name = 'FacilitatorError';
}
