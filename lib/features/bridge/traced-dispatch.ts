// An in-process dispatch traced: one INTERNAL span per request through a host route, ended with its response.

import { ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_HTTP_ROUTE } from '../../core/observe/semconv';
import type { McpObserver } from '../../core/observe/observer';
import type { RequestDispatcher } from '../../edge/host-routes/in-process';

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
