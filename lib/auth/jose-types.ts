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
