// oidcUpstream(): the login step of the OAuth proxy mode: the user signs in at an existing IdP, the router keeps its tokens.

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { requireJoseFor } from '../../../edge/security/jose';
import { LoginError } from '../browser/login';
import type { Identity, LoginCallback, LoginRequest, LoginStep } from '../browser/login';
import { providerText } from './idp-http';
import { cookieOf, singleParameter } from '../parameters';
import { idpEndpoints } from './idp-endpoints';
import type { IdpEndpoints } from './idp-endpoints';
import { resolveIdpOptions } from './oidc-idp-options';
import type { OidcUpstreamOptions } from './oidc-idp-options';
import { exchangeCode, identify } from './idp-tokens';

/** How long a sign-in at the IdP may take, from the redirect to the callback. */
export const IDP_LOGIN_TTL_MS = 10 * 60_000;

/** IdP errors (RFC 6749 §4.1.2.1) that mean the same to the router's client; any other is the router's problem. */
const PASSED_ON_ERRORS = new Set(['access_denied', 'temporarily_unavailable']);

/** A fresh random value: 32 bytes, base64url (RFC 7636 §4.1: a verifier of 43 characters). */
const random = (): string => randomBytes(32).toString('base64url');
const sha256 = (text: string): Buffer => createHash('sha256').update(text).digest();

/**
 * The cookie that ties the IdP's callback to the browser that left for the IdP: a callback reached in
 * another browser (a victim sent a login link someone else started) is refused before any code is exchanged
 * (RFC 9700 §4.7 login CSRF; the MCP security best practices' confused deputy). Its name carries part of the state,
 * so sign-ins running side by side in one browser keep their own.
 */
const bindingCookie = (state: string): string => `mcp_upstream_${state.slice(0, 16)}`;

function setBindingCookie(res: ServerResponse, state: string, value: string, callbackUrl: URL): void {
  const secure = callbackUrl.protocol === 'https:' ? '; Secure' : '';
  // SameSite=Lax: the provider brings the browser back with a top-level GET, which carries it.
  const cookie = `${bindingCookie(state)}=${value}; Path=${callbackUrl.pathname}; Max-Age=${IDP_LOGIN_TTL_MS / 1000}; HttpOnly; SameSite=Lax${secure}`;
  const previous = res.getHeader('set-cookie');
  res.setHeader('set-cookie', [
    ...(Array.isArray(previous) ? previous : typeof previous === 'string' ? [previous] : []),
    cookie,
  ]);
}

function bindingMatches(req: IncomingMessage, state: string, digest: unknown): boolean {
  const value = cookieOf(req, bindingCookie(state));
  if (value === undefined || typeof digest !== 'string') return false;
  return timingSafeEqual(sha256(value), Buffer.from(digest, 'base64url'));
}

/**
 * The login step of the OAuth proxy mode: the router sends the user to an existing identity provider, the IdP (any
 * OpenID Connect provider by its discovery document, or a plain OAuth 2.0 provider such as GitHub by explicit endpoints),
 * with its own state, PKCE and nonce; at `<issuer>/oauth/callback` it exchanges the provider's code, verifies the ID
 * token (or asks the userinfo endpoint) and maps the user to a subject. The provider's tokens stay on the server
 * (`ctx.auth.extra.upstream`); the router issues its own to the client.
 *
 * The router's redirect URI at the provider is `<router issuer>/oauth/callback`: register it there once.
 *
 * @throws {McpConfigError} for a bad option, naming it (`oidcUpstream.clientId`, …)
 * @example
 * ```ts
 * const mcp = mcpRouter({
 *   name: 'inventory', version: '1.0.0',
 *   auth: { server: { upstream: oidcUpstream({ issuer: 'https://login.example.com', clientId: 'mcp', clientSecret }) } },
 * });
 * // GitHub (plain OAuth 2.0): explicit endpoints, its numeric user id as the subject
 * oidcUpstream({
 *   clientId, clientSecret, subjectClaim: 'id', scopes: ['read:user'],
 *   authorizationEndpoint: 'https://github.com/login/oauth/authorize',
 *   tokenEndpoint: 'https://github.com/login/oauth/access_token',
 *   userinfoEndpoint: 'https://api.github.com/user',
 * });
 * ```
 */
export function oidcUpstream(options: OidcUpstreamOptions): LoginStep {
  const config = resolveIdpOptions(options);
  if (config.issuer !== undefined) requireJoseFor('oidcUpstream.issuer'); // its ID tokens are checked with jose
  const endpoints = idpEndpoints(config);

  async function start(_req: IncomingMessage, res: ServerResponse, request: LoginRequest): Promise<undefined> {
    let provider: IdpEndpoints;
    try {
      provider = await endpoints();
    } catch (err) {
      throw err instanceof LoginError ? new LoginError(err.error, err.message, request.pendingId) : err;
    }
    const state = random();
    const verifier = random();
    const nonce = random();
    const binding = random();
    await request.store.set(
      'upstream',
      state,
      { pendingId: request.pendingId, verifier, nonce, binding: sha256(binding).toString('base64url') },
      IDP_LOGIN_TTL_MS,
    );
    const url = new URL(provider.authorizationEndpoint);
    for (const [name, value] of Object.entries(config.extraAuthorizeParams)) url.searchParams.set(name, value);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', config.clientId);
    url.searchParams.set('redirect_uri', request.callbackUrl);
    if (config.scopes.length > 0) url.searchParams.set('scope', config.scopes.join(' '));
    url.searchParams.set('state', state);
    url.searchParams.set('code_challenge', sha256(verifier).toString('base64url'));
    url.searchParams.set('code_challenge_method', 'S256');
    if (provider.idToken !== undefined) url.searchParams.set('nonce', nonce);
    setBindingCookie(res, state, binding, new URL(request.callbackUrl));
    res.statusCode = 302;
    res.setHeader('location', url.href);
    res.setHeader('cache-control', 'no-store');
    res.end();
    return undefined;
  }

  async function finish(
    req: IncomingMessage,
    callback: LoginCallback,
  ): Promise<{ pendingId: string; identity: Identity }> {
    const query = new URL(req.url ?? '', 'http://callback.invalid').searchParams;
    const noState = (): LoginError => new LoginError('invalid_request', 'the callback has no single state parameter');
    const state = singleParameter(query, 'state', noState);
    if (state === undefined || state.length > 128) throw noState();
    // Taken, not read: a state is good for one callback (a replayed callback finds nothing).
    const saved = await callback.store.take('upstream', state);
    if (saved === undefined || typeof saved.pendingId !== 'string')
      throw new LoginError(
        'invalid_request',
        'the callback names a sign-in this server did not start, or one already finished or expired',
      );
    if (!bindingMatches(req, state, saved.binding))
      throw new LoginError(
        'invalid_request',
        'the callback did not come back to the browser that started this sign-in',
      );
    const { pendingId } = saved;
    const fail = (error: string, message: string): LoginError => new LoginError(error, message, pendingId);
    try {
      const provider = await endpoints();
      // RFC 9207 §2.4: an `iss` not the provider's is a mix-up attack; one missing is refused when the provider sends it
      // always. Without a configured issuer (plain OAuth 2.0) there is nothing to compare it with.
      const iss = query.get('iss');
      const issWrong = iss !== null ? iss !== provider.issuer || query.getAll('iss').length > 1 : provider.issRequired;
      if (config.issuer !== undefined && issWrong) {
        throw fail(
          'server_error',
          `the provider's answer has the issuer ${JSON.stringify(iss)}, not ${JSON.stringify(provider.issuer)} (RFC 9207)`,
        );
      }
      const providerError = query.get('error');
      if (providerError !== null) {
        const description = providerText(query.get('error_description'));
        const code = PASSED_ON_ERRORS.has(providerError) ? providerError : 'server_error';
        throw fail(
          code,
          `the provider answered ${providerText(providerError)}${description ? `: ${description}` : ''}`,
        );
      }
      const noCode = (): LoginError => fail('invalid_request', "the provider's answer has no single code parameter");
      const code = singleParameter(query, 'code', noCode);
      if (code === undefined) throw noCode();
      const tokens = await exchangeCode(config, provider, code, String(saved.verifier), callback.callbackUrl);
      const identity = await identify(config, provider, tokens, String(saved.nonce));
      return { pendingId, identity };
    } catch (err) {
      if (err instanceof LoginError) throw err.pendingId === undefined ? fail(err.error, err.message) : err;
      throw err;
    }
  }

  return Object.freeze({ kind: 'oidcUpstream', start, finish });
}
