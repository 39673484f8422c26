// A compact JWS checked with node:crypto, at once, against the key its signer sent (a DPoP proof's header `jwk`).

// A proof brings a fresh signature with every request, so its check is the cost of DPoP. jose verifies through
// WebCrypto, whose asynchronous job costs about as much again as the signature itself; node:crypto's verify is the
// same primitive (OpenSSL) without the job. The rest of a proof (its header, its key's thumbprint) is read once per
// key by the caller, with jose.

import * as crypto from 'node:crypto';
import type { JWK } from './jose-types';

/** A public key ready to check signatures of one algorithm. */
export interface JwsKey {
  /** True when `signature` is the key's signature of `input` under the algorithm. */
  readonly verifies: (input: Buffer, signature: Buffer) => boolean;
}

/** How each asymmetric JWS algorithm (RFC 7518 §3, RFC 8037 §3.1, RFC 9864) verifies, and the key it needs. */
const ALGORITHMS: Readonly<
  Record<string, { readonly kty: string; readonly crv?: readonly string[]; readonly hash: string | null }>
> = {
  RS256: { kty: 'RSA', hash: 'sha256' },
  RS384: { kty: 'RSA', hash: 'sha384' },
  RS512: { kty: 'RSA', hash: 'sha512' },
  PS256: { kty: 'RSA', hash: 'sha256' },
  PS384: { kty: 'RSA', hash: 'sha384' },
  PS512: { kty: 'RSA', hash: 'sha512' },
  ES256: { kty: 'EC', crv: ['P-256'], hash: 'sha256' },
  ES384: { kty: 'EC', crv: ['P-384'], hash: 'sha384' },
  ES512: { kty: 'EC', crv: ['P-521'], hash: 'sha512' },
  EdDSA: { kty: 'OKP', crv: ['Ed25519', 'Ed448'], hash: null },
  Ed25519: { kty: 'OKP', crv: ['Ed25519'], hash: null },
};
/** RFC 7518 §3.3, §3.5: RSA keys of 2048 bits or more. */
const MIN_RSA_BITS = 2048;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * The public key of `jwk` for `alg`, or undefined when the key does not fit the algorithm (another key type or curve,
 * an RSA key under 2048 bits, not a key at all).
 */
export function jwsKeyOf(jwk: JWK, alg: string): JwsKey | undefined {
  const spec = ALGORITHMS[alg];
  if (spec === undefined || jwk.kty !== spec.kty) return undefined;
  if (spec.crv !== undefined && !spec.crv.includes(jwk.crv as string)) return undefined;
  let key: crypto.KeyObject;
  try {
    key = crypto.createPublicKey({ key: jwk as crypto.JsonWebKey, format: 'jwk' });
  } catch {
    return undefined;
  }
  if (spec.kty === 'RSA' && (key.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_RSA_BITS) return undefined;
  const { hash } = spec;
  // ECDSA signatures are R || S (RFC 7518 §3.4); RSASSA-PSS salts are as long as the hash (§3.5).
  const options: crypto.VerifyKeyObjectInput =
    spec.kty === 'EC'
      ? { key, dsaEncoding: 'ieee-p1363' }
      : alg.startsWith('PS')
        ? { key, padding: crypto.constants.RSA_PKCS1_PSS_PADDING, saltLength: Number(alg.slice(2)) / 8 }
        : { key };
  return {
    verifies(input, signature) {
      try {
        return crypto.verify(hash, input, options, signature);
      } catch {
        return false; // a signature of the wrong size or form
      }
    },
  };
}

/**
 * The payload of a compact JWS (`header.payload.signature`, RFC 7515 §7.1) whose signature `key` verifies, parsed as
 * a JSON object; undefined for anything else. The header is the caller's to have checked.
 */
export function verifiedPayload(jws: string, key: JwsKey): Record<string, unknown> | undefined {
  const parts = jws.split('.');
  if (parts.length !== 3 || !parts.every((part) => BASE64URL.test(part))) return undefined;
  const [header, payload, signature] = parts as [string, string, string];
  if (!key.verifies(Buffer.from(`${header}.${payload}`), Buffer.from(signature, 'base64url'))) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return typeof claims === 'object' && claims !== null && !Array.isArray(claims)
      ? (claims as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
