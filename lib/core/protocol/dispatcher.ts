// The dispatcher: JSON-RPC message (or batch) in, response(s) or nothing out; each request is answered by request-answer.ts, the only place thrown values become JSON-RPC errors.

import { failure, type ParsedMessage } from '../jsonrpc/envelope';
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
import { createClassifier, NO_MCP_HEADERS, type ClassifiedPost, type Classifier } from './classify';
import { requestKey, type ClientState, type ClientView, type DispatchEnvironment } from './handler-context';
import type { ServerIdentity } from './methods/lifecycle-methods';
import type { ResolvedInputRequired } from './era-2026/request-state';
import { extendTable, methodTableOf } from './methods/method-table';
import type { MethodEntry, MethodTable } from './methods/method-spec';
import { RequestAnswerer } from './request-answer';
import { createEntryShaper } from './shaping';
import type { TaskRunner } from './tasks/task-runner';
import type { McpObserver } from '../observe/observer';
import type { CacheHint } from '../registry/cache-hint';
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
  /** Observes every request and notification served (the telemetry feature: spans and metrics); undefined: none. */
  readonly telemetry?: McpObserver;
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
  extend(table: MethodTable): void;
}

/**
 * The notifications MCP lets a client send (schema ClientNotification, both eras); with the method table, the methods
 * the observer names (any other is `_OTHER`).
 */
const CLIENT_NOTIFICATIONS: ReadonlySet<string> = new Set([
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/roots/list_changed',
  'notifications/tasks/status',
]);

/** A POST with nothing to answer: requests none of which is answered, or only notifications and responses. */
function unanswered(heldRequests: boolean): DispatchVerdict {
  return heldRequests ? { kind: 'unanswered' } : { kind: 'accepted' };
}

/** MCP cancellation: aborts the request `notifications/cancelled` names, here or on the instance that runs it. */
function cancel(params: JsonRpcParams | undefined, env: DispatchEnvironment): void {
  const requestId = params?.requestId;
  // Unknown or finished ids, and malformed notifications, are ignored.
  if (!isJsonRpcId(requestId)) return;
  const reason = typeof params?.reason === 'string' ? params.reason : 'cancelled by the client';
  const key = requestKey(requestId);
  const local = env.inflight?.get(key);
  // Not running here: it may run on another instance of the router (a shared store), which hears of it there.
  if (local !== undefined) local.abort(new Error(reason));
  else env.cancelElsewhere?.(key, reason);
}

/** The dispatcher of one router: its method table, built once, so that every request costs one lookup. */
class McpDispatcher implements Dispatcher {
  private readonly methods: Record<string, MethodEntry>;
  private readonly answerer: RequestAnswerer;
  /** For receive() only: over HTTP the transport owns the classifier. */
  private readonly classifier: Classifier;

  constructor(
    private readonly registry: Registry,
    private readonly config: DispatcherConfig,
  ) {
    this.methods = methodTableOf(registry, config, createEntryShaper());
    this.answerer = new RequestAnswerer(registry, this.methods, config);
    this.classifier = createClassifier({ maxBatchLength: config.maxBatchLength, eras: config.eras });
  }

  /** A bound function: the router hands it on to the extensions it installs. */
  readonly extend = (table: MethodTable): void => extendTable(this.methods, table);

  async receive(body: unknown, env: DispatchEnvironment): Promise<DispatchOutcome> {
    const classified = this.classifier.body(body, NO_MCP_HEADERS);
    return classified.ok ? this.dispatch(classified.post, env) : { kind: 'rejected', error: classified.error };
  }

  async dispatch(post: ClassifiedPost, env: DispatchEnvironment): Promise<DispatchOutcome> {
    const view: ClientView = { client: env.client };
    const verdict = await this.serve(post, env, view);
    return view.client === env.client ? verdict : { ...verdict, client: view.client };
  }

  // Not async: without an observer a message costs no extra promise.
  handle(
    message: JsonRpcMessage,
    env: DispatchEnvironment,
    view: ClientView = { client: env.client },
  ): Promise<JsonRpcResponse | null> {
    // One branch when nothing observes; each request and notification (a batch: each message) observed otherwise.
    const { telemetry } = this.config;
    if (telemetry === undefined || isResponse(message) || !telemetry.live())
      return this.handleMessage(message, env, view);
    return this.handleObserved(telemetry, message, env, view);
  }

  /** What the observer may name as a tool or prompt: a registered one (any other name would grow its series unbounded). */
  private readonly registered = (method: string, name: string): boolean =>
    (method === 'tools/call' ? this.registry.tools.get(name) : this.registry.prompts.get(name)) !== undefined;

  /** What the observer may name as a method: a served one, or a notification MCP lets a client send (else `_OTHER`). */
  private readonly knownMethod = (method: string): boolean =>
    Object.hasOwn(this.methods, method) || CLIENT_NOTIFICATIONS.has(method);

  private handleObserved(
    telemetry: McpObserver,
    message: JsonRpcRequest | JsonRpcNotification,
    env: DispatchEnvironment,
    view: ClientView,
  ): Promise<JsonRpcResponse | null> {
    const setting = {
      protocolVersion: env.client.protocolVersion,
      sessionId: env.sessionId,
      clientAddress: () => env.clientAddress(),
      networkProtocolVersion: env.networkProtocolVersion,
      registered: this.registered,
      knownMethod: this.knownMethod,
    };
    return telemetry.serve(message, setting, () => this.handleMessage(message, env, view));
  }

  private async handleMessage(
    message: JsonRpcMessage,
    env: DispatchEnvironment,
    view: ClientView,
  ): Promise<JsonRpcResponse | null> {
    if (isRequest(message)) return this.answerer.answer(message, env, view);
    if (isResponse(message)) {
      // The client's answer to a server→client request (sampling, elicitation, roots): to whoever waits for it.
      await env.channel.deliver(message);
    } else if (message.method === 'notifications/cancelled') {
      cancel(message.params, env);
    }
    // Notifications and responses need no answer (JSON-RPC; MCP transports: 202).
    return null;
  }

  private async serve(post: ClassifiedPost, env: DispatchEnvironment, view: ClientView): Promise<DispatchVerdict> {
    const { messages } = post;
    if (!Array.isArray(messages)) {
      const response = await this.handle(messages as JsonRpcMessage, env, view);
      return response === null ? unanswered(post.holdsRequests) : { kind: 'answered', body: response };
    }
    // MCP 2025-06-18 removed batching; 2025-03-26 (and clients that name no revision) may still send arrays.
    const { protocolVersion } = env.client;
    if (!allowsBatches(protocolVersion)) {
      const message = `Invalid Request: protocol ${protocolVersion} does not allow JSON-RPC batches (the last that did is ${LAST_VERSION_WITH_BATCHES})`;
      return { kind: 'rejected', error: failure(null, new JsonRpcError(ErrorCode.InvalidRequest, message)) };
    }
    const items = messages as readonly ParsedMessage[];
    const answers = await Promise.all(
      items.map((item) => (item.ok ? this.handle(item.message, env, view) : item.error)),
    );
    const body = answers.filter((response): response is JsonRpcResponse => response !== null);
    if (body.length > 0) return { kind: 'answered', body };
    return unanswered(items.some((item) => item.ok && isRequest(item.message)));
  }
}

/**
 * Creates the dispatcher of one router: builds the method table once; every request then costs one lookup.
 *
 * @example
 * ```ts
 * const dispatcher = createDispatcher(registry, { identity, pageSize: 100, logger: console, listChanged: false, listenStreams: false, clientRequestTimeoutMs: 60_000, maxBatchLength: 100, maxSubscriptions: 32, eras: ['2025', '2026'], cache: { ttlMs: 0, scope: 'public' } });
 * await dispatcher.receive({ jsonrpc: '2.0', id: 1, method: 'ping' }, env); // { kind: 'answered', body: { jsonrpc: '2.0', id: 1, result: {} } }
 * ```
 */
export function createDispatcher(registry: Registry, config: DispatcherConfig): Dispatcher {
  return new McpDispatcher(registry, config);
}
