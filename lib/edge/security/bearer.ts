// Bearer authentication: the `auth` option (checked here, once), static tokens (found by digest), a verify callback, or the host app's own req.auth.

import type { IncomingMessage } from 'node:http';
import { definedOnly, invalidOption, McpConfigError, type OptionKeys } from '../../options/config-error';
import { OptionReader } from '../../options/option-reader';
import { repeatedHeader } from '../http/repeated-headers';
import type { AuthInfo } from '../../core/registry/request-context';
import { tokenDigest } from './token-cache';
import { readDpopOptions, type DpopOptions, type ResolvedDpop } from './dpop-options';
import { credentialOf, type Credential, type DpopFailure, type DpopVerdict } from './dpop-presentation';

/** A static token, with the principal and scopes it stands for. */
export interface StaticToken {
  /** The bearer token a client sends; compared in constant time. */
  token: string;
  /** Defaults to `token-<index>`: never the token itself, which must not appear in logs. */
  subject?: string;
  /** The scopes this token grants, checked against `auth.requiredScopes` and a tool's `scopes`. Defaults to none. */
  scopes?: string[];
}

/** RFC 9728 protected-resource metadata (served at the mount path and by `mcp.authMetadata`, named in every 401 challenge). */
export interface ResourceMetadataOptions {
  /** This server's canonical URI; defaults to the URL the client used to reach the MCP endpoint. */
  resource?: string;
  /** The authorization servers that issue tokens for this resource (required by MCP). */
  authorizationServers: string[];
  /**
   * The scopes this resource knows (metadata `scopes_supported`), named in challenges when no `requiredScopes` are set.
   */
  scopesSupported?: string[];
  /** A human-readable name of this resource for the metadata (`resource_name`). */
  resourceName?: string;
  /** A URL of documentation for developers using this resource (metadata `resource_documentation`). */
  resourceDocumentation?: string;
}

/**
 * The `auth` option: one of `tokens`, `verify`, `fromRequest` or `server`. `Server` is the sign-in feature's
 * options (lib/options.ts names it `AuthServerOptions`); this layer only counts it among the token sources.
 */
export interface BearerAuthOptions<Server extends object = object> {
  /**
   * The router as the OAuth 2.1 authorization server whose tokens it accepts: your app's login (`{ signIn }`) or an
   * existing provider's (`{ upstream: oidcUpstream(…) }`). The protected-resource metadata names it.
   */
  server?: Server;
  /** Static bearer tokens, each listed once, found by their SHA-256 (a lookup's timing reveals nothing of them). */
  tokens?: ReadonlyArray<string | StaticToken>;
  /** Checks a token (JWT, introspection, …): the principal, or null to refuse it. */
  verify?: (token: string, req: IncomingMessage) => AuthInfo | null | undefined | Promise<AuthInfo | null | undefined>;
  /** Uses what the host app's own middleware established, e.g. `(req) => req.auth` (undefined → 401). */
  fromRequest?: (req: IncomingMessage) => AuthInfo | null | undefined;
  /** Scopes every request needs (else 403 insufficient_scope). Defaults to none. */
  requiredScopes?: string[];
  /** RFC 9728 metadata: the authorization servers and more. Without it the document has `resource` and `bearer_methods_supported` only. */
  resourceMetadata?: ResourceMetadataOptions;
  /**
   * The metadata URL 401s name. Defaults to `<origin>/.well-known/oauth-protected-resource<mount path>` when the
   * app mounts `mcp.authMetadata` there, else `<origin><mount path>/.well-known/oauth-protected-resource`, which the router serves itself.
   */
  resourceMetadataUrl?: string;
  /**
   * How DPoP proofs are checked (RFC 9449): tokens bound to a key (`cnf.jkt`) are always taken with the `DPoP`
   * scheme and a proof only, whatever this says. Defaults to `{}` (no nonces, no replay tracking, digest optional).
   */
  dpop?: DpopOptions;
}

/** A static token after checking: its subject and scopes filled in. */
export interface ResolvedToken extends AuthInfo {
  readonly token: string;
}

/**
 * The `auth` option after {@link resolveAuthOptions}: exactly one of `tokens`, `verify` or `fromRequest`, each
 * well-formed; internal, frozen.
 */
export interface ResolvedAuth extends Readonly<
  Omit<BearerAuthOptions, 'tokens' | 'requiredScopes' | 'server' | 'dpop'>
> {
  readonly dpop: ResolvedDpop;
  /** With `auth.server`: what the router's own authorization server tells challenges and metadata (createRouterAuth). */
  readonly server?: { readonly issuer: string | undefined; readonly scopes: readonly string[] };
  readonly tokens?: readonly ResolvedToken[];
  /** Absent when not given: challenges then name the metadata's `scopesSupported` instead. */
  readonly requiredScopes?: readonly string[];
}

const KNOWN_METADATA_OPTIONS: OptionKeys<ResourceMetadataOptions> = {
  resource: true,
  authorizationServers: true,
  scopesSupported: true,
  resourceName: true,
  resourceDocumentation: true,
};

const isString = (value: unknown): value is string => typeof value === 'string';
const isScopeName = (value: unknown): value is string => typeof value === 'string' && value !== '';

const KNOWN_AUTH_OPTIONS: OptionKeys<BearerAuthOptions> = {
  server: true,
  tokens: true,
  verify: true,
  fromRequest: true,
  requiredScopes: true,
  resourceMetadata: true,
  resourceMetadataUrl: true,
  dpop: true,
};

/** The static tokens, each with its subject (`token-<index>` by default) and scopes; each token listed once. */
function resolveTokens(tokens: ReadonlyArray<string | StaticToken>): readonly ResolvedToken[] {
  const indexOf = new Map<string, number>();
  return Object.freeze(
    tokens.map((entry, index) => {
      const {
        token,
        subject = `token-${index}`,
        scopes = [],
      } = typeof entry === 'string' ? { token: entry } : typeof entry === 'object' && entry !== null ? entry : {};
      if (typeof token !== 'string' || token === '')
        throw new McpConfigError(
          'ERR_MCP_INVALID_OPTION',
          `option 'auth.tokens[${index}]' must be a non-empty string or { token, subject?, scopes? }`,
        );
      // One token standing for two principals is ambiguous: which subject and scopes would a request get?
      const first = indexOf.get(token);
      if (first !== undefined)
        throw new McpConfigError(
          'ERR_MCP_INVALID_OPTION',
          `option 'auth.tokens[${index}]' repeats the token of 'auth.tokens[${first}]'`,
        );
      indexOf.set(token, index);
      return Object.freeze({ token, subject, scopes: Object.freeze([...scopes]) });
    }),
  );
}

/**
 * Checks the `auth` option, once, when `mcpRouter()` is called: the one place it is checked.
 *
 * @throws {McpConfigError} `ERR_MCP_UNKNOWN_OPTION` for a key it does not know; `ERR_MCP_INVALID_OPTION` unless exactly
 *   one of `tokens`, `verify`, `fromRequest` is given, well-formed, or for a bad value of another key
 */
export function resolveAuthOptions(auth: BearerAuthOptions): ResolvedAuth {
  if (typeof auth !== 'object' || auth === null)
    throw invalidOption('auth', '{ tokens }, { verify }, { fromRequest } or { server }', auth);
  const read = OptionReader.of<BearerAuthOptions>(auth, 'auth', KNOWN_AUTH_OPTIONS);
  const requiredScopes = read.array('requiredScopes', isScopeName, 'an array of scope names');
  if (read.raw('resourceMetadata') !== undefined) {
    // MCP authorization (RFC 9728): the metadata must name at least one authorization server.
    const metadata = read.nested('resourceMetadata', KNOWN_METADATA_OPTIONS);
    const expected = 'a non-empty array of URLs';
    if (metadata.array('authorizationServers', isString, expected, { nonEmpty: true }) === undefined)
      throw metadata.invalid('authorizationServers', expected);
  }
  const resourceMetadataUrl = read.raw('resourceMetadataUrl');
  if (resourceMetadataUrl !== undefined && typeof resourceMetadataUrl !== 'string')
    throw read.invalid('resourceMetadataUrl', 'a URL');
  const sources = (['tokens', 'verify', 'fromRequest', 'server'] as const).filter((key) => auth[key] !== undefined);
  if (sources.length !== 1) {
    throw new McpConfigError(
      'ERR_MCP_INVALID_OPTION',
      `option 'auth' needs exactly one of 'tokens', 'verify', 'fromRequest' or 'server' (got ${sources.length === 0 ? 'none' : sources.join(', ')})`,
    );
  }
  const tokens = read.raw('tokens');
  // Anything but an array is shown by its type only: it may be a token, which must not end up in a log.
  if (tokens !== undefined && (!Array.isArray(tokens) || tokens.length === 0))
    throw read.invalid('tokens', 'a non-empty array', Array.isArray(tokens) ? tokens : typeof tokens);
  read.fn('verify');
  read.fn('fromRequest');
  const dpop = readDpopOptions(read);
  // Keys the caller did not give stay absent.
  const given = definedOnly({
    ...auth,
    tokens: tokens && resolveTokens(tokens),
    requiredScopes,
    // `auth.server` is the sign-in feature's to check; authentication learns of it from its token issuer.
    server: undefined,
    dpop: undefined,
  }) as Omit<ResolvedAuth, 'dpop'>;
  return Object.freeze({ ...given, dpop });
}

/** Why a request is not authenticated (→ 400/401) or not authorized (→ 403). */
export type AuthFailure =
  'missing' | 'invalid' | 'expired' | 'token_in_query' | 'repeated_header' | 'insufficient_scope' | DpopFailure;

/**
 * The outcome of authenticating one request: the caller (and the body digest its DPoP proof named, checked when
 * the body is read), or the failure (with why, for a DPoP proof).
 */
export type AuthOutcome =
  /** `token`: the token the request presented (absent with `fromRequest`), for the gateway's token exchange only. */
  | { readonly ok: true; readonly auth: AuthInfo; readonly contentDigest?: string; readonly token?: string }
  | { readonly ok: false; readonly failure: AuthFailure; readonly detail?: string };

/** Authenticates requests for one router: at once for static tokens and `fromRequest`, a promise for `verify`. */
export type Authenticate = (req: IncomingMessage) => AuthOutcome | Promise<AuthOutcome>;

/**
 * The header that must come once: Node keeps only the first Authorization in `headers`, so a proxy that reads the
 * last one and this router would act for different principals; RFC 6750 §3.1 makes a request that repeats a
 * credential `invalid_request`.
 */
function isAuthorization(name: string): boolean {
  return name.length === 13 && name.toLowerCase() === 'authorization';
}

function staticVerifier(tokens: readonly ResolvedToken[]): (token: string) => AuthInfo | undefined {
  // Looked up by the token's SHA-256, never by the token: how long a lookup takes can then tell an attacker
  // about digests only, which says nothing about any token (the usual way of storing API keys).
  const known = new Map(
    tokens.map(({ token, subject, scopes }) => [tokenDigest(token), Object.freeze({ subject, scopes })]),
  );
  return (token) => known.get(tokenDigest(token));
}

/**
 * Builds the authenticator of checked `auth` options. Requests carrying the token in the query string are
 * refused (MCP authorization: tokens go in the Authorization header only).
 *
 * @param ownTokens - with `auth.server`: the check of the tokens the router issued itself
 * @param presentation - the DPoP rules (dpop-presentation.ts); without it, only `Bearer` is taken
 * @example
 * ```ts
 * const authenticate = createAuthenticator(resolveAuthOptions({ tokens: [process.env.MCP_TOKEN!] }));
 * const outcome = await authenticate(req); // { ok: true, auth: { subject: 'token-0', scopes: [] } }
 * ```
 */
export function createAuthenticator(
  options: ResolvedAuth,
  ownTokens?: BearerAuthOptions['verify'],
  presentation?: (req: IncomingMessage, auth: AuthInfo, credential: Credential) => DpopVerdict | Promise<DpopVerdict>,
): Authenticate {
  const { requiredScopes: required, fromRequest } = options;
  const verify = ownTokens ?? options.verify;
  const fromStatic = options.tokens && staticVerifier(options.tokens);

  function check(auth: AuthInfo | null | undefined, token?: string): AuthOutcome {
    if (auth === undefined || auth === null || typeof auth.subject !== 'string')
      return { ok: false, failure: fromRequest ? 'missing' : 'invalid' };
    if (auth.expiresAt !== undefined && auth.expiresAt * 1000 <= Date.now()) return { ok: false, failure: 'expired' };
    if (required !== undefined && !required.every((scope) => auth.scopes.includes(scope)))
      return { ok: false, failure: 'insufficient_scope' };
    return token === undefined ? { ok: true, auth } : { ok: true, auth, token };
  }

  /** RFC 9449 §7: how a valid token was presented decides, before its scopes (a 401 comes before a 403). */
  function bind(req: IncomingMessage, auth: AuthInfo | null | undefined, credential: Credential) {
    if (presentation === undefined || auth === undefined || auth === null || typeof auth.subject !== 'string')
      return check(auth, credential.token);
    const verdict = presentation(req, auth, credential);
    const outcome = (done: DpopVerdict): AuthOutcome => {
      if (!done.ok) return { ok: false, failure: done.failure, detail: done.detail };
      const checked = check(auth, credential.token);
      return checked.ok && done.contentDigest !== undefined
        ? { ...checked, contentDigest: done.contentDigest }
        : checked;
    };
    return verdict instanceof Promise ? verdict.then(outcome) : outcome(verdict);
  }

  return function authenticate(req) {
    if (/[?&]access_token=/.test(req.url ?? '')) return { ok: false, failure: 'token_in_query' };
    if (fromRequest) return check(fromRequest(req));
    if (repeatedHeader(req.rawHeaders, isAuthorization) !== undefined) return { ok: false, failure: 'repeated_header' };
    const credential = credentialOf(req.headers.authorization);
    // RFC 6750 §3.1: no credentials, or another scheme (Basic, …), gets a challenge without an error code.
    if (credential === undefined || (credential.scheme === 'dpop' && presentation === undefined))
      return {
        ok: false,
        failure: /^\s*(bearer|dpop)\b/i.test(req.headers.authorization ?? '') ? 'invalid' : 'missing',
      };
    if (fromStatic) return bind(req, fromStatic(credential.token), credential);
    // A verify callback may answer at once or later; a throw or a rejection is the router's 500.
    return Promise.resolve(verify?.(credential.token, req)).then((auth) => bind(req, auth, credential));
  };
}
