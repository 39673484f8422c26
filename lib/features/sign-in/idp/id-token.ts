// The IdP's ID token, verified with jose against its JWKS (OpenID Connect Core §3.1.3.7).

import { ASYMMETRIC_JWS_ALGORITHMS } from '../../../edge/security/jose-types';
import type { FetchImplementation } from 'jose';
import type { JWTPayload } from '../../../edge/security/jose-types';
import { readBoundedText } from '../../../edge/outbound/bounded-text';
import { jose } from '../../../edge/security/jose';
import { LoginError } from '../browser/login';
import { MAX_PROVIDER_ANSWER_BYTES } from './idp-http';

/** How far the provider's clock may be off ours when `exp`, `iat` and `nbf` are checked, in seconds. */
const CLOCK_TOLERANCE_SEC = 30;

/** How often a JWKS is fetched again for an unknown `kid` at most (key rotation), and how long it is kept. */
const JWKS_COOLDOWN_MS = 30_000;
const JWKS_MAX_AGE_MS = 10 * 60_000;

/** Verifies one ID token from the provider, with the nonce its authorization request carried. */
export type IdTokenCheck = (idToken: string, nonce: string) => Promise<Readonly<JWTPayload>>;

/** What an ID token is checked against. */
export interface IdTokenTrust {
  readonly issuer: string;
  readonly clientId: string;
  readonly jwksUri: string;
  /** The discovery document's `id_token_signing_alg_values_supported`, when it has one. */
  readonly advertisedAlgorithms: unknown;
  readonly timeoutMs: number;
}

/** jose reads a JWKS body whole; this fetch reads at most MAX_PROVIDER_ANSWER_BYTES of it, and follows no redirect. */
const boundedFetch: FetchImplementation = async (url, init) => {
  const response = await fetch(url, { ...init, redirect: 'manual' });
  const text = await readBoundedText(response.body, MAX_PROVIDER_ANSWER_BYTES);
  if (text === undefined) throw new Error(`the provider's JWKS is larger than ${MAX_PROVIDER_ANSWER_BYTES} bytes`);
  return new Response(text, { status: response.status, headers: response.headers });
};

/**
 * Builds the ID token check for one provider: its JWKS is fetched at first use (bounded in time and size), kept,
 * and fetched again on an unknown `kid` at most once per cooldown.
 */
export function idTokenCheck(trust: IdTokenTrust): IdTokenCheck {
  const { createRemoteJWKSet, customFetch, jwtVerify } = jose();
  // OIDC Discovery §3: RS256 is the default.
  const advertised = Array.isArray(trust.advertisedAlgorithms) ? trust.advertisedAlgorithms : ['RS256'];
  const algorithms = ASYMMETRIC_JWS_ALGORITHMS.filter((algorithm) => advertised.includes(algorithm));
  const keys = createRemoteJWKSet(new URL(trust.jwksUri), {
    timeoutDuration: trust.timeoutMs,
    cooldownDuration: JWKS_COOLDOWN_MS,
    cacheMaxAge: JWKS_MAX_AGE_MS,
    [customFetch]: boundedFetch,
  });
  return async (idToken, nonce) => {
    if (algorithms.length === 0)
      throw new LoginError(
        'server_error',
        'the provider signs ID tokens with no algorithm this router accepts (asymmetric only)',
      );
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(idToken, keys, {
        issuer: trust.issuer,
        audience: trust.clientId,
        algorithms,
        clockTolerance: CLOCK_TOLERANCE_SEC,
        requiredClaims: ['sub', 'exp', 'iat'],
      }));
    } catch (err) {
      throw new LoginError('server_error', `the provider's ID token was refused: ${(err as Error).message}`);
    }
    // OIDC Core §3.1.3.7 (11): the nonce sent in the authorization request comes back, so this token is this login's.
    if (payload.nonce !== nonce)
      throw new LoginError('server_error', "the provider's ID token was refused: its nonce is not this sign-in's");
    // OIDC Core §3.1.3.7 (4, 5): a token for several audiences names us as the party it was issued to.
    if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== trust.clientId) {
      throw new LoginError(
        'server_error',
        "the provider's ID token was refused: it has several audiences and 'azp' is not this client",
      );
    }
    return payload;
  };
}
