// The browser side of sign-in: the authorization endpoint, the login step's callback, and the consent form's answer.

import * as crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  checkAuthorizationRequest,
  errorReturn,
  redirectWith,
  AuthorizeError,
  type AuthorizationRequest,
  type ErrorReturn,
} from './authorization-request';
import type { OAuthClient } from '../clients/client';
import { consentPageHeaders, renderConsentPage, type ConsentDetails } from './consent-page';
import { renderErrorPage } from './error-page';
import { readForm } from '../form';
import type { Identity } from './login';
import { LoginError } from './login';
import { tokenDigest } from '../../../edge/security/token-cache';
import { OAuthError } from '../oauth-error';
import type { ServerContext } from '../server-context';

/** How long an authorization may wait for the user's login and consent. */
const PENDING_TTL_MS = 10 * 60 * 1000;
/** The cookie that ties a consent form to the browser it was shown to (with the form's CSRF token); one per form, so two tabs do not clash. */
const consentCookie = (pendingId: string): string => `mcp_consent_${digest(pendingId).slice(0, 16)}`;

/** An authorization waiting for login or consent, in the store (kind `'pending'`). */
interface Pending extends AuthorizationRequest {
  readonly identity?: Identity;
  /** The consent form's CSRF token, and the digest of the cookie set with it. */
  readonly csrf?: string;
  readonly browser?: string;
}

const random = (): string => crypto.randomBytes(32).toString('base64url');
const digest = tokenDigest;
const sameSecret = (a: string, b: string): boolean =>
  a.length === b.length && crypto.timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** The browser endpoints of one authorization server. */
export function createAuthorizeEndpoints(ctx: ServerContext) {
  const { store, clients, grants, options } = ctx;

  function redirect(res: ServerResponse, location: string): void {
    res.writeHead(302, { Location: location, 'Cache-Control': 'no-store' });
    res.end();
  }

  /**
   * Ends the authorization with an error; every error of the browser endpoints goes through here. Without a checked
   * redirect URI it is shown as JSON; with one, it goes back to the client as `back` says ({@link errorReturn}): by
   * redirect, or on the router's error page with a link.
   */
  function fail(req: IncomingMessage, res: ServerResponse, err: OAuthError, back?: ErrorReturn): void {
    if (back === undefined) return ctx.sendError(res, err);
    const location = redirectWith(back.uri, back.state, ctx.issuerOf(req), {
      error: err.error,
      error_description: err.description,
    });
    if (back.automatic) return redirect(res, location);
    renderErrorPage({ error: err.error, description: err.description, location }, res);
  }

  /** Where an error goes for a pending request, before the user answered the consent page. */
  const backTo = (pending: AuthorizationRequest): ErrorReturn =>
    errorReturn({ uri: pending.redirectUri, state: pending.state }, pending.clientSource);

  /** The user is known: a code at once when consent is given or not needed, else the consent page. */
  async function withIdentity(
    req: IncomingMessage,
    res: ServerResponse,
    pendingId: string,
    pending: Pending,
    identity: Identity,
  ): Promise<void> {
    // A flood of registrations during the login may have evicted the client: restored from the kept registration.
    const client = await clients.findOrRestore(pending.clientId, pending.registration);
    if (client === undefined)
      return fail(req, res, new OAuthError('invalid_client', 'the client is no longer registered'));
    const scopes =
      identity.scopes === undefined
        ? pending.scopes
        : pending.scopes.filter((scope) => identity.scopes?.includes(scope));
    const granted: Pending = { ...pending, scopes, identity };
    if (client.firstParty || (await consentRemembered(identity.subject, client.clientId, scopes)))
      return issueCode(req, res, granted);
    await showConsent(req, res, pendingId, granted, client);
  }

  async function consentRemembered(subject: string, clientId: string, scopes: readonly string[]): Promise<boolean> {
    if (options.rememberConsentMs === 0) return false;
    const given = await store.get('consent', digest(`${subject}\n${clientId}`));
    return Array.isArray(given?.scopes) && scopes.every((scope) => (given.scopes as unknown[]).includes(scope));
  }

  async function issueCode(req: IncomingMessage, res: ServerResponse, pending: Pending): Promise<void> {
    const identity = pending.identity as Identity;
    const grant = {
      clientId: pending.clientId,
      subject: identity.subject,
      scopes: pending.scopes,
      resource: pending.resource,
      ...(identity.upstream && { upstream: identity.upstream }),
      ...(pending.registration && { registration: pending.registration }),
    };
    const code = await grants.issueCode(grant, pending.redirectUri, pending.codeChallenge);
    redirect(res, redirectWith(pending.redirectUri, pending.state, ctx.issuerOf(req), { code }));
  }

  async function showConsent(
    req: IncomingMessage,
    res: ServerResponse,
    pendingId: string,
    pending: Pending,
    client: OAuthClient,
  ): Promise<void> {
    const csrf = random();
    const cookie = random();
    await store.set('pending', pendingId, { ...pending, csrf, browser: digest(cookie) }, PENDING_TTL_MS);
    const issuer = ctx.issuerOf(req);
    const secure = issuer.startsWith('https:') ? '; Secure' : '';
    res.setHeader(
      'Set-Cookie',
      `${consentCookie(pendingId)}=${cookie}; Path=${new URL(issuer).pathname.replace(/\/$/, '')}/oauth; HttpOnly; SameSite=Strict; Max-Age=${PENDING_TTL_MS / 1000}${secure}`,
    );
    const details: ConsentDetails = {
      clientName: client.clientName ?? client.clientId,
      clientId: client.clientId,
      redirectHost: new URL(pending.redirectUri).host || pending.redirectUri,
      scopes: pending.scopes,
      subject: (pending.identity as Identity).subject,
      action: `${issuer}/oauth/consent`,
      fields: { pending: pendingId, csrf },
    };
    for (const [name, value] of Object.entries(consentPageHeaders(pending.redirectUri))) res.setHeader(name, value);
    if (options.renderConsent === undefined) return renderConsentPage(details, res);
    options.renderConsent(details, req, res);
  }

  return {
    /** GET `<issuer>/oauth/authorize`: check the request, then the login step. */
    async authorize(req: IncomingMessage, res: ServerResponse, query: URLSearchParams): Promise<void> {
      let checked: { client: OAuthClient; request: AuthorizationRequest };
      try {
        checked = await checkAuthorizationRequest(query, clients, ctx.resourceOf(req), options.scopes);
      } catch (err) {
        if (err instanceof AuthorizeError) return fail(req, res, err, err.redirect);
        throw err;
      }
      const { request } = checked;
      const pendingId = random();
      await store.set('pending', pendingId, { ...request }, PENDING_TTL_MS);
      const issuer = ctx.issuerOf(req);
      const returnTo = `${issuer}/oauth/authorize?${query.toString()}`;
      let identity: Identity | undefined;
      try {
        identity = await options.login.start(req, res, {
          pendingId,
          returnTo,
          callbackUrl: `${issuer}/oauth/callback`,
          store,
        });
      } catch (err) {
        if (err instanceof LoginError) return fail(req, res, new OAuthError(err.error, err.message), backTo(request));
        throw err;
      }
      if (identity !== undefined) return withIdentity(req, res, pendingId, request, identity);
      // The step answered the browser itself (a redirect to a login page); if it did not, the user is not signed in.
      if (!res.headersSent)
        fail(req, res, new OAuthError('access_denied', 'the user did not sign in'), backTo(request));
    },

    /** GET `<issuer>/oauth/callback`: an upstream provider's answer, through the login step. */
    async callback(req: IncomingMessage, res: ServerResponse): Promise<void> {
      const { finish } = options.login;
      if (finish === undefined)
        return ctx.sendError(
          res,
          new OAuthError(
            'invalid_request',
            'this server signs users in with the app\u2019s own login: it has no callback',
            404,
          ),
        );
      let found: { pendingId: string; identity: Identity };
      try {
        found = await finish(req, { callbackUrl: `${ctx.issuerOf(req)}/oauth/callback`, store });
      } catch (err) {
        if (!(err instanceof LoginError)) throw err;
        const pending =
          err.pendingId === undefined
            ? undefined
            : ((await store.take('pending', err.pendingId)) as Pending | undefined);
        // The provider's answer, however it came (the user refused there, or the provider failed on its own), is not
        // an answer to this server's consent page: it goes back as any error before consent does.
        return fail(req, res, new OAuthError(err.error, err.message), pending && backTo(pending));
      }
      const pending = (await store.get('pending', found.pendingId)) as Pending | undefined;
      if (pending === undefined)
        return ctx.sendError(
          res,
          new OAuthError('invalid_request', 'the authorization request expired: start again from the client'),
        );
      await withIdentity(req, res, found.pendingId, pending, found.identity);
    },

    /** POST `<issuer>/oauth/consent`: the user's answer, from the page shown to this browser (CSRF token and cookie). */
    async consent(req: IncomingMessage, res: ServerResponse): Promise<void> {
      const form = await readForm(req);
      const pendingId = form.pending ?? '';
      const pending = pendingId === '' ? undefined : ((await store.get('pending', pendingId)) as Pending | undefined);
      const cookie = pendingId === '' ? undefined : cookieOf(req, consentCookie(pendingId));
      const genuine =
        pending?.csrf !== undefined &&
        pending.browser !== undefined &&
        pending.identity !== undefined &&
        cookie !== undefined &&
        sameSecret(form.csrf ?? '', pending.csrf) &&
        sameSecret(digest(cookie), pending.browser);
      if (!genuine)
        return ctx.sendError(
          res,
          new OAuthError(
            'invalid_request',
            'this consent form expired or was not shown to this browser: start again from the client',
            403,
          ),
        );
      // Taken once: a form posted twice gives one code.
      if ((await store.take('pending', pendingId)) === undefined)
        return ctx.sendError(res, new OAuthError('invalid_request', 'this consent form was already answered', 403));
      // The user answered: a denial goes back by redirect for every client (the user chose to go back).
      if (form.decision !== 'allow')
        return fail(
          req,
          res,
          new OAuthError('access_denied', 'the user denied access'),
          errorReturn({ uri: pending.redirectUri, state: pending.state }, pending.clientSource, true),
        );
      if (options.rememberConsentMs > 0) {
        const key = digest(`${(pending.identity as Identity).subject}\n${pending.clientId}`);
        const earlier = await store.get('consent', key);
        const scopes = [
          ...new Set([...(Array.isArray(earlier?.scopes) ? (earlier.scopes as string[]) : []), ...pending.scopes]),
        ];
        await store.set('consent', key, { scopes }, options.rememberConsentMs);
      }
      await issueCode(req, res, pending);
    },
  };
}

/** A cookie's value from the request's Cookie header (RFC 6265 §5.4), undefined when absent or sent twice. */
function cookieOf(req: IncomingMessage, name: string): string | undefined {
  const found = (req.headers.cookie ?? '')
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part.startsWith(`${name}=`));
  return found.length === 1 ? found[0]?.slice(name.length + 1) : undefined;
}
