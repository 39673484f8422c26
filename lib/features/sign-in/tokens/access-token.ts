// The router's access tokens: JWTs (RFC 9068) signed with its own keys, verified in-process without a store lookup.

import * as crypto from 'node:crypto';
import type { JWTPayload } from 'jose';
import type { AuthInfo } from '../../../core/registry/request-context';
import { jose } from '../../../edge/security/jose';
import { createVerifiedTokenCache } from '../../../edge/security/token-cache';
import type { CodesAndRefreshTokens } from './codes-and-refresh';
import type { SigningKeys } from './keys';

/** RFC 9068 §2.1: the `typ` of a JWT access token, so an ID token or another JWT cannot pass for one. */
const ACCESS_TOKEN_TYPE = 'at+jwt';
/** Clock skew tolerated between instances (and with a trusted IdP) when checking `exp`/`iat`. */
export const CLOCK_TOLERANCE_SEC = 30;
/** The private claim carrying what the app added for its handlers (`ctx.auth.extra`). */
const EXTRA_CLAIM = 'ext';

/** What an access token says. */
export interface AccessTokenClaims {
  readonly issuer: string;
  /** The MCP resource the token is for (RFC 8707): the token's `aud`. */
  readonly resource: string;
  readonly subject: string;
  readonly clientId: string;
  readonly scopes: readonly string[];
  /** The grant (refresh family) it came from, when the server keeps something for it (the IdP's tokens). */
  readonly grantId?: string;
  /** What the app added for its handlers (`ctx.auth.extra`); readable by the client, as every claim is. */
  readonly extra?: Readonly<Record<string, unknown>>;
  /** The thumbprint of the DPoP key it is bound to (RFC 9449 §6.1: `cnf.jkt`), if any. */
  readonly jkt?: string;
  readonly ttlSec: number;
}

/** Signs an access token: `iss`, `sub`, `aud` = the resource, `client_id`, `scope`, `iat`, `exp`, `jti`, and `cnf` when bound. */
export async function signAccessToken(keys: SigningKeys, claims: AccessTokenClaims): Promise<string> {
  const { key, kid, alg } = await keys.current();
  const payload: JWTPayload = { client_id: claims.clientId, scope: claims.scopes.join(' ') };
  if (claims.grantId !== undefined) payload.gid = claims.grantId;
  if (claims.extra !== undefined) payload[EXTRA_CLAIM] = claims.extra;
  if (claims.jkt !== undefined) payload.cnf = { jkt: claims.jkt };
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
    const added = payload[EXTRA_CLAIM];
    const extra = typeof added === 'object' && added !== null && !Array.isArray(added) ? { ...added } : {};
    // A bound token's key (RFC 9449 §6.1), for the MCP endpoint's DPoP check (dpop-presentation.ts): the token's own
    // `cnf` only, never one the app's extra claims carry.
    delete (extra as { cnf?: unknown }).cnf;
    const cnf = typeof payload.cnf === 'object' && payload.cnf !== null ? { cnf: payload.cnf } : undefined;
    return {
      auth: {
        subject: payload.sub as string,
        scopes,
        expiresAt: payload.exp,
        extra: { ...extra, clientId: payload.client_id, ...cnf },
      },
      grantId,
    };
  } catch {
    return undefined;
  }
}

/**
 * The check of the access tokens one authorization server issued: a token verified once is remembered until it
 * expires, and in proxy mode the IdP's tokens its grant kept are handed to handlers as `ctx.auth.extra.upstream`
 * (a token whose refresh family was revoked is refused).
 */
export class IssuedTokenCheck {
  private readonly cache = createVerifiedTokenCache();

  constructor(
    private readonly keys: SigningKeys,
    private readonly codesAndRefresh: CodesAndRefreshTokens,
  ) {}

  /** The caller of a token this server issued for `resource`, or undefined. */
  async verify(token: string, expected: { issuer: string; resource: string }): Promise<AuthInfo | undefined> {
    // Keyed by resource too: a router reached under two hosts must not take one host's token on the other.
    const key = `${expected.resource} ${token}`;
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;
    const verified = await verifyAccessToken(this.keys, token, expected);
    if (verified === undefined) return undefined;
    let auth = verified.auth;
    if (verified.grantId !== undefined) {
      const grant = await this.codesAndRefresh.refreshFamilyGrant(verified.grantId);
      if (grant === undefined) return undefined; // the family was revoked
      auth = { ...auth, extra: { ...auth.extra, upstream: grant.upstream } };
    }
    this.cache.set(key, auth);
    return auth;
  }
}
