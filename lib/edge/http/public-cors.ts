// CORS for OAuth's public documents and endpoints (metadata, token, registration…): any origin, no cookies.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { CORS_ALLOWED_HEADERS } from './mcp-headers';

const ALLOWED_HEADERS = CORS_ALLOWED_HEADERS.join(', ');

/**
 * Makes the response readable by any origin (`Access-Control-Allow-Origin: *`, safe: these requests carry no
 * cookies), and answers a preflight (204). The request headers allowed are the MCP endpoint's: browser clients send
 * discovery and token requests through the fetch they use for MCP, with its headers (the MCP Inspector's Direct mode
 * adds `Content-Type: application/json` and `Accept` to every request; the SDK's discovery adds `MCP-Protocol-Version`),
 * and a preflight refusing one of them hides the document from the client.
 *
 * @param methods - the endpoint's methods, listed in `Access-Control-Allow-Methods` with OPTIONS
 * @returns true when the request was a preflight, answered here
 * @example
 * ```ts
 * if (allowAnyOrigin(req, res, ['GET'])) return;
 * ```
 */
export function allowAnyOrigin(req: IncomingMessage, res: ServerResponse, methods: readonly string[]): boolean {
  res.setHeader('Access-Control-Allow-Origin', '*');
  // RFC 9449 §8: a browser client reads the nonce to retry with (the token endpoint's use_dpop_nonce).
  if (req.method !== 'OPTIONS') {
    res.setHeader('Access-Control-Expose-Headers', 'DPoP-Nonce');
    return false;
  }
  res
    .writeHead(204, {
      'Access-Control-Allow-Methods': [...methods, 'OPTIONS'].join(', '),
      'Access-Control-Allow-Headers': ALLOWED_HEADERS,
      'Access-Control-Max-Age': '600',
    })
    .end();
  return true;
}
