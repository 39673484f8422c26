// x402 payments as clients send them: where a payment travels in a call, its decoding, and matching it to the price.

import { isObject } from '../../core/jsonrpc/types';
import { PAYMENT_HEADER_NAMES, PAYMENT_META_KEYS } from '../../core/registry/payment-ledger';
import type { PaymentPayload, PaymentRequirements } from './x402-types';

/** A payment found on a call: decoded, or why it could not be (a bad payment gets the envelope with this reason). */
export type FoundPayment =
  { readonly ok: true; readonly payload: PaymentPayload } | { readonly ok: false; readonly reason: string };

/** Payloads larger than this are refused unread: a signature and an authorization fit in a few kilobytes. */
const MAX_ENCODED = 16_384;

/**
 * The payment a call carries, from `_meta` (preferred) or the request's headers; undefined when it carries none.
 *
 * @example
 * ```ts
 * findPayment({ 'x402/payment': payload }, {}); // { ok: true, payload }
 * ```
 */
export function findPayment(
  meta: Readonly<Record<string, unknown>> | undefined,
  headers: Readonly<Record<string, string | string[] | undefined>>,
): FoundPayment | undefined {
  // Where a payment may travel (registry/payment-ledger.ts): each may hold the object or its base64 JSON.
  for (const key of PAYMENT_META_KEYS) {
    const value = meta?.[key];
    if (value !== undefined && value !== null) return decodePayment(value);
  }
  for (const name of PAYMENT_HEADER_NAMES) {
    const value = headers[name];
    // A repeated header is two payments for one call: refuse rather than pick one.
    if (Array.isArray(value)) return { ok: false, reason: `Invalid payment: more than one ${name} header` };
    if (value !== undefined && value !== '') return decodePayment(value);
  }
  return undefined;
}

/** A payment as sent (the object, or base64 of its JSON) → a checked x402 v2 `PaymentPayload`. */
export function decodePayment(value: unknown): FoundPayment {
  let decoded: unknown = value;
  if (typeof value === 'string') {
    const text = value.trim();
    if (text.length > MAX_ENCODED) return { ok: false, reason: 'Invalid payment: too large' };
    if (!/^[A-Za-z0-9+/_-]+=*$/.test(text)) return { ok: false, reason: 'Invalid payment: not base64-encoded JSON' };
    try {
      decoded = JSON.parse(Buffer.from(text, 'base64').toString('utf8'));
    } catch {
      return { ok: false, reason: 'Invalid payment: not base64-encoded JSON' };
    }
  }
  if (!isObject(decoded)) return { ok: false, reason: 'Invalid payment: expected a PaymentPayload object' };
  // The object form is bounded as the encoded one is: its key is worked out and it goes to the facilitator.
  if (typeof value !== 'string' && JSON.stringify(decoded).length > MAX_ENCODED)
    return { ok: false, reason: 'Invalid payment: too large' };
  // x402 v1 payloads (scheme and network at the top, `maxAmountRequired` prices) name no accepted requirement to match.
  if (decoded.x402Version !== 2)
    return {
      ok: false,
      reason: `Invalid payment: unsupported x402Version ${JSON.stringify(decoded.x402Version) ?? 'undefined'}; this server accepts x402 v2`,
    };
  if (!isObject(decoded.accepted)) return { ok: false, reason: 'Invalid payment: no accepted payment requirements' };
  if (!isObject(decoded.payload)) return { ok: false, reason: 'Invalid payment: no payload' };
  return { ok: true, payload: decoded as unknown as PaymentPayload };
}

/** The fields that make two requirements the same price (x402 v2 §5.1.2); `extra` and timeouts do not. */
const PRICE_FIELDS = ['scheme', 'network', 'amount', 'asset', 'payTo'] as const;

/** The requirement of `accepts` the payment accepted, if any (x402 v2: the client echoes the requirement it chose). */
export function matchRequirement(
  payload: PaymentPayload,
  accepts: readonly PaymentRequirements[],
): PaymentRequirements | undefined {
  const { accepted } = payload;
  return accepts.find((requirement) =>
    PRICE_FIELDS.every((field) => sameValue(field, requirement[field], accepted[field])),
  );
}

function sameValue(field: (typeof PRICE_FIELDS)[number], expected: string, sent: unknown): boolean {
  if (typeof sent !== 'string') return false;
  // EVM addresses are case-insensitive hex (EIP-55 casing is a checksum, not a different address).
  if ((field === 'asset' || field === 'payTo') && /^0x[0-9a-fA-F]+$/.test(expected))
    return expected.toLowerCase() === sent.toLowerCase();
  return expected === sent;
}
