// The end of an in-process dispatch: what answers when no route did, or a route called next(err).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../../core/jsonrpc/errors';
import type { McpLogger } from '../../core/logger';
import { sendHttpError } from '../../edge/http/http-error';
import { ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_HTTP_ROUTE } from '../../core/observe/semconv';
import type { McpObserver } from '../../core/observe/observer';
import type { RequestDispatcher } from './route-tool';

/**
 * An Express app or router, called with a final `next`. Its parameters are typed `never` so that an app or
 * router whose handlers expect Express's own request type fits (the in-process request is a real one).
 */
export type RouteTarget = (req: never, res: never, next: (err?: unknown) => void) => void;

type NodeTarget = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

/**
 * Wraps an app or router so an in-process request always gets an answer: `next(err)` → 500 (the error is
 * logged, never sent), no matching route → 404; either becomes an `isError` tool result.
 *
 * @example
 * ```ts
 * const dispatch = asDispatcher(app, console);
 * ```
 */
export function asDispatcher(target: RouteTarget, logger: McpLogger): RequestDispatcher {
  const call = target as unknown as NodeTarget;
  return function mcpBridgeDispatch(req, res) {
    call(req, res, (err) => {
      if (res.headersSent) {
        res.end();
        return;
      }
      if (err !== undefined && err !== 'route' && err !== 'router') {
        logger.error(err, `mcpRouter: the bridged route ${req.method ?? ''} ${req.url ?? ''} failed`);
        sendHttpError(res, 500, ErrorCode.InternalError, 'Internal error');
      } else {
        sendHttpError(
          res,
          404,
          ErrorCode.ServerError,
          `Not Found: no route answers ${req.method ?? ''} ${req.url ?? ''}`,
        );
      }
    });
  };
}

/**
 * Runs each in-process request in an INTERNAL span `{METHOD} {path}` (HTTP semantic conventions), a child of the
 * tools/call span, so the route's own spans nest under it; it ends when the response does.
 *
 * @example
 * ```ts
 * const dispatch = tracedDispatch(telemetry, 'GET', '/users/:id', asDispatcher(app, console));
 * ```
 */
export function tracedDispatch(
  telemetry: McpObserver,
  method: string,
  path: string,
  dispatch: RequestDispatcher,
): RequestDispatcher {
  const verb = method.toUpperCase();
  const name = `${verb} ${path}`;
  const attributes = { [ATTR_HTTP_REQUEST_METHOD]: verb, [ATTR_HTTP_ROUTE]: path };
  return function mcpBridgeTracedDispatch(req, res) {
    // The span's callback runs at once: a route that throws synchronously still throws to its caller, as untraced.
    let thrown: { readonly error: unknown } | undefined;
    const traced = telemetry.childSpan('internal', name, attributes, (span) => {
      const ended = new Promise<void>((resolve) => {
        const end = (): void => {
          span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, res.statusCode);
          // HTTP semantic conventions, server side: only a 5xx is the route's failure (a 4xx is the caller's).
          if (res.statusCode >= 500) span.fail(String(res.statusCode));
          resolve();
        };
        res.once('finish', end);
        res.once('close', end);
      });
      try {
        dispatch(req, res);
      } catch (error) {
        thrown = { error };
        span.fail(error instanceof Error ? error.name : 'Error');
        return Promise.resolve();
      }
      return ended;
    });
    traced.catch(() => undefined);
    if (thrown !== undefined) throw thrown.error;
  };
}
