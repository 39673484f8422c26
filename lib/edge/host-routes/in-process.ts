// One request dispatched in-process through the host app (light-my-request): no network, the response captured as data.

import type { IncomingMessage, ServerResponse } from 'node:http';
import inject from 'light-my-request';
import type { RequestContext } from '../../core/registry/request-context';

/** Something that serves Node requests: an Express app or router (called as `(req, res)`). */
export type RequestDispatcher = (req: IncomingMessage, res: ServerResponse) => void;

/** What a route sent, as captured by an in-process run: plain data, no Express objects. */
export interface CapturedResponse {
  status: number;
  /** Response headers; names are matched case-insensitively. */
  headers: Record<string, string | string[] | number | undefined>;
  body: Buffer;
}

/** How long a request through the host may go unanswered by default: a handler that never answers holds no call forever. */
export const DEFAULT_ROUTE_TIMEOUT_MS = 30_000;

/** What {@link dispatchInProcess} sends. */
export interface InProcessRequest {
  readonly method: string;
  /** Path and query, already encoded. */
  readonly url: string;
  readonly headers: Record<string, string>;
  /** Headers of the MCP caller passed on (lower case), when it sent them. */
  readonly forward?: readonly string[];
  readonly payload?: string;
  /** The MCP call the request serves: the route sees it as `req.mcp`, and its signal aborts the request. */
  readonly ctx: RequestContext;
  /** Runs on the response before the route does (to watch what it writes). */
  readonly watch?: (res: ServerResponse) => void;
}

/**
 * Express replaces the prototype of every request and response it serves (with its own, which inherits
 * Node's). light-my-request's request and response capture the body through methods on their own prototypes,
 * so those methods are copied onto the objects first, where the swap cannot reach them.
 */
function keepOwnMethods(target: object): void {
  const proto = Object.getPrototypeOf(target) as Record<string, unknown>;
  for (const name of Object.getOwnPropertyNames(proto)) {
    const value = Object.getOwnPropertyDescriptor(proto, name)?.value as unknown;
    if (name !== 'constructor' && typeof value === 'function') (target as Record<string, unknown>)[name] = value;
  }
}

/**
 * Dispatches one request in-process through `dispatch` (an app or router: every middleware on the way runs as for
 * a real request), and captures the status, headers and body it answers with.
 *
 * @example
 * ```ts
 * const page = await dispatchInProcess(asDispatcher(app, logger), { method: 'GET', url: '/apps/form', headers: {}, ctx });
 * ```
 */
export async function dispatchInProcess(
  dispatch: RequestDispatcher,
  request: InProcessRequest,
): Promise<CapturedResponse> {
  const { ctx, watch } = request;
  const headers = { ...request.headers };
  for (const header of request.forward ?? []) {
    const value = ctx.headers[header];
    if (typeof value === 'string') headers[header] = value;
  }
  const response = await inject(
    (req, res) => {
      // Express 4 reads `req.connection` (req.protocol, req.secure, req.ip): light-my-request's own getter for it
      // prints a deprecation warning, so the alias Node's `socket` replaces is set plainly.
      Object.defineProperty(req, 'connection', { value: req.socket, configurable: true, writable: true });
      keepOwnMethods(req);
      keepOwnMethods(res);
      watch?.(res);
      dispatch(Object.assign(req, { mcp: ctx }), res);
    },
    {
      method: request.method as 'GET',
      url: request.url,
      headers,
      ...(request.payload === undefined ? {} : { payload: request.payload }),
      signal: ctx.signal,
    },
  );
  return { status: response.statusCode, headers: response.headers, body: response.rawPayload };
}
