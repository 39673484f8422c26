// RFC 9728 protected-resource metadata: the document, served at the app's root and at the router's own mount path.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../../core/jsonrpc/errors';
import { sendHttpError } from '../http/http-error';
import { rejectHostOfDocument } from '../http/host-header';
import { allowAnyOrigin } from '../http/public-cors';
import { createMethodNotAllowedHandler } from '../http/not-allowed';
import { sendJson } from '../http/reply';
import type { ResolvedAuth } from './bearer';
import { DPOP_ALGORITHMS } from './dpop';
import { requiresDpop } from './dpop-presentation';
import type { ExpressRequest, PublicUrls } from './public-url';

/** The well-known path of the metadata (RFC 9728 §3). */
export const METADATA_PATH = '/.well-known/oauth-protected-resource';

/**
 * Creates a handler of the metadata document. `endpointOf` says which resource a request asks about: at the
 * app's root, the origin and the path after the well-known prefix (RFC 9728 §3.1:
 * `/.well-known/oauth-protected-resource/mcp` → `<origin>/mcp`); at the router's mount path, the endpoint's URL. Unauthenticated and readable cross-origin (MCP
 * authorization: clients discover how to get a token from it). With static tokens the document has no
 * authorization server: it says the resource takes a bearer token in the header, which its operator hands out.
 *
 * @param auth - the router's checked `auth` option; without it every request gets a JSON 404
 * @param isAllowedHost - the `allowedHosts` decision (`createHostMatcher`): the document names the Host's origin
 * @example
 * ```ts
 * app.use('/.well-known/oauth-protected-resource', createMetadataHandler(auth, (req) => urls.endpointOf(req), isAllowedHost));
 * ```
 */
export function createMetadataHandler(
  auth: ResolvedAuth | undefined,
  endpointOf: (req: ExpressRequest) => string,
  isAllowedHost: (req: IncomingMessage) => boolean,
  /** Headers of the document: `Vary` when its URLs are made from the request (`PublicUrls.documentHeaders`). */
  headersOf: (req: IncomingMessage) => Readonly<Record<string, string>> = () => ({}),
) {
  const options = auth?.resourceMetadata;
  return function mcpAuthMetadata(req: ExpressRequest, res: ServerResponse, next: () => void): void {
    // Mounted by the app at its root, outside the router's front door, and served at the mount path before the
    // Origin check (it is public): either way the document names the Host's origin.
    if (rejectHostOfDocument(isAllowedHost, req, res)) return;
    if (auth === undefined) {
      sendHttpError(
        res,
        404,
        ErrorCode.ServerError,
        "Not Found: this MCP router takes no bearer tokens (option 'auth')",
      );
      return;
    }
    if (allowAnyOrigin(req, res, ['GET'])) return;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      next();
      return;
    }
    const endpoint = endpointOf(req);
    // A fixed issuer (auth.server.issuer) is the router's public URL: the resource is the same URL unless set apart.
    const document: Record<string, unknown> = { resource: options?.resource ?? auth.server?.issuer ?? endpoint };
    if (options !== undefined) document.authorization_servers = options.authorizationServers;
    // With auth.server the router is the authorization server: its issuer is the endpoint's URL (RFC 8414 §2).
    else if (auth.server !== undefined) document.authorization_servers = [auth.server.issuer ?? endpoint];
    document.bearer_methods_supported = ['header'];
    const scopes = options?.scopesSupported ?? (auth.server?.scopes.length ? auth.server.scopes : undefined);
    if (scopes !== undefined) document.scopes_supported = scopes;
    if (options?.resourceName !== undefined) document.resource_name = options.resourceName;
    if (options?.resourceDocumentation !== undefined) document.resource_documentation = options.resourceDocumentation;
    // RFC 9728 §2: tokens from a verifier or the router's own server may be DPoP-bound (static tokens never are).
    if (auth.verify !== undefined || auth.server !== undefined) {
      document.dpop_signing_alg_values_supported = DPOP_ALGORITHMS;
      if (requiresDpop(auth.verify)) document.dpop_bound_access_tokens_required = true;
    }
    sendJson(res, 200, document, headersOf(req));
  };
}

/**
 * The metadata the MCP router serves itself, at `<mount path>/.well-known/oauth-protected-resource`, about the
 * resource at its mount path: GET, HEAD and OPTIONS, a JSON 405 otherwise. Other paths are handed on.
 *
 * @example
 * ```ts
 * router.use(createOwnMetadataHandler(auth, urls, isAllowedHost)); // before the Origin check: the document is public
 * ```
 */
export function createOwnMetadataHandler(
  auth: ResolvedAuth | undefined,
  urls: PublicUrls,
  isAllowedHost: (req: IncomingMessage) => boolean,
) {
  const serve = createMetadataHandler(
    auth,
    (req) => urls.endpointOf(req),
    isAllowedHost,
    (req) => urls.documentHeaders(req),
  );
  const notAllowed = createMethodNotAllowedHandler(['GET', 'HEAD', 'OPTIONS']);
  return function mcpOwnMetadata(req: ExpressRequest, res: ServerResponse, next: () => void): void {
    if (req.path === METADATA_PATH) serve(req, res, () => notAllowed(req, res));
    else next();
  };
}
