// The end of an in-process dispatch through a host app or router: what answers when no route did, or a route called next(err).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../../core/jsonrpc/errors';
import type { McpLogger } from '../../core/logger';
import { sendHttpError } from '../http/http-error';
import type { RequestDispatcher } from './in-process';

/**
 * An Express app or router, called with a final `next`. Its parameters are typed `never` so that an app or
 * router whose handlers expect Express's own request type fits (the in-process request is a real one).
 */
export type RouteTarget = (req: never, res: never, next: (err?: unknown) => void) => void;

type NodeTarget = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

/**
 * Wraps an app or router so an in-process request always gets an answer: `next(err)` → 500 (the error is
 * logged, never sent), no matching route → 404; a route tool makes either an `isError` result.
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
