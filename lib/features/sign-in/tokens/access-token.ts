// The router's access tokens: JWTs (RFC 9068) signed with its own keys, verified in-process without a store lookup.

import * as crypto from 'node:crypto';
import type { JWTPayload } from 'jose';
import type { AuthInfo } from '../../../core/registry/request-context';
import { jose } from '../../../edge/security/jose';
import type { SigningKeys } from './keys';

/** RFC 9068 §2.1: the `typ` of a JWT access token, so an ID token or another JWT cannot pass for one. */
const ACCESS_TOKEN_TYPE = 'at+jwt';
/** Clock skew tolerated between instances when checking `exp`/`iat`. */
const CLOCK_TOLERANCE_SEC = 30;

/** What an access token says. */
export interface AccessTokenClaims {
  readonly issuer: string;
  /** The MCP resource the token is for (RFC 8707): the token's `aud`. */
  readonly resource: string;
  readonly subject: string;
  readonly clientId: string;
  readonly scopes: readonly string[];
  /** The grant (refresh family) it came from, when the server keeps something for it (an upstream provider's tokens). */
  readonly grantId?: string;
  readonly ttlSec: number;
}

/** Signs an access token: `iss`, `sub`, `aud` = the resource, `client_id`, `scope`, `iat`, `exp`, `jti`. */
export async function signAccessToken(keys: SigningKeys, claims: AccessTokenClaims): Promise<string> {
  const { key, kid, alg } = await keys.current();
  const payload: JWTPayload = { client_id: claims.clientId, scope: claims.scopes.join(' ') };
  if (claims.grantId !== undefined) payload.gid = claims.grantId;
  return new (jose().SignJWT)(payload)
    .setProtectedHeader({ alg, kid, typ: ACCESS_TOKEN_TYPE })
    .setIssuer(claims.issuer)
    .setSubject(claims.subject)
    .setAudience(claims.resource)
    .setIssuedAt()
    .setExpirationTime(`${claims.ttlSec}s`)
    .setJti(crypto.randomBytes(16).toString('base64url'))
    .sign(key);
}

/** A verified access token: the principal handlers see, and the grant it came from. */
export interface VerifiedAccessToken {
  readonly auth: AuthInfo;
  readonly grantId: string | undefined;
}

/**
 * Verifies an access token the router signed for this issuer and resource: signature by one of its keys (found by
 * `kid`, the algorithm the key is for, never `none`), `typ`, `iss`, `aud`, `exp`. Undefined for anything else.
 */
export async function verifyAccessToken(
  keys: SigningKeys,
  token: string,
  expected: { issuer: string; resource: string },
): Promise<VerifiedAccessToken | undefined> {
  const { jwtVerify, decodeProtectedHeader } = jose();
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    return undefined;
  }
  const found = kid === undefined ? undefined : await keys.verificationKey(kid);
  if (found === undefined) return undefined;
  try {
    const { payload } = await jwtVerify(token, found.key, {
      algorithms: [found.alg],
      typ: ACCESS_TOKEN_TYPE,
      issuer: expected.issuer,
      audience: expected.resource,
      clockTolerance: CLOCK_TOLERANCE_SEC,
      requiredClaims: ['sub', 'exp', 'client_id'],
    });
    const scopes = typeof payload.scope === 'string' && payload.scope !== '' ? payload.scope.split(' ') : [];
    const grantId = typeof payload.gid === 'string' ? payload.gid : undefined;
    return {
      auth: { subject: payload.sub as string, scopes, expiresAt: payload.exp, extra: { clientId: payload.client_id } },
      grantId,
    };
  } catch {
    return undefined;
  }
}
