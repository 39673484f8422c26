// The pluggable login step of the authorization server: who the user is, found by the app's own sign-in or an IdP.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SignInStore } from '../../../edge/store/sign-in-store';

/** Who signed in, as the login step found it. */
export interface Identity {
  /** The user: becomes the tokens' `sub` and the handlers' `ctx.auth.subject`. */
  readonly subject: string;
  /** The scopes this user may have; undefined means every scope the client asks for that the server supports. */
  readonly scopes?: readonly string[];
  /**
   * What the login step keeps on the server for this sign-in (the IdP's tokens and claims): never
   * sent to the client, handed to handlers as `ctx.auth.extra.upstream`.
   */
  readonly upstream?: Readonly<Record<string, unknown>>;
}

/** What the login step gets about the authorization request it signs a user in for. */
export interface LoginRequest {
  /** The id of the pending authorization request (kept by the router in its sign-in store). */
  readonly pendingId: string;
  /** Where the browser returns to resume this authorization: an absolute URL on this router. */
  readonly returnTo: string;
  /** The router's callback URL for an IdP: `<issuer>/oauth/callback`. */
  readonly callbackUrl: string;
  /** The router's sign-in store: a step keeps its own state there (kind `'upstream'`), so any instance can finish it. */
  readonly store: SignInStore;
}

/** What the login step gets at the router's callback. */
export interface LoginCallback {
  /** The router's callback URL (`<issuer>/oauth/callback`), as given to the IdP. */
  readonly callbackUrl: string;
  /** The router's sign-in store, where the step kept its state when it redirected (so any instance can finish it). */
  readonly store: SignInStore;
}

/**
 * The login step. `start` runs in the browser's request to the authorization endpoint; it answers with the user at
 * once (an app session already there) or answers the browser itself (a redirect to a login page or an IdP) and
 * resolves undefined. A step that leaves the browser elsewhere brings it back through `returnTo`, or, for an IdP,
 * through the router's `callbackUrl`, where `finish` runs.
 */
export interface LoginStep {
  /** What the step is, for messages: `'signIn'` or `'oidcUpstream'`. */
  readonly kind: string;
  /**
   * Runs in the browser's request to the authorization endpoint: resolves with the user when known at once, else
   * answers the browser itself (a redirect to a login page or an IdP) and resolves undefined.
   */
  start(req: IncomingMessage, res: ServerResponse, request: LoginRequest): Promise<Identity | undefined>;
  /**
   * Runs at `<issuer>/oauth/callback` (IdP login steps only): the pending request the callback belongs to and who
   * signed in; throws {@link LoginError} for a callback that is not one the step started, or the IdP's refusal.
   */
  finish?(
    req: IncomingMessage,
    callback: LoginCallback,
  ): Promise<{
    /** The id of the pending authorization request this callback completes (its `LoginRequest.pendingId`). */
    pendingId: string;
    /** Who signed in at the IdP. */
    identity: Identity;
  }>;
}

/** A login that did not succeed: the user refused, the IdP failed, or the callback is not ours. */
export class LoginError extends Error {
  override readonly name = 'LoginError';

  /**
   * @param error - the OAuth error code the client's redirect carries (`access_denied`, `server_error`, …)
   * @param message - what happened, without secrets
   * @param pendingId - the pending request, when known: its client gets the error by redirect
   */
  constructor(
    readonly error: string,
    message: string,
    readonly pendingId?: string,
  ) {
    super(message);
  }
}

/**
 * An app hook's answer naming a user (`signIn`, `mapIdentity`), checked: a wrong shape is the app's bug, thrown as an
 * Error (the endpoint logs it and answers 500), never a token for nobody. Undefined for `null` or `undefined`.
 *
 * @param hook - the option, for the message: `'signIn'`
 * @param shape - what the hook must return, for the message
 */
export function checkedIdentity(found: unknown, hook: string, shape: string): Identity | undefined {
  if (found === undefined || found === null) return undefined;
  const { subject, scopes } = found as { subject?: unknown; scopes?: unknown };
  if (typeof found !== 'object' || typeof subject !== 'string' || subject === '')
    throw new Error(`mcpRouter: auth.server.${hook} must return ${shape}`);
  if (scopes !== undefined && (!Array.isArray(scopes) || !scopes.every((scope) => typeof scope === 'string')))
    throw new Error(`mcpRouter: auth.server.${hook} returned scopes that are not an array of strings`);
  return scopes === undefined ? { subject } : { subject, scopes: [...(scopes as string[])] };
}
