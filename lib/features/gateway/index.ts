// The gateway feature: mcp.upstream() mounts another MCP server (HTTP or a stdio program) beside the router's own items.

import type { RouterFeature } from '../../edge/feature';
import { createGateway } from './mount/gateway';
import type { UpstreamHandle } from './mount/upstream';
import type { UpstreamOptions } from './mount/upstream-options';
import type { ExchangeHost } from './exchange/token-exchange';

/** What the gateway adds to `mcp`. */
export interface GatewayApi {
  /** Mounts an upstream MCP server: see McpRouterApi.upstream. */
  upstream(options: UpstreamOptions): UpstreamHandle;
}

/** Mounts upstreams on the router's registry; each is checked at `mcp.upstream()`, all are closed with the router. */
export const gatewayFeature: RouterFeature<object, undefined, GatewayApi> = {
  key: 'gateway',
  resolve: () => undefined,
  install(host) {
    // Tokens are kept per request only once an upstream calls as the caller.
    let exchangeHost: ExchangeHost | undefined;
    const signIn = host.store?.signIn?.bind(host.store);
    const gateway = createGateway(
      host.registry,
      host.logger,
      host.serverInfo,
      (uri) => host.publish({ type: 'resource_updated', uri }),
      host.observer,
      () =>
        (exchangeHost ??= {
          owner: host,
          logger: host.logger,
          presentedToken: host.presentedTokens(),
          store: signIn,
        }),
    );
    return { api: { upstream: (options) => gateway.mount(options) }, close: () => gateway.close() };
  },
};
