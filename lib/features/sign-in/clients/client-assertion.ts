// private_key_jwt (RFC 7523 §2.2, §3; OAuth 2.1 §2.4.1): a client's signed assertion checked, its jti used once across instances.

import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import { jose } from '../../../edge/security/jose';
import { ASYMMETRIC_JWS_ALGORITHMS } from '../../../edge/security/jose-types';
import type { SignInStore } from '../../../edge/store/sign-in-store';
import { ProviderFetchError } from '../../../edge/outbound/provider-fetch';
import { spendOnce } from '../single-use';

/** RFC 7523 §2.2: the `client_assertion_type` of a JWT client assertion. */
export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/**
 * The longest an assertion may live, from its `iat` (or from now without one), in seconds: 5 minutes. RFC 7523 §3
 * lets the server bound `exp`; short assertions keep the set of `jti`s to remember small. The official SDK clients
 * make assertions that live exactly 300 s.
 */
export const MAX_ASSERTION_LIFETIME_SEC = 300;
/** Clock skew tolerated between the client and the server, in seconds, on `exp` and `iat`. */
export const ASSERTION_CLOCK_SKEW_SEC = 30;
/** The longest `jti` remembered: a longer one is refused, not truncated. */
const MAX_JTI_LENGTH = 256;

/** What an assertion must be for: the client it authenticates and the audiences that name this server. */
export interface ExpectedAssertion {
  readonly clientId: string;
  /** The issuer and the token endpoint URL (RFC 7523 §3: `aud` identifies the authorization server). */
  readonly audiences: readonly string[];
}

/** Why jose refused an assertion, in words a developer can act on (never a key or the assertion itself). */
function describe(err: unknown): string {
  const { code, claim } = (err ?? {}) as { code?: string; claim?: string };
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return 'client_assertion has expired';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (claim === 'aud') return 'client_assertion aud must name this server (its issuer or token endpoint)';
      if (claim === 'iss' || claim === 'sub') return 'client_assertion iss and sub must both be the client_id';
      return `client_assertion ${claim ?? 'a claim'} is missing or invalid`;
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return `client_assertion must be signed with an asymmetric algorithm (${ASYMMETRIC_JWS_ALGORITHMS.join(', ')})`;
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return 'client_assertion is not signed by a key of the client';
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
      return 'client_assertion is not a signed JWT';
    default:
      return err instanceof ProviderFetchError
        ? 'the client’s key set cannot be loaded'
        : 'client_assertion cannot be verified';
  }
}

/** Why the times of a verified assertion are refused: an `iat` in the future, or a lifetime past the bound. */
function timesProblem(payload: JWTPayload, nowSec: number): string | undefined {
  const { iat, exp } = payload as { iat?: number; exp: number };
  if (iat !== undefined && iat > nowSec + ASSERTION_CLOCK_SKEW_SEC) return 'client_assertion iat is in the future';
  const lifetime = iat === undefined ? exp - nowSec - ASSERTION_CLOCK_SKEW_SEC : exp - iat;
  if (lifetime > MAX_ASSERTION_LIFETIME_SEC)
    return `client_assertion lives longer than ${MAX_ASSERTION_LIFETIME_SEC} s (exp - iat)`;
  return undefined;
}

/**
 * Checks a client assertion (RFC 7523 §3): signed with an asymmetric algorithm by a key of the client (never
 * `none`, never HS*), `iss` = `sub` = the client id, `aud` naming this server, `exp` present and at most
 * {@link MAX_ASSERTION_LIFETIME_SEC} after `iat`, `iat` not in the future, and a `jti` never seen before: it is
 * remembered in the store (kind `replay`, shared by every instance) until the assertion expires, so a replay is
 * refused anywhere (RFC 7523 §3 item 7).
 *
 * @returns why the assertion is refused, or undefined when it authenticates the client
 */
export async function verifyClientAssertion(
  assertion: string,
  keys: JWTVerifyGetKey,
  expected: ExpectedAssertion,
  store: SignInStore,
  now = Date.now(),
): Promise<string | undefined> {
  if (expected.audiences.length === 0)
    return "this server cannot tell its own issuer, which client_assertion aud must name: its Host is not vouched for (set 'auth.server.issuer' or 'allowedHosts')";
  let payload: JWTPayload;
  try {
    ({ payload } = await jose().jwtVerify(assertion, keys, {
      algorithms: [...ASYMMETRIC_JWS_ALGORITHMS],
      issuer: expected.clientId,
      subject: expected.clientId,
      audience: [...expected.audiences],
      requiredClaims: ['iss', 'sub', 'aud', 'exp', 'jti'],
      clockTolerance: ASSERTION_CLOCK_SKEW_SEC,
      currentDate: new Date(now),
    }));
  } catch (err) {
    return describe(err);
  }
  const problem = timesProblem(payload, Math.floor(now / 1000));
  if (problem !== undefined) return problem;
  const { jti, exp } = payload as { jti: unknown; exp: number };
  if (typeof jti !== 'string' || jti === '' || jti.length > MAX_JTI_LENGTH)
    return `client_assertion jti must be a string of 1 to ${MAX_JTI_LENGTH} characters`;
  if (!(await spendOnce(store, 'client-assertion', expected.clientId, jti, exp, ASSERTION_CLOCK_SKEW_SEC, now)))
    return 'client_assertion was used before (its jti is single use), or the server remembers as many as it may now (auth.server.maxUsedIds)';
  return undefined;
}
