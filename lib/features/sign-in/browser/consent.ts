// The consent step: the page shown to one browser (CSRF token and cookie), its answer checked once, and consents remembered.

import * as crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tokenDigest } from '../../../edge/security/token-cache';
import type { OAuthClient } from '../clients/client';
import { OAuthError } from '../oauth-error';
import { cookieOf, readForm } from '../parameters';
import type { ServerContext } from '../server-context';
import { consentPageHeaders, renderConsentPage, type ConsentDetails } from './consent-page';
import { PENDING_TTL_MS, type PendingAuthorization } from './authorization-request';
import type { Identity } from './login';

/** The cookie that ties a consent form to the browser it was shown to (with the form's CSRF token); one per form, so two tabs do not clash. */
const consentCookie = (pendingId: string): string => `mcp_consent_${tokenDigest(pendingId).slice(0, 16)}`;

const random = (): string => crypto.randomBytes(32).toString('base64url');
const sameSecret = (a: string, b: string): boolean =>
  a.length === b.length && crypto.timingSafeEqual(Buffer.from(a), Buffer.from(b));
/** Where a user's consents to one client are kept (kind `'consent'`): by digest, so the store names no user. */
const consentKey = (subject: string, clientId: string): string => tokenDigest(`${subject}\n${clientId}`);

/** The user's answer to a consent page: the authorization it was for, taken from the store. */
export interface ConsentAnswer {
  readonly pending: PendingAuthorization & { readonly identity: Identity };
  readonly allowed: boolean;
}

/** The consent step of one authorization server. */
export class ConsentStep {
  constructor(private readonly ctx: ServerContext) {}

  /** True when the user already consented to these scopes for this client (and consents are remembered). */
  async remembered(subject: string, clientId: string, scopes: readonly string[]): Promise<boolean> {
    if (this.ctx.options.rememberConsentMs === 0) return false;
    const given = await this.ctx.store.get('consent', consentKey(subject, clientId));
    return Array.isArray(given?.scopes) && scopes.every((scope) => (given.scopes as unknown[]).includes(scope));
  }

  /** Shows the consent page for a pending authorization whose user is known, with a fresh CSRF token and cookie. */
  async show(
    req: IncomingMessage,
    res: ServerResponse,
    pendingId: string,
    pending: PendingAuthorization,
    client: OAuthClient,
  ): Promise<void> {
    const { store, options } = this.ctx;
    const csrf = random();
    const cookie = random();
    await store.set('pending', pendingId, { ...pending, csrf, browser: tokenDigest(cookie) }, PENDING_TTL_MS);
    const issuer = this.ctx.issuerOf(req);
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

  /**
   * The answer to a consent page shown to this browser (its CSRF token and cookie), taken once: a form posted twice
   * gives one answer.
   *
   * @throws {OAuthError} `invalid_request` (403) for a form this browser was not shown, or one already answered
   */
  async answer(req: IncomingMessage): Promise<ConsentAnswer> {
    const { store } = this.ctx;
    const form = await readForm(req);
    const pendingId = form.pending ?? '';
    const pending =
      pendingId === '' ? undefined : ((await store.get('pending', pendingId)) as PendingAuthorization | undefined);
    const cookie = pendingId === '' ? undefined : cookieOf(req, consentCookie(pendingId));
    const genuine =
      pending?.csrf !== undefined &&
      pending.browser !== undefined &&
      pending.identity !== undefined &&
      cookie !== undefined &&
      sameSecret(form.csrf ?? '', pending.csrf) &&
      sameSecret(tokenDigest(cookie), pending.browser);
    if (!genuine)
      throw new OAuthError(
        'invalid_request',
        'this consent form expired or was not shown to this browser: start again from the client',
        403,
      );
    if ((await store.take('pending', pendingId)) === undefined)
      throw new OAuthError('invalid_request', 'this consent form was already answered', 403);
    return { pending: pending as ConsentAnswer['pending'], allowed: form.decision === 'allow' };
  }

  /** Remembers the user's consent to these scopes (with those given before) for `rememberConsentMs`. */
  async remember(subject: string, clientId: string, scopes: readonly string[]): Promise<void> {
    const { store, options } = this.ctx;
    if (options.rememberConsentMs === 0) return;
    const key = consentKey(subject, clientId);
    const earlier = await store.get('consent', key);
    const all = [...new Set([...(Array.isArray(earlier?.scopes) ? (earlier.scopes as string[]) : []), ...scopes])];
    await store.set('consent', key, { scopes: all }, options.rememberConsentMs);
  }
}
