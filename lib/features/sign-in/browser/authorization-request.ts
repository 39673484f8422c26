// The authorization request (OAuth 2.1 §4.1.1): checked in the order that decides whether an error may go back by redirect.

import type { OAuthClient } from '../clients/client';
import type { ClientDirectory } from '../clients/clients';
import type { Identity } from './login';
import { OAuthError } from '../oauth-error';
import { singleParameter } from '../parameters';

/** A checked authorization request: what the code will be bound to. */
export interface AuthorizationRequest {
  readonly clientId: string;
  /** How the server knows the client: whether an error goes back before the user acted ({@link errorReturn}). */
  readonly clientSource: OAuthClient['source'];
  readonly redirectUri: string;
  readonly state: string | undefined;
  /** PKCE S256 challenge (RFC 7636; OAuth 2.1 requires PKCE, `plain` is refused). */
  readonly codeChallenge: string;
  /** The scopes asked, within what the server supports. */
  readonly scopes: readonly string[];
  /** The MCP resource the tokens will be for (RFC 8707). */
  readonly resource: string;
  /** A dynamically registered client's record, kept with the authorization and its grant (`Grant.registration`). */
  readonly registration?: Readonly<Record<string, unknown>>;
}

/** How long an authorization may wait for the user's login and consent. */
export const PENDING_TTL_MS = 10 * 60 * 1000;

/** An authorization waiting for login or consent, in the store (kind `'pending'`). */
export interface PendingAuthorization extends AuthorizationRequest {
  readonly identity?: Identity;
  /** The consent form's CSRF token, and the digest of the cookie set with it. */
  readonly csrf?: string;
  readonly browser?: string;
}

/** How an authorization error goes back to the client whose redirect URI was checked. */
export interface ErrorReturn {
  readonly uri: string;
  readonly state: string | undefined;
  /** True: the browser is redirected (RFC 6749 §4.1.2.1). False: the router's error page links there instead. */
  readonly automatic: boolean;
}

/**
 * The one decision on how an authorization error reaches a client whose redirect URI is checked. The browser is
 * redirected at once when the server vouches for the client (pre-registered by the operator) or when the user
 * answered the consent page (the user chose to go back). Otherwise — a client anyone may register (DCR) or name (a
 * metadata document), and no user action yet — the router shows the error on its own page with a link back: an
 * automatic redirect would make the router's origin an open redirector to any URI anyone registers, with text of the
 * requester's choosing in `state` (RFC 9700 §4.11.2).
 *
 * @param clientSource - how the server knows the client; undefined (a stored record without it) counts as unknown
 */
export function errorReturn(
  to: { readonly uri: string; readonly state: string | undefined },
  clientSource: OAuthClient['source'] | undefined,
  userAnswered = false,
): ErrorReturn {
  return { uri: to.uri, state: to.state, automatic: userAnswered || clientSource === 'preregistered' };
}

/**
 * An authorization error. With `redirect` set, the client's redirect URI was checked and the error goes back to it
 * (OAuth 2.1 §4.1.2.1) as {@link errorReturn} decides; without, the browser gets it (never a redirect to a URI the
 * client did not register).
 */
export class AuthorizeError extends OAuthError {
  constructor(
    error: string,
    description: string,
    readonly redirect?: ErrorReturn,
  ) {
    super(error, description);
  }
}

/** A parameter of the request, at most once: a repeated one is shown to the browser, never redirected. */
function single(query: URLSearchParams, name: string): string | undefined {
  return singleParameter(query, name, (message) => new AuthorizeError('invalid_request', message));
}

/** RFC 7636 §4.2: a base64url SHA-256 is 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9\-_]{43}$/;

/**
 * Checks an authorization request: the client and its redirect URI first (errors shown, not redirected), then the
 * rest (errors back to the client with `state`, as {@link errorReturn} decides).
 *
 * @param resource - this server's MCP resource; a `resource` parameter naming another is `invalid_target` (RFC 8707 §2)
 * @param supportedScopes - the server's scopes; others asked for are dropped (RFC 6749 §3.3 lets the server grant fewer)
 * @throws {AuthorizeError}
 */
export async function checkAuthorizationRequest(
  query: URLSearchParams,
  clients: ClientDirectory,
  resource: string,
  supportedScopes: readonly string[],
): Promise<{ client: OAuthClient; request: AuthorizationRequest }> {
  const clientId = single(query, 'client_id');
  if (clientId === undefined) throw new AuthorizeError('invalid_request', 'client_id is missing');
  const client = await clients.find(clientId).catch((err: unknown) => {
    if (err instanceof OAuthError) throw new AuthorizeError(err.error, err.description);
    throw err;
  });
  if (client === undefined)
    throw new AuthorizeError('invalid_client', 'client_id is not a client of this server: register first');
  const asked = single(query, 'redirect_uri');
  // OAuth 2.1 §2.3.1: without redirect_uri, a client with exactly one registered redirect URI uses it.
  const redirectUri = asked ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (redirectUri === undefined) throw new AuthorizeError('invalid_request', 'redirect_uri is missing');
  if (!clients.allowsRedirect(client, redirectUri))
    throw new AuthorizeError(
      'invalid_request',
      'redirect_uri is not one of the client\u2019s registered redirect URIs',
    );

  const state = single(query, 'state');
  const redirect = errorReturn({ uri: redirectUri, state }, client.source);
  const fail = (error: string, description: string): never => {
    throw new AuthorizeError(error, description, redirect);
  };
  const responseType = single(query, 'response_type');
  if (responseType !== 'code') fail('unsupported_response_type', 'response_type must be code');
  if (!client.grantTypes.includes('authorization_code'))
    fail('unauthorized_client', 'the client is not registered for the authorization_code grant');
  const codeChallenge = single(query, 'code_challenge');
  const method = single(query, 'code_challenge_method');
  if (codeChallenge === undefined)
    fail('invalid_request', 'code_challenge is missing: PKCE is required (OAuth 2.1 §4.1.1)');
  if (method !== 'S256') fail('invalid_request', 'code_challenge_method must be S256 (plain is not accepted)');
  if (!S256_CHALLENGE.test(codeChallenge as string))
    fail('invalid_request', 'code_challenge is not a base64url SHA-256');
  const target = single(query, 'resource');
  if (target !== undefined && target.replace(/\/$/, '') !== resource)
    fail('invalid_target', `resource must be this server, ${resource}`);
  const scope = single(query, 'scope');
  const requested = scope === undefined ? [...supportedScopes] : scope.split(' ').filter((name) => name !== '');
  const scopes = [...new Set(requested.filter((name) => supportedScopes.includes(name)))];
  return {
    client,
    request: {
      clientId: client.clientId,
      clientSource: client.source,
      redirectUri: redirectUri as string,
      state,
      codeChallenge: codeChallenge as string,
      scopes,
      resource,
      ...(client.source === 'dynamic' && { registration: { ...client } }),
    },
  };
}

/** The client's redirect URI with the answer's parameters and the issuer (RFC 9207 §2), keeping its own query. */
export function redirectWith(
  uri: string,
  state: string | undefined,
  issuer: string,
  params: Readonly<Record<string, string>>,
): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  if (state !== undefined) url.searchParams.set('state', state);
  url.searchParams.set('iss', issuer);
  return url.href;
}
