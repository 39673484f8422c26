// The legacy API's own authentication: an `x-api-key` header, as many older APIs have.

import type { RequestHandler } from 'express';

/**
 * Lets a request through when it carries the API key, or when the MCP router dispatched it: those calls
 * are built in-process (there is no HTTP request anyone else could forge) and carry the tool's context as
 * `req.mcp`, after the router has checked the caller's bearer token.
 */
export function requireApiKey(apiKey: string): RequestHandler {
  return (req, res, next) => {
    if ('mcp' in req || req.get('x-api-key') === apiKey) next();
    else res.status(401).json({ error: 'Send the API key in the x-api-key header.' });
  };
}
