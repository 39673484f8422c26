// testPayment(): an x402 v2 payment that only testFacilitator() accepts, in the exact-EVM shape a real client sends.

import { createHash, randomBytes } from 'node:crypto';
import { isObject } from '../../core/jsonrpc/types';
import type { PaymentPayload, PaymentRequirements } from './x402-types';

/** The fields of an EIP-3009 authorization its signature covers, in order. */
const SIGNED_FIELDS = ['from', 'to', 'value', 'validAfter', 'validBefore', 'nonce'] as const;

/**
 * The signature of a test payment: `test:` and a SHA-256 over what an EIP-3009 signature covers (the network and
 * token, then every authorization field, exactly as sent). No chain accepts it, so a test payment never pays for real;
 * a payment edited after it was made no longer matches it, as a real one would not; and it differs per payment, so a
 * router whose network keys payments by signature (not EVM) tells two apart. Undefined when a field is missing.
 */
export function testSignatureOf(network: unknown, asset: unknown, authorization: unknown): string | undefined {
  if (!isObject(authorization)) return undefined;
  const signed = [network, asset, ...SIGNED_FIELDS.map((field) => authorization[field])];
  if (!signed.every((value) => typeof value === 'string')) return undefined;
  return `test:${createHash('sha256').update(JSON.stringify(signed)).digest('hex')}`;
}
/** The payer of a test payment unless one is given: an obviously fake address (`test` is not hex). */
const TEST_PAYER = '0x000000000000000000000000000000000000test';

/** Options of {@link testPayment}. */
export interface TestPaymentOptions {
  /** Who pays (the authorization's `from`, reported back as the settlement's `payer`). Defaults to a fake `0x…test` address. */
  payer?: string;
}

/**
 * A payment for `requirements` that {@link testFacilitator} accepts, to put in a call's `_meta["x402/payment"]`.
 * It has the shape of an x402 v2 exact-EVM payment (an EIP-3009 authorization with a fresh random nonce, so two
 * payments are two distinct payments), "signed" with `test:` and a digest of what it authorizes: a real facilitator
 * refuses it, and {@link testFacilitator} refuses it once edited. For tests and demos only.
 *
 * @param requirements - the price being paid: one of `accepts` of the tool's payment-required result
 * @param options - `payer`, the fake address paying
 * @returns an x402 v2 `PaymentPayload`
 * @throws {TypeError} when `requirements` lacks the x402 fields (`scheme`, `network`, `amount`, `asset`, `payTo`)
 * @example
 * ```ts
 * import { testPayment } from 'express-mcp-router/x402/testing';
 *
 * const unpaid = await client.callTool({ name: 'premium_search', arguments: { q: 'mcp' } });
 * const [price] = (unpaid.structuredContent as PaymentRequired).accepts;
 * const paid = await client.callTool({
 *   name: 'premium_search',
 *   arguments: { q: 'mcp' },
 *   _meta: { 'x402/payment': testPayment(price) },
 * });
 * ```
 */
export function testPayment(requirements: PaymentRequirements, options: TestPaymentOptions = {}): PaymentPayload {
  const fields = ['scheme', 'network', 'amount', 'asset', 'payTo'] as const;
  if (!isObject(requirements) || !fields.every((field) => typeof requirements[field] === 'string'))
    throw new TypeError(
      `testPayment(requirements): expected x402 PaymentRequirements { ${fields.join(', ')}, maxTimeoutSeconds }, got ${JSON.stringify(requirements) ?? typeof requirements}`,
    );
  const { payer = TEST_PAYER } = options;
  const now = Math.floor(Date.now() / 1000);
  const nonce = `0x${randomBytes(32).toString('hex')}`;
  const validFor = Number.isSafeInteger(requirements.maxTimeoutSeconds) ? requirements.maxTimeoutSeconds : 60;
  const authorization = {
    from: payer,
    to: requirements.payTo,
    value: requirements.amount,
    validAfter: String(now - 60),
    validBefore: String(now + validFor),
    nonce,
  };
  return {
    x402Version: 2,
    accepted: structuredClone(requirements),
    payload: {
      signature: testSignatureOf(requirements.network, requirements.asset, authorization) as string,
      authorization,
    },
  };
}
