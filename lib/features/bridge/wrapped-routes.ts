// mcp.route(): handlers wrapped where they are declared, learned from the host app's router stack on the first request.

import type { RequestHandler } from 'express';
import { locateHandler, type Location } from '../../edge/express-host';
import type { McpLogger } from '../../core/logger';
import { itemLabel, type McpRegistration } from '../../core/registry/definition';
import { asDispatcher, type RouteTarget } from '../../edge/host-routes/host-dispatch';
import type { RequestDispatcher } from '../../edge/host-routes/in-process';
import type { AddRouteTool, BridgedRouteMeta } from '../../edge/host-routes/route-tool-meta';
import { checkRouteMeta } from './route-tool';

/** The routes wrapped by one MCP router's `route()`. */
export interface WrappedRoutes {
  /**
   * Keeps `meta` for the route that will hold `handlers`, and returns the handlers for Express: the same ones,
   * the last in a wrapper of the same name and arity, which is how the route is found in the app's stack.
   */
  wrap(meta: BridgedRouteMeta, handlers: readonly RequestHandler[]): RequestHandler[];
  /** True while a wrapped route waits to be learned, or no app has been seen yet. */
  readonly waiting: boolean;
  /**
   * Learns every waiting route from `app` (the app serving the MCP request), registers its tool, and logs
   * one error for each that cannot be learned, which is then left out. Calls run through `app` from now on.
   */
  learn(app: unknown): void;
  /** Dispatches through the app learned on the first request (503 before one); what wrapped routes' tools call. */
  readonly throughHost: RequestDispatcher;
}

interface Waiting {
  readonly meta: BridgedRouteMeta;
  readonly marker: RequestHandler;
  readonly label: string;
}

/**
 * Routes wrapped with `mcp.route()`. Routes are usually declared after `mcpRouter()`, and a router learns its
 * mount path only when the app mounts it, so each route is learned on the first request the MCP router serves
 * (before any list or call): its full path is read from `req.app`'s router stack, and its tool calls run through
 * that whole app at that path, like `exposeRoutes`. A route whose path is given as `meta.path` is registered at
 * once. One that cannot be learned (a RegExp or array path, not mounted in that app, mounted twice) is left out
 * with one `logger.error` naming it: never a tool that silently calls the wrong URL.
 *
 * @example
 * ```ts
 * const wrapped = createWrappedRoutes(addRouteTool, logger, (name) => registry.namespaces.reserve('name', 'route tool', name));
 * api.get('/items/:id', wrapped.wrap({ description: 'Fetch an item' }, [getItem]));
 * wrapped.learn(req.app); // on the first request
 * ```
 */
export function createWrappedRoutes(
  addRouteTool: AddRouteTool,
  logger: McpLogger,
  reserveName: (name: string) => void,
): WrappedRoutes {
  const waiting: Waiting[] = [];
  let host: RequestDispatcher | undefined;
  // Calls go through the app seen on the first request; a tool registered before then waits for it.
  const throughHost: RequestDispatcher = (req, res) => {
    if (host) host(req, res);
    else
      res
        .writeHead(503, { 'content-type': 'application/json' })
        .end('{"error":"the MCP router has not served a request yet"}');
  };
  const register = (meta: BridgedRouteMeta, method: string, path: string): McpRegistration => {
    const { method: _method, path: _path, ...toolMeta } = meta;
    return addRouteTool(toolMeta, method, path, throughHost);
  };
  return {
    throughHost,
    wrap(meta, handlers) {
      const last = handlers[handlers.length - 1];
      // Checked now, at boot: a route waiting for the first request is registered then, too late to throw.
      const name = typeof meta === 'object' && meta !== null ? meta.name : undefined;
      const item =
        name === undefined ? `route tool of handler '${last?.name || 'anonymous'}'` : itemLabel('route tool', name);
      checkRouteMeta(meta, item, true);
      // A name in an upstream's namespace would be refused only when learned: refused now (one given with its path is
      // registered below, and refused there).
      if (meta.name !== undefined && meta.path === undefined) reserveName(meta.name);
      if (last === undefined) return [];
      const marker = sameShape(last);
      if (meta.path !== undefined) register(meta, meta.method ?? defaultMethod(meta), meta.path);
      else waiting.push({ meta, marker, label: labelOf(meta, last) });
      return [...handlers.slice(0, -1), marker];
    },
    get waiting() {
      return host === undefined || waiting.length > 0;
    },
    learn(app) {
      host ??= asDispatcher(app as RouteTarget, logger);
      for (const route of waiting.splice(0)) {
        const place = placeOf(locateHandler(app, route.marker), route.meta);
        if (typeof place === 'string') {
          logger.error(
            new Error(place),
            `mcpRouter: ${route.label} is left out: ${place}. Pass its full path to mcp.route() as \`path\` (e.g. '/api/items/:id').`,
          );
          continue;
        }
        try {
          register(route.meta, place.method, place.path);
        } catch (error) {
          logger.error(error, `mcpRouter: ${route.label} (${place.method.toUpperCase()} ${place.path}) is left out`);
        }
      }
    },
  };
}

/**
 * The one place a wrapped route is found, or why it cannot be used. One route path holding the handler for
 * several methods (`app.all()` adds it once per method) is one place: the tool uses `meta.method`, or the default.
 */
function placeOf(found: readonly Location[], meta: BridgedRouteMeta): { path: string; method: string } | string {
  const wanted = meta.method?.toLowerCase();
  const places = found.filter((place) => wanted === undefined || place.method === undefined || place.method === wanted);
  if (places.length === 0)
    return 'its handlers are not in the app that mounts this MCP router (mount what mcp.route() returns on a route of that app, or of a router it mounts)';
  const paths = new Set(places.map((place) => (place.ok ? place.path : place.reason)));
  if (paths.size > 1) return `it is mounted at ${paths.size} places; a tool calls one route`;
  const [place] = places as [Location, ...Location[]];
  if (!place.ok) return place.reason;
  return {
    path: place.path,
    method:
      wanted ??
      methodAmong(
        places.map((entry) => entry.method),
        defaultMethod(meta),
      ),
  };
}

/** The method of a route found under `methods` (undefined: `use()` or `all()`): its own, or `fallback` when it takes that one. */
function methodAmong(methods: ReadonlyArray<string | undefined>, fallback: string): string {
  if (methods.length === 1) return methods[0] ?? fallback;
  return methods.includes(fallback) || methods.includes(undefined) ? fallback : (methods[0] ?? fallback);
}

function defaultMethod(meta: BridgedRouteMeta): string {
  return meta.input?.body ? 'post' : 'get';
}

function labelOf(meta: BridgedRouteMeta, handler: RequestHandler): string {
  if (meta.name !== undefined) return `the tool '${meta.name}' (mcp.route)`;
  return `the route tool of handler '${handler.name || 'anonymous'}' ("${meta.description.slice(0, 60)}")`;
}

/** A function that calls `handler` and looks like it to Express: the same name and arity (4 is an error handler). */
function sameShape(handler: RequestHandler): RequestHandler {
  const wrapper = function (this: unknown, ...args: unknown[]): unknown {
    return (handler as (...args: unknown[]) => unknown).apply(this, args);
  };
  Object.defineProperty(wrapper, 'length', { value: handler.length });
  Object.defineProperty(wrapper, 'name', { value: handler.name });
  return wrapper as unknown as RequestHandler;
}
