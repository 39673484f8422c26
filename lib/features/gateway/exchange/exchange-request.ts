// One RFC 8693 token exchange at the IdP: its token endpoint (given, or read from RFC 8414 metadata), the gateway's client authentication, the bounded request and the checked answer.

import { randomUUID } from 'node:crypto';
import { boundedFetch, BoundedFetchError, type BoundedResponse } from '../../../edge/outbound/bounded-fetch';
import { jose } from '../../../edge/security/jose';
import { isObject } from '../../../core/jsonrpc/types';
import { ACCESS_TOKEN_TYPE, type ExchangeConfig, type ResolvedClientAuth } from './exchange-options';

/** RFC 8693 §2.1: the grant type of a token exchange. */
const GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:token-exchange';
/** RFC 7523 §2.2: the client assertion type of `private_key_jwt`. */
const JWT_BEARER_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** RFC 8693 §3: the issued token types the gateway can send as a bearer access token. */
const USABLE_TYPES = new Set([ACCESS_TOKEN_TYPE, 'urn:ietf:params:oauth:token-type:jwt']);
/** How long a client assertion is valid: RFC 7523 §3 wants a short expiry; one minute covers clock skew. */
const ASSERTION_LIFETIME_SEC = 60;

/** Why an exchange gave no usable token. Its message is for the server log (it may quote the IdP's error, never a token). */
export class ExchangeFailure extends Error {
  override readonly name = 'ExchangeFailure';
}

/** A token the IdP issued for the upstream, and when it expires (ms since the epoch; undefined: not said). */
export interface ExchangedToken {
  readonly token: string;
  readonly expiresAt: number | undefined;
}

/** Printable, short text from the IdP for the log: no control characters, at most 200 characters. */
function idpText(value: unknown): string {
  if (typeof value !== 'string') return '';
  const text = value.replace(/[^\x20-\x7e]/g, '');
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}

/** Calls the IdP within the configured bounds; every failure is an {@link ExchangeFailure} saying what went wrong. */
async function call(config: ExchangeConfig, url: URL, init: RequestInit, what: string): Promise<BoundedResponse> {
  try {
    return await boundedFetch(url, init, config.timeoutMs, config.maxBytes);
  } catch (err) {
    const reason = err instanceof BoundedFetchError ? err.reason : 'network';
    if (reason === 'timeout') throw new ExchangeFailure(`${what} did not answer within ${config.timeoutMs} ms`);
    if (reason === 'too-large') throw new ExchangeFailure(`${what} answered with more than ${config.maxBytes} bytes`);
    throw new ExchangeFailure(`${what} could not be reached`);
  }
}

/** A JSON object body, or a failure naming what answered. */
function jsonObject(answer: BoundedResponse, what: string): Record<string, unknown> {
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    throw new ExchangeFailure(`${what} answered HTTP ${answer.status} with something other than JSON`);
  }
  if (!isObject(body))
    throw new ExchangeFailure(`${what} answered HTTP ${answer.status} with JSON that is not an object`);
  return body;
}

function parseUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/** https, or http on a loopback host: a token endpoint that receives client credentials and subject tokens. */
function isSafeEndpoint(url: URL): boolean {
  return (
    url.protocol === 'https:' || (url.protocol === 'http:' && /^(localhost|127(\.\d+){3}|\[::1\])$/.test(url.hostname))
  );
}

/**
 * RFC 8414 §3.1: the metadata of `issuer` at `/.well-known/oauth-authorization-server` inserted before its path, else
 * (an OpenID provider) OpenID Connect Discovery's `<issuer>/.well-known/openid-configuration`; its `issuer` must be the
 * configured one (RFC 8414 §3.3) and its `token_endpoint` https (or loopback http).
 */
export async function discoverTokenEndpoint(config: ExchangeConfig, issuer: string): Promise<URL> {
  const base = new URL(issuer);
  const path = base.pathname.replace(/\/$/, '');
  const candidates = [
    new URL(`/.well-known/oauth-authorization-server${path}`, base),
    new URL(`${path}/.well-known/openid-configuration`, base),
  ];
  for (const url of candidates) {
    const answer = await call(config, url, { headers: { accept: 'application/json' } }, "the IdP's metadata");
    if (answer.status === 404) continue;
    if (answer.status !== 200) throw new ExchangeFailure(`the IdP's metadata answered HTTP ${answer.status}`);
    const metadata = jsonObject(answer, "the IdP's metadata");
    if (metadata.issuer !== issuer) throw new ExchangeFailure("the IdP's metadata names another issuer");
    const endpoint = typeof metadata.token_endpoint === 'string' ? parseUrl(metadata.token_endpoint) : null;
    if (endpoint === null || !isSafeEndpoint(endpoint))
      throw new ExchangeFailure("the IdP's metadata has no https token_endpoint");
    return endpoint;
  }
  throw new ExchangeFailure('the IdP publishes no RFC 8414 or OpenID metadata');
}

/** The gateway's client authentication (RFC 6749 §2.3.1 Basic, or an RFC 7523 §2.2 assertion) added to the request. */
async function authenticate(
  auth: ResolvedClientAuth,
  endpoint: URL,
  form: URLSearchParams,
  headers: Record<string, string>,
): Promise<void> {
  if (auth.method === 'client_secret_basic') {
    // RFC 6749 §2.3.1: the id and secret are form-encoded before Basic encoding.
    const pair = `${encodeURIComponent(auth.clientId)}:${encodeURIComponent(auth.clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
    return;
  }
  const { SignJWT, importJWK, importPKCS8 } = jose();
  const { privateKey, alg, kid, clientId } = auth;
  const key =
    typeof privateKey === 'string'
      ? await importPKCS8(privateKey, alg)
      : 'kty' in privateKey && typeof privateKey.kty === 'string'
        ? await importJWK(privateKey as Parameters<typeof importJWK>[0], alg)
        : (privateKey as Parameters<InstanceType<typeof SignJWT>['sign']>[0]);
  const now = Math.floor(Date.now() / 1000);
  // RFC 7523 §3: iss and sub the client id, aud the token endpoint, a short exp, a jti the IdP may track.
  const assertion = await new SignJWT({})
    .setProtectedHeader(kid === undefined ? { alg } : { alg, kid })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(endpoint.href)
    .setIssuedAt(now)
    .setExpirationTime(now + ASSERTION_LIFETIME_SEC)
    .setJti(randomUUID())
    .sign(key);
  form.set('client_id', clientId);
  form.set('client_assertion_type', JWT_BEARER_ASSERTION);
  form.set('client_assertion', assertion);
}

/**
 * Whether a JWT's `aud` (read without verifying: the upstream verifies it) names the configured audience or resource.
 * A token that is not a JWT, or has no `aud`, is opaque to the gateway: only the upstream can judge it.
 */
function meantFor(token: string, config: ExchangeConfig): { readonly ok: boolean; readonly exp: number | undefined } {
  if (token.split('.').length !== 3) return { ok: true, exp: undefined };
  let claims: Record<string, unknown>;
  try {
    claims = jose().decodeJwt(token);
  } catch {
    return { ok: true, exp: undefined };
  }
  const exp = typeof claims.exp === 'number' ? claims.exp * 1000 : undefined;
  const aud = claims.aud;
  if (aud === undefined) return { ok: true, exp };
  const audiences = Array.isArray(aud) ? aud : [aud];
  return { ok: audiences.some((one) => one === config.audience || one === config.resource), exp };
}

/** RFC 8693 §2.2.1: the issued token, checked; §2.2.2's error (its text for the log only) as a failure. */
function readAnswer(answer: BoundedResponse, config: ExchangeConfig): ExchangedToken {
  const what = "the IdP's token endpoint";
  const body = jsonObject(answer, what);
  if (answer.status !== 200) {
    const error = idpText(body.error);
    const description = idpText(body.error_description);
    throw new ExchangeFailure(
      `${what} refused the exchange (HTTP ${answer.status}${error === '' ? '' : ` ${error}`}${description === '' ? '' : `: ${description}`})`,
    );
  }
  const token = body.access_token;
  if (typeof token !== 'string' || token === '') throw new ExchangeFailure(`${what} answered without an access_token`);
  if (typeof body.token_type !== 'string' || body.token_type.toLowerCase() !== 'bearer')
    throw new ExchangeFailure(`${what} issued a token of type '${idpText(body.token_type)}', not a Bearer token`);
  if (body.issued_token_type !== undefined && !USABLE_TYPES.has(body.issued_token_type as string))
    throw new ExchangeFailure(`${what} issued a '${idpText(body.issued_token_type)}', not an access token`);
  const { ok, exp } = meantFor(token, config);
  if (!ok) throw new ExchangeFailure(`${what} issued a token for another audience`);
  const expiresIn = body.expires_in;
  const expiresAt =
    typeof expiresIn === 'number' && Number.isFinite(expiresIn) && expiresIn >= 0 ? Date.now() + expiresIn * 1000 : exp;
  return { token, expiresAt };
}

/** Exchanges `subjectToken` at `endpoint` for a token for the configured audience (RFC 8693 §2.1). */
export async function exchangeAt(config: ExchangeConfig, endpoint: URL, subjectToken: string): Promise<ExchangedToken> {
  const form = new URLSearchParams({
    grant_type: GRANT_TYPE,
    subject_token: subjectToken,
    subject_token_type: config.subjectTokenType,
    requested_token_type: ACCESS_TOKEN_TYPE,
    audience: config.audience,
  });
  if (config.resource !== undefined) form.set('resource', config.resource);
  if (config.scope !== undefined) form.set('scope', config.scope);
  const headers: Record<string, string> = {
    accept: 'application/json',
    'content-type': 'application/x-www-form-urlencoded',
  };
  await authenticate(config.clientAuth, endpoint, form, headers);
  const answer = await call(
    config,
    endpoint,
    { method: 'POST', headers, body: form.toString() },
    "the IdP's token endpoint",
  );
  // A redirect is not followed (bounded fetch): it would carry the subject token and the gateway's credentials elsewhere.
  if (answer.status >= 300 && answer.status < 400)
    throw new ExchangeFailure(`the IdP's token endpoint answered HTTP ${answer.status}`);
  return readAnswer(answer, config);
}
