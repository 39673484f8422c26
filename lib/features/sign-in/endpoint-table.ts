// The authorization server's endpoints by path and method: CORS, the per-address limit, 405, and every failure answered as OAuth JSON.

import type { ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { McpLogger } from '../../core/logger';
import { allowAnyOrigin } from '../../edge/http/public-cors';
import { sendJson } from '../../edge/http/reply';
import type { ExpressRequest } from '../../edge/security/public-url';
import { StoreUnavailableError } from '../../edge/store/shared-store';
import { NO_STORE, OAuthError, sendOAuthError } from './oauth-error';
import { ENDPOINTS, SERVER_METADATA_PATHS } from './server-metadata';

export type Next = (err?: unknown) => void;
/** One endpoint: answers the request, or hands it on with `next`. */
export type Endpoint = (req: ExpressRequest, res: ServerResponse, next: Next) => Promise<void> | void;
/** The endpoints, by path (relative to the issuer) and method. */
export type Routes = Readonly<Record<string, Readonly<Record<string, Endpoint>>>>;

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

/** The endpoints of one authorization server, served by path. */
export class EndpointTable {
  /**
   * @param limit - the per-address limit of {@link LIMITED_PATHS}, or undefined when `auth.server.rateLimit` is false
   * @param logger - where a failure that is not an OAuth error or a store outage is reported
   */
  constructor(
    private readonly routes: Routes,
    private readonly limit: RequestHandler | undefined,
    private readonly logger: McpLogger,
  ) {}

  /** True for a path that {@link EndpointTable.serve} answers. */
  serves(path: string): boolean {
    return Object.hasOwn(this.routes, path);
  }

  /** Answers a request to one of the endpoints: false (nothing done) for a path that is none of them. */
  serve(path: string, req: ExpressRequest, res: ServerResponse, next: Next): boolean {
    const methods = this.routes[path];
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
    if (this.limit === undefined || !LIMITED_PATHS.has(path)) this.run(() => endpoint(req, res, next), res);
    else
      this.limit(req as never, res as never, (err?: unknown) =>
        err ? next(err) : this.run(() => endpoint(req, res, next), res),
      );
    return true;
  }

  /** Runs an endpoint: its errors as the RFC's JSON, a store outage as 503, anything else as 500 without a stack. */
  run(endpoint: () => Promise<void> | void, res: ServerResponse): void {
    Promise.resolve()
      .then(endpoint)
      .catch((err: unknown) => {
        if (res.headersSent) return void res.destroy();
        if (err instanceof OAuthError) return sendOAuthError(res, err);
        if (err instanceof StoreUnavailableError)
          return sendJson(
            res,
            503,
            { error: 'temporarily_unavailable', error_description: 'sign-in storage is unavailable; retry shortly' },
            { ...NO_STORE, 'Retry-After': String(err.retryAfterSeconds) },
          );
        this.logger.error(err, 'mcpRouter: a sign-in endpoint failed');
        sendJson(
          res,
          500,
          { error: 'server_error', error_description: 'the authorization server failed; see its logs' },
          NO_STORE,
        );
      });
  }
}
