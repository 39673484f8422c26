// CORS for MCP in browsers: origins from the `origins` policy, MCP's headers allowed and exposed.

import type { IncomingMessage, ServerResponse } from 'node:http';
import cors, { type CorsOptions } from 'cors';
import type { RequestHandler } from 'express';
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS } from '../http/headers';
import type { OriginsOption } from './origin-host';

/**
 * The `cors` package options of a router: the caller's `cors` option over these defaults. `Mcp-Session-Id`
 * and `WWW-Authenticate` are exposed, or a browser client could neither keep its session nor find the
 * authorization server (a common complaint about MCP servers).
 *
 * @example
 * ```ts
 * app.use(cors(corsOptions(origins, isAllowedOrigin, {})));
 * ```
 */
export function corsOptions(origins: OriginsOption | undefined, isAllowedOrigin: (origin: string) => boolean, user: Readonly<CorsOptions>): CorsOptions {
  return {
    origin: origins === '*' && user.credentials !== true ? '*' : (origin, callback) => callback(null, origin !== undefined && isAllowedOrigin(origin)),
    // Joined once here: the package joins an array again on every request.
    methods: 'GET,POST,DELETE,OPTIONS',
    allowedHeaders: CORS_ALLOWED_HEADERS.join(','),
    exposedHeaders: CORS_EXPOSED_HEADERS.join(','),
    maxAge: 600,
    ...user,
  };
}

/**
 * The CORS middleware of a router: the `cors` package with {@link corsOptions}. A request without an `Origin`
 * (every non-browser client) skips the package, which would add nothing to it unless the policy is `'*'`.
 *
 * @example
 * ```ts
 * frontDoor.push(createCorsHandler(config.origins, isAllowedOrigin, config.cors));
 * ```
 */
export function createCorsHandler(origins: OriginsOption | undefined, isAllowedOrigin: (origin: string) => boolean, user: Readonly<CorsOptions>): RequestHandler {
  const options = corsOptions(origins, isAllowedOrigin, user);
  const handleWithPackage = cors(options);
  if (options.origin === '*') return handleWithPackage;
  return function mcpCors(req: IncomingMessage, res: ServerResponse, next: () => void) {
    if (req.headers.origin === undefined) return next();
    handleWithPackage(req, res, next);
  } as RequestHandler;
}
