// x402Guard: a tool guard that sells calls with x402 v2 payments, as the MCP transport of x402 defines (specs/transports-v2/mcp.md).

import type { OptionKeys } from '../../options/config-error';
import { OptionReader } from '../../options/option-reader';
import { isObject } from '../../core/jsonrpc/types';
import { holdAgainstCancellation } from '../../core/protocol/handler-context';
import type { ToolGuard, ToolGuardCall } from '../../core/registry/guards';
import type { CallToolResult } from '../../core/registry/results';
import type { PaymentClaim, PaymentTerms } from '../../core/registry/payment-ledger';
import { askFacilitator } from './facilitator-call';
import { MemoryPaymentLedger } from '../../edge/store/memory-payment-ledger';
import { findPayment, matchRequirement } from './payload';
import { ACCEPTS_EXPECTED, checkAccepts, firstText, paymentRequired, reasonOf } from './payment-required';
import { paymentKey } from './payment-key';
import { FacilitatorError, type PaymentFacilitator, type PaymentRequirements } from './x402-types';

/** Options of {@link x402Guard}. */
export interface X402GuardOptions {
  /** Verifies and settles payments: {@link x402Facilitator}, or any `{ verify, settle }` (e.g. `@x402/core`'s `HTTPFacilitatorClient`). */
  facilitator: PaymentFacilitator;
  /** The ways to pay for a call (x402 v2 `PaymentRequirements`), or a function of the call that returns them (a price per call). */
  accepts: PaymentRequirements[] | ((call: ToolGuardCall) => PaymentRequirements[] | Promise<PaymentRequirements[]>);
  /** Longest a facilitator call (`verify` or `settle`) may take; then the call gets the envelope. Defaults to `15000` ms. */
  timeoutMs?: number;
  /**
   * How long a settled payment is refused if presented again, by every paid tool of the router (and every instance,
   * with a shared `store`). Defaults to `86400000` ms (a day).
   */
  replayTtlMs?: number;
  /**
   * Most settled payments the router's in-memory ledger remembers (the largest of its guards' values); past it the
   * oldest are forgotten (the facilitator still refuses them). A shared `store` bounds them by `replayTtlMs` alone.
   * Defaults to `10000`.
   */
  maxRemembered?: number;
}

/** A guard of paid tools; `listMeta` is what {@link x402Guard} adds to the tool's `tools/list` `_meta`. */
export type X402Guard = ToolGuard & {
  /** The tool's `tools/list` `_meta` entries: `x402/paid`, and `x402/accepts` when the price is fixed. */
  readonly listMeta: Readonly<Record<string, unknown>>;
};

const KNOWN: OptionKeys<X402GuardOptions> = {
  facilitator: true,
  accepts: true,
  timeoutMs: true,
  replayTtlMs: true,
  maxRemembered: true,
};
const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_REPLAY_TTL_MS = 86_400_000;
const DEFAULT_MAX_REMEMBERED = 10_000;
/** MCP transport of x402: the settlement travels in the result's `_meta` under this key. */
export const PAYMENT_RESPONSE_KEY = 'x402/payment-response';

type PriceFunction = (call: ToolGuardCall) => PaymentRequirements[] | Promise<PaymentRequirements[]>;

/** {@link X402GuardOptions}, checked and defaulted; a fixed price copied, so the caller's list may change freely. */
interface GuardConfig {
  readonly facilitator: PaymentFacilitator;
  readonly fixed: PaymentRequirements[] | undefined;
  readonly priceFunction: PriceFunction | undefined;
  readonly timeoutMs: number;
  readonly terms: PaymentTerms;
}

/** @throws {McpConfigError} for a missing facilitator, bad `accepts` or timeouts, or an unknown option */
function resolveGuardOptions(options: X402GuardOptions): GuardConfig {
  const read = OptionReader.of(options, 'x402Guard', KNOWN);
  const facilitator = read.raw('facilitator');
  if (!isObject(facilitator) || typeof facilitator.verify !== 'function' || typeof facilitator.settle !== 'function')
    throw read.invalid('facilitator', 'an object with verify() and settle() (x402Facilitator({ url }))');
  const accepts = read.raw('accepts');
  if (typeof accepts !== 'function') checkAccepts(accepts, (value) => read.invalid('accepts', ACCEPTS_EXPECTED, value));
  return {
    facilitator,
    fixed: typeof accepts === 'function' ? undefined : structuredClone(accepts),
    priceFunction: typeof accepts === 'function' ? accepts : undefined,
    timeoutMs: read.milliseconds('timeoutMs', DEFAULT_TIMEOUT_MS),
    terms: Object.freeze({
      replayTtlMs: read.milliseconds('replayTtlMs', DEFAULT_REPLAY_TTL_MS),
      maxRemembered: read.positiveInteger('maxRemembered', DEFAULT_MAX_REMEMBERED),
    }),
  };
}

/** The price of one call: the fixed one, or what the price function returns, checked. */
async function priceOf(config: GuardConfig, call: ToolGuardCall): Promise<PaymentRequirements[]> {
  if (config.priceFunction === undefined) return config.fixed as PaymentRequirements[];
  const priced = await config.priceFunction(call);
  checkAccepts(
    priced,
    (value) =>
      new TypeError(
        `x402Guard: accepts() must return ${ACCEPTS_EXPECTED}, got ${JSON.stringify(value) ?? typeof value}`,
      ),
  );
  return priced;
}

/**
 * A {@link ToolGuard} that charges for each call. A call without a payment gets the x402 payment-required result
 * (`isError`, the `PaymentRequired` as `structuredContent` and as JSON text); a call that pays in
 * `_meta["x402/payment"]` (or the `PAYMENT-SIGNATURE` / `X-PAYMENT` header) is verified, run, and settled only when
 * it succeeded, the settlement returned in `_meta["x402/payment-response"]`. One payment pays for one call: it is
 * claimed, by what the payer signed, in the router's payment ledger (`call.payments`), shared by every paid tool of
 * the router, gateway upstreams' `guards` included, and by every instance when the router has a shared `store`.
 *
 * @throws {McpConfigError} for a missing facilitator, bad `accepts` or timeouts, or an unknown option
 * @example
 * ```ts
 * const pay = x402Guard({
 *   facilitator: x402Facilitator({ url: process.env.FACILITATOR_URL! }),
 *   accepts: [{ scheme: 'exact', network: 'eip155:84532', amount: '10000', asset: USDC, payTo: '0xYou', maxTimeoutSeconds: 60 }],
 * });
 * mcp.tool({ name: 'premium_search', description: 'Search, 0.01 USDC a call', inputSchema, guards: [pay], handler });
 * ```
 */
export function x402Guard(options: X402GuardOptions): X402Guard {
  const config = resolveGuardOptions(options);
  const { facilitator, terms, timeoutMs } = config;
  // Called outside a router (no call.payments), the guard keeps its own ledger.
  let ownLedger: MemoryPaymentLedger | undefined;

  const guard: ToolGuard = async function x402(call, next) {
    const requirements = await priceOf(config, call);
    const refuse = (error?: string): CallToolResult => paymentRequired(call, requirements, error);
    const found = findPayment(call.meta, call.ctx.headers);
    if (found === undefined) return refuse();
    if (!found.ok) return refuse(found.reason);
    const { payload } = found;
    const matched = matchRequirement(payload, requirements);
    if (matched === undefined) return refuse('No matching payment requirements');
    // One payment, one call, across every guard of the router: claimed by what the payer signed (paymentKey).
    let claim: PaymentClaim;
    try {
      claim = await (call.payments ?? (ownLedger ??= new MemoryPaymentLedger())).claim(paymentKey(payload), terms);
    } catch {
      return refuse('Payment could not be checked (the payment ledger is unavailable); try again');
    }
    if (claim.status !== 'claimed')
      return refuse(claim.status === 'in-use' ? 'Payment already in use by another call' : 'Payment already used');
    const { hold } = claim;
    // Spent once settled, or once a settlement was sent and no answer came (it may have gone out: a retry must not
    // run the tool again while the transaction is pending and a /verify would still accept it).
    let mayHavePaid = false;
    try {
      const verified = await askFacilitator('verify', call.ctx, timeoutMs, (aborted) =>
        facilitator.verify(payload, matched, { signal: aborted }),
      );
      if (!isObject(verified) || verified.isValid !== true)
        return refuse(
          `Payment verification failed: ${reasonOf(isObject(verified) ? verified.invalidReason : undefined, 'invalid payment')}`,
        );
      const result = await next();
      // Settle only what the client gets: a failed call costs nothing (specs/transports-v2/mcp.md, settlement after execution),
      // nor does one the client cancelled while it ran (its result is never sent: MCP cancellation).
      if (result.isError === true) return refuse(`Tool failed; payment not settled: ${firstText(result)}`);
      if (call.ctx.signal.aborted) return refuse('Call cancelled; payment not settled');
      // From the settlement on, the call is not cancelled: a settle sent cannot be called back, so the result that
      // was paid for goes out whatever the client asks meanwhile (outer guards' after steps included).
      holdAgainstCancellation(call.ctx);
      mayHavePaid = true;
      const settlement = await askFacilitator('settle', call.ctx, timeoutMs, (aborted) =>
        facilitator.settle(payload, matched, { signal: aborted }),
      );
      // A refused settlement is a definite answer: nothing was paid, the payment may be used again.
      mayHavePaid = isObject(settlement) && settlement.success === true;
      if (!mayHavePaid)
        return refuse(
          `Settlement failed: ${reasonOf(isObject(settlement) ? settlement.errorReason : undefined, 'settlement refused')}`,
        );
      return { ...result, _meta: { ...result._meta, [PAYMENT_RESPONSE_KEY]: settlement } };
    } catch (err) {
      // Only the facilitator's failures become the envelope; a JsonRpcError from an inner guard goes on as it is.
      if (err instanceof FacilitatorError) return refuse(err.message);
      throw err;
    } finally {
      // The client gets its result even if the mark cannot be written: a claim in a shared store then lapses by
      // itself, and the facilitator refuses the settled nonce.
      await (mayHavePaid ? hold.spend() : hold.release()).catch(() => undefined);
    }
  };
  const { fixed } = config;
  const listMeta = Object.freeze({ 'x402/paid': true, ...(fixed === undefined ? {} : { 'x402/accepts': fixed }) });
  return Object.assign(guard, { listMeta });
}
