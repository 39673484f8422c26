// The ID-JAG grant (SEP-990; draft-ietf-oauth-identity-assertion-authz-grant §4.4): an enterprise IdP's signed assertion, exchanged for an access token with no browser.

import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import type { McpLogger } from '../../../core/logger';
import { jose } from '../../../edge/security/jose';
import { ProviderFetchError } from '../../../edge/outbound/provider-fetch';
import type { SignInStore } from '../../../edge/store/sign-in-store';
import { checkedIdentity } from '../browser/login';
import { JWT_BEARER_GRANT, type OAuthClient } from '../clients/client';
import { OAuthError } from '../oauth-error';
import type { Form } from '../parameters';
import type { EnterprisePrincipal, ResolvedIdJag, ResolvedTrustedIdp } from '../trusted-idp-options';
import { CLOCK_TOLERANCE_SEC } from './access-token';
import type { Grant } from './codes-and-refresh';
import { spendOnce } from '../single-use';

/** The ID-JAG's JWT `typ` (draft §3.1; RFC 8725 §3.11): no other JWT an IdP signs can pass for one. */
export const ID_JAG_TYPE = 'oauth-id-jag+jwt';
/** The grant profile the server metadata names (draft §7.2). */
export const ID_JAG_PROFILE = 'urn:ietf:params:oauth:grant-profile:id-jag';
/** The most JSON `mapIdentity`'s `extra` may take: it rides in every access token. */
const MAX_EXTRA_BYTES = 4_096;

/** What a request is checked against: the router's issuer (the default `aud`) and its MCP resource. */
export interface IdJagTarget {
  /** This server's issuer, when it can tell it (`ServerContext.selfOf`): undefined refuses every ID-JAG. */
  readonly issuer: string | undefined;
  readonly resource: string;
}

/** An ID-JAG refused: `invalid_grant` (RFC 7523 §3.1), the reason for the developer. */
const refused = (reason: string): OAuthError => new OAuthError('invalid_grant', reason);

const withoutSlash = (uri: string): string => uri.replace(/\/$/, '');

/**
 * The user when the app gives no `mapIdentity`: `<iss>#<sub>`, or `<iss>#<tenant>/<sub>` (draft §3.1: `sub` is unique
 * per issuer, or per issuer and tenant). An issuer has no `#` (RFC 8414 §2) and the rest is percent-encoded, so two
 * different users never get one subject.
 */
export function enterpriseSubject(issuer: string, subject: string, tenant?: string): string {
  const sub = encodeURIComponent(subject);
  return tenant === undefined ? `${issuer}#${sub}` : `${issuer}#${encodeURIComponent(tenant)}/${sub}`;
}

/** `aud` names the expected audience alone: a string, or an array of exactly that one (draft §4.4.1). */
function namesOnly(aud: unknown, expected: string): boolean {
  return aud === expected || (Array.isArray(aud) && aud.length === 1 && aud[0] === expected);
}

/** The `resource` claim, when present, names this MCP resource: a URI or an array of URIs (draft §3.1; SEP-990 §7.6.2). */
function namesResource(resource: unknown, expected: string): boolean {
  const named = typeof resource === 'string' ? [resource] : resource;
  return (
    Array.isArray(named) && named.some((uri) => typeof uri === 'string' && withoutSlash(uri) === withoutSlash(expected))
  );
}

/** A claim that must be a non-empty string when present. */
function optionalText(claims: JWTPayload, name: string): string | undefined {
  const value = claims[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw refused(`the ID-JAG's ${name} claim is not a non-empty string`);
  return value;
}

/**
 * The ID-JAG grant of one authorization server: verifies the assertion against the trusted IdPs, spends its `jti`
 * once across instances, and gives the grant an access token is issued for (no refresh token, draft §4.4.3).
 */
export class IdJagGrant {
  private readonly keys = new Map<string, JWTVerifyGetKey>();

  constructor(
    private readonly config: ResolvedIdJag,
    private readonly store: SignInStore,
    private readonly supportedScopes: readonly string[],
    logger: McpLogger,
  ) {
    for (const idp of config.idps.values()) this.keys.set(idp.issuer, idp.keySet(logger) as JWTVerifyGetKey);
  }

  /**
   * Redeems an ID-JAG presented by an authenticated client.
   *
   * @throws {OAuthError} `unauthorized_client` for a client not registered for the grant or without credentials,
   *   `invalid_request` without an assertion, `invalid_grant` for an assertion that fails any check
   */
  async redeem(form: Form, client: OAuthClient, target: IdJagTarget): Promise<Grant> {
    if (!client.grantTypes.includes(JWT_BEARER_GRANT))
      throw new OAuthError('unauthorized_client', `the client is not registered for the grant ${JWT_BEARER_GRANT}`);
    // Draft §8.1: for confidential clients; an ID-JAG is a bearer artifact anyone holding it could otherwise redeem.
    if (client.tokenEndpointAuthMethod === 'none')
      throw new OAuthError('unauthorized_client', 'an ID-JAG is redeemed by a client that authenticates');
    if (form.assertion === undefined) throw new OAuthError('invalid_request', 'assertion is missing');
    const { issuer } = target;
    if (issuer === undefined)
      throw refused(
        "this server cannot tell its own issuer: its Host is not vouched for (set 'auth.server.issuer' or 'allowedHosts')",
      );
    const { idp, claims } = await this.verify(form.assertion);
    const { subject, tenant } = this.checkClaims(claims, idp, client, { issuer, resource: target.resource });
    await this.spend(idp, claims);
    const principal = await this.principalOf(claims, idp, client, subject, tenant);
    return {
      clientId: client.clientId,
      subject: principal.subject,
      scopes: this.scopesOf(form, claims, client, principal),
      resource: target.resource,
      ...(principal.extra !== undefined && { extra: principal.extra }),
    };
  }

  /** The signature by a trusted IdP's key, `typ`, `iss`, the algorithm, `exp`/`nbf`, and the claims jose requires. */
  private async verify(assertion: string): Promise<{ idp: ResolvedTrustedIdp; claims: JWTPayload }> {
    const { decodeJwt, jwtVerify } = jose();
    let issuer: unknown;
    try {
      issuer = decodeJwt(assertion).iss;
    } catch {
      throw refused('the assertion is not a JWT');
    }
    const idp = typeof issuer === 'string' ? this.config.idps.get(issuer) : undefined;
    if (idp === undefined) throw refused("the ID-JAG's issuer is not a trusted IdP");
    try {
      const { payload } = await jwtVerify(assertion, this.keys.get(idp.issuer) as JWTVerifyGetKey, {
        issuer: idp.issuer,
        typ: ID_JAG_TYPE,
        algorithms: [...idp.algorithms],
        clockTolerance: CLOCK_TOLERANCE_SEC,
        requiredClaims: ['sub', 'aud', 'client_id', 'jti', 'exp', 'iat'],
      });
      return { idp, claims: payload };
    } catch (err) {
      // The IdP's keys would not load (logged where fetched, once per cooldown): the assertion cannot be checked.
      if (err instanceof ProviderFetchError) throw refused("the IdP's signing keys could not be loaded");
      // jose's messages name what failed, never a claim's value.
      if (/^ERR_J/.test(String((err as { code?: unknown } | null)?.code)))
        throw refused(`the ID-JAG is not valid: ${(err as Error).message}`);
      throw err;
    }
  }

  /** Draft §4.4.1 and SEP-990 §7.4–7.6: audience, lifetime, client, resource, subject, and no proof it cannot check. */
  private checkClaims(
    claims: JWTPayload,
    idp: ResolvedTrustedIdp,
    client: OAuthClient,
    target: { readonly issuer: string; readonly resource: string },
  ): { subject: string; tenant: string | undefined } {
    if (!namesOnly(claims.aud, idp.audience ?? target.issuer))
      throw refused(`the ID-JAG's aud must be ${idp.audience ?? target.issuer}`);
    const now = Math.floor(Date.now() / 1000);
    const { iat, exp } = claims as { iat: number; exp: number };
    if (iat > now + CLOCK_TOLERANCE_SEC) throw refused('the ID-JAG is issued in the future');
    if (exp - iat > idp.maxLifetimeSec)
      throw refused(`the ID-JAG lives longer than ${idp.maxLifetimeSec} s: an ID-JAG is short-lived`);
    if (claims.client_id !== client.clientId) throw refused('the ID-JAG was issued for another client');
    if (claims.resource !== undefined && !namesResource(claims.resource, target.resource))
      throw refused(`the ID-JAG's resource must be ${target.resource}`);
    // The draft's proof-of-possession rules: a `cnf`-bound ID-JAG needs a DPoP proof, which this grant does not check.
    if (claims.cnf !== undefined)
      throw refused('the ID-JAG is bound to a key (cnf): proof of possession is not supported');
    const subject = optionalText(claims, 'sub') as string;
    optionalText(claims, 'jti');
    if (claims.scope !== undefined && typeof claims.scope !== 'string')
      throw refused("the ID-JAG's scope claim is not a string");
    return { subject, tenant: optionalText(claims, 'tenant') };
  }

  /**
   * SEP-990 §7.4.2: a `jti` is used once, until the ID-JAG expires, on every instance sharing the store; scoped by
   * issuer (two IdPs' ids never collide), kept by digest (bounded in size whatever the IdP sends).
   */
  private async spend(idp: ResolvedTrustedIdp, claims: JWTPayload): Promise<void> {
    const { jti, exp } = claims as { jti: string; exp: number };
    if (!(await spendOnce(this.store, 'id-jag', idp.issuer, jti, exp, CLOCK_TOLERANCE_SEC)))
      throw refused(
        'the ID-JAG was already used, or the server remembers as many as it may now (auth.server.maxUsedIds)',
      );
  }

  /** The app's user for the claims: `mapIdentity`'s answer, checked as `signIn`'s is, or {@link enterpriseSubject}. */
  private async principalOf(
    claims: JWTPayload,
    idp: ResolvedTrustedIdp,
    client: OAuthClient,
    subject: string,
    tenant: string | undefined,
  ): Promise<EnterprisePrincipal> {
    const map = this.config.mapIdentity;
    if (map === undefined) return { subject: enterpriseSubject(idp.issuer, subject, tenant) };
    const found = await map(Object.freeze({ ...claims }), { issuer: idp.issuer, clientId: client.clientId });
    const shape = '{ subject: string, scopes?, extra? } or null';
    const identity = checkedIdentity(found, 'mapIdentity', shape);
    if (identity === undefined) throw refused('the app does not accept this user (mapIdentity)');
    const extra = (found as EnterprisePrincipal).extra;
    if (extra === undefined) return { subject: identity.subject, scopes: identity.scopes?.slice() };
    const json = typeof extra === 'object' && extra !== null && !Array.isArray(extra) ? JSON.stringify(extra) : '';
    if (json === '' || Buffer.byteLength(json) > MAX_EXTRA_BYTES)
      throw new Error(
        `mcpRouter: auth.server.mapIdentity returned an extra that is not a JSON object of at most ${MAX_EXTRA_BYTES} bytes`,
      );
    return { subject: identity.subject, scopes: identity.scopes?.slice(), extra: JSON.parse(json) };
  }

  /**
   * SEP-990 §7.2.1: the intersection of the scopes asked for (all the ID-JAG's when none are) and the ID-JAG's
   * `scope`; within what the server issues, the client registered and the app allows the user (RFC 6749 §3.3: the
   * server may grant fewer, and says which in the answer). An ID-JAG without `scope` grants none.
   */
  private scopesOf(form: Form, claims: JWTPayload, client: OAuthClient, principal: EnterprisePrincipal): string[] {
    const split = (text: string | undefined): string[] | undefined => text?.split(' ').filter((name) => name !== '');
    const granted = split(claims.scope as string | undefined) ?? [];
    const registered = split(client.scope);
    return [...new Set(split(form.scope) ?? granted)].filter(
      (name) =>
        granted.includes(name) &&
        this.supportedScopes.includes(name) &&
        (registered === undefined || registered.includes(name)) &&
        (principal.scopes === undefined || principal.scopes.includes(name)),
    );
  }
}
