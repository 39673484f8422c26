// CORS for MCP in browsers: origins from the `origins` policy, MCP's headers allowed and exposed.

import type { IncomingMessage, ServerResponse } from 'node:http';
import cors, { type CorsOptions } from 'cors';
import type { RequestHandler } from 'express';
import type { OriginsOption } from './origin-host';

/**
 * The `cors` package options of a router: `origin` from the `origins` policy, over the resolved `cors` option
 * (the caller's over the router's defaults, options.ts).
 *
 * @example
 * ```ts
 * app.use(cors(corsOptions(config.origins, isAllowedOrigin, config.cors)));
 * ```
 */
export function corsOptions(origins: OriginsOption | undefined, isAllowedOrigin: (origin: string) => boolean, resolved: Readonly<CorsOptions>): CorsOptions {
  return {
    origin: origins === '*' && resolved.credentials !== true ? '*' : (origin, callback) => callback(null, origin !== undefined && isAllowedOrigin(origin)),
    ...resolved,
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
export function createCorsHandler(origins: OriginsOption | undefined, isAllowedOrigin: (origin: string) => boolean, resolved: Readonly<CorsOptions>): RequestHandler {
  const options = corsOptions(origins, isAllowedOrigin, resolved);
  const handleWithPackage = cors(options);
  if (options.origin === '*') return handleWithPackage;
  return function mcpCors(req: IncomingMessage, res: ServerResponse, next: () => void) {
    if (req.headers.origin === undefined) return next();
    handleWithPackage(req, res, next);
  } as RequestHandler;
}
