// testFacilitator(): an in-process x402 facilitator for tests and demos that settles testPayment()s without a chain.

import { randomBytes } from 'node:crypto';
import { McpConfigError } from '../../options/config-error';
import { inProduction } from '../../core/node-env';
import { isObject } from '../../core/jsonrpc/types';
import { paymentKey } from './payment-key';
import { testSignatureOf } from './test-payment';
import type {
  PaymentFacilitator,
  PaymentPayload,
  PaymentRequirements,
  SettleResponse,
  VerifyResponse,
} from './x402-types';

/** Most settled nonces remembered; past it the oldest is forgotten (x402Guard's own ledger still refuses a replay). */
const MAX_SETTLED_NONCES = 10_000;

/** The checks of one test payment: why it is refused, or who pays and the key its nonce settles under. */
type Checked = { readonly ok: false; readonly reason: string } | { readonly ok: true; payer: string; nonceKey: string };

/**
 * A local x402 facilitator, **for tests and demos**: `verify` and `settle` without a blockchain, no money moves.
 * It accepts exactly the payments {@link testPayment} makes, unedited (refusing any other signature, a payment to
 * another address or of another amount, an expired one), settles each nonce once (like EIP-3009 on chain), and answers
 * with the payment's fake payer and a `0xtest-…` transaction that no block explorer knows. Give it to
 * `x402Guard` in place of `x402Facilitator({ url })`.
 *
 * @returns a `{ verify, settle }` for `x402Guard({ facilitator })`
 * @throws {McpConfigError} `ERR_MCP_NOT_FOR_PRODUCTION` when `NODE_ENV` is `production`: it would give paid tools
 *   away for a fake payment
 * @example
 * ```ts
 * import { x402Guard } from 'express-mcp-router/x402';
 * import { testFacilitator, testPayment } from 'express-mcp-router/x402/testing';
 *
 * const price = { scheme: 'exact', network: 'eip155:84532', amount: '10000', asset: USDC, payTo: '0xYou', maxTimeoutSeconds: 60 };
 * mcp.tool({ name: 'premium_search', description: 'Search, 0.01 USDC a call', inputSchema, guards: [x402Guard({ facilitator: testFacilitator(), accepts: [price] })], handler });
 * // a client pays with _meta: { 'x402/payment': testPayment(price) }
 * ```
 */
export function testFacilitator(): PaymentFacilitator {
  if (inProduction())
    throw new McpConfigError(
      'ERR_MCP_NOT_FOR_PRODUCTION',
      "testFacilitator() refuses to start with NODE_ENV=production: it accepts fake test payments, so every paid tool would be free. Use x402Facilitator({ url }) with a real facilitator (from 'express-mcp-router/x402').",
    );
  // Insertion order is age: the first key is the oldest.
  const settled = new Set<string>();
  return {
    async verify(payload, requirements): Promise<VerifyResponse> {
      const checked = check(payload, requirements, settled);
      return checked.ok ? { isValid: true, payer: checked.payer } : { isValid: false, invalidReason: checked.reason };
    },
    async settle(payload, requirements): Promise<SettleResponse> {
      const checked = check(payload, requirements, settled);
      if (!checked.ok)
        return { success: false, errorReason: checked.reason, transaction: '', network: requirements.network };
      settled.add(checked.nonceKey);
      if (settled.size > MAX_SETTLED_NONCES) settled.delete(settled.values().next().value as string);
      return {
        success: true,
        payer: checked.payer,
        // Clearly not a transaction hash: nobody should go looking for it on a block explorer.
        transaction: `0xtest-${randomBytes(8).toString('hex')}`,
        network: requirements.network,
        amount: requirements.amount,
      };
    },
  };
}

/** What a facilitator checks of an exact-EVM authorization, on a test payment (the reasons are x402's codes). */
function check(payload: PaymentPayload, requirements: PaymentRequirements, settled: ReadonlySet<string>): Checked {
  const authorization = isObject(payload.payload) ? payload.payload.authorization : undefined;
  const accepted = isObject(payload.accepted) ? payload.accepted : undefined;
  const signature = testSignatureOf(accepted?.network, accepted?.asset, authorization);
  if (!isObject(authorization) || signature === undefined || payload.payload.signature !== signature)
    return {
      ok: false,
      reason: 'invalid_signature (this test facilitator accepts only payments made by testPayment())',
    };
  const from = authorization.from as string;
  if (String(authorization.to).toLowerCase() !== requirements.payTo.toLowerCase())
    return { ok: false, reason: 'invalid_exact_evm_payload_recipient_mismatch' };
  if (authorization.value !== requirements.amount)
    return { ok: false, reason: 'invalid_exact_evm_payload_authorization_value' };
  if (!(Number(authorization.validBefore) > Date.now() / 1000))
    return { ok: false, reason: 'invalid_exact_evm_payload_authorization_valid_before' };
  // What settles once is what the router's own ledger keys a payment by (network, `from`, nonce for EIP-3009).
  const nonceKey = paymentKey(payload);
  if (settled.has(nonceKey)) return { ok: false, reason: 'nonce_already_used' };
  return { ok: true, payer: from, nonceKey };
}
