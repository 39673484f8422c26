// The bridge's part of the router: mcp.route, exposeRoutes and exposeOpenApi, and the wrapped routes learned on the first request.

import type { IncomingMessage } from 'node:http';
import type { RequestHandler, Router } from 'express';
import { appOf, appRunning, expressRouteOf } from '../../edge/express-host';
import type { McpLogger } from '../../core/logger';
import { invalidOption } from '../../options/config-error';
import type { McpRegistration } from '../../core/registry/definition';
import type { Registry } from '../../core/registry/registry';
import type { ToolDefinition } from '../../core/registry/tools';
import type { McpObserver } from '../../core/observe/observer';
import { asDispatcher, type RouteTarget } from '../../edge/host-routes/host-dispatch';
import type { RequestDispatcher } from '../../edge/host-routes/in-process';
import type { AddRouteTool, BridgedRouteMeta, RouteToolMeta } from '../../edge/host-routes/route-tool-meta';
import { tracedDispatch } from './traced-dispatch';
import { routesFromOpenApi } from './openapi';
import { checkRouteTarget, routeTool } from './route-tool';
import { createWrappedRoutes } from './wrapped-routes';

/** What the bridge adds to one router. */
export interface Bridge {
  /** `mcp.route()`: wraps a route's handlers as a tool; with a string, Express's own `router.route(path)`. */
  readonly route: (meta: BridgedRouteMeta | string, ...handlers: RequestHandler[]) => RequestHandler[];
  /** `mcp.exposeRoutes()`. */
  readonly exposeRoutes: (
    app: RouteTarget,
    routes: ReadonlyArray<RouteToolMeta & { method: string; path: string }>,
  ) => McpRegistration[];
  /** `mcp.exposeOpenApi()`. */
  readonly exposeOpenApi: (app: RouteTarget, document: unknown) => McpRegistration[];
  readonly addRouteTool: AddRouteTool;
  /** Dispatches in-process through the app serving the MCP router (learned on its first request; 503 before). */
  readonly throughHost: RequestDispatcher;
  /** Runs before each request to the endpoint: learns the wrapped routes still waiting from the app serving it. */
  readonly learnFrom: (req: IncomingMessage) => void;
}

/**
 * Creates the bridge of one router: its tools go into `registry`, and `router.route` keeps serving Express.
 *
 * @example
 * ```ts
 * const bridge = createBridge(registry, router, logger);
 * app.get('/users/:id', bridge.route({ description: 'Fetch a user' }, getUser)); // learned on the first request
 * ```
 */
export function createBridge(registry: Registry, router: Router, logger: McpLogger, telemetry?: McpObserver): Bridge {
  const addRouteTool: AddRouteTool = (meta, method, path, dispatch) => {
    // Checked before the route is traced by them: routeTool() checks the rest of the meta.
    checkRouteTarget(method, path, 'route tool');
    const traced = telemetry === undefined ? dispatch : tracedDispatch(telemetry, method, path, dispatch);
    const { definition, mode } = routeTool(meta, method, path, traced);
    return registry.addTool(definition as ToolDefinition<never>, mode);
  };
  // Routes wrapped with mcp.route() are learned from the app that serves the first request (wrapped-routes.ts).
  const wrapped = createWrappedRoutes(addRouteTool, logger, (name) =>
    registry.namespaces.reserve('name', 'route tool', name),
  );
  const expressRoute = expressRouteOf(router);
  const exposeRoutes: Bridge['exposeRoutes'] = (app, routes) => {
    if (!Array.isArray(routes) || !routes.every((route) => typeof route === 'object' && route !== null))
      throw invalidOption('routes', 'an array of { method, path, description, … }', routes, 'mcp.exposeRoutes()');
    const dispatch = asDispatcher(appRunning(app) as RouteTarget, logger);
    return routes.map(({ method, path, ...meta }) => addRouteTool(meta, method, path, dispatch));
  };
  return {
    route: (meta, ...handlers) =>
      typeof meta === 'string' ? (expressRoute(meta) as RequestHandler[]) : wrapped.wrap(meta, handlers),
    exposeRoutes,
    exposeOpenApi: (app, document) => exposeRoutes(app, routesFromOpenApi(document)),
    addRouteTool,
    throughHost: wrapped.throughHost,
    learnFrom: (req) => {
      if (wrapped.waiting) wrapped.learn(appOf(req));
    },
  };
}
