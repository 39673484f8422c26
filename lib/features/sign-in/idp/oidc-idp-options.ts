// oidcUpstream's options: what a caller may pass, their defaults, and the one check that turns them into a frozen config.

import {
  McpConfigError,
  definedOnly,
  invalidOption,
  isPositiveInteger,
  rejectUnknownKeys,
} from '../../../options/config-error';
import type { OptionKeys } from '../../../options/config-error';

/** How the router proves itself to the provider's token endpoint (RFC 6749 §2.3.1). */
export type UpstreamTokenAuthMethod = 'client_secret_basic' | 'client_secret_post';

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
  tokenAuthMethod?: UpstreamTokenAuthMethod;
  /** More parameters for the provider's authorization request, e.g. `{ prompt: 'consent' }`. Defaults to none. */
  extraAuthorizeParams?: Record<string, string>;
  /** The most any one call to the provider may take, in ms. Defaults to `10000` (10 s). */
  timeoutMs?: number;
}

/** The default {@link OidcUpstreamOptions.timeoutMs}. */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 10_000;
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
export interface UpstreamConfig {
  /** The configured issuer, as given: compared exactly with the provider's (OpenID Connect Discovery §4.3). */
  readonly issuer: string | undefined;
  readonly clientId: string;
  readonly clientSecret: string | undefined;
  readonly scopes: readonly string[];
  readonly subjectClaim: string;
  readonly authorizationEndpoint: string | undefined;
  readonly tokenEndpoint: string | undefined;
  readonly userinfoEndpoint: string | undefined;
  readonly tokenAuthMethod: UpstreamTokenAuthMethod | undefined;
  readonly extraAuthorizeParams: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
}

const isNonEmptyString = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/** An https URL, or http on a loopback host (a provider on the developer's machine); nothing else carries secrets. */
function checkUrl(option: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const url = isNonEmptyString(value) && URL.canParse(value) ? new URL(value) : undefined;
  const loopback = url !== undefined && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url === undefined || url.hash !== '' || !(url.protocol === 'https:' || (url.protocol === 'http:' && loopback))) {
    throw invalidOption(
      `oidcUpstream.${option}`,
      'an https URL (http only on localhost, 127.0.0.1 or [::1]) without a fragment',
      value,
    );
  }
  return value as string;
}

/**
 * Checks oidcUpstream's options and fills in their defaults; never changes the caller's object.
 *
 * @throws {McpConfigError} naming the option (`oidcUpstream.clientId`, …) for an unknown key or a bad value
 */
export function resolveUpstreamOptions(options: OidcUpstreamOptions): UpstreamConfig {
  if (typeof options !== 'object' || options === null)
    throw invalidOption('oidcUpstream', 'an options object', options);
  const given = definedOnly(options);
  rejectUnknownKeys(given, KNOWN_KEYS, 'oidcUpstream.');
  if (!isNonEmptyString(given.clientId))
    throw invalidOption('oidcUpstream.clientId', 'a non-empty string', given.clientId);
  if (given.clientSecret !== undefined && !isNonEmptyString(given.clientSecret))
    throw invalidOption('oidcUpstream.clientSecret', 'a non-empty string', '…');
  const issuer = checkUrl('issuer', given.issuer);
  const endpoints = {
    authorizationEndpoint: checkUrl('authorizationEndpoint', given.authorizationEndpoint),
    tokenEndpoint: checkUrl('tokenEndpoint', given.tokenEndpoint),
    userinfoEndpoint: checkUrl('userinfoEndpoint', given.userinfoEndpoint),
  };
  if (issuer === undefined) {
    for (const [name, value] of Object.entries(endpoints)) {
      if (value === undefined)
        throw new McpConfigError(
          'ERR_MCP_INVALID_OPTION',
          `option 'oidcUpstream.${name}' is required without 'oidcUpstream.issuer' (a plain OAuth 2.0 provider has no discovery document)`,
        );
    }
  }
  const scopes = given.scopes ?? (issuer === undefined ? [] : DEFAULT_OIDC_SCOPES);
  // RFC 6749 §3.3: scope tokens are printable ASCII without spaces, quotes or backslashes.
  if (
    !Array.isArray(scopes) ||
    !scopes.every((scope) => typeof scope === 'string' && /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope))
  ) {
    throw invalidOption('oidcUpstream.scopes', 'an array of scope tokens (printable ASCII, no spaces)', scopes);
  }
  const subjectClaim = given.subjectClaim ?? 'sub';
  if (!isNonEmptyString(subjectClaim))
    throw invalidOption('oidcUpstream.subjectClaim', 'a non-empty string', subjectClaim);
  if (
    given.tokenAuthMethod !== undefined &&
    given.tokenAuthMethod !== 'client_secret_basic' &&
    given.tokenAuthMethod !== 'client_secret_post'
  ) {
    throw invalidOption(
      'oidcUpstream.tokenAuthMethod',
      "'client_secret_basic' or 'client_secret_post'",
      given.tokenAuthMethod,
    );
  }
  if (given.tokenAuthMethod !== undefined && given.clientSecret === undefined) {
    throw new McpConfigError(
      'ERR_MCP_INVALID_OPTION',
      "option 'oidcUpstream.tokenAuthMethod' needs 'oidcUpstream.clientSecret' (a public client sends no secret)",
    );
  }
  const extra = given.extraAuthorizeParams ?? {};
  if (
    typeof extra !== 'object' ||
    extra === null ||
    Array.isArray(extra) ||
    !Object.values(extra).every((value) => typeof value === 'string')
  ) {
    throw invalidOption('oidcUpstream.extraAuthorizeParams', 'an object of string values', extra);
  }
  const taken = Object.keys(extra).find((key) => OWN_AUTHORIZE_PARAMS.includes(key));
  if (taken !== undefined)
    throw new McpConfigError(
      'ERR_MCP_INVALID_OPTION',
      `option 'oidcUpstream.extraAuthorizeParams' may not set '${taken}': the login step writes it itself`,
    );
  const timeoutMs = given.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
  if (!isPositiveInteger(timeoutMs))
    throw invalidOption('oidcUpstream.timeoutMs', 'a positive integer (ms)', timeoutMs);
  return Object.freeze({
    issuer,
    clientId: given.clientId,
    clientSecret: given.clientSecret,
    scopes: Object.freeze([...scopes]),
    subjectClaim,
    ...endpoints,
    tokenAuthMethod: given.tokenAuthMethod,
    extraAuthorizeParams: Object.freeze({ ...extra }),
    timeoutMs,
  });
}
