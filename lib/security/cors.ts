// CORS settings for MCP in browsers: origins from the `origins` policy, MCP's headers allowed and exposed.

import type { CorsOptions } from 'cors';
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS } from '../transport/headers';
import type { OriginsOption } from './origin-host';

/**
 * The `cors` package options of a router: the caller's `cors` option over these defaults. `Mcp-Session-Id`
 * and `WWW-Authenticate` are exposed, or a browser client could neither keep its session nor find the
 * authorization server (a common complaint about MCP servers).
 *
 * @example
 * ```ts
 * router.use(cors(corsOptions(origins, isAllowedOrigin, {})));
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
