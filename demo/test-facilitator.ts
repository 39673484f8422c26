// A TEST x402 facilitator for the demo, in process: it accepts one made-up payment form and "settles" with a fake
// transaction id. No chain, no money: never use it in production (use x402Facilitator({ url }) there).

import { randomBytes } from 'node:crypto';
import type { PaymentFacilitator, PaymentPayload, SettleResponse, VerifyResponse } from '../lib';

/** The one payment this facilitator accepts: `payload.signature` is this string (the playground sends it). */
export const TEST_SIGNATURE = 'test';
/** Most settled nonces remembered. */
const MAX_SETTLED_NONCES = 10_000;
/** The payer every test payment is from (an obviously fake address). */
export const TEST_PAYER = '0x000000000000000000000000000000000000test';

function nonceOf(payload: PaymentPayload): string | undefined {
  const authorization = payload.payload.authorization as { nonce?: unknown } | undefined;
  return typeof authorization?.nonce === 'string' ? authorization.nonce : undefined;
}

/**
 * A `{ verify, settle }` for x402Guard that accepts a payment whose `payload.signature` is `'test'` (anything else
 * is refused as a bad signature). Like an EIP-3009 authorization on chain, a nonce settles once.
 *
 * @example
 * ```ts
 * x402Guard({ facilitator: createTestFacilitator(), accepts });
 * // a client pays with: { x402Version: 2, accepted: accepts[0], payload: { signature: 'test', authorization: { nonce } } }
 * ```
 */
export function createTestFacilitator(): PaymentFacilitator {
  const settledNonces = new Set<string>();
  const isTestPayment = (payload: PaymentPayload): boolean => payload.payload.signature === TEST_SIGNATURE;
  return {
    async verify(payload): Promise<VerifyResponse> {
      if (!isTestPayment(payload))
        return {
          isValid: false,
          invalidReason: `invalid_signature (this test facilitator accepts only signature '${TEST_SIGNATURE}')`,
        };
      const nonce = nonceOf(payload);
      if (nonce !== undefined && settledNonces.has(nonce))
        return { isValid: false, invalidReason: 'nonce_already_used', payer: TEST_PAYER };
      return { isValid: true, payer: TEST_PAYER };
    },
    async settle(payload, requirements): Promise<SettleResponse> {
      const nonce = nonceOf(payload);
      if (nonce !== undefined && settledNonces.has(nonce))
        return { success: false, errorReason: 'nonce_already_used', transaction: '', network: requirements.network };
      if (nonce !== undefined) {
        settledNonces.add(nonce);
        // Bounded, as anything a client can grow: the oldest nonce is forgotten first (x402Guard's own replay check stays).
        if (settledNonces.size > MAX_SETTLED_NONCES)
          settledNonces.delete(settledNonces.values().next().value as string);
      }
      // Clearly not a real transaction hash: a newcomer must not go looking for it on a block explorer.
      return {
        success: true,
        payer: TEST_PAYER,
        transaction: `0xtest-${randomBytes(8).toString('hex')}`,
        network: requirements.network,
        amount: requirements.amount,
      };
    },
  };
}
