// The `auth.server` option: the router as an OAuth 2.1 authorization server, checked once at boot.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpConfigError, type OptionKeys } from '../../options/config-error';
import { OptionReader } from '../../options/option-reader';
import { requireJoseFor } from '../../edge/security/jose';
import { DEFAULT_MAX_SIGN_IN_RECORDS, signInLimits, type SignInLimits } from '../../edge/store/sign-in-store';
import type { McpLogger } from '../../core/logger';
import { resolveClientsOptions, type ClientsOptions, type ResolvedClients } from './clients/client-options';
import { resolveSigningKeysOptions, type ResolvedSigningKeys, type SigningKeysOptions } from './tokens/keys';
import { resolveTrustedIdps, type ResolvedIdJag, type TrustedIdpsOptions } from './trusted-idp-options';
import { JWT_BEARER_GRANT } from './clients/client';
import { checkedIdentity, type Identity, type LoginStep } from './browser/login';
import type { ConsentDetails } from './browser/consent-page';

/** What `signIn` answers: the user already signed in to the app, or nothing once it has answered the browser itself. */
export type SignInResult =
  | {
      /** The user: becomes the tokens' `sub` and the handlers' `ctx.auth.subject`. */
      subject: string;
      /** The scopes this user may have; undefined means every scope the client asks for that the server supports. */
      scopes?: string[];
    }
  | null
  | undefined;

/**
 * The app's own login: return the user when the browser request carries the app's session (a cookie, passport's
 * `req.user`), or redirect to the app's login page (which sends the browser back to `returnTo` once signed in) and
 * return nothing.
 */
export type SignInFunction = (
  req: IncomingMessage,
  res: ServerResponse,
  login: { returnTo: string },
) => SignInResult | Promise<SignInResult>;

/** The consent step (confused-deputy protection for clients the server does not know). */
export interface ConsentOptions {
  /** How long a consent is remembered, per subject, client and scopes, in ms. Defaults to 30 days; 0 asks every time. */
  rememberMs?: number;
  /**
   * Renders the consent page yourself: write HTML to `res` with a form that POSTs `details.fields` (hidden inputs)
   * plus `decision=allow` or `decision=deny` to `details.action`. The router has set the CSRF cookie and the
   * security headers. Defaults to the router's own small page.
   */
  render?: (details: ConsentDetails, req: IncomingMessage, res: ServerResponse) => void;
}

/** `auth.server`: the router issues the tokens it accepts. Exactly one of `signIn` and `upstream`. */
export interface AuthServerOptions extends ClientsOptions, SigningKeysOptions, TrustedIdpsOptions {
  /** The app's own login (see {@link SignInFunction}). */
  signIn?: SignInFunction;
  /** An existing identity provider (the IdP), through the OAuth proxy: `oidcUpstream({ issuer, clientId, clientSecret })`. */
  upstream?: LoginStep;
  /**
   * The issuer URL (RFC 8414 §2), and the MCP resource (the tokens' `aud`) unless `auth.resourceMetadata.resource`
   * names another. Defaults to the URL the client used to reach the router's mount path (`<origin><mount path>`);
   * set it behind proxies that rewrite the host.
   */
  issuer?: string;
  /** Scopes the server issues (`scopes_supported`). Defaults to none: tokens carry no scopes. */
  scopes?: string[];
  /** The consent step. */
  consent?: ConsentOptions;
  /** Lifetime of access tokens (JWTs), in seconds. Defaults to 3,600. */
  accessTokenTtlSec?: number;
  /** Lifetime of a refresh-token family after its last use, in seconds. Defaults to 30 days. */
  refreshTokenTtlSec?: number;
  /** Lifetime of authorization codes, in seconds. Defaults to 60. */
  codeTtlSec?: number;
  /**
   * The most refresh-token families kept (one per sign-in of a user with a client), across instances with a shared
   * store; past it the least recently refreshed family ends. Registrations and authorizations have bounds of their
   * own, so no flood of them ends a family. Defaults to `10000`.
   */
  maxRefreshFamilies?: number;
  /** The most consents remembered (per subject and client); past it the least recently given is asked again. Defaults to `10000`. */
  maxConsents?: number;
  /**
   * The most authorizations waiting for the user's login or consent; past it the oldest one waiting fails (its user
   * starts again from the client). Anyone can start one: this bounds what abandoned ones cost. Defaults to `10000`.
   */
  maxPendingAuthorizations?: number;
  /** The most authorization codes issued and not yet redeemed (with the used ones a replay would name); past it the oldest goes. Defaults to `10000`. */
  maxCodes?: number;
  /**
   * The most single-use ids remembered, across instances with a shared store: the `jti` of client assertions,
   * ID-JAGs and DPoP proofs, each kept until what it names expires (minutes). Past it the oldest is forgotten, and
   * could be presented once more within its lifetime: keep it above the assertions and proofs a few minutes bring.
   * Defaults to `100000`.
   */
  maxUsedIds?: number;
  /**
   * The most requests a minute from one client address to the authorize, consent, callback, token and revocation
   * endpoints (429 beyond), or `false`. Registration has its own (`registration.perMinute`). Defaults to 300.
   */
  rateLimit?: number | false;
}

/** `auth.server` after checking; internal, frozen. */
export interface ResolvedAuthServer {
  readonly login: LoginStep;
  readonly issuer: string | undefined;
  readonly scopes: readonly string[];
  readonly rememberConsentMs: number;
  readonly renderConsent: ConsentOptions['render'];
  readonly accessTokenTtlSec: number;
  readonly refreshTokenTtlSec: number;
  readonly codeTtlSec: number;
  readonly rateLimit: number | false;
  /** The sign-in store's bound of each kind. */
  readonly limits: SignInLimits;
  readonly clients: ResolvedClients;
  readonly keys: ResolvedSigningKeys;
  /** The IdPs whose ID-JAGs the token endpoint takes; undefined when none is trusted. */
  readonly idJag: ResolvedIdJag | undefined;
}

const DAY_SEC = 24 * 60 * 60;
export const DEFAULT_ACCESS_TOKEN_TTL_SEC = 3_600;
export const DEFAULT_REFRESH_TOKEN_TTL_SEC = 30 * DAY_SEC;
export const DEFAULT_CODE_TTL_SEC = 60;
export const DEFAULT_REMEMBER_CONSENT_MS = 30 * DAY_SEC * 1000;
export const DEFAULT_SIGN_IN_PER_MINUTE = 300;
export const DEFAULT_MAX_REFRESH_FAMILIES = DEFAULT_MAX_SIGN_IN_RECORDS;
export const DEFAULT_MAX_CONSENTS = DEFAULT_MAX_SIGN_IN_RECORDS;
export const DEFAULT_MAX_PENDING_AUTHORIZATIONS = DEFAULT_MAX_SIGN_IN_RECORDS;
export const DEFAULT_MAX_CODES = DEFAULT_MAX_SIGN_IN_RECORDS;
/** Single-use ids are small and come in floods of assertions: more of them are kept. */
export const DEFAULT_MAX_USED_IDS = 100_000;

const KNOWN: OptionKeys<AuthServerOptions> = {
  signIn: true,
  upstream: true,
  issuer: true,
  scopes: true,
  consent: true,
  accessTokenTtlSec: true,
  refreshTokenTtlSec: true,
  codeTtlSec: true,
  maxRefreshFamilies: true,
  maxConsents: true,
  maxPendingAuthorizations: true,
  maxCodes: true,
  maxUsedIds: true,
  rateLimit: true,
  clients: true,
  registration: true,
  clientMetadataDocuments: true,
  signingKeys: true,
  rotationMs: true,
  trustedIdps: true,
  mapIdentity: true,
};
const KNOWN_CONSENT: OptionKeys<ConsentOptions> = { rememberMs: true, render: true };

type Read = OptionReader<AuthServerOptions>;

/** RFC 6749 §3.3: a scope token is printable ASCII without spaces, quotes or backslashes. */
const isScopeName = (value: unknown): value is string =>
  typeof value === 'string' && /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(value);

/** The sign-in store's bounds: `registration.maxClients` (the default when registration is off) and the `max*` options. */
function resolveLimits(read: Read, clients: ResolvedClients): SignInLimits {
  return Object.freeze(
    signInLimits({
      clients: clients.registration === false ? DEFAULT_MAX_SIGN_IN_RECORDS : clients.registration.maxClients,
      refreshFamilies: read.positiveInteger('maxRefreshFamilies', DEFAULT_MAX_REFRESH_FAMILIES),
      consents: read.positiveInteger('maxConsents', DEFAULT_MAX_CONSENTS),
      pendingAuthorizations: read.positiveInteger('maxPendingAuthorizations', DEFAULT_MAX_PENDING_AUTHORIZATIONS),
      codes: read.positiveInteger('maxCodes', DEFAULT_MAX_CODES),
      replays: read.positiveInteger('maxUsedIds', DEFAULT_MAX_USED_IDS),
    }),
  );
}

/** The app's `signIn` as a login step: its answer checked, so a wrong shape is a clear error, not a token for nobody. */
function signInStep(signIn: SignInFunction): LoginStep {
  return {
    kind: 'signIn',
    async start(req, res, { returnTo }): Promise<Identity | undefined> {
      const shape = '{ subject: string, scopes? } or nothing (after answering the browser)';
      return checkedIdentity(await signIn(req, res, { returnTo }), 'signIn', shape);
    },
  };
}

/** The login step: the app's `signIn`, or an IdP's step (`oidcUpstream(…)`); exactly one of them. */
function resolveLogin(read: Read): LoginStep {
  const signIn = read.fn('signIn');
  const idpStep = read.raw('upstream');
  if ((signIn === undefined) === (idpStep === undefined)) {
    throw new McpConfigError(
      'ERR_MCP_INVALID_OPTION',
      "option 'auth.server' needs exactly one of 'signIn' (your app's login) or 'upstream' (oidcUpstream(…))",
    );
  }
  if (signIn !== undefined) return signInStep(signIn);
  if (
    typeof idpStep !== 'object' ||
    idpStep === null ||
    typeof idpStep.start !== 'function' ||
    typeof idpStep.finish !== 'function'
  )
    throw read.invalid('upstream', 'oidcUpstream({ issuer, clientId, clientSecret })');
  return idpStep;
}

/** RFC 8414 §2: the issuer is an https URL with no query or fragment; http is allowed on loopback for development. */
function resolveIssuer(read: Read): string | undefined {
  const expected = 'an https URL without query or fragment (http only on loopback)';
  const url = read.url('issuer', { https: true });
  if (url === undefined) return undefined;
  const issuer = String(read.raw('issuer'));
  if (url.search !== '' || url.hash !== '' || issuer.includes('#') || issuer.includes('?'))
    throw read.invalid('issuer', expected);
  return issuer.replace(/\/$/, '');
}

/** The consent step's options: how long a consent is remembered (0: ask every time), and the app's own page. */
function resolveConsent(read: Read): Pick<ResolvedAuthServer, 'rememberConsentMs' | 'renderConsent'> {
  const consent = read.nested('consent', KNOWN_CONSENT);
  const rememberMs = consent.raw('rememberMs', DEFAULT_REMEMBER_CONSENT_MS);
  if (!Number.isSafeInteger(rememberMs) || rememberMs < 0)
    throw consent.invalid('rememberMs', 'a whole number of ms, 0 or more');
  return { rememberConsentMs: rememberMs, renderConsent: consent.fn('render') };
}

/**
 * Checks `auth.server` once, when `mcpRouter()` is called.
 *
 * @param logger - the router's `logger`: where a client's key set that cannot be loaded is reported
 * @throws {McpConfigError} for an unknown key, a bad value, or not exactly one of `signIn` and `upstream`; on a Node
 * that cannot load jose (its tokens are JWTs)
 */
export function resolveAuthServerOptions(server: AuthServerOptions, logger: McpLogger = console): ResolvedAuthServer {
  requireJoseFor('auth.server');
  const read = OptionReader.of(server, 'auth.server', KNOWN);
  const login = resolveLogin(read);
  const issuer = resolveIssuer(read);
  const scopes = read.array('scopes', isScopeName, 'an array of scope names (RFC 6749 §3.3)') ?? Object.freeze([]);
  const consent = resolveConsent(read);
  const seconds = 'a positive whole number of seconds';
  const accessTokenTtlSec = read.positiveInteger('accessTokenTtlSec', DEFAULT_ACCESS_TOKEN_TTL_SEC, seconds);
  const keys = resolveSigningKeysOptions(server, 'auth.server');
  const clients = resolveClientsOptions(server, logger);
  // A generated key verifies for one period after the next takes over: a token must not outlive that.
  if (keys.fixed === undefined && keys.rotationMs < accessTokenTtlSec * 1000) {
    throw read.invalid(
      'rotationMs',
      `at least accessTokenTtlSec (${accessTokenTtlSec} s) in ms, so tokens outlive no key`,
      keys.rotationMs,
    );
  }
  return Object.freeze({
    login,
    issuer,
    scopes,
    ...consent,
    accessTokenTtlSec,
    refreshTokenTtlSec: read.positiveInteger('refreshTokenTtlSec', DEFAULT_REFRESH_TOKEN_TTL_SEC, seconds),
    codeTtlSec: read.positiveInteger('codeTtlSec', DEFAULT_CODE_TTL_SEC, seconds),
    rateLimit:
      read.raw('rateLimit') === false
        ? false
        : read.positiveInteger('rateLimit', DEFAULT_SIGN_IN_PER_MINUTE, 'a positive whole number, or false'),
    clients,
    limits: resolveLimits(read, clients),
    keys,
    idJag: jwtBearerClientsHaveIdps(clients, resolveTrustedIdps(server)),
  });
}

/** A client given the JWT bearer grant redeems ID-JAGs, which need an IdP to trust: else its grant could never work. */
function jwtBearerClientsHaveIdps(
  clients: ResolvedClients,
  idJag: ResolvedIdJag | undefined,
): ResolvedIdJag | undefined {
  if (idJag !== undefined) return idJag;
  const index = [...clients.clients.values()].findIndex((client) => client.grantTypes.includes(JWT_BEARER_GRANT));
  if (index >= 0)
    throw new McpConfigError(
      'ERR_MCP_INVALID_OPTION',
      `option 'auth.server.clients[${index}].grants' has '${JWT_BEARER_GRANT}', which needs 'auth.server.trustedIdps' (the IdPs whose ID-JAGs it redeems)`,
    );
  return undefined;
}
