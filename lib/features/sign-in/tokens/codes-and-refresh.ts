// Authorization codes (single use, PKCE-bound) and refresh-token families (rotated on every use, reuse revokes the family).

import * as crypto from 'node:crypto';
import type { SignInStore } from '../../../edge/store/sign-in-store';
import { tokenDigest } from '../../../edge/security/token-cache';
import { OAuthError } from '../oauth-error';

/** What an authorization covers: kept with its code, then with its refresh-token family. */
export interface Grant {
  readonly clientId: string;
  readonly subject: string;
  readonly scopes: readonly string[];
  /** The MCP resource (RFC 8707) the tokens are for. */
  readonly resource: string;
  /** What the app added for its handlers (`ctx.auth.extra`), carried in the access token (an ID-JAG's `mapIdentity`). */
  readonly extra?: Readonly<Record<string, unknown>>;
  /** What the login step kept on the server (the IdP's tokens); never sent to the client. */
  readonly upstream?: Readonly<Record<string, unknown>>;
  /**
   * A dynamically registered client's registration at issue time, as the store keeps it (the secret as its digest):
   * the token endpoint restores the client from it when `maxClients` evicted it, so a live code or refresh family
   * outlives any flood of registrations. Bounded with the code or family that holds it. Absent for pre-registered
   * clients (options) and metadata-document clients (fetched again when their cached document is gone).
   */
  readonly registration?: Readonly<Record<string, unknown>>;
}

/** A code's binding (OAuth 2.1 §4.1.3): the client, its redirect URI and the PKCE challenge. */
interface CodeRecord extends Grant {
  readonly redirectUri: string;
  readonly codeChallenge: string;
}

/** A replayed code's family is revoked: remembered this many times the code's lifetime (OAuth 2.1 §4.1.3). */
const USED_CODE_MEMORY = 10;

const random = (): string => crypto.randomBytes(32).toString('base64url');
/** Codes and refresh tokens are kept by digest: a read of the store gives no usable credential. */
const digestOf = tokenDigest;

/** RFC 7636 §4.1: 43–128 characters of [A-Z a-z 0-9 - . _ ~]. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/** True when `verifier` hashes (S256) to `challenge` (RFC 7636 §4.6), compared in constant time. */
function pkceMatches(verifier: string, challenge: string): boolean {
  const computed = Buffer.from(crypto.createHash('sha256').update(verifier).digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && crypto.timingSafeEqual(computed, expected);
}

/**
 * Authorization codes and refresh tokens over the sign-in store. A refresh token is rotated on every use: the token
 * endpoint redeems it ({@link CodesAndRefreshTokens.redeemRefreshToken}) and issues the family's next one
 * ({@link CodesAndRefreshTokens.issueRefreshToken}).
 */
export class CodesAndRefreshTokens {
  /**
   * @param codeTtlMs - how long a code may wait to be redeemed
   * @param refreshTtlMs - how long a refresh-token family lives after its last use
   */
  constructor(
    private readonly store: SignInStore,
    private readonly codeTtlMs: number,
    private readonly refreshTtlMs: number,
  ) {}

  /** A new authorization code for `grant`, bound to the redirect URI and the PKCE challenge. */
  async issueCode(grant: Grant, redirectUri: string, codeChallenge: string): Promise<string> {
    const code = random();
    const record: CodeRecord = { ...grant, redirectUri, codeChallenge };
    await this.store.set('code', digestOf(code), { ...record }, this.codeTtlMs);
    return code;
  }

  /**
   * Redeems a code once (OAuth 2.1 §4.1.3): for the client it was issued to, with the same redirect URI and the
   * verifier of its challenge. A code used twice revokes the refresh-token family its first use started.
   *
   * @throws {OAuthError} `invalid_grant` for anything else (a used, expired, unknown or foreign code)
   */
  async redeemCode(
    code: string,
    clientId: string,
    redirectUri: string | undefined,
    verifier: string | undefined,
  ): Promise<{ grant: Grant; familyId: string }> {
    if (verifier === undefined || !VERIFIER.test(verifier))
      throw new OAuthError('invalid_request', 'code_verifier is missing or malformed (RFC 7636 §4.1)');
    const key = digestOf(code);
    const record = (await this.store.take('code', key)) as CodeRecord | undefined;
    if (record === undefined) {
      const used = await this.store.take('code', `used:${key}`);
      if (used !== undefined && typeof used.familyId === 'string') await this.store.delete('family', used.familyId);
      throw new OAuthError('invalid_grant', 'the authorization code is invalid, expired or already used');
    }
    const familyId = random();
    await this.store.set('code', `used:${key}`, { familyId }, this.codeTtlMs * USED_CODE_MEMORY);
    // Checked after the take: a code presented by the wrong client or with the wrong verifier is spent all the same.
    if (record.clientId !== clientId)
      throw new OAuthError('invalid_grant', 'the authorization code was issued to another client');
    if (redirectUri !== record.redirectUri)
      throw new OAuthError('invalid_grant', 'redirect_uri does not match the authorization request');
    if (!pkceMatches(verifier, record.codeChallenge))
      throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
    const { redirectUri: _redirect, codeChallenge: _challenge, ...grant } = record;
    await this.store.set('family', familyId, { ...grant }, this.refreshTtlMs);
    return { grant, familyId };
  }

  /**
   * A new refresh token of a family: `<family>.<secret>`, so a reused one names the family to revoke.
   *
   * @param jkt - the DPoP key it is bound to (RFC 9449 §5: a public client's), if any
   */
  async issueRefreshToken(familyId: string, clientId: string, jkt?: string): Promise<string> {
    const token = `${familyId}.${random()}`;
    const record = jkt === undefined ? { familyId, clientId } : { familyId, clientId, jkt };
    await this.store.set('refresh', digestOf(token), record, this.refreshTtlMs);
    return token;
  }

  /** The registration a code's grant kept of its client (see {@link Grant.registration}), read without spending it. */
  async registrationOfCode(code: string, clientId: string): Promise<unknown> {
    const record = await this.store.get('code', digestOf(code));
    return record?.clientId === clientId ? record.registration : undefined;
  }

  /** The registration a refresh token's family kept of its client, read without using the token. */
  async registrationOfRefreshToken(token: string, clientId: string): Promise<unknown> {
    const record = await this.store.get('refresh', digestOf(token));
    if (record?.clientId !== clientId || typeof record.familyId !== 'string') return undefined;
    return (await this.store.get('family', record.familyId))?.registration;
  }

  /**
   * The DPoP key a refresh token is bound to (RFC 9449 §5), read without using the token: checked before the token
   * is redeemed, so a request that cannot prove the key (its thief's) leaves the holder's token as it was.
   */
  async boundKeyOfRefreshToken(token: string, clientId: string): Promise<string | undefined> {
    const record = await this.store.get('refresh', digestOf(token));
    return record?.clientId === clientId && typeof record.jkt === 'string' ? record.jkt : undefined;
  }

  /**
   * Redeems a refresh token once (OAuth 2.1 §4.3.1, RFC 9700 §4.14.2): the grant of its family, which lives on. A
   * token used twice — stolen, or replayed — revokes the whole family.
   *
   * @returns the grant and its family (the DPoP key a token is bound to is read first: `boundKeyOfRefreshToken`)
   * @throws {OAuthError} `invalid_grant` for a used, revoked, expired, unknown or foreign token
   */
  async redeemRefreshToken(token: string, clientId: string): Promise<{ grant: Grant; familyId: string }> {
    const refused = new OAuthError('invalid_grant', 'the refresh token is invalid, expired or revoked');
    const familyId = token.split('.')[0] ?? '';
    const record = await this.store.take('refresh', digestOf(token));
    if (record === undefined) {
      // A well-formed token of a live family that is no longer stored was used before: reuse.
      if (familyId !== '') await this.store.delete('family', familyId);
      throw refused;
    }
    if (record.clientId !== clientId || record.familyId !== familyId) throw refused;
    const grant = (await this.store.get('family', familyId)) as Grant | undefined;
    if (grant === undefined) throw refused;
    await this.store.set('family', familyId, { ...grant }, this.refreshTtlMs);
    return { grant, familyId };
  }

  /** The grant of a refresh-token family, while it lives (for what the server keeps of it, such as the IdP's tokens). */
  async refreshFamilyGrant(familyId: string): Promise<Grant | undefined> {
    return (await this.store.get('family', familyId)) as Grant | undefined;
  }

  /**
   * Revokes the family of a refresh token (RFC 7009 §2.1), when the token is the client's; anything else is
   * ignored, as the RFC asks (the answer is the same).
   */
  async revokeRefreshToken(token: string, clientId: string): Promise<void> {
    const record = await this.store.get('refresh', digestOf(token));
    if (record === undefined || record.clientId !== clientId || typeof record.familyId !== 'string') return;
    await this.store.delete('refresh', digestOf(token));
    await this.store.delete('family', record.familyId);
  }
}
