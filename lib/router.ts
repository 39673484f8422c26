// mcpRouter(options): the composition root. Resolves options once, builds each piece, and wires them into one express.Router.

import express from 'express';
import { createRouterAuth } from './edge/security/authentication';
import { createHostMatcher } from './edge/security/origin-host';
import { createApps } from './features/apps/apps';
import { createBridge } from './features/bridge/bridge-api';
import { registerController } from './features/decorators/register';
import { createGateway } from './features/gateway/mount/gateway';
import { runOwnLayersDirectly } from './edge/express-host';
import type { McpRouterOptions } from './options';
import { resolveOptions } from './resolved-config';
import { routerPaymentLedger } from './features/payments/ledger';
import { taskCancelsOver, whenStoreReady } from './edge/store/shared-store';
import { createDispatcher } from './core/protocol/dispatcher';
import { TaskRunner } from './core/protocol/tasks/task-runner';
import type { PromptDefinition } from './core/registry/prompts';
import { Registry } from './core/registry/registry';
import type { ResourceTemplateDefinition } from './core/registry/resources';
import type { ToolDefinition } from './core/registry/tools';
import type { McpRouter, McpRouterApi } from './router-api';
import { createSchemaValidator } from './core/schema/validator';
import { serveSkills } from './features/skills/serve-skills';
import { createFrontDoor } from './edge/security/front-door';
import { SessionManager } from './edge/sessions/sessions';
import { MemoryServerEventBus, publishQuietly, type ServerEvent } from './edge/store/server-events';
import { createEndpoint, createErrorHandler } from './edge/transport/endpoint';
import { ListenStreams } from './edge/listen/listen-stream';
import type { SseOptions } from './edge/http/sse';
import { createTelemetry } from './features/telemetry/telemetry';

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
  const { logger, store } = config;
  const registry = new Registry(createSchemaValidator(config.ajv), config.guards, {
    // Tools' rate limits count in the shared store, as the router's does: one limit across every instance.
    limitStores: store && ((tool) => store.rateLimit(`tool:${tool}`)),
    // One payment, one call, whichever paid tool (or instance, through the store) is asked: one ledger per router.
    payments: routerPaymentLedger(store),
  });
  // List changes and resource updates go out as server events; the sessions announce them on their GET streams.
  const onListenerError = (err: unknown): void => logger.error(err, 'mcpRouter: a server event listener failed');
  const serverEvents = store?.serverEvents(onListenerError) ?? new MemoryServerEventBus(onListenerError);
  const publish = (event: ServerEvent): void => publishQuietly(serverEvents, event, logger);
  registry.onChange((list) => publish({ type: 'list_changed', list }));
  // OpenTelemetry (issue 21): spans and metrics when @opentelemetry/api is installed and not turned off.
  const telemetry = createTelemetry(config.telemetry);
  const sessions = config.sessions && new SessionManager({ ...config.sessions, serverEvents, logger, telemetry });
  // Every SSE connection of the router: POST replies, GET streams, and listen streams.
  const sse: SseOptions = {
    keepAliveMs: config.keepAliveMs,
    retryMs: config.retryMs,
    streamBufferLimit: config.streamBufferLimit,
    logger,
  };
  // MCP 2026-07-28 subscriptions/listen: streams that hear the same server events as the sessions' GET streams.
  const listenStreams =
    config.listen &&
    new ListenStreams(
      serverEvents,
      () => registry.features,
      { ...config.listen, maxUris: config.maxSubscriptions, sse, telemetry },
      () => registry.loaded(),
    );
  // Long-running tasks (tools registered with `task`) outlive their HTTP request: the runner keeps them going.
  const tasks = new TaskRunner(
    config.tasks,
    logger,
    store && taskCancelsOver(config.sessions?.bus ?? store.bus(), logger),
  );
  const dispatcher = createDispatcher(registry, {
    identity: { serverInfo: config.serverInfo, instructions: config.instructions },
    pageSize: config.pageSize,
    logger,
    listChanged: sessions !== undefined,
    listenStreams: listenStreams !== undefined,
    clientRequestTimeoutMs: config.clientRequestTimeoutMs,
    maxBatchLength: config.maxBatchLength,
    maxSubscriptions: config.maxSubscriptions,
    eras: config.eras,
    cache: config.cache,
    inputRequired: config.inputRequired,
    tasks,
    telemetry,
  });

  const router = express.Router();
  // Sign-in state is shared through the store when it keeps it (Redis), else kept in this process.
  const auth = createRouterAuth(config.auth, {
    store: (limits) => store?.signIn?.(limits),
    logger,
    isAllowedHost: createHostMatcher(config.allowedHosts),
  });
  const { authOf } = auth;
  const bridge = createBridge(registry, router, logger, telemetry);
  const endpoint = createEndpoint(
    dispatcher,
    { ...config, sse, sessions, authOf, listenStreams, allowDelete: config.sessions?.allowDelete === true },
    bridge.learnFrom,
  );
  // The front door and the endpoint are one Express layer: a request crosses the router's stack once.
  const serve = createFrontDoor(
    {
      ...config,
      ready: store && whenStoreReady(store, config.stateKeyGiven ? undefined : config.inputRequired.stateKey),
    },
    auth.steps,
    (req) => authOf(req)?.subject,
    endpoint,
  );
  const onError = createErrorHandler(logger);
  router.use(serve);
  router.use(onError);
  runOwnLayersDirectly(router, serve, onError);

  const notifyResourceUpdated = (uri: string): void => publish({ type: 'resource_updated', uri });
  const gateway = createGateway(
    registry,
    logger,
    { name: String(config.serverInfo.name), version: String(config.serverInfo.version) },
    notifyResourceUpdated,
    telemetry,
  );
  const api: McpRouterApi = {
    tool: (definition) => registry.addTool(definition as ToolDefinition<never>),
    resource: (definition) => registry.addResource(definition),
    resourceTemplate: (definition) => registry.addTemplate(definition as ResourceTemplateDefinition<never>),
    prompt: (definition) => registry.addPrompt(definition as PromptDefinition<never>),
    skills: (skills) => serveSkills(skills, { registry, extend: dispatcher.extend, pageSize: config.pageSize, logger }),
    // MCP Apps (SEP-1865): a `route` app renders through the host app, as bridged routes run.
    app: createApps(registry, String(config.serverInfo.name), bridge.throughHost),
    notifyResourceUpdated,
    upstream: (upstreamOptions) => gateway.mount(upstreamOptions),
    close: async () => {
      await gateway.close();
      listenStreams?.close();
      await tasks.close();
      await sessions?.close();
      await store?.close();
    },
    route: bridge.route,
    exposeRoutes: bridge.exposeRoutes,
    exposeOpenApi: bridge.exposeOpenApi,
    register: (controller) => registerController(controller, registry, bridge.addRouteTool, logger),
    authMetadata: auth.metadata,
    authServerMetadata: auth.serverMetadata,
  };
  return Object.assign(router, api);
}
