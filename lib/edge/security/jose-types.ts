// JOSE types for the router's published declarations: jose's own come from an ES module, which a CommonJS TypeScript app may not import.

import type { webcrypto } from 'node:crypto';

/** A WebCrypto key (what jose signs and verifies with). */
export type CryptoKey = webcrypto.CryptoKey;

/** A JSON Web Key (RFC 7517): its members as JSON. */
export interface JWK {
  readonly kty?: string;
  readonly kid?: string;
  readonly alg?: string;
  readonly use?: string;
  readonly crv?: string;
  readonly [member: string]: unknown;
}

/** JWK members that hold private key material (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2): a public key has none. */
export const PRIVATE_JWK_MEMBERS: readonly string[] = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/**
 * jose's key resolver (`JWTVerifyGetKey`: a local or remote key set), as the router's declarations name it without
 * importing jose's types; it goes back to jose as it came.
 */
export type JwtKeyResolver = (protectedHeader: never, token: never) => unknown;

/** The claims of a JWT (RFC 7519 §4), registered ones typed. */
export interface JWTPayload {
  readonly iss?: string;
  readonly sub?: string;
  readonly aud?: string | string[];
  readonly exp?: number;
  readonly nbf?: number;
  readonly iat?: number;
  readonly jti?: string;
  readonly [claim: string]: unknown;
}

/**
 * The public-key JWS algorithms (RFC 7518 §3, RFC 8037): the only ones a token verified against a JWKS may use. An
 * HMAC token is keyed with a shared secret the JWKS never holds (an ID token's is the client secret, OIDC Core
 * §10.1), so accepting HS* would only open the algorithm-confusion door.
 */
export const ASYMMETRIC_JWS_ALGORITHMS: readonly string[] = Object.freeze([
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
]);
