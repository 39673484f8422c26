// RFC 9728 protected-resource metadata: the document, and a handler the host app mounts at its root.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../jsonrpc/errors';
import { sendHttpError } from '../transport/http-error';
import { sendJson } from '../transport/reply';
import type { ResourceMetadataOptions } from './bearer';

type ExpressRequest = IncomingMessage & { protocol?: string; path?: string };

/**
 * Creates the handler of `/.well-known/oauth-protected-resource[/<mount path>]`. Mount it with
 * `app.use('/.well-known/oauth-protected-resource', mcp.authMetadata)`: it is unauthenticated and readable
 * cross-origin (MCP authorization: clients discover the authorization server from it).
 *
 * @example
 * ```ts
 * app.use('/.well-known/oauth-protected-resource', mcp.authMetadata);
 * app.use('/mcp', mcp);
 * ```
 */
export function createMetadataHandler(options: ResourceMetadataOptions | undefined) {
  return function mcpAuthMetadata(req: ExpressRequest, res: ServerResponse, next: () => void): void {
    if (options === undefined) {
      sendHttpError(res, 404, ErrorCode.ServerError, "Not Found: no resource metadata configured (option 'auth.resourceMetadata')");
      return;
    }
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { 'Access-Control-Allow-Methods': 'GET, OPTIONS', 'Access-Control-Allow-Headers': 'MCP-Protocol-Version' });
      res.end();
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      next();
      return;
    }
    // The path after the well-known prefix names the resource (RFC 9728 §3.1): /mcp → <origin>/mcp.
    const suffix = req.path === undefined || req.path === '/' ? '' : req.path;
    const document: Record<string, unknown> = {
      resource: options.resource ?? `${req.protocol ?? 'http'}://${req.headers.host ?? 'localhost'}${suffix}`,
      authorization_servers: options.authorizationServers,
      bearer_methods_supported: ['header'],
    };
    if (options.scopesSupported !== undefined) document.scopes_supported = options.scopesSupported;
    if (options.resourceName !== undefined) document.resource_name = options.resourceName;
    if (options.resourceDocumentation !== undefined) document.resource_documentation = options.resourceDocumentation;
    sendJson(res, 200, document);
  };
}
