// The MCP endpoint at the mount path: POST, GET (and HEAD) and DELETE to their handlers, 405 for the rest; its error handler.

import { StoreUnavailableError } from '../store/shared-store';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ErrorCode } from '../../core/jsonrpc/errors';
import type { McpLogger } from '../../core/logger';
import type { Dispatcher } from '../../core/protocol/dispatcher';
import { sendHttpError } from '../http/http-error';
import { createMethodNotAllowedHandler } from '../http/not-allowed';
import { createDeleteHandler } from './delete';
import { createGetHandler } from './get';
import { createPostHandler, type PostHandlerConfig } from './post';

/** What the endpoint needs, resolved once by the router. */
export interface EndpointSettings extends PostHandlerConfig {
  /** Whether clients may end their session with DELETE (with sessions only; else 405). */
  readonly allowDelete: boolean;
}

/**
 * The MCP endpoint, the mount path itself: each HTTP method to its handler, 405 with `Allow` for the others.
 * HEAD goes to the GET handler, as Express routes it, which answers with GET's status and headers and opens no
 * stream (RFC 9110 §9.3.2); without GET (`sessions: false`) it gets GET's 405. Other paths under the mount are the
 * host app's (its 404).
 *
 * @param beforeEach - runs before each request to the endpoint is handled (the bridge learns wrapped routes)
 * @example
 * ```ts
 * const endpoint = createEndpoint(dispatcher, { ...config, sse, sessions, authOf, listenStreams, allowDelete: true }, () => undefined);
 * router.use(endpoint, createErrorHandler(config.logger));
 * ```
 */
export function createEndpoint(
  dispatcher: Dispatcher,
  settings: EndpointSettings,
  beforeEach: (req: IncomingMessage) => void,
): RequestHandler {
  const { sessions, authOf, sse } = settings;
  const byMethod: Record<string, RequestHandler> = { POST: forwardRejections(createPostHandler(dispatcher, settings)) };
  if (sessions) {
    byMethod.GET = forwardRejections(createGetHandler(sessions, sse, authOf));
    if (settings.allowDelete) byMethod.DELETE = forwardRejections(createDeleteHandler(sessions, authOf));
  }
  const notAllowed = createMethodNotAllowedHandler(Object.keys(byMethod));
  return function mcpEndpoint(req, res, next) {
    // Express's `req.path` parses the URL: the mount path itself, with no query, needs no parse.
    if (req.url !== '/' && req.path !== '/') return next();
    beforeEach(req);
    const handler = byMethod[req.method === 'HEAD' ? 'GET' : req.method];
    if (handler) handler(req, res, next);
    else notAllowed(req, res);
  };
}

/** The endpoint's error handler: a bug becomes a logged 500 with a JSON-RPC body, or a cut connection mid-reply. */
export function createErrorHandler(logger: McpLogger): ErrorRequestHandler {
  return function mcpErrorHandler(err, _req, res, _next) {
    // A shared store that cannot answer is an outage, not a bug: 503 and when to come back (RFC 9110 §15.6.4).
    if (err instanceof StoreUnavailableError) {
      logger.warn(err, 'mcpRouter: the shared store is unavailable');
      if (res.headersSent) res.destroy();
      else
        sendHttpError(
          res,
          503,
          ErrorCode.ServerError,
          'Service Unavailable: the shared store does not answer; retry after the time in Retry-After',
          { 'Retry-After': String(err.retryAfterSeconds) },
        );
      return;
    }
    logger.error(err, 'mcpRouter: request failed');
    if (res.headersSent) res.destroy();
    else sendHttpError(res, 500, ErrorCode.InternalError, 'Internal error');
  };
}

/** Express 4 does not catch rejected promises: every async handler hands failures to the error handler. */
function forwardRejections(handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>): RequestHandler {
  return function mcpHandler(req, res, next) {
    handler(req, res).catch(next);
  };
}
