// The dispatcher: JSON-RPC message (or batch) in, response(s) or nothing out — the only place thrown values become JSON-RPC errors.

import { failure, parseMessage, success } from '../jsonrpc/envelope';
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import {
  isRequest,
  type JsonRpcFailure,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../jsonrpc/types';
import type { McpLogger } from '../logger';
import type { Registry } from '../registry/registry';
import { completionMethods } from './completion';
import { createRequestContext, type DispatchEnvironment } from './context';
import { lifecycleMethods, type ServerIdentity } from './lifecycle';
import { loggingMethods } from './logging';
import type { MethodTable } from './methods';
import { promptMethods } from './prompts';
import { resourceMethods } from './resources';
import { createEntryShaper } from './shaping';
import { toolMethods } from './tools';
import { isAtLeast, LAST_VERSION_WITH_BATCHES } from './versions';

/** What became of one POSTed body. */
export type DispatchOutcome =
  /** Only notifications or responses: nothing to answer (HTTP 202). */
  | { readonly kind: 'accepted' }
  /** The body as a whole is not acceptable (HTTP 400). */
  | { readonly kind: 'rejected'; readonly error: JsonRpcFailure }
  /** One response, or an array of them for a batch. */
  | { readonly kind: 'answered'; readonly body: JsonRpcResponse | JsonRpcResponse[] };

/** Settings the dispatcher needs, resolved once by the router. */
export interface DispatcherConfig {
  readonly identity: ServerIdentity;
  readonly pageSize: number;
  readonly logger: McpLogger;
}

/** Serves JSON-RPC for one router. */
export interface Dispatcher {
  /** Handles a parsed body: one message, or a batch where the revision allows it. */
  receive(body: unknown, env: DispatchEnvironment): Promise<DispatchOutcome>;
  /** Handles one valid message; null when nothing is to be answered (notifications, responses). */
  handle(message: JsonRpcMessage, env: DispatchEnvironment): Promise<JsonRpcResponse | null>;
}

function reject(message: string): DispatchOutcome {
  return { kind: 'rejected', error: failure(null, new JsonRpcError(ErrorCode.InvalidRequest, message)) };
}

/**
 * Builds the method table once; every request then costs one lookup.
 *
 * @example
 * ```ts
 * const dispatcher = createDispatcher(registry, { identity, pageSize: 100, logger: console });
 * await dispatcher.receive({ jsonrpc: '2.0', id: 1, method: 'ping' }, env); // { kind: 'answered', body: { …, result: {} } }
 * ```
 */
export function createDispatcher(registry: Registry, config: DispatcherConfig): Dispatcher {
  const shape = createEntryShaper();
  const methods: MethodTable = {
    ...lifecycleMethods(registry, config.identity),
    ...toolMethods(registry, config.pageSize, shape),
    ...resourceMethods(registry, config.pageSize, shape),
    ...promptMethods(registry, config.pageSize, shape),
    ...completionMethods(registry),
    ...loggingMethods(),
  };

  async function answer(request: JsonRpcRequest, env: DispatchEnvironment): Promise<JsonRpcResponse> {
    const entry = Object.hasOwn(methods, request.method) ? methods[request.method] : undefined;
    // JSON-RPC: unknown method → -32601; MCP: so is a method of a capability that was never declared.
    if (entry === undefined || (entry.feature !== undefined && !registry.features[entry.feature])) {
      return failure(request.id, new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`));
    }
    try {
      return success(request.id, await entry.run(request.params ?? {}, createRequestContext(request, env)));
    } catch (err) {
      if (err instanceof JsonRpcError) return failure(request.id, err);
      config.logger.error(err, `mcpRouter: ${request.method} failed`);
      return failure(request.id, new JsonRpcError(ErrorCode.InternalError, 'Internal error'));
    }
  }

  async function handle(message: JsonRpcMessage, env: DispatchEnvironment): Promise<JsonRpcResponse | null> {
    // Notifications (initialized, cancelled, roots/list_changed) and responses need no answer (JSON-RPC; MCP: 202).
    return isRequest(message) ? answer(message, env) : null;
  }

  async function receiveBatch(items: unknown[], env: DispatchEnvironment): Promise<DispatchOutcome> {
    // MCP 2025-06-18 removed batching; 2025-03-26 (and clients that name no revision) may still send arrays.
    if (env.versionFromHeader && isAtLeast(env.protocolVersion, '2025-06-18')) {
      return reject(`Invalid Request: protocol ${env.protocolVersion} does not allow JSON-RPC batches (the last that did is ${LAST_VERSION_WITH_BATCHES})`);
    }
    if (items.length === 0) return reject('Invalid Request: an empty batch');
    const parsed = items.map(parseMessage);
    // MCP 2025-03-26 lifecycle: initialize MUST NOT be part of a batch.
    if (parsed.some((item) => item.ok && isRequest(item.message) && item.message.method === 'initialize')) {
      return reject('Invalid Request: initialize must not be part of a batch');
    }
    const answers = await Promise.all(parsed.map((item) => (item.ok ? handle(item.message, env) : item.error)));
    const body = answers.filter((response): response is JsonRpcResponse => response !== null);
    return body.length === 0 ? { kind: 'accepted' } : { kind: 'answered', body };
  }

  return {
    handle,
    async receive(body, env) {
      if (Array.isArray(body)) return receiveBatch(body, env);
      const parsed = parseMessage(body);
      if (!parsed.ok) return { kind: 'rejected', error: parsed.error };
      const response = await handle(parsed.message, env);
      return response === null ? { kind: 'accepted' } : { kind: 'answered', body: response };
    },
  };
}
