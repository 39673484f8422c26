// express-mcp-router/x402: paid tools with x402 v2 payments, the guard and a client of a facilitator. (The same name as lib/index.ts: each is the entry point of its export path.)

import {
  x402Facilitator as facilitatorObservedBy,
  type X402Facilitator,
  type X402FacilitatorOptions,
} from './features/payments/facilitator';
import { createTelemetry } from './features/telemetry/telemetry';

// The guard that sells tool calls, and what it answers a call without a good payment with.
export { x402Guard, type X402Guard, type X402GuardOptions } from './features/payments/guard';
// A client of an x402 facilitator's /verify, /settle and /supported; any `{ verify, settle }` fits the guard too.
export type { SupportedResponse, X402Facilitator, X402FacilitatorOptions } from './features/payments/facilitator';
// The x402 v2 wire types a guard's `accepts`, a facilitator of one's own and a paying client are written against.
export {
  FacilitatorError,
  type FacilitatorCallOptions,
  type PaymentFacilitator,
  type PaymentPayload,
  type PaymentRequired,
  type PaymentRequirements,
  type SettleResponse,
  type VerifyResponse,
} from './features/payments/x402-types';

/** What a facilitator's spans record: its calls' method, address and status, never their arguments or results. */
const NOTHING_RECORDED = Object.freeze({ recordArguments: false, recordResults: false });

/**
 * A client of an x402 facilitator: it verifies and settles payments for {@link x402Guard}. No blockchain code: the
 * facilitator does that. Its failures are {@link FacilitatorError}s whose messages never hold the URL or the answer.
 * Made apart from any router, it is observed by the app's OpenTelemetry when `@opentelemetry/api` is installed: a
 * CLIENT span `x402 {path}` per call, its trace context sent as W3C headers.
 *
 * @throws {McpConfigError} for a missing or non-http(s) `url`, bad `headers` or `timeoutMs`, or an unknown option
 * @example
 * ```ts
 * const facilitator = x402Facilitator({ url: 'https://x402.org/facilitator', timeoutMs: 5_000 });
 * const pay = x402Guard({ facilitator, accepts: [{ scheme: 'exact', network: 'eip155:84532', amount: '10000', asset: USDC, payTo, maxTimeoutSeconds: 60 }] });
 * ```
 */
export function x402Facilitator(options: X402FacilitatorOptions): X402Facilitator {
  return facilitatorObservedBy(options, createTelemetry(NOTHING_RECORDED));
}
