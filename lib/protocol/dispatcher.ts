// The dispatcher: JSON-RPC message (or batch) in, response(s) or nothing out — the only place thrown values become JSON-RPC errors.

import { failure, parseMessage, success } from '../jsonrpc/envelope';
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import {
  isJsonRpcId,
  isRequest,
  isResponse,
  type JsonRpcParams,
  type JsonRpcFailure,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../jsonrpc/types';
import type { McpLogger } from '../logger';
import type { Registry } from '../registry/registry';
import { completionMethods } from './completion';
import { LazyAbort } from './abort';
import { HandlerContext, requestKey, type DispatchEnvironment } from './handler-context';
import { isInitializeRequest, lifecycleMethods, type ServerIdentity } from './lifecycle';
import { loggingMethods } from './logging';
import type { MethodTable } from './methods';
import { promptMethods } from './prompts';
import { resourceMethods } from './resources';
import { createEntryShaper } from './shaping';
import { toolMethods } from './tools';
import { LAST_VERSION_WITH_BATCHES } from '../versions';

/** What became of one POSTed body. */
export type DispatchOutcome =
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
  /** Default time limit of ctx.sample / elicit / listRoots. */
  readonly clientRequestTimeoutMs: number;
  /** Most messages in one batch. */
  readonly maxBatchLength: number;
  /** Most resource URIs one session may subscribe to. */
  readonly maxSubscriptions: number;
}

/** Serves JSON-RPC for one router. */
export interface Dispatcher {
  /** Handles a parsed body: one message, or a batch where the revision allows it. */
  receive(body: unknown, env: DispatchEnvironment): Promise<DispatchOutcome>;
  /**
   * Why the body as a whole is refused whatever the session or revision (a malformed message; an empty,
   * oversized or initialize-holding batch), or undefined. The transport asks before it looks up the
   * session, so one body gets one answer in every session state.
   */
  refusal(body: unknown): JsonRpcFailure | undefined;
  /** Handles one valid message; null when nothing is to be answered (notifications, responses). */
  handle(message: JsonRpcMessage, env: DispatchEnvironment): Promise<JsonRpcResponse | null>;
}

function invalidRequest(message: string): JsonRpcFailure {
  return failure(null, new JsonRpcError(ErrorCode.InvalidRequest, message));
}

/**
 * Builds the method table once; every request then costs one lookup.
 *
 * @example
 * ```ts
 * const dispatcher = createDispatcher(registry, { identity, pageSize: 100, logger: console, listChanged: false, clientRequestTimeoutMs: 60_000, maxBatchLength: 100, maxSubscriptions: 32 });
 * await dispatcher.receive({ jsonrpc: '2.0', id: 1, method: 'ping' }, env); // { kind: 'answered', body: { …, result: {} } }
 * ```
 */
export function createDispatcher(registry: Registry, config: DispatcherConfig): Dispatcher {
  const shape = createEntryShaper();
  const methods: MethodTable = {
    ...lifecycleMethods(registry, config.identity, config.listChanged),
    ...toolMethods(registry, config.pageSize, shape),
    ...resourceMethods(registry, config.pageSize, shape, config.maxSubscriptions),
    ...promptMethods(registry, config.pageSize, shape),
    ...completionMethods(registry),
    ...loggingMethods(),
  };

  async function answer(request: JsonRpcRequest, env: DispatchEnvironment): Promise<JsonRpcResponse | null> {
    const entry = Object.hasOwn(methods, request.method) ? methods[request.method] : undefined;
    // JSON-RPC: unknown method → -32601; MCP: so is a method of a capability that was never declared.
    if (entry === undefined || (entry.feature !== undefined && !registry.features[entry.feature])) {
      return failure(request.id, new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`));
    }
    // The request's own abort (so it can be cancelled alone), aborted too when the transport gives up.
    const abort = new LazyAbort();
    const onGone = (): void => abort.abort(env.signal.reason);
    if (env.signal.aborted) onGone();
    else env.signal.addEventListener('abort', onGone, { once: true });
    // MCP cancellation: initialize cannot be cancelled; everything else can, by id, within the session.
    const key = env.inflight !== undefined && request.method !== 'initialize' ? requestKey(request.id) : undefined;
    if (key !== undefined) env.inflight?.set(key, abort);
    const ctx = new HandlerContext(request, env, abort, config.clientRequestTimeoutMs);
    try {
      const result = await entry.run(request.params ?? {}, ctx, env);
      // MCP cancellation: no response is sent for a cancelled request.
      return abort.aborted ? null : success(request.id, result);
    } catch (err) {
      if (abort.aborted) return null;
      if (err instanceof JsonRpcError) return failure(request.id, err);
      config.logger.error(err, `mcpRouter: ${request.method} failed`);
      return failure(request.id, new JsonRpcError(ErrorCode.InternalError, 'Internal error'));
    } finally {
      ctx.finished = true;
      env.signal.removeEventListener('abort', onGone);
      if (key !== undefined && env.inflight?.get(key) === abort) env.inflight.delete(key);
    }
  }

  function cancel(params: JsonRpcParams | undefined, env: DispatchEnvironment): void {
    const requestId = params?.requestId;
    // MCP cancellation: unknown or finished ids, and malformed notifications, are ignored.
    if (!isJsonRpcId(requestId)) return;
    const reason = typeof params?.reason === 'string' ? params.reason : 'cancelled by the client';
    env.inflight?.get(requestKey(requestId))?.abort(new Error(reason));
  }

  async function handle(message: JsonRpcMessage, env: DispatchEnvironment): Promise<JsonRpcResponse | null> {
    if (isRequest(message)) return answer(message, env);
    if (isResponse(message)) {
      // The client's answer to a server→client request (sampling, elicitation, roots): to whoever waits for it.
      await env.channel.deliver(message);
    } else if (message.method === 'notifications/cancelled') {
      cancel(message.params, env);
    }
    // Notifications and responses need no answer (JSON-RPC; MCP transports: 202).
    return null;
  }

  function batchRefusal(items: unknown[]): JsonRpcFailure | undefined {
    if (items.length === 0) return invalidRequest('Invalid Request: an empty batch');
    if (items.length > config.maxBatchLength) return invalidRequest(`Invalid Request: a batch holds at most ${config.maxBatchLength} messages`);
    // MCP 2025-03-26 lifecycle: initialize MUST NOT be part of a batch.
    if (items.some(isInitializeRequest)) {
      return invalidRequest('Invalid Request: initialize must not be part of a batch');
    }
    return undefined;
  }

  function refusal(body: unknown): JsonRpcFailure | undefined {
    if (Array.isArray(body)) return batchRefusal(body);
    const parsed = parseMessage(body);
    return parsed.ok ? undefined : parsed.error;
  }

  async function receiveBatch(items: unknown[], env: DispatchEnvironment): Promise<DispatchOutcome> {
    // MCP 2025-06-18 removed batching; 2025-03-26 (and clients that name no revision) may still send arrays.
    if (!env.batchesAllowed) {
      return { kind: 'rejected', error: invalidRequest(`Invalid Request: protocol ${env.protocolVersion} does not allow JSON-RPC batches (the last that did is ${LAST_VERSION_WITH_BATCHES})`) };
    }
    const refused = batchRefusal(items);
    if (refused !== undefined) return { kind: 'rejected', error: refused };
    const parsed = items.map(parseMessage);
    const answers = await Promise.all(parsed.map((item) => (item.ok ? handle(item.message, env) : item.error)));
    const body = answers.filter((response): response is JsonRpcResponse => response !== null);
    if (body.length > 0) return { kind: 'answered', body };
    return parsed.some((item) => item.ok && isRequest(item.message)) ? { kind: 'unanswered' } : { kind: 'accepted' };
  }

  return {
    handle,
    refusal,
    async receive(body, env) {
      if (Array.isArray(body)) return receiveBatch(body, env);
      const parsed = parseMessage(body);
      if (!parsed.ok) return { kind: 'rejected', error: parsed.error };
      const response = await handle(parsed.message, env);
      if (response !== null) return { kind: 'answered', body: response };
      return isRequest(parsed.message) ? { kind: 'unanswered' } : { kind: 'accepted' };
    },
  };
}
