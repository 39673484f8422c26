// The decorators feature: mcp.register(controller) registers a class's @tool, @resource and @prompt methods.

import type { RouterFeature } from '../../edge/feature';
import type { McpRegistration } from '../../core/registry/definition';
import { registerController } from './register';

/** What the decorators feature adds to `mcp`. */
export interface DecoratorsApi {
  /** Registers a controller's decorated methods: see McpRouterApi.register. */
  register(controller: object): McpRegistration[];
}

/** Registers decorated methods on the host's registry; a `@tool` on an Express handler becomes a host route tool. */
export const decoratorsFeature: RouterFeature<object, undefined, DecoratorsApi> = {
  key: 'decorators',
  resolve: () => undefined,
  install: (host) => ({
    api: {
      register: (controller) =>
        registerController(controller, host.registry, host.hostRoutes.addRouteTool, host.logger),
    },
  }),
};
