// What both upstream clients (HTTP and stdio) share on the wire: the message cap, the -32603 naming an upstream, its own errors, answers to its requests.

import { ErrorCode, JsonRpcError } from '../../../core/jsonrpc/errors';
import { isObject } from '../../../core/jsonrpc/types';
import type { McpLogger } from '../../../core/logger';
import type { UpstreamRoot } from './upstream-client';

/** The most an upstream may send in one JSON body or one SSE event; a bigger one is a fault, so memory stays bounded. */
export const MAX_UPSTREAM_MESSAGE_BYTES = 4 * 1024 * 1024;

/** A -32603 naming the upstream by its label: `Upstream "fs" exited (code 1)` (shared by the HTTP and stdio clients). */
export function upstreamError(label: string, phrase: string): JsonRpcError {
  return new JsonRpcError(ErrorCode.InternalError, `Upstream "${label}" ${phrase}`);
}

/** The -32603 of an upstream's 401 or 403 (`status`): it refused the credentials the gateway sent. */
export class CredentialsRefusedError extends JsonRpcError {
  constructor(
    label: string,
    phrase: string,
    readonly status: number,
  ) {
    super(ErrorCode.InternalError, `Upstream "${label}" ${phrase}`);
  }
}

/**
 * A caller's request that could not be made as the caller (no token exchanged, the exchanged one refused twice): its
 * message names the upstream. Not a JsonRpcError, so a tool's call ends as an `isError` result (MCP tools › Error
 * Handling: the model reads it); a read or a prompt gets -32603 with the same message.
 */
export class CallerTokenError extends Error {
  override readonly name = 'CallerTokenError';
}

/**
 * Runs an operator's function of an upstream (`env`, `headers`). What it throws (a vault's or a token exchange's
 * error may quote a secret) goes to `logger.error` only, as a handler's unexpected error does; everyone else gets
 * -32603 `Upstream "<label>" <failed>`.
 */
export async function runOperatorFunction<T>(
  label: string,
  fn: 'env' | 'headers',
  failed: string,
  logger: McpLogger | undefined,
  run: () => T | Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (err) {
    logger?.error(err, `mcpRouter: upstream '${label}': its ${fn} function failed`);
    throw upstreamError(label, failed);
  }
}

/** The upstream's own JSON-RPC error, verbatim; a malformed one is a fault. */
export function resultOrThrow(message: Record<string, unknown>, label: string): unknown {
  if ('error' in message) {
    const error = message.error;
    if (!isObject(error) || !Number.isInteger(error.code) || typeof error.message !== 'string')
      throw upstreamError(label, 'sent a malformed JSON-RPC error');
    throw new JsonRpcError(error.code as number, error.message, error.data);
  }
  return message.result;
}

/**
 * The answer to a request a 2025 upstream sent the gateway (MCP 2025-11-25 lifecycle › Capability Negotiation):
 * `ping` is `{}`; the rest goes to `onRequest` (the gateway relays sampling, elicitation and roots to its caller).
 * Without one (outside any call) `roots/list` is answered with the upstream's `roots` (the gateway declares `roots`
 * in initialize, so it answers for them), and anything else is -32601 saying why (`notServed`), so an upstream never
 * waits for an answer that will not come.
 */
export function serverRequestAnswer(
  method: string,
  params: Record<string, unknown> | undefined,
  onRequest: ((method: string, params: Record<string, unknown> | undefined) => Promise<unknown>) | undefined,
  roots: readonly UpstreamRoot[],
  notServed = `the gateway does not serve ${method}`,
): Promise<unknown> {
  if (method === 'ping') return Promise.resolve({});
  if (onRequest !== undefined) return onRequest(method, params);
  if (method === 'roots/list') return Promise.resolve(rootsResult(roots));
  return Promise.reject(new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: ${notServed}`));
}

/**
 * The JSON-RPC response to a request an upstream sent the gateway (sampling, elicitation, roots, ping), from the
 * answer's outcome: its result, or its error (a JsonRpcError keeps its code and message; anything else is -32603).
 */
export function replyTo(id: unknown, answer: Promise<unknown>): Promise<Record<string, unknown>> {
  return answer.then(
    (result) => ({ jsonrpc: '2.0', id, result }),
    (error: unknown) => {
      const { code, message } =
        error instanceof JsonRpcError
          ? error
          : { code: ErrorCode.InternalError, message: error instanceof Error ? error.message : 'The request failed' };
      return { jsonrpc: '2.0', id, error: { code, message } };
    },
  );
}

/** The `roots/list` result the gateway gives from an upstream's `roots` (copies: the upstream's client may keep what it gets). */
export function rootsResult(roots: readonly UpstreamRoot[]): { roots: UpstreamRoot[] } {
  return { roots: roots.map((root) => ({ ...root })) };
}
