// The apps feature: mcp.app() serves an MCP App (SEP-1865), HTML a host renders as a tool's interface.

import type { RouterFeature } from '../../edge/feature';
import { createApps, type McpAppOptions, type McpAppRegistration } from './apps';

/** What the apps feature adds to `mcp`. */
export interface AppsApi {
  /** Registers an MCP App: see McpRouterApi.app. */
  app(options: McpAppOptions): McpAppRegistration;
}

/** Registers apps as `ui://<router name>/<name>` resources; a `route` app renders through the host app, as bridged routes run. */
export const appsFeature: RouterFeature<object, undefined, AppsApi> = {
  key: 'apps',
  resolve: () => undefined,
  install: (host) => ({
    api: { app: createApps(host.registry, host.serverInfo.name, (req, res) => host.hostRoutes.throughHost(req, res)) },
  }),
};
