// A JSON Web Key Set for verifying JWTs: inline, or fetched, cached, refetched at most once per cooldown (jose's remote set keeps neither cooldown nor keys when the provider fails).

import type { JSONWebKeySet, JWTVerifyGetKey } from 'jose';
import type { McpLogger } from '../../core/logger';
import { McpConfigError } from '../../options/config-error';
import type { OptionReader } from '../../options/option-reader';
import { jose } from './jose';
import { boundedFetch } from '../outbound/bounded-fetch';
import { readFetchSettings, throttledWarn, ProviderFetchError } from '../outbound/provider-fetch';

/** How long fetched keys are used when the answer says nothing (Cache-Control max-age): 10 min. */
export const DEFAULT_JWKS_MAX_AGE_MS = 10 * 60 * 1000;
/** Bounds on a provider's max-age: at least 1 min (no refetch storm), at most 24 h (rotation is noticed). */
export const JWKS_MAX_AGE_BOUNDS_MS = [60 * 1000, 24 * 60 * 60 * 1000] as const;
/** The least time between two fetches of a JWKS by default: 30 s. */
export const DEFAULT_JWKS_COOLDOWN_MS = 30 * 1000;

/** How a remote key set is fetched (checked by the verifier's options). */
export interface RemoteJwksSettings {
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly cooldownMs: number;
  readonly logger: McpLogger;
  /** Who needs the keys, as the log names it. Defaults to `'jwtVerifier'`. */
  readonly owner?: string;
}

/**
 * The key set's public keys only: a symmetric (`oct`) key in a JWKS could verify an HS256 token made by anyone who
 * read the set, so it is dropped whatever the algorithm list says (RFC 8725 §2.1, §3.1).
 */
export function publicKeysOf(set: unknown): JSONWebKeySet {
  if (typeof set !== 'object' || set === null || !Array.isArray((set as JSONWebKeySet).keys))
    throw new TypeError('not a JSON Web Key Set ({ keys: [...] })');
  const keys = (set as JSONWebKeySet).keys.filter(
    (key) => typeof key === 'object' && key !== null && key.kty !== 'oct' && key.d === undefined,
  );
  return { keys };
}

/** The lifetime of a fetched set: Cache-Control max-age within the bounds, else the default. */
function maxAgeOf(cacheControl: string | null): number {
  const match = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/i.exec(cacheControl ?? '');
  if (match === null) return DEFAULT_JWKS_MAX_AGE_MS;
  const [least, most] = JWKS_MAX_AGE_BOUNDS_MS;
  return Math.min(most, Math.max(least, Number(match[1]) * 1000));
}

const isNoMatchingKey = (err: unknown): boolean =>
  (err as { code?: unknown } | null)?.code === 'ERR_JWKS_NO_MATCHING_KEY';

/**
 * A key resolver for jose's `jwtVerify` over the set at `url`. Fetched at the first token, kept for its max-age
 * (used past it while a refetch fails), and fetched again for a token whose key it lacks (rotation) — but never
 * twice within the cooldown, and concurrent misses share one fetch: a flood of made-up `kid`s costs the provider
 * one request per cooldown. A set that cannot be loaded refuses the token (the verifier answers 401, never 500)
 * and is logged once per cooldown.
 *
 * Not jose's `createRemoteJWKSet`, though a custom fetch would keep the byte bound: its cooldown runs from the last
 * successful fetch only (an IdP that fails is asked again on every request), a refetch that fails refuses tokens
 * the stale keys would verify, and its lifetime is fixed where this one follows the answer's max-age.
 *
 * @example
 * ```ts
 * const getKey = createRemoteJwks(new URL('https://idp.example/jwks'), settings);
 * await jose().jwtVerify(token, getKey, { issuer, audience });
 * ```
 */
export function createRemoteJwks(
  url: URL,
  settings: RemoteJwksSettings,
  now: () => number = () => Date.now(),
): JWTVerifyGetKey {
  const warn = throttledWarn(settings.logger, settings.cooldownMs, now);
  let local: JWTVerifyGetKey | undefined;
  let freshUntil = -Infinity;
  let lastAttempt = -Infinity;
  let inFlight: Promise<void> | undefined;

  async function load(): Promise<void> {
    try {
      const response = await boundedFetch(
        url,
        { headers: { accept: 'application/json' } },
        settings.timeoutMs,
        settings.maxBytes,
      );
      if (response.status !== 200) throw new ProviderFetchError(`HTTP ${response.status}`);
      const set = publicKeysOf(JSON.parse(response.text));
      if (set.keys.length === 0) throw new Error('it has no public key');
      local = jose().createLocalJWKSet(set);
      freshUntil = now() + maxAgeOf(response.headers.get('cache-control'));
    } catch (err) {
      warn(
        err,
        `${settings.owner ?? 'jwtVerifier'}: cannot load the JWKS at ${url.href} (${(err as Error).message}); tokens are refused until it loads`,
      );
    }
  }

  /** Fetches unless a fetch ran within the cooldown; waits for the one running. */
  function refresh(): Promise<void> {
    if (inFlight !== undefined) return inFlight;
    if (now() - lastAttempt < settings.cooldownMs) return Promise.resolve();
    lastAttempt = now();
    inFlight = load().finally(() => (inFlight = undefined));
    return inFlight;
  }

  return async function remoteJwksKey(...[header, token]: Parameters<JWTVerifyGetKey>) {
    if (local === undefined || now() >= freshUntil) await refresh();
    if (local === undefined) throw new ProviderFetchError('no JWKS loaded');
    try {
      return await local(header, token);
    } catch (err) {
      if (!isNoMatchingKey(err)) throw err;
      // A key we do not know: the provider may have rotated its keys (OpenID Connect Core §10.1.1).
      const before = local;
      await refresh();
      if (local === before) throw err;
      return local(header, token);
    }
  };
}

/** The options that name a key set: inline, or where it is published (with the bounds of its fetch). */
export interface KeySetOptions {
  jwks?: unknown;
  jwksUri?: string | URL;
  jwksTimeoutMs?: number;
  jwksMaxBytes?: number;
  jwksCooldownMs?: number;
}

/**
 * The key resolver of options naming exactly one of `jwks` (inline) or `jwksUri` (fetched within its bounds, see
 * {@link createRemoteJwks}): a JWT verifier's provider, a trusted identity provider, a client's keys.
 *
 * @param owner - how messages name the thing that needs the keys: `'jwtVerifier'`, `"client 'cli'"`
 * @throws {McpConfigError} `ERR_MCP_INVALID_OPTION` naming the key at fault
 */
export function readKeySet<T extends KeySetOptions>(
  read: OptionReader<T>,
  logger: McpLogger,
  owner: string,
): JWTVerifyGetKey {
  const generic = read as unknown as OptionReader<KeySetOptions>;
  const jwks = generic.raw('jwks');
  if ((generic.raw('jwksUri') === undefined) === (jwks === undefined))
    throw new McpConfigError(
      'ERR_MCP_INVALID_OPTION',
      `${owner} needs exactly one of '${generic.pathOf('jwksUri')}' or '${generic.pathOf('jwks')}'`,
    );
  if (jwks !== undefined) {
    let set;
    try {
      set = publicKeysOf(jwks);
    } catch {
      throw generic.invalid('jwks', 'a JSON Web Key Set ({ keys: [...] })');
    }
    if (set.keys.length === 0) throw generic.invalid('jwks', 'a JSON Web Key Set with at least one public key');
    return jose().createLocalJWKSet(set);
  }
  const { url, timeoutMs, maxBytes } = readFetchSettings(generic, {
    url: 'jwksUri',
    timeoutMs: 'jwksTimeoutMs',
    maxBytes: 'jwksMaxBytes',
  });
  const cooldownMs = generic.milliseconds('jwksCooldownMs', DEFAULT_JWKS_COOLDOWN_MS);
  return createRemoteJwks(url, { timeoutMs, maxBytes, cooldownMs, logger, owner });
}
