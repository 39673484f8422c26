// jwtVerifier(): the `auth.verify` of JWT access tokens from an identity provider — issuer, audience, expiry, algorithm and key checked by jose.

import { ASYMMETRIC_JWS_ALGORITHMS } from '../../edge/security/jose-types';
import type { IncomingMessage } from 'node:http';
import type { JWTPayload } from 'jose';
import type { OptionKeys } from '../../options/config-error';
import type { OptionReader } from '../../options/option-reader';
import type { McpLogger } from '../../core/logger';
import type { AuthInfo } from '../../core/registry/request-context';
import { jose, requireJoseFor } from '../../edge/security/jose';
import { createVerifiedTokenCache } from '../../edge/security/token-cache';
import { audienceFor, namesAudience, scopesOf } from './audience';
import { BoundedFetchError } from '../../edge/outbound/bounded-fetch';
import { readVerifierOptions } from './verifier-fetch';
import { ProviderFetchError } from '../../edge/outbound/provider-fetch';
import { readKeySet } from '../../edge/security/jwks';

/** A JSON Web Key Set (RFC 7517 §5): public keys only are used. */
export interface JsonWebKeySet {
  /** The keys, each a JWK as JSON; private members are ignored. */
  keys: ReadonlyArray<Readonly<Record<string, unknown>>>;
}

/** Options of {@link jwtVerifier}: `issuer` and one of `jwksUri` or `jwks`. */
export interface JwtVerifierOptions {
  /** The `iss` every token must carry, exactly (the identity provider's issuer identifier). */
  issuer: string;
  /**
   * An audience the token's `aud` must contain. Defaults to the URL of the MCP endpoint the request reached,
   * `<protocol>://<host><mount path>` (RFC 8707). Set it in production: the default trusts the Host header.
   */
  audience?: string;
  /** Where the provider publishes its keys (its discovery document's `jwks_uri`): https, or http on loopback. */
  jwksUri?: string | URL;
  /** The provider's keys, given inline instead of `jwksUri`. */
  jwks?: JsonWebKeySet;
  /** Signature algorithms accepted. Defaults to `['RS256', 'ES256', 'PS256', 'EdDSA']`; `none` and HS* are refused. */
  algorithms?: string[];
  /** Leeway for `exp` and `nbf`, in seconds. Defaults to `30`. */
  clockToleranceSec?: number;
  /** The claim holding the scopes (a space-separated string or an array). Defaults to `scope`, then `scp`. */
  scopeClaim?: string;
  /** How long a JWKS fetch may take. Defaults to `5000` ms. */
  jwksTimeoutMs?: number;
  /** The largest JWKS read; a larger one is aborted. Defaults to `65536` bytes. */
  jwksMaxBytes?: number;
  /** The least time between two JWKS fetches (an unknown `kid` refetches at most this often). Defaults to `30000` ms. */
  jwksCooldownMs?: number;
  /** Verified tokens remembered until they expire, so a repeated token costs no signature check. Defaults to `10000`. */
  cacheMax?: number;
  /** Where a JWKS that fails to load is reported (once per cooldown). Defaults to `console`. */
  logger?: McpLogger;
  /**
   * DPoP-bound tokens (RFC 9449; `cnf.jkt` among the claims) are always taken with the `DPoP` scheme and a proof by
   * their key only. `'allowed'` takes unbound tokens as bearer tokens too; `'required'` refuses them (401
   * `invalid_token` with a `DPoP` challenge) and the protected-resource metadata says
   * `dpop_bound_access_tokens_required: true`. Defaults to `'allowed'`.
   */
  dpop?: 'allowed' | 'required';
}

/** The algorithms accepted by default: one per key family the common providers use. */
export const DEFAULT_JWT_ALGORITHMS = Object.freeze(['RS256', 'ES256', 'PS256', 'EdDSA']);
const ASYMMETRIC_ALGORITHMS: ReadonlySet<string> = new Set(ASYMMETRIC_JWS_ALGORITHMS);
const DEFAULT_CLOCK_TOLERANCE_SEC = 30;

const KNOWN_OPTIONS: OptionKeys<JwtVerifierOptions> = {
  issuer: true,
  audience: true,
  jwksUri: true,
  jwks: true,
  algorithms: true,
  clockToleranceSec: true,
  scopeClaim: true,
  jwksTimeoutMs: true,
  jwksMaxBytes: true,
  jwksCooldownMs: true,
  cacheMax: true,
  logger: true,
  dpop: true,
};

type Read = OptionReader<JwtVerifierOptions>;

/** The algorithm list, checked: public-key algorithms only (RFC 8725 §3.1: never `none`, never an HMAC keyed by a public key). */
function readAlgorithms(read: Read): string[] {
  const value = read.raw('algorithms');
  if (value === undefined) return [...DEFAULT_JWT_ALGORITHMS];
  if (!Array.isArray(value) || value.length === 0)
    throw read.invalid('algorithms', 'a non-empty array of JWS algorithms');
  const expected = `public-key JWS algorithms (${[...ASYMMETRIC_ALGORITHMS].join(', ')})`;
  for (const alg of value) {
    if (typeof alg === 'string' && (alg === 'none' || alg.startsWith('HS')))
      throw read.invalid(
        'algorithms',
        `public-key JWS algorithms, never '${alg}' (with it anyone who has the provider's public keys could sign, RFC 8725 §2.1)`,
      );
    if (!ASYMMETRIC_ALGORITHMS.has(alg)) throw read.invalid('algorithms', expected, alg);
  }
  return [...value];
}

/** Leeway for `exp` and `nbf`: a whole number of seconds, 0 included. */
function readClockTolerance(read: Read): number {
  const seconds = read.raw('clockToleranceSec') ?? DEFAULT_CLOCK_TOLERANCE_SEC;
  if (!Number.isSafeInteger(seconds) || seconds < 0)
    throw read.invalid('clockToleranceSec', 'a whole number of seconds ≥ 0');
  return seconds;
}

/** The principal of a verified token's claims, or null without a `sub` (MCP: the token must name who it is for). */
function principalOf(claims: JWTPayload, scopeClaim: string | undefined): AuthInfo | null {
  const { sub, exp, ...rest } = claims;
  if (typeof sub !== 'string' || sub === '') return null;
  const scopes = scopesOf(scopeClaim !== undefined ? claims[scopeClaim] : (claims.scope ?? claims.scp));
  return { subject: sub, scopes, expiresAt: exp, extra: rest };
}

/**
 * Creates an `auth.verify` for JWT access tokens (RFC 9068) signed by an identity provider: the signature with
 * the provider's keys (JWKS), `iss` exactly, `aud` containing the audience, `exp` required and `nbf` honoured
 * (with tolerance), the algorithm in the allow-list. `sub` becomes the subject, `scope`/`scp` the scopes, `exp`
 * `expiresAt`, the other claims `extra`. A verified token is remembered (by its SHA-256) until it expires. Any
 * token that fails — or a JWKS that cannot be loaded — gives `null`: a 401, never a 500.
 *
 * @throws {McpConfigError} at once, for a bad or unknown option (`jwtVerifier.issuer`, …), or on a Node that cannot
 * load jose
 * @example
 * ```ts
 * const mcp = mcpRouter({
 *   name: 'inventory', version: '1.0.0',
 *   auth: { verify: jwtVerifier({ issuer: 'https://login.example.com/', jwksUri: 'https://login.example.com/.well-known/jwks.json', audience: 'https://api.example.com/mcp' }) },
 * });
 * ```
 */
export function jwtVerifier(
  options: JwtVerifierOptions,
): (token: string, req: IncomingMessage) => Promise<AuthInfo | null> {
  requireJoseFor('jwtVerifier');
  const { read, shared } = readVerifierOptions('jwtVerifier', options, KNOWN_OPTIONS);
  const { audience, logger } = shared;
  const issuer = read.string('issuer', { nonEmpty: true, required: true });
  const scopeClaim = read.string('scopeClaim', { nonEmpty: true });
  const clockToleranceSec = readClockTolerance(read);
  const algorithms = readAlgorithms(read);
  const cache = createVerifiedTokenCache({ max: shared.cacheMax });
  const getKey = readKeySet(read, logger, 'jwtVerifier');
  const { jwtVerify } = jose();
  const dpop = read.oneOf('dpop', ['allowed', 'required'] as const, 'allowed');

  async function verifyJwt(token: string, req: IncomingMessage): Promise<AuthInfo | null> {
    const expected = audienceFor(audience, req);
    // Keyed by audience too: a token verified for one resource is not thereby good for another.
    const key = `${expected} ${token}`;
    const cached = cache.get(key);
    if (cached !== undefined) return cached;
    try {
      const { payload } = await jwtVerify(token, getKey, {
        issuer,
        algorithms,
        clockTolerance: clockToleranceSec,
        requiredClaims: ['exp', 'sub'],
      });
      // jose would take any one of several audiences; checked here so that the rule is the introspection verifier's too.
      if (!namesAudience(payload.aud, expected)) return null;
      const auth = principalOf(payload, scopeClaim);
      if (auth !== null) cache.set(key, auth);
      return auth;
    } catch (err) {
      // A bad token (jose's ERR_JWT_*, ERR_JWS_*, ERR_JWKS_*) or keys that would not load (logged where fetched): 401.
      const refusal =
        err instanceof ProviderFetchError ||
        err instanceof BoundedFetchError ||
        /^ERR_J/.test(String((err as { code?: unknown } | null)?.code));
      if (!refusal) logger.error(err, 'jwtVerifier: unexpected failure; the token is refused');
      return null;
    }
  }
  // Read by authentication (dpop-presentation.ts requiresDpop) and the protected-resource metadata.
  return dpop === 'required' ? Object.assign(verifyJwt, { dpop }) : verifyJwt;
}
