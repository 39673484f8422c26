// CORS for OAuth's public documents and endpoints (metadata, token, registration…): any origin, no cookies.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { CORS_ALLOWED_HEADERS } from './mcp-headers';

/** The headers a public document's CORS answer names: those a browser may read, and those it may send. */
export interface PublicCorsHeaders {
  /** `Access-Control-Expose-Headers` of every response. */
  readonly expose: string;
  /** `Access-Control-Allow-Headers` of a preflight. */
  readonly allow: string;
}

/**
 * OAuth's documents and endpoints: the MCP endpoint's request headers, and the DPoP nonce to read (RFC 9449 §8: a
 * browser client reads the nonce to retry with, the token endpoint's use_dpop_nonce).
 */
const OAUTH_CORS_HEADERS: PublicCorsHeaders = { expose: 'DPoP-Nonce', allow: CORS_ALLOWED_HEADERS.join(', ') };

/**
 * The CORS headers of another public document: the MCP endpoint's request headers and `allow` besides, and the
 * response headers `expose` names.
 *
 * @example
 * ```ts
 * const headers = publicCorsHeaders(['ETag'], ['If-None-Match']);
 * ```
 */
export function publicCorsHeaders(expose: readonly string[], allow: readonly string[]): PublicCorsHeaders {
  return { expose: expose.join(', '), allow: [...CORS_ALLOWED_HEADERS, ...allow].join(', ') };
}

/**
 * Makes the response readable by any origin (`Access-Control-Allow-Origin: *`, safe: these requests carry no
 * cookies), and answers a preflight (204). The request headers allowed are the MCP endpoint's: browser clients send
 * discovery and token requests through the fetch they use for MCP, with its headers (the MCP Inspector's Direct mode
 * adds `Content-Type: application/json` and `Accept` to every request; the SDK's discovery adds `MCP-Protocol-Version`),
 * and a preflight refusing one of them hides the document from the client.
 *
 * @param methods - the endpoint's methods, listed in `Access-Control-Allow-Methods` with OPTIONS
 * @param headers - the headers to expose and allow ({@link publicCorsHeaders}); OAuth's by default
 * @returns true when the request was a preflight, answered here
 * @example
 * ```ts
 * if (allowAnyOrigin(req, res, ['GET'])) return;
 * ```
 */
export function allowAnyOrigin(
  req: IncomingMessage,
  res: ServerResponse,
  methods: readonly string[],
  headers: PublicCorsHeaders = OAUTH_CORS_HEADERS,
): boolean {
  res.setHeader('Access-Control-Allow-Origin', '*');
  // Fetch: a script reads only the safelisted response headers and those exposed.
  if (req.method !== 'OPTIONS') {
    res.setHeader('Access-Control-Expose-Headers', headers.expose);
    return false;
  }
  res
    .writeHead(204, {
      'Access-Control-Allow-Methods': [...methods, 'OPTIONS'].join(', '),
      'Access-Control-Allow-Headers': headers.allow,
      'Access-Control-Max-Age': '600',
    })
    .end();
  return true;
}
