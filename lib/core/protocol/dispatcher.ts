// The dispatcher: JSON-RPC message (or batch) in, response(s) or nothing out — the only place thrown values become JSON-RPC errors.

import { failure, success, type ParsedMessage } from '../jsonrpc/envelope';
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import {
  isJsonRpcId,
  isRequest,
  isResponse,
  type JsonRpcParams,
  type JsonRpcFailure,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../jsonrpc/types';
import type { McpLogger } from '../logger';
import type { Registry } from '../registry/registry';
import { LazyAbort } from './abort';
import { createClassifier, NO_MCP_HEADERS, type ClassifiedPost } from './classify';
import {
  ClientUpdate,
  HandlerContext,
  requestKey,
  type ClientState,
  type ClientView,
  type DispatchEnvironment,
} from './handler-context';
import type { ServerIdentity } from './methods/lifecycle-methods';
import { createInputRequired } from './era-2026/input-required';
import { resolveInputRequired, type ResolvedInputRequired } from './era-2026/request-state';
import { extendTable, methodTableOf } from './methods/method-table';
import { createShaper2026 } from './era-2026/result-envelope';
import { createEntryShaper } from './shaping';
import type { TaskRunner } from './tasks/task-runner';
import type { McpTelemetry } from '../../features/telemetry/telemetry';
import type { CacheHint } from '../registry/cache-hint';
import { eraError, eraPolicy } from '../era-policy';
import { allowsBatches, LAST_VERSION_WITH_BATCHES, type Era } from '../versions';

/** What became of one POSTed body. */
export type DispatchOutcome = DispatchVerdict & {
  /** The client state after the POST, present only when a method changed it: for the transport to keep. */
  readonly client?: ClientState;
};

/** The answer part of a {@link DispatchOutcome}. */
export type DispatchVerdict =
  /** Only notifications or responses: nothing to answer (HTTP 202). */
  | { readonly kind: 'accepted' }
  /** Requests, none of which is answered: cancelled, or their session ended (MCP cancellation: no response). */
  | { readonly kind: 'unanswered' }
  /** The body as a whole is not acceptable (HTTP 400). */
  | { readonly kind: 'rejected'; readonly error: JsonRpcFailure }
  /** One response, or an array of them for a batch. */
  | { readonly kind: 'answered'; readonly body: JsonRpcResponse | JsonRpcResponse[] };

/** Settings the dispatcher needs, resolved once by the router. */
export interface DispatcherConfig {
  readonly identity: ServerIdentity;
  readonly pageSize: number;
  readonly logger: McpLogger;
  /** Whether list changes are announced (sessions with a GET stream). */
  readonly listChanged: boolean;
  /** Whether 2026 clients can listen for list changes and resource updates (subscriptions/listen streams); without, no. */
  readonly listenStreams?: boolean;
  /** Default time limit of ctx.sample / elicit / listRoots. */
  readonly clientRequestTimeoutMs: number;
  /** Most messages in one batch. */
  readonly maxBatchLength: number;
  /** Most resource URIs one session may subscribe to. */
  readonly maxSubscriptions: number;
  /** The eras served (the router's `eras`). */
  readonly eras: readonly Era[];
  /** The cache hint of 2026 results that may be cached (the router's `cache`). */
  readonly cache: CacheHint;
  /** The requestState key and lifetime of 2026 input_required results (the router's `inputRequired`; unset: its defaults). */
  readonly inputRequired?: ResolvedInputRequired;
  /** Runs the router's long-running tasks (MCP tasks); its methods exist once a tool may run as a task. */
  readonly tasks?: TaskRunner;
  /** Spans and metrics of every request and notification; undefined without `@opentelemetry/api` or with `telemetry: false`. */
  readonly telemetry?: McpTelemetry;
}

/** Serves JSON-RPC for one router. */
export interface Dispatcher {
  /** Serves a classified POST: its message, or its batch where the revision in force allows batches. */
  dispatch(post: ClassifiedPost, env: DispatchEnvironment): Promise<DispatchOutcome>;
  /** Classifies a parsed body (no MCP headers) and serves it, for callers without HTTP (tests, embedding). */
  receive(body: unknown, env: DispatchEnvironment): Promise<DispatchOutcome>;
  /** Handles one valid message; null when nothing is to be answered (notifications, responses). */
  handle(message: JsonRpcMessage, env: DispatchEnvironment, view?: ClientView): Promise<JsonRpcResponse | null>;
  /** Adds an extension's methods as it is registered (SEP-2640 `skills/list`…); `ERR_MCP_DUPLICATE` for one served. */
  extend(table: Parameters<typeof extendTable>[1]): void;
}

/**
 * The notifications MCP lets a client send (schema ClientNotification, both eras); with the method table, the methods
 * telemetry names (any other is `_OTHER`).
 */
const CLIENT_NOTIFICATIONS: ReadonlySet<string> = new Set([
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/roots/list_changed',
  'notifications/tasks/status',
]);

/** Methods whose answer depends on which features are offered: their capabilities. */
const WAITS_FOR_FEATURES = new Set(['initialize', 'server/discover']);

/**
 * Builds the method table once; every request then costs one lookup.
 *
 * @example
 * ```ts
 * const dispatcher = createDispatcher(registry, { identity, pageSize: 100, logger: console, listChanged: false, listenStreams: false, clientRequestTimeoutMs: 60_000, maxBatchLength: 100, maxSubscriptions: 32, eras: ['2025', '2026'], cache: { ttlMs: 0, scope: 'public' } });
 * await dispatcher.receive({ jsonrpc: '2.0', id: 1, method: 'ping' }, env); // { kind: 'answered', body: { jsonrpc: '2.0', id: 1, result: {} } }
 * ```
 */
export function createDispatcher(registry: Registry, config: DispatcherConfig): Dispatcher {
  const shape = createEntryShaper();
  // For receive() only: over HTTP the transport owns the classifier.
  const classifier = createClassifier({ maxBatchLength: config.maxBatchLength, eras: config.eras });
  const shape2026 = createShaper2026(config.identity.serverInfo, config.cache);
  const inputRequired = createInputRequired(config.inputRequired ?? resolveInputRequired(undefined));
  const methods = methodTableOf(registry, config, shape);

  async function answer(
    request: JsonRpcRequest,
    env: DispatchEnvironment,
    view: ClientView,
  ): Promise<JsonRpcResponse | null> {
    const entry = Object.hasOwn(methods, request.method) ? methods[request.method] : undefined;
    // An upstream's first lists (bounded by its listTimeoutMs) may bring a feature, hence a capability and its
    // methods: the handshake and a method of a feature not offered yet wait for them instead of answering without.
    const loading = registry.loaded();
    if (
      loading !== undefined &&
      (WAITS_FOR_FEATURES.has(request.method) ||
        (entry?.capability !== undefined && !registry.features[entry.capability]))
    )
      await loading;
    // JSON-RPC: unknown method → -32601; MCP: so is a method its era does not have, or of a capability never declared.
    if (
      entry === undefined ||
      !entry.eras.includes(env.era) ||
      (entry.capability !== undefined && !registry.features[entry.capability])
    ) {
      return failure(request.id, new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`));
    }
    const policy = eraPolicy(env.era);
    // MCP 2026-07-28 MRTR: a retry's answers and requestState, checked before the handler runs (input-required.ts).
    const round = policy.inputRequiredRounds ? inputRequired.begin(request, env.auth?.subject) : undefined;
    if (round instanceof JsonRpcError) return failure(request.id, round);
    // The request's own abort (so it can be cancelled alone), aborted too when the transport gives up.
    const abort = new LazyAbort();
    const onGone = (): void => abort.abort(env.signal.reason);
    if (env.signal.aborted) onGone();
    else env.signal.addEventListener('abort', onGone, { once: true });
    // MCP cancellation: initialize cannot be cancelled; everything else can, by id, within the session.
    const key = env.inflight !== undefined && request.method !== 'initialize' ? requestKey(request.id) : undefined;
    if (key !== undefined) env.inflight?.set(key, abort);
    const ctx = new HandlerContext(request, env, view, abort, config.clientRequestTimeoutMs, round);
    /** True once the call is answered with input_required while its handler still waits on an ask. */
    let asking = false;
    try {
      let output = entry.run(request.params ?? {}, ctx, view.client, ctx.line);
      // Applied at once, as the method returns: the next message of a batch sees the change.
      if (output instanceof ClientUpdate) {
        view.client = { ...view.client, ...output.changes };
        output = output.result;
      }
      const result = round === undefined ? await output : await round.settle(output);
      asking = result.resultType === 'input_required';
      // MCP cancellation: no response is sent for a cancelled request.
      if (abort.aborted) return null;
      // MCP 2026-07-28 caching: an input_required result carries no ttlMs or cacheScope.
      return success(
        request.id,
        policy.resultEnvelope
          ? shape2026(result, entry.cacheable === true && result.resultType !== 'input_required')
          : result,
      );
    } catch (err) {
      if (abort.aborted) return null;
      if (err instanceof JsonRpcError) return failure(request.id, eraError(env.era, err));
      config.logger.error(err, `mcpRouter: ${request.method} failed`);
      return failure(request.id, new JsonRpcError(ErrorCode.InternalError, 'Internal error'));
    } finally {
      ctx.finished = true;
      round?.end();
      // MCP 2026-07-28 MRTR: the run that asked is over (the retry runs the handler again): its signal aborts, so what
      // it started stops (a forwarded upstream call, a fetch) instead of running on beside the retry's run.
      if (asking) abort.abort(new Error('the call ended with input_required; the retry runs it again'));
      env.signal.removeEventListener('abort', onGone);
      if (key !== undefined && env.inflight?.get(key) === abort) env.inflight.delete(key);
    }
  }

  function cancel(params: JsonRpcParams | undefined, env: DispatchEnvironment): void {
    const requestId = params?.requestId;
    // MCP cancellation: unknown or finished ids, and malformed notifications, are ignored.
    if (!isJsonRpcId(requestId)) return;
    const reason = typeof params?.reason === 'string' ? params.reason : 'cancelled by the client';
    const key = requestKey(requestId);
    const local = env.inflight?.get(key);
    // Not running here: it may run on another instance of the router (a shared store), which hears of it there.
    if (local !== undefined) local.abort(new Error(reason));
    else env.cancelElsewhere?.(key, reason);
  }

  // Not async: without telemetry the message costs no promise more than before. No closure either: one that captured
  // the parameters would make every call allocate a context for them, traced or not.
  function handle(
    message: JsonRpcMessage,
    env: DispatchEnvironment,
    view: ClientView = { client: env.client },
  ): Promise<JsonRpcResponse | null> {
    // One branch when telemetry is off; a span per request and notification (a batch: per message) when recording.
    const { telemetry } = config;
    if (telemetry === undefined || isResponse(message) || !telemetry.live()) return handleMessage(message, env, view);
    return handleTraced(telemetry, message, env, view);
  }

  // What telemetry may name (a series, a span name), the same for every message: made once, not per message.
  const registered = (method: string, name: string): boolean =>
    (method === 'tools/call' ? registry.tools.get(name) : registry.prompts.get(name)) !== undefined;
  const knownMethod = (method: string): boolean => Object.hasOwn(methods, method) || CLIENT_NOTIFICATIONS.has(method);

  function handleTraced(
    telemetry: McpTelemetry,
    message: JsonRpcRequest | JsonRpcNotification,
    env: DispatchEnvironment,
    view: ClientView,
  ): Promise<JsonRpcResponse | null> {
    const scene = {
      protocolVersion: env.client.protocolVersion,
      sessionId: env.sessionId,
      clientAddress: () => env.clientAddress(),
      networkProtocolVersion: env.networkProtocolVersion,
      registered,
      knownMethod,
    };
    return telemetry.serve(message, scene, () => handleMessage(message, env, view));
  }

  async function handleMessage(
    message: JsonRpcMessage,
    env: DispatchEnvironment,
    view: ClientView,
  ): Promise<JsonRpcResponse | null> {
    if (isRequest(message)) return answer(message, env, view);
    if (isResponse(message)) {
      // The client's answer to a server→client request (sampling, elicitation, roots): to whoever waits for it.
      await env.channel.deliver(message);
    } else if (message.method === 'notifications/cancelled') {
      cancel(message.params, env);
    }
    // Notifications and responses need no answer (JSON-RPC; MCP transports: 202).
    return null;
  }

  async function serve(post: ClassifiedPost, env: DispatchEnvironment, view: ClientView): Promise<DispatchVerdict> {
    const { messages } = post;
    if (!Array.isArray(messages)) {
      const response = await handle(messages as JsonRpcMessage, env, view);
      if (response !== null) return { kind: 'answered', body: response };
      return post.holdsRequests ? { kind: 'unanswered' } : { kind: 'accepted' };
    }
    // MCP 2025-06-18 removed batching; 2025-03-26 (and clients that name no revision) may still send arrays.
    const { protocolVersion } = env.client;
    if (!allowsBatches(protocolVersion)) {
      const message = `Invalid Request: protocol ${protocolVersion} does not allow JSON-RPC batches (the last that did is ${LAST_VERSION_WITH_BATCHES})`;
      return { kind: 'rejected', error: failure(null, new JsonRpcError(ErrorCode.InvalidRequest, message)) };
    }
    const items = messages as readonly ParsedMessage[];
    const answers = await Promise.all(items.map((item) => (item.ok ? handle(item.message, env, view) : item.error)));
    const body = answers.filter((response): response is JsonRpcResponse => response !== null);
    if (body.length > 0) return { kind: 'answered', body };
    return items.some((item) => item.ok && isRequest(item.message)) ? { kind: 'unanswered' } : { kind: 'accepted' };
  }

  async function dispatch(post: ClassifiedPost, env: DispatchEnvironment): Promise<DispatchOutcome> {
    const view: ClientView = { client: env.client };
    const verdict = await serve(post, env, view);
    return view.client === env.client ? verdict : { ...verdict, client: view.client };
  }

  return {
    dispatch,
    handle,
    extend: (table) => extendTable(methods, table),
    async receive(body, env) {
      const classified = classifier.body(body, NO_MCP_HEADERS);
      return classified.ok ? dispatch(classified.post, env) : { kind: 'rejected', error: classified.error };
    },
  };
}
