// introspectionVerifier(): the `auth.verify` of opaque tokens, asked of the provider's introspection endpoint (RFC 7662), answers cached.

import type { IncomingMessage } from 'node:http';
import { definedOnly, type OptionKeys } from '../../options/config-error';
import type { OptionReader } from '../../options/option-reader';
import type { McpLogger } from '../../core/logger';
import type { AuthInfo } from '../../core/registry/request-context';
import { createVerifiedTokenCache, tokenDigest } from '../../edge/security/token-cache';
import { audienceFor, namesAudience, scopesOf } from './audience';
import { boundedFetch } from '../../edge/outbound/bounded-fetch';
import { readVerifierOptions } from './verifier-fetch';
import { readFetchSettings, throttledWarn, ProviderFetchError } from '../../edge/outbound/provider-fetch';

/** Options of {@link introspectionVerifier}. */
export interface IntrospectionVerifierOptions {
  /** The provider's introspection endpoint (`introspection_endpoint`): https, or http on loopback. */
  url: string | URL;
  /** This resource server's client id at the provider (sent with client_secret_basic). */
  clientId: string;
  /** This resource server's client secret at the provider (sent with client_secret_basic). */
  clientSecret: string;
  /**
   * An audience the answer's `aud`, when present, must contain. Defaults to the URL of the MCP endpoint the
   * request reached, `<protocol>://<host><mount path>` (RFC 8707). Set it in production: the default trusts the Host header.
   */
  audience?: string;
  /** How long an active answer is reused (never past the token's `exp`). Defaults to `60000` ms. */
  cacheTtlMs?: number;
  /** How long a call may take; a token not answered in time is refused. Defaults to `5000` ms. */
  timeoutMs?: number;
  /** The largest answer read. Defaults to `65536` bytes. */
  maxBytes?: number;
  /** Answers remembered (active and inactive ones, each). Defaults to `10000`. */
  cacheMax?: number;
  /** Where failed calls are reported (once a minute at most). Defaults to `console`. */
  logger?: McpLogger;
}

const DEFAULT_CACHE_TTL_MS = 60_000;
/** How long an inactive answer is reused: a flood of one bad token costs one call, a token just issued waits little. */
const INACTIVE_TTL_MS = 10_000;
const LOG_INTERVAL_MS = 60_000;

const KNOWN_OPTIONS: OptionKeys<IntrospectionVerifierOptions> = {
  url: true,
  clientId: true,
  clientSecret: true,
  audience: true,
  cacheTtlMs: true,
  timeoutMs: true,
  maxBytes: true,
  cacheMax: true,
  logger: true,
};

const REFUSED: AuthInfo = Object.freeze({ subject: '', scopes: [] });

/**
 * The client_secret_basic header of the resource server's credentials. RFC 6749 §2.3.1: the id and secret are
 * form-encoded before they are joined and base64-encoded. The secret is never quoted in a message.
 */
function basicCredentials(read: OptionReader<IntrospectionVerifierOptions>): string {
  const clientId = read.string('clientId', { nonEmpty: true, required: true });
  const clientSecret = read.raw('clientSecret');
  if (typeof clientSecret !== 'string' || clientSecret === '')
    throw read.invalid('clientSecret', 'a non-empty string', typeof clientSecret);
  const encoded = [clientId, clientSecret].map((part) => new URLSearchParams({ part }).toString().slice(5));
  return `Basic ${Buffer.from(encoded.join(':')).toString('base64')}`;
}

/** The principal of an RFC 7662 §2.2 answer, or null for an inactive or unusable one. */
function principalOf(answer: Record<string, unknown>, audience: string, now: number): AuthInfo | null {
  const { active, aud, scope, sub, username, client_id: clientId, exp, nbf, ...rest } = answer;
  if (active !== true) return null;
  // §2.2: aud, exp and nbf are optional; when given, they bind the token.
  if (aud !== undefined && !namesAudience(aud, audience)) return null;
  if (exp !== undefined && (typeof exp !== 'number' || exp * 1000 <= now)) return null;
  if (nbf !== undefined && (typeof nbf !== 'number' || nbf * 1000 > now)) return null;
  const subject = [sub, username, clientId].find((name): name is string => typeof name === 'string' && name !== '');
  if (subject === undefined) return null;
  return {
    subject,
    scopes: scopesOf(scope),
    expiresAt: exp as number | undefined,
    extra: { ...rest, ...definedOnly({ aud, client_id: clientId, username }) },
  };
}

/**
 * Creates an `auth.verify` for opaque tokens, checked by the provider's introspection endpoint (RFC 7662): a POST
 * of `token=…` authenticated with client_secret_basic. An answer must be `active: true`, name the audience in
 * `aud` when it has one, and name a principal (`sub`, else `username`, else `client_id`); `scope` gives the scopes
 * and `exp` `expiresAt`. Active answers are reused until the token expires or `cacheTtlMs`, whichever is first;
 * inactive ones for 10 s, so a flood of one bad token costs one call. A provider that fails, hangs or answers
 * too much refuses the token (401, logged), never a 500.
 *
 * @throws {McpConfigError} at once, for a bad or unknown option (`introspectionVerifier.url`, …)
 * @example
 * ```ts
 * const mcp = mcpRouter({
 *   name: 'inventory', version: '1.0.0',
 *   auth: { verify: introspectionVerifier({ url: 'https://idp.example.com/oauth2/introspect', clientId: 'mcp-api', clientSecret: process.env.MCP_API_SECRET!, audience: 'https://api.example.com/mcp' }) },
 * });
 * ```
 */
export function introspectionVerifier(
  options: IntrospectionVerifierOptions,
): (token: string, req: IncomingMessage) => Promise<AuthInfo | null> {
  const { read, shared } = readVerifierOptions('introspectionVerifier', options, KNOWN_OPTIONS);
  const { audience, cacheMax: max } = shared;
  const { url, timeoutMs, maxBytes } = readFetchSettings(read, {
    url: 'url',
    timeoutMs: 'timeoutMs',
    maxBytes: 'maxBytes',
  });
  const authorization = basicCredentials(read);
  const cacheTtlMs = read.milliseconds('cacheTtlMs', DEFAULT_CACHE_TTL_MS);
  const warn = throttledWarn(shared.logger, LOG_INTERVAL_MS);
  const active = createVerifiedTokenCache({ max, maxTtlMs: cacheTtlMs });
  // Refusals apart: what clients send must not be able to evict good answers.
  const inactive = createVerifiedTokenCache({ max, maxTtlMs: INACTIVE_TTL_MS });
  // One call per token at a time: concurrent requests with one token share it (bounded by requests in flight).
  const inFlight = new Map<string, Promise<AuthInfo | null>>();

  /** The principal, null for a refusal by the provider, undefined when the provider could not answer (not cached). */
  async function introspect(token: string, expected: string): Promise<AuthInfo | null | undefined> {
    try {
      const body = new URLSearchParams({ token, token_type_hint: 'access_token' });
      const response = await boundedFetch(
        url,
        { method: 'POST', headers: { authorization, accept: 'application/json' }, body },
        timeoutMs,
        maxBytes,
      );
      if (response.status !== 200) throw new ProviderFetchError(`HTTP ${response.status}`);
      const answer: unknown = JSON.parse(response.text);
      if (typeof answer !== 'object' || answer === null || Array.isArray(answer))
        throw new Error('the answer is not a JSON object');
      return principalOf(answer as Record<string, unknown>, expected, Date.now());
    } catch (err) {
      warn(
        err,
        `introspectionVerifier: the introspection at ${url.href} failed (${(err as Error).message}); tokens are refused meanwhile`,
      );
      return undefined;
    }
  }

  return async function verifyByIntrospection(token: string, req: IncomingMessage): Promise<AuthInfo | null> {
    const expected = audienceFor(audience, req);
    const key = `${expected} ${token}`;
    const known = active.get(key) ?? inactive.get(key);
    if (known !== undefined) return known === REFUSED ? null : known;
    const digest = tokenDigest(key);
    let pending = inFlight.get(digest);
    if (pending === undefined) {
      pending = introspect(token, expected)
        .then((auth) => {
          if (auth === null) inactive.set(key, REFUSED);
          else if (auth !== undefined) active.set(key, auth);
          return auth ?? null;
        })
        .finally(() => inFlight.delete(digest));
      inFlight.set(digest, pending);
    }
    return pending;
  };
}
