// x402Guard: a tool guard that sells calls with x402 v2 payments, as the MCP transport of x402 defines (specs/transports-v2/mcp.md).

import {
  invalidOption,
  isPositiveInteger,
  McpConfigError,
  rejectUnknownKeys,
  type OptionKeys,
} from '../../options/config-error';
import { isObject } from '../../core/jsonrpc/types';
import { holdAgainstCancellation } from '../../core/protocol/handler-context';
import { textContent } from '../../core/registry/content';
import type { ToolGuard, ToolGuardCall } from '../../core/registry/guards';
import type { CallToolResult } from '../../core/registry/results';
import type { PaymentClaim } from '../../core/registry/payment-ledger';
import { MemoryPaymentLedger } from '../../edge/store/memory-payment-ledger';
import { findPayment, matchRequirement } from './payload';
import { paymentKey } from './payment-key';
import {
  FacilitatorError,
  type PaymentFacilitator,
  type PaymentRequired,
  type PaymentRequirements,
} from './x402-types';

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
/** MCP transport of x402: the settlement travels in the result's `_meta` under this key. */
export const PAYMENT_RESPONSE_KEY = 'x402/payment-response';

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
  if (!isObject(options))
    throw new McpConfigError('ERR_MCP_INVALID_OPTION', 'x402Guard() needs an options object: { facilitator, accepts }');
  rejectUnknownKeys(options, KNOWN, 'x402Guard.');
  const { facilitator, accepts, timeoutMs = 15_000, replayTtlMs = 86_400_000, maxRemembered = 10_000 } = options;
  if (!isObject(facilitator) || typeof facilitator.verify !== 'function' || typeof facilitator.settle !== 'function') {
    throw invalidOption(
      'x402Guard.facilitator',
      'an object with verify() and settle() (x402Facilitator({ url }))',
      facilitator,
    );
  }
  if (typeof accepts !== 'function')
    checkAccepts(accepts, (expected, value) => invalidOption('x402Guard.accepts', expected, value));
  for (const [name, value] of [
    ['timeoutMs', timeoutMs],
    ['replayTtlMs', replayTtlMs],
    ['maxRemembered', maxRemembered],
  ] as const) {
    if (!isPositiveInteger(value))
      throw invalidOption(
        `x402Guard.${name}`,
        name === 'maxRemembered' ? 'a positive integer' : 'a positive number of milliseconds',
        value,
      );
  }
  const fixed = typeof accepts === 'function' ? undefined : structuredClone(accepts);
  const terms = Object.freeze({ replayTtlMs, maxRemembered });
  // Called outside a router (no call.payments), the guard keeps its own ledger.
  let ownLedger: MemoryPaymentLedger | undefined;

  async function priceOf(call: ToolGuardCall): Promise<PaymentRequirements[]> {
    if (fixed !== undefined) return fixed;
    const priced = await (accepts as (call: ToolGuardCall) => PaymentRequirements[] | Promise<PaymentRequirements[]>)(
      call,
    );
    checkAccepts(
      priced,
      (expected, value) =>
        new TypeError(`x402Guard: accepts() must return ${expected}, got ${JSON.stringify(value) ?? typeof value}`),
    );
    return priced;
  }

  /**
   * One facilitator call, bounded by `timeoutMs` and ended by the call's cancellation, even when the facilitator
   * ignores the signal it is given.
   */
  async function ask<T>(
    what: 'verify' | 'settle',
    call: ToolGuardCall,
    run: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    let cancel: (() => void) | undefined;
    const ended = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        reject(new FacilitatorError(`Payment facilitator ${what} timed out after ${timeoutMs} ms`));
        controller.abort();
      }, timeoutMs);
      cancel = () => {
        reject(new FacilitatorError(`Payment facilitator ${what} was cancelled`));
        controller.abort();
      };
    });
    const { signal } = call.ctx;
    // A call cancelled already asks nothing: a settle sent now would charge for a result the client never gets.
    if (signal.aborted) {
      clearTimeout(timer);
      throw new FacilitatorError(`Payment facilitator ${what} was cancelled`);
    }
    signal.addEventListener('abort', cancel as () => void, { once: true });
    try {
      return await Promise.race([run(controller.signal), ended]);
    } catch (err) {
      // What a custom facilitator throws may hold its URL or answer: only a FacilitatorError's message is known safe.
      throw err instanceof FacilitatorError ? err : new FacilitatorError('Payment facilitator failed');
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', cancel as () => void);
    }
  }

  const guard: ToolGuard = async function x402(call, next) {
    const requirements = await priceOf(call);
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
      const verified = await ask('verify', call, (signal) => facilitator.verify(payload, matched, { signal }));
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
      const settlement = await ask('settle', call, (signal) => facilitator.settle(payload, matched, { signal }));
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
  const listMeta = Object.freeze({ 'x402/paid': true, ...(fixed === undefined ? {} : { 'x402/accepts': fixed }) });
  return Object.assign(guard, { listMeta });
}

/**
 * The x402 payment-required result (specs/transports-v2/mcp.md): `isError`, the `PaymentRequired` as
 * `structuredContent` and as JSON in `content[0].text`. A tool with an `outputSchema` gets the text only: SDK clients
 * check `structuredContent` against that schema even on an error and would throw; x402 clients read the text then.
 */
export function paymentRequired(call: ToolGuardCall, accepts: PaymentRequirements[], error?: string): CallToolResult {
  const description = typeof call.descriptor.description === 'string' ? call.descriptor.description : undefined;
  const required: PaymentRequired = {
    x402Version: 2,
    ...(error === undefined ? {} : { error }),
    resource: {
      url: `mcp://tool/${call.name}`,
      ...(description === undefined ? {} : { description }),
      mimeType: 'application/json',
    },
    accepts,
  };
  const result: CallToolResult = { content: [textContent(JSON.stringify(required))], isError: true };
  if (call.descriptor.outputSchema === undefined)
    result.structuredContent = required as unknown as Record<string, unknown>;
  return result;
}

/** A client-safe reason: the facilitator's own words are short codes (`insufficient_funds`); anything else is cut. */
function reasonOf(reason: unknown, fallback: string): string {
  return typeof reason === 'string' && reason !== '' ? reason.slice(0, 200) : fallback;
}

function firstText(result: CallToolResult): string {
  const block = result.content.find((item) => item.type === 'text');
  return block !== undefined && 'text' in block && typeof block.text === 'string'
    ? block.text.slice(0, 500)
    : 'the tool returned an error';
}

/** Checks a list of requirements: non-empty, each with the x402 v2 fields a client needs to pay. */
function checkAccepts(
  accepts: unknown,
  fail: (expected: string, value: unknown) => Error,
): asserts accepts is PaymentRequirements[] {
  const expected =
    'a non-empty array of { scheme, network, amount (atomic units, digits), asset, payTo, maxTimeoutSeconds }';
  if (!Array.isArray(accepts) || accepts.length === 0) throw fail(expected, accepts);
  for (const item of accepts) {
    const ok =
      isObject(item) &&
      ['scheme', 'network', 'asset', 'payTo'].every((field) => typeof item[field] === 'string' && item[field] !== '') &&
      typeof item.amount === 'string' &&
      /^\d+$/.test(item.amount) &&
      isPositiveInteger(item.maxTimeoutSeconds) &&
      (item.extra === undefined || isObject(item.extra));
    if (!ok) throw fail(expected, item);
  }
}
