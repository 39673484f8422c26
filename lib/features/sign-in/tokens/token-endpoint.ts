// The token endpoint (OAuth 2.1 §3.2) and revocation (RFC 7009): code, refresh, client credentials and ID-JAG grants, answered as JSON, never cached.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '../../../edge/http/reply';
import { signAccessToken } from './access-token';
import { readForm, type Form } from '../parameters';
import type { Grant } from './codes-and-refresh';
import { JWT_BEARER_GRANT } from '../clients/client';
import { NO_STORE, OAuthError } from '../oauth-error';
import type { ServerContext } from '../server-context';
import { ENDPOINTS } from '../server-metadata';
import { clientCredentialsGrant } from './client-credentials';
import { TokenProofs } from './token-dpop';

/** RFC 8707 §2.2: a `resource` at the token endpoint must be the one the grant is for. */
function checkResource(form: Form, grant: Pick<Grant, 'resource'>): void {
  if (form.resource !== undefined && form.resource.replace(/\/$/, '') !== grant.resource)
    throw new OAuthError('invalid_target', `resource must be ${grant.resource}`);
}

/**
 * Where the presented grant kept its client's registration: a client evicted from the store while its code or
 * refresh family lived is restored from it (see `Grant.registration`).
 */
function keptBy(
  codesAndRefresh: ServerContext['codesAndRefresh'],
  form: Form,
): ((clientId: string) => Promise<unknown>) | undefined {
  const { code, refresh_token: refreshToken, token: revoked } = form;
  if (form.grant_type === 'authorization_code' && code !== undefined)
    return (clientId) => codesAndRefresh.registrationOfCode(code, clientId);
  const presented = form.grant_type === 'refresh_token' ? refreshToken : revoked;
  return presented === undefined
    ? undefined
    : (clientId) => codesAndRefresh.registrationOfRefreshToken(presented, clientId);
}

/** This server's issuer and token endpoint URL for a request, when it can tell them (`ServerContext.selfOf`). */
function selfUrlsOf(ctx: ServerContext, req: IncomingMessage): { issuer: string; tokenUrl: string } | undefined {
  const issuer = ctx.selfOf(req);
  return issuer === undefined ? undefined : { issuer, tokenUrl: `${issuer}${ENDPOINTS.token}` };
}

/** What a client assertion's `aud` may name (RFC 7523 §3): the issuer, or the token endpoint URL; none without a vouched issuer. */
function audiencesOf(ctx: ServerContext, req: IncomingMessage): string[] {
  const self = selfUrlsOf(ctx, req);
  return self === undefined ? [] : [self.issuer, self.tokenUrl];
}

/** The token and revocation endpoints of one authorization server. */
export function createTokenEndpoints(ctx: ServerContext) {
  const { clients, codesAndRefresh, keys, options } = ctx;
  const proofs = new TokenProofs(ctx.dpop, (req) => selfUrlsOf(ctx, req)?.tokenUrl);

  /** Tokens for a grant: a JWT access token, and a rotated refresh token when the client may refresh (both DPoP-bound, token-dpop.ts). */
  async function issue(
    req: IncomingMessage,
    grant: Grant,
    familyId: string,
    refresh: boolean,
    scopes: readonly string[],
  ): Promise<Record<string, unknown>> {
    const { jkt, bindsRefresh } = proofs.bindingOf(req);
    const accessToken = await signAccessToken(keys, {
      issuer: ctx.issuerOf(req),
      resource: grant.resource,
      subject: grant.subject,
      clientId: grant.clientId,
      scopes,
      ttlSec: options.accessTokenTtlSec,
      // The family is named in the token only when the server keeps something for it (the IdP's tokens).
      ...(grant.upstream !== undefined && { grantId: familyId }),
      ...(grant.extra !== undefined && { extra: grant.extra }),
      ...(jkt !== undefined && { jkt }),
    });
    const body: Record<string, unknown> = {
      access_token: accessToken,
      token_type: jkt === undefined ? 'Bearer' : 'DPoP',
      expires_in: options.accessTokenTtlSec,
      scope: scopes.join(' '),
    };
    const refreshJkt = bindsRefresh ? jkt : undefined;
    if (refresh) body.refresh_token = await codesAndRefresh.issueRefreshToken(familyId, grant.clientId, refreshJkt);
    return body;
  }

  async function token(req: IncomingMessage, form: Form): Promise<Record<string, unknown>> {
    const client = await clients.authenticate(
      req.headers.authorization,
      form,
      keptBy(codesAndRefresh, form),
      audiencesOf(ctx, req),
    );
    const mayRefresh = client.grantTypes.includes('refresh_token');
    const binding = await proofs.check(req, client);
    switch (form.grant_type) {
      case 'authorization_code': {
        if (form.code === undefined) throw new OAuthError('invalid_request', 'code is missing');
        const { grant, familyId } = await codesAndRefresh.redeemCode(
          form.code,
          client.clientId,
          form.redirect_uri,
          form.code_verifier,
        );
        checkResource(form, grant);
        return issue(req, grant, familyId, mayRefresh, grant.scopes);
      }
      case 'refresh_token': {
        if (!mayRefresh)
          throw new OAuthError('unauthorized_client', 'the client is not registered for the refresh_token grant');
        if (form.refresh_token === undefined) throw new OAuthError('invalid_request', 'refresh_token is missing');
        // RFC 9449 §5: the key first (a token's record never changes), so a refused request does not spend the token.
        proofs.requireKey(await codesAndRefresh.boundKeyOfRefreshToken(form.refresh_token, client.clientId), binding);
        const { grant, familyId } = await codesAndRefresh.redeemRefreshToken(form.refresh_token, client.clientId);
        checkResource(form, grant);
        // OAuth 2.1 §4.3.1: a refresh may narrow the scopes, never widen them.
        const asked = form.scope === undefined ? grant.scopes : form.scope.split(' ').filter((scope) => scope !== '');
        if (!asked.every((scope) => grant.scopes.includes(scope)))
          throw new OAuthError('invalid_scope', 'a refresh cannot add scopes the user did not grant');
        return issue(req, grant, familyId, true, asked);
      }
      case 'client_credentials': {
        const grant = clientCredentialsGrant(client, form, ctx.resourceOf(req), options.scopes);
        // No refresh token (RFC 6749 §4.4.3): the client asks again with its credentials.
        return issue(req, grant, '', false, grant.scopes);
      }
      case JWT_BEARER_GRANT: {
        // An ID-JAG (SEP-990): no refresh token, the client presents a new one (the ID-JAG draft §4.4.3).
        if (ctx.idJag === undefined) throw new OAuthError('unsupported_grant_type', 'no IdP is trusted for ID-JAGs');
        checkResource(form, { resource: ctx.resourceOf(req) });
        const grant = await ctx.idJag.redeem(form, client, { issuer: ctx.selfOf(req), resource: ctx.resourceOf(req) });
        return issue(req, grant, '', false, grant.scopes);
      }
      case undefined:
        throw new OAuthError('invalid_request', 'grant_type is missing');
      default:
        throw new OAuthError(
          'unsupported_grant_type',
          `grant_type must be one of ${clients.metadata.grantTypes.join(', ')}`,
        );
    }
  }

  return {
    /** POST `<issuer>/oauth/token`. */
    async token(req: IncomingMessage, res: ServerResponse): Promise<void> {
      sendJson(res, 200, await token(req, await readForm(req)), NO_STORE);
    },

    /** POST `<issuer>/oauth/revoke` (RFC 7009 §2.2: 200 whether or not the token was valid). */
    async revoke(req: IncomingMessage, res: ServerResponse): Promise<void> {
      const form = await readForm(req);
      const client = await clients.authenticate(
        req.headers.authorization,
        form,
        keptBy(codesAndRefresh, form),
        audiencesOf(ctx, req),
      );
      if (form.token === undefined) throw new OAuthError('invalid_request', 'token is missing');
      // Access tokens are short-lived JWTs checked without a store lookup: they lapse by themselves; refresh tokens
      // (and so their family) end now.
      await codesAndRefresh.revokeRefreshToken(form.token, client.clientId);
      res.writeHead(200, { ...NO_STORE, 'Content-Length': '0' });
      res.end();
    },
  };
}
