// The back channel of a sign-in at the IdP: the code exchanged for the IdP's tokens, and the user found in them.

import type { JWTPayload } from '../../../edge/security/jose-types';
import { LoginError } from '../browser/login';
import { callProvider, providerText } from './idp-http';
import type { IdpEndpoints } from './idp-endpoints';
import type { IdpConfig } from './oidc-idp-options';

/**
 * What the router keeps of a sign-in at the IdP: on the server only (no token passthrough, MCP security best
 * practices), for handlers as `ctx.auth.extra.upstream`.
 */
// A type, not an interface: it is an Identity's `upstream` record, which a type alias satisfies.
export type IdpTokens = {
  /** The provider's issuer (for a plain OAuth 2.0 provider, its authorization endpoint's origin). */
  readonly issuer: string;
  /** The provider's access token, for calling its APIs on the user's behalf. */
  readonly accessToken: string;
  /** The provider's refresh token, when it issued one (for a new access token once this one expires). */
  readonly refreshToken?: string;
  /** When the access token expires, in seconds since the epoch (from `expires_in`). */
  readonly expiresAt?: number;
  /** The verified ID token's claims (OIDC). */
  readonly idTokenClaims?: Readonly<JWTPayload>;
  /** The scopes the provider granted, when it said (RFC 6749 §5.1). */
  readonly scope?: string;
};

/** The provider's token answer, checked. */
interface TokenAnswer {
  readonly accessToken: string;
  readonly refreshToken: string | undefined;
  readonly expiresIn: number | undefined;
  readonly idToken: string | undefined;
  readonly scope: string | undefined;
}

const optionalString = (value: unknown): string | undefined =>
  typeof value === 'string' && value.length > 0 ? value : undefined;

/** Exchanges the authorization code at the token endpoint (RFC 6749 §4.1.3, RFC 7636 §4.5). */
export async function exchangeCode(
  config: IdpConfig,
  endpoints: IdpEndpoints,
  code: string,
  verifier: string,
  callbackUrl: string,
): Promise<TokenAnswer> {
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: callbackUrl,
    code_verifier: verifier,
  });
  const headers: Record<string, string> = {};
  if (endpoints.tokenAuthMethod === 'client_secret_basic') {
    // RFC 6749 §2.3.1: id and secret are form-encoded before they are joined and base64-encoded.
    const encode = (value: string): string => new URLSearchParams({ v: value }).toString().slice(2);
    headers.authorization = `Basic ${Buffer.from(`${encode(config.clientId)}:${encode(config.clientSecret ?? '')}`).toString('base64')}`;
  } else {
    form.set('client_id', config.clientId);
    if (endpoints.tokenAuthMethod === 'client_secret_post') form.set('client_secret', config.clientSecret ?? '');
  }
  const { status, body } = await callProvider(
    "the provider's token endpoint",
    endpoints.tokenEndpoint,
    { method: 'POST', headers, form },
    config.timeoutMs,
  );
  // Some providers (GitHub) answer a refused code with 200 and an `error`: the error wins whatever the status.
  if (body.error !== undefined || status !== 200) {
    const reason = providerText(body.error) || `HTTP ${status}`;
    const description = providerText(body.error_description);
    throw new LoginError(
      'server_error',
      `the provider's token endpoint refused the code: ${reason}${description ? ` (${description})` : ''}`,
    );
  }
  const accessToken = optionalString(body.access_token);
  if (accessToken === undefined)
    throw new LoginError('server_error', "the provider's token endpoint answered without an access_token");
  // RFC 6749 §7.1: a client does not use a token whose type it does not understand.
  if (
    body.token_type !== undefined &&
    (typeof body.token_type !== 'string' || body.token_type.toLowerCase() !== 'bearer')
  ) {
    throw new LoginError(
      'server_error',
      `the provider's token endpoint answered with a token of type ${providerText(body.token_type)}, not Bearer`,
    );
  }
  // RFC 6749 §5.1 makes expires_in a number; some providers send it as text.
  const seconds = typeof body.expires_in === 'string' ? Number(body.expires_in) : body.expires_in;
  const expiresIn = typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
  return {
    accessToken,
    refreshToken: optionalString(body.refresh_token),
    expiresIn,
    idToken: optionalString(body.id_token),
    scope: optionalString(body.scope),
  };
}

/** The userinfo answer (OIDC Core §5.3), read with the provider's access token. */
async function userinfo(
  config: IdpConfig,
  endpoint: string,
  accessToken: string,
): Promise<Readonly<Record<string, unknown>>> {
  const { status, body } = await callProvider(
    "the provider's userinfo endpoint",
    endpoint,
    { headers: { authorization: `Bearer ${accessToken}` } },
    config.timeoutMs,
  );
  if (status !== 200)
    throw new LoginError(
      'server_error',
      `the provider's userinfo endpoint answered HTTP ${status}${body.error ? ` (${providerText(body.error)})` : ''}`,
    );
  return body;
}

/** The subject: the configured claim, a non-empty string or a finite number (GitHub's numeric `id`), as text. */
function subjectOf(claims: Readonly<Record<string, unknown>>, claim: string): string | undefined {
  const value = claims[claim];
  if (typeof value === 'string' && value.length > 0) return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/**
 * Who signed in: the subject claim of the verified ID token, else of the userinfo answer; and what the server keeps
 * of the provider's tokens.
 *
 * @throws {LoginError} `server_error` when the ID token is refused or neither source has the claim
 */
export async function identify(
  config: IdpConfig,
  endpoints: IdpEndpoints,
  answer: TokenAnswer,
  nonce: string,
): Promise<{ subject: string; upstream: IdpTokens }> {
  let idTokenClaims: Readonly<JWTPayload> | undefined;
  if (endpoints.idToken !== undefined && config.scopes.includes('openid')) {
    // OIDC Core §3.1.3.3: a token answer to an openid request carries an ID token.
    if (answer.idToken === undefined)
      throw new LoginError(
        'server_error',
        "the provider's token endpoint answered an openid request without an id_token",
      );
    idTokenClaims = await endpoints.idToken(answer.idToken, nonce);
  }
  let subject = idTokenClaims && subjectOf(idTokenClaims, config.subjectClaim);
  if (subject === undefined && endpoints.userinfoEndpoint !== undefined) {
    const claims = await userinfo(config, endpoints.userinfoEndpoint, answer.accessToken);
    // OIDC Core §5.3.2: a userinfo answer about another user than the ID token's is not used.
    if (idTokenClaims !== undefined && claims.sub !== idTokenClaims.sub)
      throw new LoginError('server_error', "the provider's userinfo 'sub' is not its ID token's");
    subject = subjectOf(claims, config.subjectClaim);
  }
  if (subject === undefined)
    throw new LoginError(
      'server_error',
      `the provider's answer has no usable '${config.subjectClaim}' claim (a non-empty string or a number)`,
    );
  const upstream: IdpTokens = {
    issuer: endpoints.issuer,
    accessToken: answer.accessToken,
    ...(answer.refreshToken && { refreshToken: answer.refreshToken }),
    ...(answer.expiresIn && { expiresAt: Math.floor(Date.now() / 1000 + answer.expiresIn) }),
    ...(idTokenClaims && { idTokenClaims }),
    ...(answer.scope && { scope: answer.scope }),
  };
  return { subject, upstream };
}
