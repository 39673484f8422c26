// What a signing key of the authorization server may be (a private EC P-256 or RSA ≥ 2048-bit JWK), checked, trimmed, and imported with its public half.

import { createPrivateKey, sign, verify, type JsonWebKey } from 'node:crypto';
import type { CryptoKey, JWK } from '../../../edge/security/jose-types';
import { isObject } from '../../../core/jsonrpc/types';
import { jose } from '../../../edge/security/jose';

/** The algorithms the router signs its tokens with: ES256 (generated keys, the default) or RS256 (a fixed RSA key). */
export type SigningAlgorithm = 'ES256' | 'RS256';

/** The smallest RSA modulus accepted: RFC 7518 §3.3 requires 2048 bits for RS256. */
const MIN_RSA_BITS = 2048;

/** The members each key type keeps: whatever else a JWK carries (`key_ops`, `ext`, `x5c`…) is dropped. */
const PRIVATE_MEMBERS = {
  EC: ['kty', 'crv', 'x', 'y', 'd'],
  RSA: ['kty', 'n', 'e', 'd', 'p', 'q', 'dp', 'dq', 'qi'],
} as const;
/** The public members (RFC 7518 §6.2.1, §6.3.1): a JWKS built from these can never leak d, p, q, dp, dq or qi. */
const PUBLIC_MEMBERS = { EC: ['kty', 'crv', 'x', 'y'], RSA: ['kty', 'n', 'e'] } as const;

/** A private signing JWK, checked: only its key members, its kid when it had one, and the algorithm it signs with. */
export interface SigningJwk {
  /** The private JWK, trimmed to its key members (and `kid`), frozen. */
  readonly jwk: Readonly<JWK>;
  readonly alg: SigningAlgorithm;
  /** The key's own `kid`, when it has one (else the router uses its RFC 7638 thumbprint). */
  readonly kid: string | undefined;
}

/**
 * Checks that `value` is a private signing key the router can use, and trims it; the problem, in words, when not.
 * Symmetric keys (`kty: oct`) are refused: whoever verifies an HMAC token could also sign one (RFC 8725 §2.1).
 * The private half is proved to match the public half by signing once, so a key pasted from two places fails at
 * boot rather than on the first token.
 */
export function checkSigningJwk(value: unknown): SigningJwk | string {
  if (!isObject(value)) return 'a JWK object';
  const { kty, crv, alg, use, kid } = value;
  if (kty === 'oct')
    return 'a private EC P-256 or RSA key, not a symmetric (oct) key: whoever verifies an HMAC token could also sign one';
  if (kty !== 'EC' && kty !== 'RSA')
    return `a private EC P-256 or RSA key (kty 'EC' or 'RSA'), not kty ${JSON.stringify(kty)}`;
  if (kty === 'EC' && crv !== 'P-256') return `an EC key on P-256 (ES256), not crv ${JSON.stringify(crv)}`;
  if (typeof value.d !== 'string') return 'a private key (with d); a public key cannot sign';
  const expected: SigningAlgorithm = kty === 'EC' ? 'ES256' : 'RS256';
  if (alg !== undefined && alg !== expected) return `a key for ${expected} (its alg is ${JSON.stringify(alg)})`;
  if (use !== undefined && use !== 'sig') return `a signing key (use 'sig'), not use ${JSON.stringify(use)}`;
  if (kid !== undefined && (typeof kid !== 'string' || kid === ''))
    return 'a key whose kid, when given, is a non-empty string';
  const jwk = pick(value, PRIVATE_MEMBERS[kty]);
  let problem: string | undefined;
  try {
    const key = createPrivateKey({ key: jwk as JsonWebKey, format: 'jwk' });
    const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
    if (kty === 'RSA' && bits < MIN_RSA_BITS)
      problem = `an RSA key of at least ${MIN_RSA_BITS} bits (RFC 7518 §3.3), not ${bits}`;
    else if (!verify('sha256', PROOF, key, sign('sha256', PROOF, key)))
      problem = 'a key whose private and public members belong together';
  } catch (err) {
    // Node's message may end by quoting the value it refused ("Received type number (…)"): a key member, cut off.
    problem = `a valid private JWK (${(err as Error).message.replace(/\.? Received .*$/s, '')})`;
  }
  if (problem !== undefined) return problem;
  return Object.freeze({
    jwk: Object.freeze(kid === undefined ? jwk : { ...jwk, kid }),
    alg: expected,
    kid: kid as string | undefined,
  });
}

/** The public JWK (RFC 7517 §4) of a checked signing key: its public members, `kid`, `alg` and `use: 'sig'`, never a private one. */
function publicJwkOf(key: SigningJwk, kid: string): Readonly<JWK> {
  const members = key.jwk.kty === 'EC' ? PUBLIC_MEMBERS.EC : PUBLIC_MEMBERS.RSA;
  return Object.freeze({ ...pick(key.jwk, members), kid, alg: key.alg, use: 'sig' });
}

/** A key ready to use: both halves imported, its kid and public JWK. */
export interface LoadedKey {
  readonly kid: string;
  readonly alg: SigningAlgorithm;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
  readonly publicJwk: Readonly<JWK>;
}

/** Imports both halves of a checked key; its kid is its own, or its RFC 7638 thumbprint. */
export async function loadKey(key: SigningJwk): Promise<LoadedKey> {
  const { importJWK, calculateJwkThumbprint } = jose();
  const kid = key.kid ?? (await calculateJwkThumbprint(key.jwk));
  const publicJwk = publicJwkOf(key, kid);
  const [privateKey, publicKey] = await Promise.all([importJWK(key.jwk, key.alg), importJWK(publicJwk, key.alg)]);
  if (privateKey instanceof Uint8Array || publicKey instanceof Uint8Array)
    throw new Error('a signing key imported as a symmetric secret'); // checkSigningJwk refuses oct keys
  return { kid, alg: key.alg, privateKey, publicKey, publicJwk };
}

const PROOF = Buffer.from('express-mcp-router signing key check');

function pick(value: Readonly<Record<string, unknown>>, members: readonly string[]): JWK {
  return Object.fromEntries(
    members.filter((member) => value[member] !== undefined).map((member) => [member, value[member]]),
  ) as JWK;
}
