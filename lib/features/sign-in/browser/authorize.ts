// The browser side of sign-in: the authorization endpoint, the login step's callback, and the consent form's answer.

import * as crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  checkAuthorizationRequest,
  errorReturn,
  redirectWith,
  AuthorizeError,
  PENDING_TTL_MS,
  type AuthorizationRequest,
  type ErrorReturn,
  type PendingAuthorization,
} from './authorization-request';
import { ConsentStep } from './consent';
import { renderErrorPage } from './error-page';
import { LoginError, type Identity } from './login';
import { OAuthError } from '../oauth-error';
import type { ServerContext } from '../server-context';

const random = (): string => crypto.randomBytes(32).toString('base64url');

function redirect(res: ServerResponse, location: string): void {
  res.writeHead(302, { Location: location, 'Cache-Control': 'no-store' });
  res.end();
}

/** Where an error goes for a pending request, before the user answered the consent page. */
const backTo = (pending: AuthorizationRequest): ErrorReturn =>
  errorReturn({ uri: pending.redirectUri, state: pending.state }, pending.clientSource);

/** The browser endpoints of one authorization server. */
export class BrowserEndpoints {
  private readonly consentStep: ConsentStep;

  constructor(private readonly ctx: ServerContext) {
    this.consentStep = new ConsentStep(ctx);
  }

  /** GET `<issuer>/oauth/authorize`: check the request, then the login step. */
  async authorize(req: IncomingMessage, res: ServerResponse, query: URLSearchParams): Promise<void> {
    const { store, clients, options } = this.ctx;
    let request: AuthorizationRequest;
    try {
      ({ request } = await checkAuthorizationRequest(query, clients, this.ctx.resourceOf(req), options.scopes));
    } catch (err) {
      if (err instanceof AuthorizeError) return this.fail(req, res, err, err.redirect);
      throw err;
    }
    const pendingId = random();
    await store.set('pending', pendingId, { ...request }, PENDING_TTL_MS);
    const issuer = this.ctx.issuerOf(req);
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
      if (err instanceof LoginError)
        return this.fail(req, res, new OAuthError(err.error, err.message), backTo(request));
      throw err;
    }
    if (identity !== undefined) return this.withIdentity(req, res, pendingId, request, identity);
    // The step answered the browser itself (a redirect to a login page); if it did not, the user is not signed in.
    if (!res.headersSent)
      this.fail(req, res, new OAuthError('access_denied', 'the user did not sign in'), backTo(request));
  }

  /** GET `<issuer>/oauth/callback`: the IdP's answer, through the login step. */
  async callback(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { store, options } = this.ctx;
    const { finish } = options.login;
    if (finish === undefined)
      throw new OAuthError(
        'invalid_request',
        'this server signs users in with the app\u2019s own login: it has no callback',
        404,
      );
    let found: { pendingId: string; identity: Identity };
    try {
      found = await finish(req, { callbackUrl: `${this.ctx.issuerOf(req)}/oauth/callback`, store });
    } catch (err) {
      if (!(err instanceof LoginError)) throw err;
      const pending =
        err.pendingId === undefined
          ? undefined
          : ((await store.take('pending', err.pendingId)) as PendingAuthorization | undefined);
      // The IdP's answer, however it came (the user refused there, or the IdP failed on its own), is not an answer
      // to this server's consent page: it goes back as any error before consent does.
      return this.fail(req, res, new OAuthError(err.error, err.message), pending && backTo(pending));
    }
    const pending = (await store.get('pending', found.pendingId)) as PendingAuthorization | undefined;
    if (pending === undefined)
      throw new OAuthError('invalid_request', 'the authorization request expired: start again from the client');
    await this.withIdentity(req, res, found.pendingId, pending, found.identity);
  }

  /** POST `<issuer>/oauth/consent`: the user's answer, from the page shown to this browser (CSRF token and cookie). */
  async consent(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { pending, allowed } = await this.consentStep.answer(req);
    // The user answered: a denial goes back by redirect for every client (the user chose to go back).
    if (!allowed)
      return this.fail(
        req,
        res,
        new OAuthError('access_denied', 'the user denied access'),
        errorReturn({ uri: pending.redirectUri, state: pending.state }, pending.clientSource, true),
      );
    await this.consentStep.remember(pending.identity.subject, pending.clientId, pending.scopes);
    await this.issueCode(req, res, pending);
  }

  /**
   * Ends the authorization with an error; every error of the browser endpoints goes through here. Without a checked
   * redirect URI it is shown as JSON; with one, it goes back to the client as `back` says ({@link errorReturn}): by
   * redirect, or on the router's error page with a link.
   */
  private fail(req: IncomingMessage, res: ServerResponse, err: OAuthError, back?: ErrorReturn): void {
    if (back === undefined) return this.ctx.sendError(res, err);
    const location = redirectWith(back.uri, back.state, this.ctx.issuerOf(req), {
      error: err.error,
      error_description: err.description,
    });
    if (back.automatic) return redirect(res, location);
    renderErrorPage({ error: err.error, description: err.description, location }, res);
  }

  /** The user is known: a code at once when consent is given or not needed, else the consent page. */
  private async withIdentity(
    req: IncomingMessage,
    res: ServerResponse,
    pendingId: string,
    pending: PendingAuthorization,
    identity: Identity,
  ): Promise<void> {
    // A flood of registrations during the login may have evicted the client: restored from the kept registration.
    const client = await this.ctx.clients.findOrRestore(pending.clientId, pending.registration);
    if (client === undefined)
      return this.fail(req, res, new OAuthError('invalid_client', 'the client is no longer registered'));
    const scopes =
      identity.scopes === undefined
        ? pending.scopes
        : pending.scopes.filter((scope) => identity.scopes?.includes(scope));
    const granted: PendingAuthorization = { ...pending, scopes, identity };
    if (client.firstParty || (await this.consentStep.remembered(identity.subject, client.clientId, scopes)))
      return this.issueCode(req, res, granted);
    await this.consentStep.show(req, res, pendingId, granted, client);
  }

  private async issueCode(req: IncomingMessage, res: ServerResponse, pending: PendingAuthorization): Promise<void> {
    const identity = pending.identity as Identity;
    const grant = {
      clientId: pending.clientId,
      subject: identity.subject,
      scopes: pending.scopes,
      resource: pending.resource,
      ...(identity.upstream && { upstream: identity.upstream }),
      ...(pending.registration && { registration: pending.registration }),
    };
    const code = await this.ctx.codesAndRefresh.issueCode(grant, pending.redirectUri, pending.codeChallenge);
    redirect(res, redirectWith(pending.redirectUri, pending.state, this.ctx.issuerOf(req), { code }));
  }
}
