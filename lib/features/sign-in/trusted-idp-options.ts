// The `trustedIdps` and `mapIdentity` keys of `auth.server`: the enterprise IdPs whose ID-JAGs the token endpoint takes, checked once at boot.

import type { McpLogger } from '../../core/logger';
import { McpConfigError, type OptionKeys } from '../../options/config-error';
import { listOf, OptionReader } from '../../options/option-reader';
import {
  ASYMMETRIC_JWS_ALGORITHMS,
  type JWK,
  type JwtKeyResolver,
  type JWTPayload,
} from '../../edge/security/jose-types';
import { readKeySet } from '../../edge/security/jwks';
import { keySetProblem } from './clients/client-keys';

/** An enterprise identity provider whose Identity Assertion JWT Authorization Grants (ID-JAGs) the router accepts. */
export interface TrustedIdpOptions {
  /** Its issuer identifier (RFC 8414 §2): an ID-JAG's `iss` must be exactly this string. */
  issuer: string;
  /** Where it publishes its signing keys (https; http on loopback only). Exactly one of `jwksUri` and `jwks`. */
  jwksUri?: string | URL;
  /** Its public signing keys, inline (a JSON Web Key Set). */
  jwks?: {
    /** The public keys (private members and symmetric keys are dropped). */
    keys: JWK[];
  };
  /** How long one fetch of `jwksUri` may take, in ms. Defaults to `5000`. */
  jwksTimeoutMs?: number;
  /** The largest key set read from `jwksUri`, in bytes. Defaults to `65536`. */
  jwksMaxBytes?: number;
  /** The least time between two fetches of `jwksUri` (a new `kid`, a failing IdP), in ms. Defaults to `30000`. */
  jwksCooldownMs?: number;
  /**
   * What the ID-JAG's `aud` must be. Defaults to the router's issuer for the request (`auth.server.issuer`, else
   * `<origin><mount path>`), as the ID-JAG draft §4.4.1 asks.
   */
  audience?: string;
  /** The signature algorithms taken (asymmetric only). Defaults to every asymmetric JWS algorithm. */
  algorithms?: string[];
  /** The longest lifetime (`exp` − `iat`) an ID-JAG may have, in seconds (SEP-990 §7.4.2: short-lived). Defaults to `300`. */
  maxLifetimeSec?: number;
}

/** Who an ID-JAG's user is for the app: the tokens' `sub`, their scopes, and what handlers find in `ctx.auth.extra`. */
export interface EnterprisePrincipal {
  /** The user: the access token's `sub` and the handlers' `ctx.auth.subject`. */
  subject: string;
  /** The scopes this user may have; undefined means every scope the grant allows. */
  scopes?: string[];
  /** More for the handlers (`ctx.auth.extra`): JSON, carried in the access token, so readable by the client. */
  extra?: Record<string, unknown>;
}

/** The context `mapIdentity` gets with the ID-JAG's claims. */
export interface MapIdentityContext {
  /** The IdP that signed the ID-JAG (its `iss`). */
  readonly issuer: string;
  /** The authenticated client that presented it (the ID-JAG's `client_id`). */
  readonly clientId: string;
}

/**
 * Turns a verified ID-JAG's claims into the app's user, or refuses it (`null`: `invalid_grant`). A hook that throws
 * or answers another shape is the app's bug: logged, and answered `server_error` (500).
 */
export type MapIdentity = (
  claims: Readonly<JWTPayload>,
  context: MapIdentityContext,
) => EnterprisePrincipal | null | undefined | Promise<EnterprisePrincipal | null | undefined>;

/** The `auth.server` keys of enterprise-managed authorization (SEP-990). */
export interface TrustedIdpsOptions {
  /** The IdPs whose ID-JAGs the token endpoint accepts (the JWT bearer grant). Defaults to none: the grant is off. */
  trustedIdps?: TrustedIdpOptions[];
  /**
   * Maps an ID-JAG's claims to the app's user. Defaults to the subject `<iss>#<sub>`, or `<iss>#<tenant>/<sub>`
   * with a `tenant` claim (`sub` is unique per issuer and tenant only; `tenant` and `sub` percent-encoded).
   */
  mapIdentity?: MapIdentity;
}

/** One trusted IdP, checked. */
export interface ResolvedTrustedIdp {
  readonly issuer: string;
  readonly audience: string | undefined;
  readonly algorithms: readonly string[];
  readonly maxLifetimeSec: number;
  /** Its key set (fetched within its bounds, failures logged once per cooldown to `logger`). */
  readonly keySet: (logger: McpLogger) => JwtKeyResolver;
}

/** The ID-JAG grant's configuration, frozen; absent when no IdP is trusted. */
export interface ResolvedIdJag {
  readonly idps: ReadonlyMap<string, ResolvedTrustedIdp>;
  readonly mapIdentity: MapIdentity | undefined;
}

export const DEFAULT_ID_JAG_MAX_LIFETIME_SEC = 300;
/** The longest lifetime `maxLifetimeSec` may allow: an hour, still short against the tokens it buys. */
const MOST_ID_JAG_LIFETIME_SEC = 3_600;

const IDP_KEYS: OptionKeys<TrustedIdpOptions> = {
  issuer: true,
  jwksUri: true,
  jwks: true,
  jwksTimeoutMs: true,
  jwksMaxBytes: true,
  jwksCooldownMs: true,
  audience: true,
  algorithms: true,
  maxLifetimeSec: true,
};
const KEYS: OptionKeys<TrustedIdpsOptions> = { trustedIdps: true, mapIdentity: true };

/** The key set built once at boot only to check the options: it is never used, so it never logs. */
const UNUSED: McpLogger = { error: () => undefined, warn: () => undefined };

const isAsymmetric = (value: unknown): value is string =>
  typeof value === 'string' && ASYMMETRIC_JWS_ALGORITHMS.includes(value);

/** RFC 8414 §2: an https URL (http on loopback) without query or fragment, kept exactly as given. */
function readIssuer(read: OptionReader<TrustedIdpOptions>): string {
  const issuer = read.string('issuer', { nonEmpty: true, required: true });
  read.url('issuer', { https: true, required: true });
  if (issuer.includes('?') || issuer.includes('#'))
    throw read.invalid('issuer', 'an https URL without query or fragment (RFC 8414 §2)');
  return issuer;
}

/** One IdP: `auth.server.trustedIdps[<index>]`. */
function resolveIdp(entry: unknown, index: number): ResolvedTrustedIdp {
  const path = `auth.server.trustedIdps[${index}]`;
  // A copy: the key set is built again at install from what was checked here.
  const given = typeof entry === 'object' && entry !== null && !Array.isArray(entry) ? { ...entry } : entry;
  const read = OptionReader.of(given as TrustedIdpOptions, path, IDP_KEYS);
  const issuer = readIssuer(read);
  // As a client's: a private key given as the IdP's has leaked, and dropping it would hide why tokens fail.
  const problem = read.raw('jwks') === undefined ? undefined : keySetProblem(read.raw('jwks'));
  if (problem !== undefined) throw read.invalid('jwks', `a JSON Web Key Set of public keys; it ${problem}`, '…');
  readKeySet(read, UNUSED, path);
  const maxLifetimeSec = read.positiveInteger('maxLifetimeSec', DEFAULT_ID_JAG_MAX_LIFETIME_SEC);
  if (maxLifetimeSec > MOST_ID_JAG_LIFETIME_SEC)
    throw read.invalid('maxLifetimeSec', `at most ${MOST_ID_JAG_LIFETIME_SEC} seconds (an ID-JAG is short-lived)`);
  const algorithms = read.array(
    'algorithms',
    isAsymmetric,
    `a non-empty array of ${listOf(ASYMMETRIC_JWS_ALGORITHMS)}`,
    {
      nonEmpty: true,
    },
  );
  return Object.freeze({
    issuer,
    audience: read.string('audience', { nonEmpty: true }),
    algorithms: algorithms ?? ASYMMETRIC_JWS_ALGORITHMS,
    maxLifetimeSec,
    keySet: (logger: McpLogger) => readKeySet(read, logger, path),
  });
}

/**
 * Checks `auth.server.trustedIdps` and `mapIdentity` once, at boot.
 *
 * @returns undefined when no IdP is trusted (the JWT bearer grant is off)
 * @throws {McpConfigError} naming the option: `auth.server.trustedIdps[0].jwksUri`, an issuer listed twice, …
 * @example
 * ```ts
 * const idJag = resolveTrustedIdps({ trustedIdps: [{ issuer: 'https://acme.okta.com', jwksUri: 'https://acme.okta.com/oauth2/v1/keys' }] });
 * ```
 */
export function resolveTrustedIdps(options: TrustedIdpsOptions): ResolvedIdJag | undefined {
  const { trustedIdps, mapIdentity } = options;
  const read = OptionReader.of({ trustedIdps, mapIdentity }, 'auth.server', KEYS);
  const map = read.fn('mapIdentity');
  const list = read.raw('trustedIdps');
  if (list === undefined) {
    if (map !== undefined)
      throw new McpConfigError(
        'ERR_MCP_INVALID_OPTION',
        "option 'auth.server.mapIdentity' maps the users of 'auth.server.trustedIdps', which is not set",
      );
    return undefined;
  }
  if (!Array.isArray(list) || list.length === 0)
    throw read.invalid('trustedIdps', 'a non-empty array of IdPs ({ issuer, jwksUri | jwks })');
  const idps = new Map<string, ResolvedTrustedIdp>();
  list.forEach((entry: unknown, index) => {
    const idp = resolveIdp(entry, index);
    if (idps.has(idp.issuer))
      throw new McpConfigError(
        'ERR_MCP_DUPLICATE',
        `option 'auth.server.trustedIdps[${index}].issuer': '${idp.issuer}' is listed twice`,
      );
    idps.set(idp.issuer, idp);
  });
  return Object.freeze({ idps, mapIdentity: map });
}
