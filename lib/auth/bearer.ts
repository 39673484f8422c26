// Bearer authentication: static tokens (found by digest), a verify callback, or the host app's own req.auth; RFC 6750 challenges.

import * as crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { McpConfigError } from '../errors';
import type { AuthInfo } from '../registry/request-context';

/** A static token, with the principal and scopes it stands for. */
export interface StaticToken {
  token: string;
  /** Defaults to `token-<index>`: never the token itself, which must not appear in logs. */
  subject?: string;
  scopes?: string[];
}

/** RFC 9728 protected-resource metadata (served at the mount path and by `mcp.authMetadata`, named in every 401 challenge). */
export interface ResourceMetadataOptions {
  /** This server's canonical URI; defaults to the URL the client used to reach the MCP endpoint. */
  resource?: string;
  /** The authorization servers that issue tokens for this resource (required by MCP). */
  authorizationServers: string[];
  scopesSupported?: string[];
  resourceName?: string;
  resourceDocumentation?: string;
}

/** The `auth` option: one of `tokens`, `verify` or `fromRequest`. */
export interface AuthOptions {
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
}

/** Why a request is not authenticated (→ 400/401) or not authorized (→ 403). */
export type AuthFailure = 'missing' | 'invalid' | 'expired' | 'token_in_query' | 'repeated_header' | 'insufficient_scope';

/** The outcome of authenticating one request. */
export type AuthOutcome = { readonly ok: true; readonly auth: AuthInfo } | { readonly ok: false; readonly failure: AuthFailure };

/** Authenticates requests for one router: at once for static tokens and `fromRequest`, a promise for `verify`. */
export type Authenticate = (req: IncomingMessage) => AuthOutcome | Promise<AuthOutcome>;

// crypto.hash (Node 20.12+) hashes in one call, several times faster than a Hash object; Node 18 has only the latter.
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string) => string }).hash;
/** The SHA-256 of a token, in hex. */
const digest: (text: string) => string = oneShotHash
  ? (text) => oneShotHash('sha256', text)
  : (text) => crypto.createHash('sha256').update(text).digest('hex');

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive, RFC 7235). */
function bearerToken(header: string | undefined): string | undefined {
  const match = header === undefined ? null : /^\s*bearer\s+([^\s]+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * True when the request carries more than one Authorization header. Node keeps only the first in `headers`, so
 * a proxy that reads the last one and this router would act for different principals; RFC 6750 §3.1 makes a
 * request that repeats a credential `invalid_request`.
 */
function repeatsAuthorization(rawHeaders: readonly string[]): boolean {
  let seen = false;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string;
    if (name.length !== 13 || name.toLowerCase() !== 'authorization') continue;
    if (seen) return true;
    seen = true;
  }
  return false;
}

function staticVerifier(tokens: ReadonlyArray<string | StaticToken>): (token: string) => AuthInfo | undefined {
  // Entries in the order of the option, so an entry's position in the Map is its index in `auth.tokens`.
  const known = new Map<string, AuthInfo>();
  tokens.forEach((entry, index) => {
    const { token, subject = `token-${index}`, scopes = [] } = typeof entry === 'string' ? { token: entry } : entry;
    if (typeof token !== 'string' || token === '') throw new McpConfigError('ERR_MCP_INVALID_OPTION', `option 'auth.tokens[${index}]' must be a non-empty string or { token, subject?, scopes? }`);
    const hash = digest(token);
    // One token standing for two principals is ambiguous: which subject and scopes would a request get?
    if (known.has(hash)) throw new McpConfigError('ERR_MCP_INVALID_OPTION', `option 'auth.tokens[${index}]' repeats the token of 'auth.tokens[${[...known.keys()].indexOf(hash)}]'`);
    known.set(hash, Object.freeze({ subject, scopes: Object.freeze([...scopes]) }));
  });
  // Looked up by the token's SHA-256, never by the token: how long a lookup takes can then tell an attacker
  // about digests only, which says nothing about any token (the usual way of storing API keys).
  return (token) => known.get(digest(token));
}

/**
 * Checks the `auth` option and builds the authenticator. Requests carrying the token in the query string
 * are refused (MCP authorization: tokens go in the Authorization header only).
 *
 * @throws {McpConfigError} unless exactly one of `tokens`, `verify`, `fromRequest` is given, well-formed
 * @example
 * ```ts
 * const authenticate = createAuthenticator({ tokens: [process.env.MCP_TOKEN!] });
 * const outcome = await authenticate(req); // { ok: true, auth: { subject: 'token-0', scopes: [] } }
 * ```
 */
export function createAuthenticator(options: AuthOptions): Authenticate {
  const sources = (['tokens', 'verify', 'fromRequest'] as const).filter((key) => options[key] !== undefined);
  if (sources.length !== 1) {
    throw new McpConfigError('ERR_MCP_INVALID_OPTION', `option 'auth' needs exactly one of 'tokens', 'verify' or 'fromRequest' (got ${sources.length === 0 ? 'none' : sources.join(', ')})`);
  }
  if (options.tokens !== undefined && (!Array.isArray(options.tokens) || options.tokens.length === 0)) {
    throw new McpConfigError('ERR_MCP_INVALID_OPTION', "option 'auth.tokens' must be a non-empty array");
  }
  for (const key of ['verify', 'fromRequest'] as const) {
    if (options[key] !== undefined && typeof options[key] !== 'function') throw new McpConfigError('ERR_MCP_INVALID_OPTION', `option 'auth.${key}' must be a function`);
  }
  const required = options.requiredScopes ?? [];
  const fromStatic = options.tokens && staticVerifier(options.tokens);
  const { verify, fromRequest } = options;

  function check(auth: AuthInfo | null | undefined): AuthOutcome {
    if (auth === undefined || auth === null || typeof auth.subject !== 'string') return { ok: false, failure: fromRequest ? 'missing' : 'invalid' };
    if (auth.expiresAt !== undefined && auth.expiresAt * 1000 <= Date.now()) return { ok: false, failure: 'expired' };
    if (!required.every((scope) => auth.scopes.includes(scope))) return { ok: false, failure: 'insufficient_scope' };
    return { ok: true, auth };
  }

  return function authenticate(req) {
    if (/[?&]access_token=/.test(req.url ?? '')) return { ok: false, failure: 'token_in_query' };
    if (fromRequest) return check(fromRequest(req));
    if (repeatsAuthorization(req.rawHeaders)) return { ok: false, failure: 'repeated_header' };
    const token = bearerToken(req.headers.authorization);
    // RFC 6750 §3.1: no credentials, or another scheme (Basic, …), gets a challenge without an error code.
    if (token === undefined) return { ok: false, failure: /^\s*bearer\b/i.test(req.headers.authorization ?? '') ? 'invalid' : 'missing' };
    if (fromStatic) return check(fromStatic(token));
    // A verify callback may answer at once or later; a throw or a rejection is the router's 500, as before.
    return Promise.resolve(verify?.(token, req)).then(check);
  };
}
