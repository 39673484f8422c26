// The router's core and edge services, built once from the resolved options: items, server events, sessions, tasks, listen streams, the dispatcher.

import { createDispatcher, type Dispatcher } from './core/protocol/dispatcher';
import { TaskRunner } from './core/protocol/tasks/task-runner';
import { Registry } from './core/registry/registry';
import { createSchemaValidator } from './core/schema/validator';
import type { SseOptions } from './edge/http/sse';
import { ListenStreams } from './edge/listen/listen-stream';
import { SessionManager } from './edge/sessions/sessions';
import { routerPaymentLedger } from './edge/store/memory-payment-ledger';
import { MemoryServerEventBus, publishQuietly, type ServerEvent } from './edge/store/server-events';
import { taskCancelsOver } from './edge/store/shared-store';
import type { McpObserver } from './core/observe/observer';
import type { ResolvedConfig } from './resolved-config';

/** What one router is made of below its features and its Express layer. */
export interface RouterCore {
  readonly registry: Registry;
  readonly publish: (event: ServerEvent) => void;
  readonly sessions: SessionManager | undefined;
  readonly listenStreams: ListenStreams | undefined;
  readonly tasks: TaskRunner;
  readonly dispatcher: Dispatcher;
  /** Every SSE connection's settings: POST replies, GET streams, listen streams. */
  readonly sse: SseOptions;
  /** Ends what the core keeps running: listen streams, tasks, sessions, the store. */
  readonly close: () => Promise<void>;
}

/**
 * Builds the core of one router: nothing here is shared with another router.
 *
 * @example
 * ```ts
 * const core = buildRouterCore(resolveOptions({ name: 'inventory', version: '1.0.0' }), telemetry);
 * core.registry.addTool({ name: 'add', description: 'Add two numbers', handler });
 * ```
 */
export function buildRouterCore(config: ResolvedConfig, telemetry: McpObserver | undefined): RouterCore {
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
  const sessions = config.sessions && new SessionManager({ ...config.sessions, serverEvents, logger, telemetry });
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
  const close = async (): Promise<void> => {
    listenStreams?.close();
    await tasks.close();
    await sessions?.close();
    await store?.close();
  };
  return { registry, publish, sessions, listenStreams, tasks, dispatcher, sse, close };
}
