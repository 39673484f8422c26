// tokenExchange(): a token for an upstream on behalf of each caller (RFC 8693), cached per caller until shortly before it expires, in process and in the router's store.

import { McpConfigError } from '../../../options/config-error';
import { BoundedMap } from '../../../core/bounded-map';
import type { McpLogger } from '../../../core/logger';
import type { AuthInfo, RequestContext } from '../../../core/registry/request-context';
import { signInLimits, type SignInLimits, type SignInStore } from '../../../edge/store/sign-in-store';
import { tokenDigest } from '../../../edge/security/token-cache';
import { CallerTokenError } from '../shared/upstream-wire';
import { discoverTokenEndpoint, exchangeAt, ExchangeFailure, type ExchangedToken } from './exchange-request';
import { resolveExchangeOptions, type ExchangeConfig, type TokenExchangeOptions } from './exchange-options';

export type { ClientSecretAuth, PrivateKeyJwtAuth, TokenExchangeOptions } from './exchange-options';

/** What an exchange needs of the router it serves: set when it becomes an upstream's `auth`. */
export interface ExchangeHost {
  /** The router (one exchange serves one router's upstreams). */
  readonly owner: object;
  readonly logger: McpLogger;
  /** The bearer token the request of `auth` presented to the router. */
  readonly presentedToken: (auth: AuthInfo | undefined) => string | undefined;
  /** The router's shared store, when it has one (`store.signIn`): exchanged tokens are shared by every instance. */
  readonly store: ((limits: SignInLimits) => SignInStore) | undefined;
}

/** A caller's token, and the key it is kept under in this process (the subject and its token). */
export interface CallerToken {
  readonly token: string;
  readonly key: string;
}

/** A token exchange for upstreams: pass it as an upstream's `auth`; see {@link tokenExchange}. */
export interface TokenExchange {
  /**
   * The token for the caller of `ctx`: the cached one, or exchanged now. For a stdio upstream's `env` function; the
   * exchange must be the `auth` of one of the router's upstreams (that is how it reaches the caller's token and the
   * store). Rejects with an Error that names no token and no IdP text (those go to the router's logger).
   */
  tokenFor(ctx: RequestContext): Promise<string>;
}

/** The record kept in the store: the token, and when to exchange anew (ms since the epoch). */
interface Kept {
  readonly token: string;
  readonly refreshAt: number;
}

const BIND = Symbol('tokenExchange.bind');
const LEASE = Symbol('tokenExchange.lease');
const DROP = Symbol('tokenExchange.drop');

/** One configured exchange: its IdP endpoint, its cache, and the exchanges in flight (one per key). */
class Exchange implements TokenExchange {
  readonly #config: ExchangeConfig;
  /** Part of every cache key: two exchanges (other audience, scope or IdP) never share a token. */
  readonly #id: string;
  readonly #local: BoundedMap<string, Kept>;
  readonly #pending = new Map<string, Promise<Kept>>();
  #host: ExchangeHost | undefined;
  /** The router's shared store, bound to `maxCached` exchanged tokens; undefined: this process only. */
  #store: SignInStore | undefined;
  #label = 'tokenExchange';
  #endpoint: Promise<URL> | undefined;

  constructor(config: ExchangeConfig) {
    this.#config = config;
    const { tokenEndpoint, issuer, audience, resource, scope, clientAuth, subjectTokenType } = config;
    this.#id = tokenDigest(
      JSON.stringify([tokenEndpoint?.href ?? issuer, audience, resource, scope, clientAuth.clientId, subjectTokenType]),
    );
    // Read per call, not captured: the clock the expiries are compared with is the one the rest of the code reads.
    this.#local = new BoundedMap({ max: config.maxCached, now: () => Date.now() });
  }

  /** Binds the exchange to the router of the upstream named `label`; once bound, to that router only. */
  [BIND](host: ExchangeHost, label: string): void {
    if (this.#host !== undefined && this.#host.owner !== host.owner)
      throw new McpConfigError(
        'ERR_MCP_INVALID_OPTION',
        `upstream '${label}': option 'auth' is a tokenExchange already used by another router; make one per router`,
      );
    if (this.#host !== undefined) return;
    this.#label = label;
    this.#host = host;
    // The gateway writes exchanged tokens only.
    this.#store = host.store?.(signInLimits({ exchangedTokens: this.#config.maxCached }));
  }

  async tokenFor(ctx: RequestContext): Promise<string> {
    return (await this[LEASE](ctx, this.#label)).token;
  }

  /**
   * The caller's token and its key. The hit path is one map lookup, by the subject and the subject token themselves
   * (a digest, which the store's key is, would cost more than the lookup). Concurrent misses for one key share one
   * exchange. Every failure is logged (with the IdP's text) and rejected as `Upstream "<label>" could not
   * get a token for the caller`.
   */
  async [LEASE](ctx: RequestContext, label: string): Promise<CallerToken> {
    const host = this.#host;
    const subject = ctx.auth?.subject;
    let subjectToken: string | undefined;
    try {
      subjectToken = this.#config.subjectToken ? await this.#config.subjectToken(ctx) : host?.presentedToken(ctx.auth);
    } catch (err) {
      throw this.#failed(label, err);
    }
    if (host === undefined || subject === undefined || typeof subjectToken !== 'string' || subjectToken === '')
      throw this.#failed(
        label,
        new ExchangeFailure(
          host === undefined
            ? 'the tokenExchange is not the auth of any upstream'
            : 'the caller has no authenticated subject or no token to exchange',
        ),
      );
    // The subject token is part of the key: a new token of the same subject (other scopes) is exchanged anew.
    const key = `${subject}\n${subjectToken}`;
    const hit = this.#local.get(key);
    if (hit !== undefined) return { token: hit.token, key };
    let pending = this.#pending.get(key);
    if (pending === undefined) {
      pending = this.#fill(host, key, subjectToken).finally(() => this.#pending.delete(key));
      this.#pending.set(key, pending);
    }
    try {
      return { token: (await pending).token, key };
    } catch (err) {
      throw this.#failed(label, err);
    }
  }

  /** The key of a caller's token in the shared store: a digest of the exchange and the local key (no token in the clear). */
  #storeKey(key: string): string {
    return tokenDigest(`${this.#id}\n${key}`);
  }

  /** Forgets `refused` (the upstream answered 401 to it), here and in the store, unless a newer token replaced it. */
  async [DROP](refused: CallerToken): Promise<void> {
    if (this.#local.get(refused.key)?.token === refused.token) this.#local.delete(refused.key);
    await this.#store?.delete('exchange', this.#storeKey(refused.key)).catch(() => undefined);
  }

  /** A local miss: the store's token when another instance exchanged one, else a new exchange, kept in both. */
  async #fill(host: ExchangeHost, key: string, subjectToken: string): Promise<Kept> {
    const store = this.#store;
    const storeKey = this.#storeKey(key);
    const shared = await store?.get('exchange', storeKey).catch(() => undefined);
    if (typeof shared?.token === 'string' && typeof shared.refreshAt === 'number' && shared.refreshAt > Date.now()) {
      const kept = { token: shared.token, refreshAt: shared.refreshAt };
      this.#local.set(key, kept, kept.refreshAt);
      return kept;
    }
    const issued = await exchangeAt(this.#config, await this.#tokenEndpoint(), subjectToken);
    const kept = { token: issued.token, refreshAt: this.#refreshAt(issued) };
    // A token whose lifetime the IdP did not say (no expires_in, not a JWT with exp) serves this call only.
    if (kept.refreshAt > Date.now()) {
      this.#local.set(key, kept, kept.refreshAt);
      await store
        ?.set('exchange', storeKey, kept, kept.refreshAt - Date.now())
        .catch((err: unknown) =>
          host.logger.warn(err, `mcpRouter: upstream '${this.#label}': the store did not keep an exchanged token`),
        );
    }
    return kept;
  }

  #refreshAt(issued: ExchangedToken): number {
    return issued.expiresAt === undefined ? 0 : issued.expiresAt - this.#config.refreshBeforeSec * 1000;
  }

  /** The token endpoint: given, or read once from the issuer's metadata (a failed read is tried again next time). */
  #tokenEndpoint(): Promise<URL> {
    const { tokenEndpoint, issuer } = this.#config;
    if (tokenEndpoint !== undefined) return Promise.resolve(tokenEndpoint);
    this.#endpoint ??= discoverTokenEndpoint(this.#config, issuer!).catch((err: unknown) => {
      this.#endpoint = undefined;
      throw err;
    });
    return this.#endpoint;
  }

  /**
   * Logs why (an ExchangeFailure quotes the IdP's error text at most, never a token; anything else, a subjectToken
   * function's or a key's error, as it came, as a throwing headers function's is) and gives the caller's error.
   */
  #failed(label: string, err: unknown): Error {
    this.#host?.logger.error(err, `mcpRouter: upstream '${label}': token exchange failed`);
    return new CallerTokenError(`Upstream "${label}" could not get a token for the caller`);
  }
}

/**
 * A per-caller token for an upstream by OAuth 2.0 Token Exchange (RFC 8693): the gateway sends the caller's verified
 * token (`subject_token`) to the IdP, authenticating as itself, and gets a token for the upstream's `audience`. The
 * caller's own token never reaches the upstream (MCP authorization › Token Passthrough). Exchanged tokens are
 * cached per caller (subject and subject token) until `refreshBeforeSec` before they expire, bounded by
 * `maxCached`, and shared through the router's `store`.
 *
 * @param options - the IdP (`tokenEndpoint` or `issuer`), `audience`, `clientAuth`, and see {@link TokenExchangeOptions}
 * @throws {McpConfigError} for a missing or bad option, naming it
 * @example
 * ```ts
 * mcp.upstream({
 *   prefix: 'crm',
 *   url: 'https://crm.internal/mcp',
 *   auth: tokenExchange({
 *     issuer: 'https://idp.example.com',
 *     audience: 'https://crm.internal/mcp',
 *     clientAuth: { clientId: 'mcp-gateway', clientSecret: process.env.GATEWAY_SECRET! },
 *   }),
 * });
 * ```
 */
export function tokenExchange(options: TokenExchangeOptions): TokenExchange {
  return new Exchange(resolveExchangeOptions(options));
}

/** True for what {@link tokenExchange} made. */
export function isTokenExchange(value: unknown): value is TokenExchange {
  return value instanceof Exchange;
}

/** Binds an upstream's `auth` to its router (see {@link ExchangeHost}). */
export function bindExchange(exchange: TokenExchange, host: ExchangeHost, label: string): void {
  (exchange as Exchange)[BIND](host, label);
}

/** The caller's token for the upstream named `label`, and its cache key. */
export function leaseToken(exchange: TokenExchange, ctx: RequestContext, label: string): Promise<CallerToken> {
  return (exchange as Exchange)[LEASE](ctx, label);
}

/** Forgets a token the upstream refused. */
export function dropToken(exchange: TokenExchange, refused: CallerToken): Promise<void> {
  return (exchange as Exchange)[DROP](refused);
}
