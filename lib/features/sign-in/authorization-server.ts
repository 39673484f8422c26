// The router as an OAuth 2.1 authorization server: its endpoints under the mount path, and the check of the tokens it issues.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpLogger } from '../../core/logger';
import { allowAnyOrigin } from '../../edge/http/public-cors';
import { rejectMalformedHost } from '../../edge/http/host-header';
import { sendJson } from '../../edge/http/reply';
import type { AuthInfo } from '../../core/registry/request-context';
import { StoreUnavailableError } from '../../edge/store/shared-store';
import type { SignInStore } from '../../edge/store/sign-in-store';
import { originOf, type ExpressRequest } from '../../edge/security/resource-metadata';
import { createVerifiedTokenCache } from '../../edge/security/token-cache';
import { verifyAccessToken } from './tokens/access-token';
import { createAuthorizeEndpoints } from './browser/authorize';
import { createClientDirectory } from './clients/clients';
import { createRegistrationHandler } from './clients/register-handler';
import { Grants } from './tokens/codes-and-refresh';
import { createSigningKeys } from './tokens/keys';
import { perAddressLimit } from './address-limit';
import { NO_STORE, OAuthError, sendOAuthError } from './oauth-error';
import type { ServerContext } from './server-context';
import { ENDPOINTS, SERVER_METADATA_PATHS, serverMetadata } from './server-metadata';
import type { ResolvedAuthServer } from './server-options';
import { createTokenEndpoints } from './tokens/token-endpoint';

type Next = (err?: unknown) => void;
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

/** Endpoints under the per-address limit (`auth.server.rateLimit`): where a request costs the server work or a lookup. */
const LIMITED_PATHS = new Set<string>([
  ENDPOINTS.authorize,
  ENDPOINTS.consent,
  ENDPOINTS.callback,
  ENDPOINTS.token,
  ENDPOINTS.revoke,
]);

/** Endpoints a browser-based client calls cross-origin: readable by any origin (they take no cookies). */
const CORS_PATHS = new Set<string>([
  ...SERVER_METADATA_PATHS,
  ENDPOINTS.token,
  ENDPOINTS.register,
  ENDPOINTS.revoke,
  ENDPOINTS.jwks,
]);

/**
 * Creates the authorization server of a router's `auth.server` option.
 *
 * @param resourceOf - the MCP resource of a request (the tokens' audience)
 * @example
 * ```ts
 * const server = createAuthorizationServer(config.auth.server, store.signIn?.() ?? new MemorySignInStore(), resourceOf, logger);
 * router.use(server.handle);
 * ```
 */
export function createAuthorizationServer(
  options: ResolvedAuthServer,
  store: SignInStore,
  resourceOf: (req: IncomingMessage) => string,
  logger: McpLogger,
): AuthorizationServer {
  const issuerOf = (req: IncomingMessage): string =>
    options.issuer ?? `${originOf(req)}${(req as ExpressRequest).baseUrl ?? ''}`;
  const clients = createClientDirectory(options.clients, store);
  const keys = createSigningKeys(options.keys, store);
  const grants = new Grants(store, options.codeTtlSec * 1000, options.refreshTokenTtlSec * 1000);
  const sendError = (res: ServerResponse, err: OAuthError): void => sendOAuthError(res, err);
  const ctx: ServerContext = { options, store, clients, grants, keys, issuerOf, resourceOf, sendError };
  const browser = createAuthorizeEndpoints(ctx);
  const tokens = createTokenEndpoints(ctx);
  const register = createRegistrationHandler(clients, options.clients, logger);
  const cache = createVerifiedTokenCache();
  const limit = options.rateLimit === false ? undefined : perAddressLimit(options.rateLimit, 'sign-in requests');

  async function metadata(issuer: string, res: ServerResponse): Promise<void> {
    const { alg } = await keys.current();
    sendJson(res, 200, serverMetadata(issuer, options, clients, [alg]), { 'Cache-Control': 'public, max-age=300' });
  }

  /** The endpoints, by path and method. */
  const routes: Record<
    string,
    Record<string, (req: ExpressRequest, res: ServerResponse, next: Next) => Promise<void> | void>
  > = {
    [ENDPOINTS.authorize]: {
      GET: (req, res) => browser.authorize(req, res, new URL(req.url ?? '', 'http://x').searchParams),
    },
    [ENDPOINTS.callback]: { GET: (req, res) => browser.callback(req, res) },
    [ENDPOINTS.consent]: { POST: (req, res) => browser.consent(req, res) },
    [ENDPOINTS.token]: { POST: (req, res) => tokens.token(req, res) },
    [ENDPOINTS.revoke]: { POST: (req, res) => tokens.revoke(req, res) },
    [ENDPOINTS.register]: { POST: (req, res, next) => void register(req as never, res as never, next) },
    [ENDPOINTS.jwks]: {
      GET: async (_req, res) => sendJson(res, 200, await keys.jwks(), { 'Cache-Control': 'public, max-age=300' }),
    },
  };
  for (const path of SERVER_METADATA_PATHS) routes[path] = { GET: (req, res) => metadata(issuerOf(req), res) };

  /** Runs an endpoint: its errors as the RFC's JSON, a store outage as 503, anything else as 500 without a stack. */
  function run(endpoint: () => Promise<void> | void, res: ServerResponse): void {
    Promise.resolve()
      .then(endpoint)
      .catch((err: unknown) => {
        if (res.headersSent) return void res.destroy();
        if (err instanceof OAuthError) return sendError(res, err);
        if (err instanceof StoreUnavailableError)
          return sendJson(
            res,
            503,
            { error: 'temporarily_unavailable', error_description: 'sign-in storage is unavailable; retry shortly' },
            { ...NO_STORE, 'Retry-After': String(err.retryAfterSeconds) },
          );
        logger.error(err, 'mcpRouter: a sign-in endpoint failed');
        sendJson(
          res,
          500,
          { error: 'server_error', error_description: 'the authorization server failed; see its logs' },
          NO_STORE,
        );
      });
  }

  function serve(path: string, req: ExpressRequest, res: ServerResponse, next: Next): boolean {
    const methods = routes[path];
    if (methods === undefined) return false;
    const method = req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET');
    if (CORS_PATHS.has(path) && allowAnyOrigin(req, res, Object.keys(methods))) return true;
    const endpoint = methods[method];
    if (endpoint === undefined) {
      sendJson(
        res,
        405,
        { error: 'invalid_request', error_description: `use ${Object.keys(methods).join(' or ')} here` },
        { Allow: Object.keys(methods).join(', ') },
      );
      return true;
    }
    // Metadata, keys and registration (limited on its own) are outside the per-address limit of the rest.
    if (limit === undefined || !LIMITED_PATHS.has(path)) run(() => endpoint(req, res, next), res);
    else
      limit(req as never, res as never, (err?: unknown) =>
        err ? next(err) : run(() => endpoint(req, res, next), res),
      );
    return true;
  }

  return {
    handle(req, res, next) {
      if (!serve(req.path ?? '', req, res, next)) next();
    },
    serves: (path) => Object.hasOwn(routes, path),
    rootMetadata(req, res, next) {
      // Mounted at the root for `/.well-known/<document>/<issuer path>`: the issuer is the origin and that path.
      const path = req.path === '/' ? '' : (req.path ?? '');
      // Outside the router's front door: the issuer comes from the Host, so a malformed one is refused here too.
      if (rejectMalformedHost(req, res)) return;
      if (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'OPTIONS') return next();
      if (allowAnyOrigin(req, res, ['GET'])) return;
      run(() => metadata(options.issuer ?? `${originOf(req)}${path}`, res), res);
    },
    async verify(token, req) {
      const resource = resourceOf(req);
      // Keyed by resource too: a router reached under two hosts must not take one host's token on the other.
      const key = `${resource} ${token}`;
      const cached = cache.get(key);
      if (cached !== undefined) return cached;
      const verified = await verifyAccessToken(keys, token, { issuer: issuerOf(req), resource });
      if (verified === undefined) return undefined;
      let auth = verified.auth;
      // In proxy mode the provider's tokens stay here: handlers read them as ctx.auth.extra.upstream.
      if (verified.grantId !== undefined) {
        const grant = await grants.grantOf(verified.grantId);
        if (grant === undefined) return undefined; // the family was revoked
        auth = { ...auth, extra: { ...auth.extra, upstream: grant.upstream } };
      }
      cache.set(key, auth);
      return auth;
    },
    issuerOf,
  };
}
