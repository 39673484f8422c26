// The replay key of an x402 payment: what the payer signed, read per scheme, so that no free variant of one payment has another key.

import { jsonDigest } from '../../core/jsonrpc/json-digest';
import { isObject } from '../../core/jsonrpc/types';
import type { PaymentPayload } from './x402-types';

/**
 * The key under which a payment is claimed and remembered: the same for every form of one signed payment. Only what
 * settles on chain counts, never what a payer can change for free (`accepted.extra`, `accepted.maxTimeoutSeconds`,
 * `resource`, `extensions`, key order, the case of hex, base64 spelling, fields a facilitator ignores):
 *
 * - EVM `exact` with EIP-3009 (`payload.authorization`, coinbase/x402 specs/schemes/exact/scheme_exact_evm.md §1):
 *   the token contract settles an authorizer's nonce once, so the key is (network, `from`, `nonce`). `to`, `value`,
 *   the validity window and the signature are left out on purpose: a payer can sign the same nonce again with another
 *   window (or send another encoding of the signature) for free, and only one of those can ever settle.
 * - EVM with Permit2 (`payload.permit2Authorization`, §2): Permit2 spends an owner's nonce once, on every token: (network,
 *   `from`, `nonce`).
 * - SVM `exact` (`payload.transaction`, scheme_exact_svm.md): the transaction's message, without its signatures (the
 *   fee payer's slot is the facilitator's to fill; a payer could put anything there).
 * - Any other scheme: its `transaction` (the decoded bytes), else its `signature`, else the whole `payload`
 *   (canonical JSON, hex in lower case, base64 decoded): a conservative reading of what was signed.
 *
 * Numbers (nonces) are compared as numbers, whether sent in decimal or hex. The network is part of every key.
 */
export function paymentKey(payment: PaymentPayload): string {
  const network = String(payment.accepted.network);
  return jsonDigest([network, ...signedPart(network, payment.payload)]);
}

function signedPart(network: string, payload: Record<string, unknown>): unknown[] {
  if (network.startsWith('eip155:')) {
    for (const [method, field] of [
      ['eip3009', 'authorization'],
      ['permit2', 'permit2Authorization'],
    ] as const) {
      const authorization = payload[field];
      if (isObject(authorization) && authorization.nonce !== undefined)
        return [method, normalised(authorization.from), asNumber(authorization.nonce)];
    }
  }
  if (network.startsWith('solana:') && typeof payload.transaction === 'string') {
    const message = solanaMessage(Buffer.from(payload.transaction, 'base64'));
    if (message !== undefined) return ['svm', message.toString('base64')];
  }
  if (typeof payload.transaction === 'string') return ['transaction', normalised(payload.transaction)];
  if (payload.signature !== undefined) return ['signature', normalised(payload.signature)];
  return ['payload', normalised(payload)];
}

/**
 * A Solana transaction's message: the wire form is a compact-u16 count of signatures, the 64-byte signatures, then
 * the message they sign. Undefined when the bytes are not that shape.
 */
function solanaMessage(bytes: Buffer): Buffer | undefined {
  let count = 0;
  let offset = 0;
  for (let shift = 0; offset < 3; shift += 7) {
    const byte = bytes[offset];
    if (byte === undefined) return undefined;
    offset += 1;
    count |= (byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) break;
  }
  const start = offset + 64 * count;
  return count > 0 && start < bytes.length ? bytes.subarray(start) : undefined;
}

const HEX = /^0x[0-9a-f]*$/i;
const DECIMAL = /^\d+$/;
/** Base64 (or base64url) of at least 16 characters, optionally wrapped: a serialized transaction or signature. */
const BASE64 = /^[A-Za-z0-9+/_\-\s]{16,}={0,2}\s*$/;

/** Longest nonce read as a number: a uint256 is 78 decimal digits, 66 characters of 0x-hex (BigInt is quadratic in length). */
const MAX_NONCE_LENGTH = 80;

/** A nonce as a number, in hex (`0x2a` and `42` are one nonce); other values as {@link normalised}. */
function asNumber(value: unknown): unknown {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return `#${value.toString(16)}`;
  if (
    typeof value === 'string' &&
    value.length <= MAX_NONCE_LENGTH &&
    (DECIMAL.test(value) || (HEX.test(value) && value.length > 2))
  )
    return `#${BigInt(value).toString(16)}`;
  return normalised(value);
}

/** Hex in lower case, base64 as its bytes (objects' keys are sorted by the digest); the rest as is. */
function normalised(value: unknown): unknown {
  if (typeof value === 'string') {
    if (HEX.test(value)) return value.toLowerCase();
    if (!DECIMAL.test(value) && BASE64.test(value)) return `b64:${Buffer.from(value, 'base64').toString('base64')}`;
    return value;
  }
  if (Array.isArray(value)) return value.map(normalised);
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, normalised(item)]));
  return value;
}
