// The router as an OAuth 2.1 authorization server: its endpoints under the mount path, and the check of the tokens it issues.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpLogger } from '../../core/logger';
import { allowAnyOrigin } from '../../edge/http/public-cors';
import { rejectMalformedHost } from '../../edge/http/host-header';
import { sendJson } from '../../edge/http/reply';
import type { AuthInfo } from '../../core/registry/request-context';
import type { SignInStore } from '../../edge/store/sign-in-store';
import type { ExpressRequest, PublicUrls } from '../../edge/security/public-url';
import { IssuedTokenCheck } from './tokens/access-token';
import { BrowserEndpoints } from './browser/authorize';
import { createClientDirectory } from './clients/clients';
import { createRegistrationHandler } from './clients/register-handler';
import { CodesAndRefreshTokens } from './tokens/codes-and-refresh';
import { createSigningKeys } from './tokens/keys';
import { perAddressLimit } from './address-limit';
import { sendOAuthError } from './oauth-error';
import { EndpointTable, type Next, type Routes } from './endpoint-table';
import type { ServerContext } from './server-context';
import { ENDPOINTS, SERVER_METADATA_PATHS, serverMetadata } from './server-metadata';
import type { ResolvedAuthServer } from './server-options';
import { createTokenEndpoints } from './tokens/token-endpoint';
import { IdJagGrant } from './tokens/id-jag';
import type { DpopCheck } from '../../edge/security/dpop';

type Handler = (req: ExpressRequest, res: ServerResponse, next: Next) => void;

/** What one router's authorization server gives the rest of the router. */
export interface AuthorizationServer {
  /** Serves the endpoints and the metadata under the mount path; hands every other path on. */
  readonly handle: Handler;
  /** True for a path (under the mount path) that `handle` answers. */
  readonly serves: (path: string) => boolean;
  /** For `mcp.authServerMetadata`: the metadata at the app's root (`/.well-known/oauth-authorization-server/<mount>`, RFC 8414 §3.1). */
  readonly rootMetadata: Handler;
  /** Checks an access token this server issued for this resource: the caller, or undefined. */
  readonly verify: (token: string, req: IncomingMessage) => Promise<AuthInfo | undefined>;
  /** The issuer for a request (the protected-resource metadata names it). */
  readonly issuerOf: (req: IncomingMessage) => string;
}

/** The document of RFC 8414 (and its OpenID Provider form) for one issuer, cacheable for five minutes. */
async function sendMetadata(
  ctx: ServerContext,
  issuer: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const { alg } = await ctx.keys.current();
  sendJson(res, 200, serverMetadata(issuer, ctx.options, ctx.clients, [alg]), {
    'Cache-Control': 'public, max-age=300',
    // An issuer made from the request varies with it; a fixed one does not.
    ...(ctx.options.issuer === undefined ? ctx.urls.documentHeaders(req) : {}),
  });
}

/** The endpoints under the issuer, by path and method. */
function routesOf(ctx: ServerContext, logger: McpLogger): Routes {
  const browser = new BrowserEndpoints(ctx);
  const tokens = createTokenEndpoints(ctx);
  const register = createRegistrationHandler(ctx.clients, ctx.options.clients, logger);
  const metadata = {
    GET: (req: ExpressRequest, res: ServerResponse) => sendMetadata(ctx, ctx.issuerOf(req), req, res),
  };
  return {
    [ENDPOINTS.authorize]: {
      GET: (req, res) => browser.authorize(req, res, new URL(req.url ?? '', 'http://x').searchParams),
    },
    [ENDPOINTS.callback]: { GET: (req, res) => browser.callback(req, res) },
    [ENDPOINTS.consent]: { POST: (req, res) => browser.consent(req, res) },
    [ENDPOINTS.token]: { POST: (req, res) => tokens.token(req, res) },
    [ENDPOINTS.revoke]: { POST: (req, res) => tokens.revoke(req, res) },
    [ENDPOINTS.register]: { POST: (req, res, next) => void register(req as never, res as never, next) },
    [ENDPOINTS.jwks]: {
      GET: async (_req, res) => sendJson(res, 200, await ctx.keys.jwks(), { 'Cache-Control': 'public, max-age=300' }),
    },
    ...Object.fromEntries(SERVER_METADATA_PATHS.map((path) => [path, metadata])),
  };
}

/**
 * Creates the authorization server of a router's `auth.server` option.
 *
 * @param resourceOf - the MCP resource of a request (the tokens' audience)
 * @param dpop - the router's DPoP check: token requests with a proof get tokens bound to its key
 * @example
 * ```ts
 * const server = createAuthorizationServer(config.auth.server, store.signIn?.() ?? new MemorySignInStore(), resourceOf, logger, dpop, urls);
 * router.use(server.handle);
 * ```
 */
export function createAuthorizationServer(
  options: ResolvedAuthServer,
  store: SignInStore,
  resourceOf: (req: IncomingMessage) => string,
  logger: McpLogger,
  dpop: DpopCheck,
  /** The router's public URLs: the issuer is the endpoint's unless `issuer` fixes it. */
  urls: PublicUrls,
): AuthorizationServer {
  const issuerOf = (req: IncomingMessage): string => options.issuer ?? urls.endpointOf(req);
  const ctx: ServerContext = {
    options,
    store,
    clients: createClientDirectory(options.clients, store),
    codesAndRefresh: new CodesAndRefreshTokens(store, options.codeTtlSec * 1000, options.refreshTokenTtlSec * 1000),
    keys: createSigningKeys(options.keys, store),
    idJag: options.idJag && new IdJagGrant(options.idJag, store, options.scopes, logger),
    issuerOf,
    urls,
    selfOf: (req) => options.issuer ?? urls.vouchedEndpointOf(req),
    resourceOf,
    dpop,
    sendError: (res, err) => sendOAuthError(res, err),
  };
  const limit = options.rateLimit === false ? undefined : perAddressLimit(options.rateLimit, 'sign-in requests');
  const endpoints = new EndpointTable(routesOf(ctx, logger), limit, logger);
  const issued = new IssuedTokenCheck(ctx.keys, ctx.codesAndRefresh);
  return {
    handle(req, res, next) {
      if (!endpoints.serve(req.path ?? '', req, res, next)) next();
    },
    serves: (path) => endpoints.serves(path),
    rootMetadata(req, res, next) {
      // Mounted at the root for `/.well-known/<document>/<issuer path>`: the issuer is the origin and that path.
      const path = req.path === '/' ? '' : (req.path ?? '');
      // Outside the router's front door: the issuer comes from the Host, so a malformed one is refused here too.
      if (rejectMalformedHost(req, res)) return;
      if (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'OPTIONS') return next();
      if (allowAnyOrigin(req, res, ['GET'])) return;
      const issuer = options.issuer ?? urls.fixed ?? `${urls.originOf(req)}${path}`;
      endpoints.run(() => sendMetadata(ctx, issuer, req, res), res);
    },
    verify: (token, req) => issued.verify(token, { issuer: issuerOf(req), resource: resourceOf(req) }),
    issuerOf,
  };
}
