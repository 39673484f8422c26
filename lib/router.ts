// mcpRouter(options): the composition root. Resolves options once, builds each piece, and wires them into one express.Router.

import express from 'express';
import { createRouterAuth } from './edge/security/authentication';
import { PresentedTokens } from './edge/security/presented-tokens';
import { runOwnLayersDirectly } from './edge/express-host';
import type { McpRouterOptions } from './options';
import { resolveOptions } from './resolved-config';
import { whenStoreReady } from './edge/store/shared-store';
import type { PromptDefinition } from './core/registry/prompts';
import type { ResourceTemplateDefinition } from './core/registry/resources';
import type { ToolDefinition } from './core/registry/tools';
import type { McpRouter, McpRouterApi } from './router-api';
import { createFrontDoor } from './edge/security/front-door';
import { createEndpoint, createErrorHandler } from './edge/transport/endpoint';
import { buildRouterCore } from './router-core';
import { featureHost, ResolvedFeatures, type FeatureApi } from './router-features';

/**
 * Creates an MCP endpoint for an Express 4 or 5 app. Options are checked and schemas compiled now, so
 * a misconfiguration fails at boot; each router owns its registry, and two routers share nothing. One endpoint
 * serves the 2025 revisions (initialize, sessions) and MCP 2026-07-28 (stateless requests), chosen per request
 * (see the `eras` option).
 *
 * @param options - see {@link McpRouterOptions}; `name` and `version` are required
 * @throws {McpConfigError} for an unknown option or a bad value
 * @example
 * ```ts
 * import express from 'express';
 * import { mcpRouter } from 'express-mcp-router';
 *
 * const mcp = mcpRouter({ name: 'inventory', version: '1.0.0' });
 * mcp.tool({
 *   name: 'add',
 *   description: 'Add two numbers',
 *   inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
 *   handler: ({ a, b }: { a: number; b: number }) => ({ sum: a + b }),
 * });
 * const app = express();
 * app.use('/mcp', mcp);
 * app.listen(3000);
 * ```
 */
export function mcpRouter(options: McpRouterOptions): McpRouter {
  const config = resolveOptions(options);
  const features = new ResolvedFeatures(options);
  const telemetry = features.observer();
  const core = buildRouterCore(config, telemetry);
  const { registry, dispatcher, sessions, listenStreams } = core;
  const router = express.Router();
  const presented = new PresentedTokens();
  const host = featureHost(config, core, router, telemetry, presented);
  const installed = features.install(host);
  const auth = createRouterAuth(config.auth, host.isAllowedHost, installed.issuer, {
    stateKey: config.inputRequired.stateKey,
    store: config.store,
    presented,
    urls: host.publicUrls,
  });
  const { authOf } = auth;
  const endpoint = createEndpoint(
    dispatcher,
    { ...config, sse: core.sse, sessions, authOf, listenStreams, allowDelete: config.sessions?.allowDelete === true },
    installed.beforeEndpoint,
  );
  // The front door and the endpoint are one Express layer: a request crosses the router's stack once.
  const ready =
    config.store && whenStoreReady(config.store, config.stateKeyGiven ? undefined : config.inputRequired.stateKey);
  const serve = createFrontDoor(
    { ...config, ready, isAllowedHost: host.isAllowedHost, urls: host.publicUrls },
    auth.steps,
    (req) => authOf(req)?.subject,
    endpoint,
  );
  const onError = createErrorHandler(config.logger);
  router.use(serve);
  router.use(onError);
  runOwnLayersDirectly(router, serve, onError);

  const api: McpRouterApi = {
    // What the features add: upstream, skills, app, route, exposeRoutes, exposeOpenApi, register.
    ...(installed.api as FeatureApi),
    tool: (definition) => registry.addTool(definition as ToolDefinition<never>),
    resource: (definition) => registry.addResource(definition),
    resourceTemplate: (definition) => registry.addTemplate(definition as ResourceTemplateDefinition<never>),
    prompt: (definition) => registry.addPrompt(definition as PromptDefinition<never>),
    notifyResourceUpdated: (uri) => core.publish({ type: 'resource_updated', uri }),
    close: async () => {
      await installed.close();
      await core.close();
    },
    authMetadata: auth.metadata,
    authServerMetadata: auth.serverMetadata,
  };
  return Object.assign(router, api);
}
