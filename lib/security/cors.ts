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
 * The CORS middleware of a router. Preflights (`OPTIONS`) are the `cors` package's. On every other request
 * the package would add the same two to four headers after copying its options and running two callbacks:
 * the router writes them itself, as the package writes them, from values computed once. A response that
 * already has a `Vary` header goes to the package, whose `vary` merges the field lists.
 *
 * @example
 * ```ts
 * frontDoor.push(createCorsHandler(config.origins, isAllowedOrigin, config.cors));
 * ```
 */
export function createCorsHandler(origins: OriginsOption | undefined, isAllowedOrigin: (origin: string) => boolean, user: Readonly<CorsOptions>): RequestHandler {
  const options = corsOptions(origins, isAllowedOrigin, user);
  const handleWithPackage = cors(options);
  const exposed = Array.isArray(options.exposedHeaders) ? options.exposedHeaders.join(',') : options.exposedHeaders;
  const writeCommon = (res: ServerResponse): void => {
    if (options.credentials === true) res.setHeader('Access-Control-Allow-Credentials', 'true');
    if (exposed) res.setHeader('Access-Control-Expose-Headers', exposed);
  };
  if (options.origin === '*') {
    // Any origin, no credentials: the same answer for every request, with or without an Origin.
    return function mcpCors(req: IncomingMessage, res: ServerResponse, next: () => void) {
      if (req.method === 'OPTIONS') return handleWithPackage(req, res, next);
      res.setHeader('Access-Control-Allow-Origin', '*');
      writeCommon(res);
      next();
    } as RequestHandler;
  }
  return function mcpCors(req: IncomingMessage, res: ServerResponse, next: () => void) {
    const origin = req.headers.origin;
    // Without an Origin (every non-browser client), or with one the policy refuses, the package adds nothing.
    if (origin === undefined) return next();
    if (req.method === 'OPTIONS' || res.hasHeader('Vary')) return handleWithPackage(req, res, next);
    if (isAllowedOrigin(origin)) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Vary', 'Origin');
      writeCommon(res);
    }
    next();
  } as RequestHandler;
}
