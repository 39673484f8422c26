// tokenExchange()'s options: what a caller may pass, their defaults, and the one check that turns them into a frozen config.

import { createPrivateKey, type KeyObject } from 'node:crypto';
import { McpConfigError, type OptionKeys } from '../../../options/config-error';
import { OptionReader } from '../../../options/option-reader';
import { requireJoseFor } from '../../../edge/security/jose';
import { DEFAULT_FETCH_MAX_BYTES, DEFAULT_FETCH_TIMEOUT_MS } from '../../../edge/outbound/provider-fetch';
import { ASYMMETRIC_JWS_ALGORITHMS, type CryptoKey, type JWK } from '../../../edge/security/jose-types';
import type { RequestContext } from '../../../core/registry/request-context';

/** RFC 8693 §3: the type of an OAuth 2.0 access token, the default `subject_token_type` and the `requested_token_type`. */
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
/** Default `maxCached`: exchanged tokens kept, per router. */
export const DEFAULT_MAX_CACHED = 10_000;
/** Default `refreshBeforeSec`: an exchanged token is exchanged anew this long before it expires. */
export const DEFAULT_REFRESH_BEFORE_SEC = 30;

/** The gateway as a confidential client of the IdP with a secret: `client_secret_basic` (RFC 6749 §2.3.1). */
export interface ClientSecretAuth {
  /** The gateway's `client_id` at the IdP. */
  clientId: string;
  /** Its secret, sent with HTTP Basic (`client_secret_basic`); never logged. */
  clientSecret: string;
}

/** The gateway as a client of the IdP with a key: `private_key_jwt` (RFC 7523 §2.2, OpenID Connect Core §9). */
export interface PrivateKeyJwtAuth {
  /** The gateway's `client_id` at the IdP: the assertion's `iss` and `sub`. */
  clientId: string;
  /** Its private key: a WebCrypto or Node key, a private JWK, or a PKCS#8 PEM. */
  privateKey: CryptoKey | KeyObject | JWK | string;
  /** An asymmetric JWS algorithm. Defaults to the JWK's `alg`, else `ES256`/`ES384` for an EC key, `EdDSA` for an OKP key, `RS256` otherwise. */
  alg?: string;
  /** The `kid` of the assertion's header. Defaults to the JWK's `kid`, else none. */
  kid?: string;
}

/** Options of {@link tokenExchange}: the IdP, what to ask it for, how the gateway proves itself there. */
export interface TokenExchangeOptions {
  /** The IdP's token endpoint: https, or http on a loopback host. Exactly one of `tokenEndpoint` and `issuer`. */
  tokenEndpoint?: string;
  /**
   * The IdP's issuer: the token endpoint is read from its RFC 8414 metadata
   * (`/.well-known/oauth-authorization-server`, else `/.well-known/openid-configuration`) at the first exchange.
   */
  issuer?: string;
  /** RFC 8693 `audience`: the upstream, as the IdP names it. An exchanged JWT must carry it in `aud`. Required. */
  audience: string;
  /** RFC 8693 `resource` (an absolute URI): the upstream's resource indicator. Defaults to none. */
  resource?: string;
  /** RFC 8693 `scope`: a space-separated string or a list. Defaults to none (the IdP's default). */
  scope?: string | readonly string[];
  /** How the gateway authenticates at the IdP. Required. */
  clientAuth: ClientSecretAuth | PrivateKeyJwtAuth;
  /** The `subject_token`. Defaults to the bearer token the caller presented to the router. */
  subjectToken?: (ctx: RequestContext) => string | Promise<string>;
  /** RFC 8693 `subject_token_type`. Defaults to `urn:ietf:params:oauth:token-type:access_token`. */
  subjectTokenType?: string;
  /** The most one call to the IdP (discovery, exchange) may take, in ms. Defaults to `5000`. */
  timeoutMs?: number;
  /** The largest answer read from the IdP, in bytes. Defaults to `65536`. */
  maxBytes?: number;
  /** The most exchanged tokens kept (in this process, and in a shared store). Defaults to `10000`. */
  maxCached?: number;
  /** How long before its `expires_in` an exchanged token is exchanged anew, in seconds. Defaults to `30`. */
  refreshBeforeSec?: number;
}

/** The gateway's credentials at the IdP, checked. Internal. */
export type ResolvedClientAuth =
  | { readonly method: 'client_secret_basic'; readonly clientId: string; readonly clientSecret: string }
  | {
      readonly method: 'private_key_jwt';
      readonly clientId: string;
      readonly privateKey: CryptoKey | KeyObject | JWK | string;
      readonly alg: string;
      readonly kid: string | undefined;
    };

/** {@link TokenExchangeOptions}, checked and defaulted. Internal. */
export interface ExchangeConfig {
  /** The token endpoint, or undefined when it is discovered from `issuer`. */
  readonly tokenEndpoint: URL | undefined;
  readonly issuer: string | undefined;
  readonly audience: string;
  readonly resource: string | undefined;
  readonly scope: string | undefined;
  readonly clientAuth: ResolvedClientAuth;
  readonly subjectToken: TokenExchangeOptions['subjectToken'];
  readonly subjectTokenType: string;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly maxCached: number;
  readonly refreshBeforeSec: number;
}

const KNOWN: OptionKeys<TokenExchangeOptions> = {
  tokenEndpoint: true,
  issuer: true,
  audience: true,
  resource: true,
  scope: true,
  clientAuth: true,
  subjectToken: true,
  subjectTokenType: true,
  timeoutMs: true,
  maxBytes: true,
  maxCached: true,
  refreshBeforeSec: true,
};
const CLIENT_AUTH_KEYS: OptionKeys<ClientSecretAuth & PrivateKeyJwtAuth> = {
  clientId: true,
  clientSecret: true,
  privateKey: true,
  alg: true,
  kid: true,
};

type Read = OptionReader<TokenExchangeOptions>;
/** RFC 6749 §3.3: a scope token is printable ASCII without spaces, quotes or backslashes. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** The algorithm a key signs with when none is given: the JWK's own, else by its type. */
function defaultAlg(given: PrivateKeyJwtAuth['privateKey']): string {
  const key = typeof given === 'string' ? createPrivateKey(given) : given;
  const jwk = key as JWK;
  if (typeof jwk.alg === 'string') return jwk.alg;
  const type = jwk.kty ?? (key as { asymmetricKeyType?: string }).asymmetricKeyType;
  const curve = jwk.crv ?? (key as { asymmetricKeyDetails?: { namedCurve?: string } }).asymmetricKeyDetails?.namedCurve;
  if (type === 'EC' || type === 'ec') return curve === 'P-384' || curve === 'secp384r1' ? 'ES384' : 'ES256';
  if (type === 'OKP' || type === 'ed25519') return 'EdDSA';
  return 'RS256';
}

/** `clientAuth`: a secret (client_secret_basic) or a private key (private_key_jwt), never both; secrets never quoted. */
function clientAuthOf(read: Read): ResolvedClientAuth {
  const given = read.raw('clientAuth');
  if (given === undefined) throw read.invalid('clientAuth', '{ clientId, clientSecret } or { clientId, privateKey }');
  const auth = OptionReader.of(
    given as ClientSecretAuth & PrivateKeyJwtAuth,
    read.pathOf('clientAuth'),
    CLIENT_AUTH_KEYS,
  );
  const clientId = auth.string('clientId', { nonEmpty: true, required: true });
  const { clientSecret, privateKey, alg } = auth.options;
  if ((clientSecret === undefined) === (privateKey === undefined))
    throw read.invalid(
      'clientAuth',
      'exactly one of clientSecret (client_secret_basic) and privateKey (private_key_jwt)',
      '…',
    );
  if (clientSecret !== undefined) {
    if (typeof clientSecret !== 'string' || clientSecret === '')
      throw auth.invalid('clientSecret', 'a non-empty string', '…');
    return Object.freeze({ method: 'client_secret_basic', clientId, clientSecret });
  }
  const expected = 'a CryptoKey, KeyObject, private JWK or PKCS#8 PEM';
  if (typeof privateKey !== 'string' && (typeof privateKey !== 'object' || privateKey === null))
    throw auth.invalid('privateKey', expected, typeof privateKey);
  let signWith: string;
  try {
    signWith = alg ?? defaultAlg(privateKey);
  } catch {
    throw auth.invalid('privateKey', expected, '…');
  }
  if (!ASYMMETRIC_JWS_ALGORITHMS.includes(signWith))
    throw auth.invalid('alg', `an asymmetric JWS algorithm (${ASYMMETRIC_JWS_ALGORITHMS.join(', ')})`, signWith);
  const ownKid = auth.string('kid');
  const jwkKid = typeof (privateKey as JWK).kid === 'string' ? ((privateKey as JWK).kid as string) : undefined;
  return Object.freeze({ method: 'private_key_jwt', clientId, privateKey, alg: signWith, kid: ownKid ?? jwkKid });
}

/** `scope`: a string of scope tokens, or a list of them, joined by spaces. */
function scopeOf(read: Read): string | undefined {
  const scope = read.raw('scope');
  if (scope === undefined) return undefined;
  const list = typeof scope === 'string' ? scope.split(' ').filter((token) => token !== '') : scope;
  if (
    !Array.isArray(list) ||
    list.length === 0 ||
    !list.every((token) => typeof token === 'string' && SCOPE_TOKEN.test(token))
  )
    throw read.invalid('scope', 'scope tokens (RFC 6749 §3.3): a space-separated string or an array');
  return list.join(' ');
}

/**
 * Checks tokenExchange()'s options once, when it is called.
 *
 * @throws {McpConfigError} naming the option: `option 'tokenExchange.audience' must be a non-empty string`; naming
 * `tokenExchange` on a Node that cannot load jose (it reads the caller's JWT `aud` and signs `private_key_jwt`
 * assertions with it)
 */
export function resolveExchangeOptions(options: TokenExchangeOptions): ExchangeConfig {
  requireJoseFor('tokenExchange');
  const read = OptionReader.of(options, 'tokenExchange', KNOWN);
  const { tokenEndpoint, issuer } = read.options;
  if ((tokenEndpoint === undefined) === (issuer === undefined))
    throw new McpConfigError(
      'ERR_MCP_INVALID_OPTION',
      "tokenExchange needs exactly one of 'tokenEndpoint' and 'issuer' (whose RFC 8414 metadata names the token endpoint)",
    );
  const endpoint = read.url('tokenEndpoint', { https: true });
  const issuerUrl = read.url('issuer', { https: true });
  const resource = read.url('resource');
  return Object.freeze({
    tokenEndpoint: endpoint,
    issuer: issuerUrl && String(issuer),
    audience: read.string('audience', { nonEmpty: true, required: true }),
    resource: resource && String(read.options.resource),
    scope: scopeOf(read),
    clientAuth: clientAuthOf(read),
    subjectToken: read.fn('subjectToken'),
    subjectTokenType: read.string('subjectTokenType', { nonEmpty: true }) ?? ACCESS_TOKEN_TYPE,
    timeoutMs: read.milliseconds('timeoutMs', DEFAULT_FETCH_TIMEOUT_MS),
    maxBytes: read.positiveInteger('maxBytes', DEFAULT_FETCH_MAX_BYTES),
    maxCached: read.positiveInteger('maxCached', DEFAULT_MAX_CACHED),
    refreshBeforeSec: read.positiveInteger('refreshBeforeSec', DEFAULT_REFRESH_BEFORE_SEC, 'a whole number of seconds'),
  });
}
