// Client metadata (RFC 7591 §2) checked once for every source: redirect URIs, grant and response types, auth method, names.

import { isObject } from '../../../core/jsonrpc/types';
import type { ClientAuthMethod, OAuthClient } from './client';
import { OAuthError } from '../oauth-error';

/** The longest URI kept (redirect, client or logo URI): longer ones are refused, never truncated. */
export const MAX_URI_LENGTH = 2_048;
/** The longest `client_name` kept. */
export const MAX_CLIENT_NAME_LENGTH = 200;
/** The longest `scope` a client may register. */
export const MAX_SCOPE_LENGTH = 1_000;
/** The most redirect URIs one client may register. */
export const MAX_REDIRECT_URIS = 20;

/**
 * The grant types a registered or document client may name (OAuth 2.1: no implicit, no password grant);
 * `client_credentials` is for pre-registered clients only (their `grants` option).
 */
export const GRANT_TYPES: readonly string[] = ['authorization_code', 'refresh_token'];
/** Every token endpoint authentication method this server knows (RFC 7591 §2; private_key_jwt: RFC 7523 §2.2). */
export const AUTH_METHODS: readonly ClientAuthMethod[] = [
  'client_secret_basic',
  'client_secret_post',
  'private_key_jwt',
  'none',
];

/** Loopback hosts on which a redirect may use plain http (OAuth 2.1 §2.3.1, RFC 8252 §7.3). */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
/**
 * Schemes a redirect never uses: they run code or reach local content in the browser (RFC 9700 §4.1; OAuth 2.1
 * §7.12). Other non-http schemes are native apps' private-use schemes (RFC 8252 §7.1): `com.example.app:/cb`, and
 * Cursor's `cursor://…`, which does not follow §7.1's reverse-domain advice but is in use.
 */
const FORBIDDEN_SCHEMES = new Set([
  'javascript:',
  'data:',
  'vbscript:',
  'file:',
  'blob:',
  'about:',
  'filesystem:',
  'ws:',
  'wss:',
  'ftp:',
  'mailto:',
]);
/** RFC 6749 §3.3 scope-token characters, space-separated. */
const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/;

/** Why `uri` cannot be a redirect URI, or undefined when it can. */
export function redirectUriProblem(uri: unknown): string | undefined {
  if (typeof uri !== 'string' || uri.length === 0) return 'must be a non-empty string';
  if (uri.length > MAX_URI_LENGTH) return `must be at most ${MAX_URI_LENGTH} characters`;
  // OAuth 2.1 §2.3.1 / RFC 6749 §3.1.2: MUST NOT include a fragment (even an empty one, which URL drops).
  if (uri.includes('#')) return 'must not contain a fragment';
  if (!URL.canParse(uri)) return 'must be an absolute URL';
  const url = new URL(uri);
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return `must not use the ${url.protocol} scheme`;
  if (url.username !== '' || url.password !== '') return 'must not contain a user name or password';
  if (url.protocol === 'https:') return url.hostname === '' ? 'must name a host' : undefined;
  if (url.protocol === 'http:')
    return LOOPBACK_HOSTS.has(url.hostname)
      ? undefined
      : 'may use http only on a loopback host (127.0.0.1, [::1], localhost); use https';
  return undefined; // a private-use scheme of a native app (RFC 8252 §7.1)
}

/** Why `uri` cannot be a client or logo URI (shown on the consent page: https only), or undefined. */
function webUriProblem(uri: unknown): string | undefined {
  if (typeof uri !== 'string' || uri.length > MAX_URI_LENGTH || !URL.canParse(uri))
    return `must be an absolute URL of at most ${MAX_URI_LENGTH} characters`;
  return new URL(uri).protocol === 'https:' ? undefined : 'must be an https URL';
}

/** A list member of the metadata: an array of strings, each among `allowed`; `fallback` when absent. */
function listOf(
  metadata: Record<string, unknown>,
  key: string,
  allowed: readonly string[],
  fallback: readonly string[],
): string[] {
  const value = metadata[key];
  if (value === undefined) return [...fallback];
  if (!Array.isArray(value) || value.length === 0 || !value.every((item) => typeof item === 'string')) {
    throw new OAuthError('invalid_client_metadata', `${key} must be a non-empty array of strings`);
  }
  const unsupported = value.find((item) => !allowed.includes(item));
  if (unsupported !== undefined)
    throw new OAuthError(
      'invalid_client_metadata',
      `${key}: '${unsupported}' is not supported (supported: ${allowed.join(', ')})`,
    );
  return [...new Set(value as string[])];
}

function optionalText(
  metadata: Record<string, unknown>,
  key: string,
  check: (value: unknown) => string | undefined,
): string | undefined {
  const value = metadata[key];
  if (value === undefined) return undefined;
  const problem = check(value);
  if (problem !== undefined) throw new OAuthError('invalid_client_metadata', `${key} ${problem}`);
  return value as string;
}

/**
 * An optional URL member (`client_uri`, `logo_uri`): an empty string is the member left out, as clients send it for
 * "none" (mcp-use outside a browser registers `client_uri: ""`); it is dropped, not kept or answered. A non-empty
 * value must be a URL {@link webUriProblem} accepts.
 */
function optionalUrl(metadata: Record<string, unknown>, key: string): string | undefined {
  return metadata[key] === '' ? undefined : optionalText(metadata, key, webUriProblem);
}

/** What a client's metadata says, checked: the parts of {@link OAuthClient} that come from the client itself. */
export type CheckedMetadata = Pick<
  OAuthClient,
  | 'clientName'
  | 'clientUri'
  | 'logoUri'
  | 'redirectUris'
  | 'tokenEndpointAuthMethod'
  | 'grantTypes'
  | 'scope'
  | 'dpopBoundAccessTokens'
>;

/**
 * Checks client metadata (RFC 7591 §2), from a registration request or a Client ID Metadata Document. Unknown
 * members are ignored (RFC 7591 §2: "the authorization server MUST ignore any client metadata … it does not
 * understand": `tos_uri`, `policy_uri`…, neither checked nor kept); known ones are checked, never truncated; an
 * optional URL given as `""` is absent. A `private_key_jwt` client's `jwks`/`jwks_uri` are checked by `checkClientKeys`.
 *
 * @param metadata - the parsed JSON
 * @param defaultAuthMethod - the method when none is named: `client_secret_basic` for registration (RFC 7591 §2),
 *   `none` for a metadata document (which cannot hold a shared secret)
 * @throws {OAuthError} `invalid_redirect_uri` or `invalid_client_metadata` (RFC 7591 §3.2.2)
 */
export function checkClientMetadata(metadata: unknown, defaultAuthMethod: ClientAuthMethod): CheckedMetadata {
  if (!isObject(metadata)) throw new OAuthError('invalid_client_metadata', 'the client metadata must be a JSON object');
  const uris = metadata.redirect_uris;
  // OAuth 2.1 §2.3.1: every client registers its redirect URIs; RFC 7591 §2 makes them required for redirect flows.
  if (!Array.isArray(uris) || uris.length === 0)
    throw new OAuthError('invalid_redirect_uri', 'redirect_uris must be a non-empty array of URLs');
  if (uris.length > MAX_REDIRECT_URIS)
    throw new OAuthError('invalid_redirect_uri', `redirect_uris may hold at most ${MAX_REDIRECT_URIS} URLs`);
  uris.forEach((uri, index) => {
    const problem = redirectUriProblem(uri);
    if (problem !== undefined) throw new OAuthError('invalid_redirect_uri', `redirect_uris[${index}] ${problem}`);
  });
  const method = metadata.token_endpoint_auth_method ?? defaultAuthMethod;
  if (typeof method !== 'string' || !(AUTH_METHODS as readonly string[]).includes(method)) {
    throw new OAuthError(
      'invalid_client_metadata',
      `token_endpoint_auth_method must be one of ${AUTH_METHODS.join(', ')}`,
    );
  }
  const grantTypes = listOf(metadata, 'grant_types', GRANT_TYPES, ['authorization_code']);
  if (!grantTypes.includes('authorization_code'))
    throw new OAuthError('invalid_client_metadata', "grant_types must include 'authorization_code'");
  listOf(metadata, 'response_types', ['code'], ['code']);
  // RFC 9449 §5.2: a boolean, false when absent.
  const dpopBound = metadata.dpop_bound_access_tokens;
  if (dpopBound !== undefined && typeof dpopBound !== 'boolean')
    throw new OAuthError('invalid_client_metadata', 'dpop_bound_access_tokens must be true or false');
  return {
    ...(dpopBound === true && { dpopBoundAccessTokens: true }),
    redirectUris: [...new Set(uris as string[])],
    tokenEndpointAuthMethod: method as ClientAuthMethod,
    grantTypes,
    clientName: optionalText(metadata, 'client_name', (value) =>
      typeof value === 'string' && value.length > 0 && value.length <= MAX_CLIENT_NAME_LENGTH
        ? undefined
        : `must be a string of 1 to ${MAX_CLIENT_NAME_LENGTH} characters`,
    ),
    clientUri: optionalUrl(metadata, 'client_uri'),
    logoUri: optionalUrl(metadata, 'logo_uri'),
    scope: optionalText(metadata, 'scope', (value) =>
      typeof value === 'string' && value.length <= MAX_SCOPE_LENGTH && SCOPE.test(value)
        ? undefined
        : `must be space-separated scope tokens (RFC 6749 §3.3), at most ${MAX_SCOPE_LENGTH} characters`,
    ),
  };
}
