// The bridge feature: mcp.route(), exposeRoutes() and exposeOpenApi() make an Express app's routes tools that run in-process.

import type { RouteTarget } from '../../edge/host-routes/host-dispatch';
import type { RouteToolMeta } from '../../edge/host-routes/route-tool-meta';
import type { RouterFeature } from '../../edge/feature';
import type { McpRegistration } from '../../core/registry/definition';
import { createBridge, type Bridge } from './bridge-api';

/** What the bridge adds to `mcp` (McpRouterApi documents each). */
export interface BridgeApi {
  readonly route: Bridge['route'];
  exposeRoutes(
    app: RouteTarget,
    routes: ReadonlyArray<RouteToolMeta & { method: string; path: string }>,
  ): McpRegistration[];
  exposeOpenApi(app: RouteTarget, document: unknown): McpRegistration[];
}

/**
 * Bridges the host app's routes: wrapped routes are learned from the app serving the endpoint's first request, and
 * the host routes (a route as a tool, a dispatch through the host app) are offered to the other features.
 */
export const bridgeFeature: RouterFeature<object, undefined, BridgeApi> = {
  key: 'bridge',
  resolve: () => undefined,
  install(host) {
    const bridge = createBridge(host.registry, host.router, host.logger, host.observer);
    host.beforeEndpoint(bridge.learnFrom);
    host.offerHostRoutes({ addRouteTool: bridge.addRouteTool, throughHost: bridge.throughHost });
    return { api: { route: bridge.route, exposeRoutes: bridge.exposeRoutes, exposeOpenApi: bridge.exposeOpenApi } };
  },
};
