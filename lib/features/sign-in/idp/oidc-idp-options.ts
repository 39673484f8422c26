// oidcUpstream's options: what a caller may pass, their defaults, and the one check that turns them into a frozen config.

import { McpConfigError, type OptionKeys } from '../../../options/config-error';
import { OptionReader } from '../../../options/option-reader';

/** How the router proves itself to the IdP's token endpoint (RFC 6749 §2.3.1). */
export type IdpTokenAuthMethod = 'client_secret_basic' | 'client_secret_post';

/** Options of {@link oidcUpstream}: the provider the router sends users to, and the client it is registered as there. */
export interface OidcUpstreamOptions {
  /**
   * The provider's issuer: its discovery document is read from `<issuer>/.well-known/openid-configuration` (once,
   * cached) and ID tokens are checked against it. Leave it out for a plain OAuth 2.0 provider (GitHub) and give
   * `authorizationEndpoint`, `tokenEndpoint` and `userinfoEndpoint` instead. https, or http on loopback only.
   * Defaults to none (plain OAuth 2.0).
   */
  issuer?: string;
  /** The router's client id at the provider, registered with the redirect URI `<router issuer>/oauth/callback`. Required. */
  clientId: string;
  /** The router's client secret at the provider. Defaults to none (a public client: PKCE only, `client_id` in the body). */
  clientSecret?: string;
  /**
   * The scopes asked of the provider. Defaults to `['openid', 'profile', 'email']` with an `issuer`, and to none
   * (the provider's default) without one.
   */
  scopes?: string[];
  /**
   * The claim that becomes the router's subject: read from the verified ID token, else from the userinfo answer. A
   * string, or a number made a string. For GitHub: `'id'` (stable) or `'login'`. Defaults to `'sub'`.
   */
  subjectClaim?: string;
  /** The provider's authorization endpoint. Defaults to the discovery document's; required without `issuer`. */
  authorizationEndpoint?: string;
  /** The provider's token endpoint. Defaults to the discovery document's; required without `issuer`. */
  tokenEndpoint?: string;
  /** The provider's userinfo endpoint. Defaults to the discovery document's; required without `issuer`. */
  userinfoEndpoint?: string;
  /**
   * How the router authenticates at the token endpoint. Defaults to `client_secret_basic` when the discovery document
   * lists it (or lists nothing: RFC 8414 §2), else `client_secret_post`; `client_secret_post` without `issuer`.
   */
  tokenAuthMethod?: IdpTokenAuthMethod;
  /** More parameters for the provider's authorization request, e.g. `{ prompt: 'consent' }`. Defaults to none. */
  extraAuthorizeParams?: Record<string, string>;
  /** The most any one call to the provider may take, in ms. Defaults to `10000` (10 s). */
  timeoutMs?: number;
}

/** The default {@link OidcUpstreamOptions.timeoutMs}. */
export const DEFAULT_IDP_TIMEOUT_MS = 10_000;
const DEFAULT_OIDC_SCOPES: readonly string[] = ['openid', 'profile', 'email'];

/** Parameters the login step writes itself: an `extraAuthorizeParams` key may not replace one. */
const OWN_AUTHORIZE_PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'nonce',
];

const KNOWN_KEYS: OptionKeys<OidcUpstreamOptions> = {
  issuer: true,
  clientId: true,
  clientSecret: true,
  scopes: true,
  subjectClaim: true,
  authorizationEndpoint: true,
  tokenEndpoint: true,
  userinfoEndpoint: true,
  tokenAuthMethod: true,
  extraAuthorizeParams: true,
  timeoutMs: true,
};

/** oidcUpstream's options, checked and defaulted. Internal. */
export interface IdpConfig {
  /** The configured issuer, as given: compared exactly with the IdP's (OpenID Connect Discovery §4.3). */
  readonly issuer: string | undefined;
  readonly clientId: string;
  readonly clientSecret: string | undefined;
  readonly scopes: readonly string[];
  readonly subjectClaim: string;
  readonly authorizationEndpoint: string | undefined;
  readonly tokenEndpoint: string | undefined;
  readonly userinfoEndpoint: string | undefined;
  readonly tokenAuthMethod: IdpTokenAuthMethod | undefined;
  readonly extraAuthorizeParams: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
}

type Read = OptionReader<OidcUpstreamOptions>;
type UrlKey = 'issuer' | 'authorizationEndpoint' | 'tokenEndpoint' | 'userinfoEndpoint';

/** RFC 6749 §3.3: a scope token is printable ASCII without spaces, quotes or backslashes. */
const isScopeToken = (value: unknown): value is string =>
  typeof value === 'string' && /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(value);

/** An https URL, or http on a loopback host (an IdP on the developer's machine), without a fragment: nothing else carries secrets. */
function urlOf(read: Read, key: UrlKey): string | undefined {
  const url = read.url(key, { https: true });
  if (url === undefined) return undefined;
  if (url.hash !== '') throw read.invalid(key, 'an https URL without a fragment');
  return String(read.raw(key));
}

/** The endpoints: each one given, and all three required without an issuer (no discovery document to read them from). */
function endpointsOf(read: Read, issuer: string | undefined): Pick<IdpConfig, Exclude<UrlKey, 'issuer'>> {
  const endpoints = {
    authorizationEndpoint: urlOf(read, 'authorizationEndpoint'),
    tokenEndpoint: urlOf(read, 'tokenEndpoint'),
    userinfoEndpoint: urlOf(read, 'userinfoEndpoint'),
  };
  const missing = Object.entries(endpoints).find(([, value]) => value === undefined)?.[0];
  if (issuer === undefined && missing !== undefined)
    throw new McpConfigError(
      'ERR_MCP_INVALID_OPTION',
      `option '${read.pathOf(missing as UrlKey)}' is required without '${read.pathOf('issuer')}' (a plain OAuth 2.0 provider has no discovery document)`,
    );
  return endpoints;
}

/** The client's secret: never quoted in a message, which may reach logs. */
function secretOf(read: Read): string | undefined {
  const secret = read.raw('clientSecret');
  if (secret !== undefined && (typeof secret !== 'string' || secret === ''))
    throw read.invalid('clientSecret', 'a non-empty string', '…');
  return secret;
}

/** The token endpoint authentication: one of the two secret methods, and only with a secret to send. */
function tokenAuthMethodOf(read: Read, clientSecret: string | undefined): IdpTokenAuthMethod | undefined {
  if (read.raw('tokenAuthMethod') === undefined) return undefined;
  const method = read.oneOf('tokenAuthMethod', ['client_secret_basic', 'client_secret_post'], 'client_secret_basic');
  if (clientSecret === undefined)
    throw new McpConfigError(
      'ERR_MCP_INVALID_OPTION',
      `option '${read.pathOf('tokenAuthMethod')}' needs '${read.pathOf('clientSecret')}' (a public client sends no secret)`,
    );
  return method;
}

/** More authorization parameters: string values, none of those the login step writes itself. */
function extraParamsOf(read: Read): Readonly<Record<string, string>> {
  const extra = read.raw('extraAuthorizeParams') ?? {};
  if (
    typeof extra !== 'object' ||
    extra === null ||
    Array.isArray(extra) ||
    !Object.values(extra).every((value) => typeof value === 'string')
  )
    throw read.invalid('extraAuthorizeParams', 'an object of string values');
  const taken = Object.keys(extra).find((key) => OWN_AUTHORIZE_PARAMS.includes(key));
  if (taken !== undefined)
    throw read.invalid('extraAuthorizeParams', `free of the parameters the login step writes itself ('${taken}')`);
  return Object.freeze({ ...extra });
}

/**
 * Checks oidcUpstream's options and fills in their defaults; never changes the caller's object.
 *
 * @throws {McpConfigError} naming the option (`oidcUpstream.clientId`, …) for an unknown key or a bad value
 */
export function resolveIdpOptions(options: OidcUpstreamOptions): IdpConfig {
  const read = OptionReader.of(options, 'oidcUpstream', KNOWN_KEYS);
  const clientId = read.string('clientId', { nonEmpty: true, required: true });
  const clientSecret = secretOf(read);
  const issuer = urlOf(read, 'issuer');
  const scopes =
    read.array('scopes', isScopeToken, 'an array of scope tokens (printable ASCII, no spaces)') ??
    (issuer === undefined ? [] : DEFAULT_OIDC_SCOPES);
  return Object.freeze({
    issuer,
    clientId,
    clientSecret,
    scopes: Object.freeze([...scopes]),
    subjectClaim: read.string('subjectClaim', { nonEmpty: true }) ?? 'sub',
    ...endpointsOf(read, issuer),
    tokenAuthMethod: tokenAuthMethodOf(read, clientSecret),
    extraAuthorizeParams: extraParamsOf(read),
    timeoutMs: read.milliseconds('timeoutMs', DEFAULT_IDP_TIMEOUT_MS),
  });
}
