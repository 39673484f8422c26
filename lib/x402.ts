// express-mcp-router/x402: paid tools with x402 v2 payments, the guard and a client of a facilitator. (The same name as lib/index.ts: each is the entry point of its export path.)

// The guard that sells tool calls, and what it answers a call without a good payment with.
export { x402Guard, type X402Guard, type X402GuardOptions } from './features/payments/guard';
// A client of an x402 facilitator's /verify, /settle and /supported; any `{ verify, settle }` fits the guard too.
export {
  x402Facilitator,
  type SupportedResponse,
  type X402Facilitator,
  type X402FacilitatorOptions,
} from './features/payments/facilitator';
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
