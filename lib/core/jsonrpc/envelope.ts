// JSON-RPC envelopes: parse one incoming message or batch, and build the two kinds of response.

import { ErrorCode, JsonRpcError } from './errors';
import {
  isJsonRpcId,
  isObject,
  type JsonRpcFailure,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcSuccess,
} from './types';

/** The outcome of reading one JSON value as a JSON-RPC message. */
export type ParsedMessage =
  { readonly ok: true; readonly message: JsonRpcMessage } | { readonly ok: false; readonly error: JsonRpcFailure };

/** Builds a success response. */
export function success(id: JsonRpcId, result: Record<string, unknown>): JsonRpcSuccess {
  return { jsonrpc: '2.0', id, result };
}

/** Builds an error response from a {@link JsonRpcError}; `id` is null when the request's id was unreadable. */
export function failure(id: JsonRpcId | null, error: JsonRpcError): JsonRpcFailure {
  return { jsonrpc: '2.0', id, error: error.toObject() };
}

function invalid(
  value: Record<string, unknown>,
  message: string,
  code: number = ErrorCode.InvalidRequest,
): ParsedMessage {
  // JSON-RPC 2.0 §5: the id is echoed when it can be read, null otherwise.
  const id = isJsonRpcId(value.id) ? value.id : null;
  const prefix = code === ErrorCode.InvalidParams ? 'Invalid params' : 'Invalid Request';
  return { ok: false, error: failure(id, new JsonRpcError(code, `${prefix}: ${message}`)) };
}

/**
 * Reads one JSON value (already parsed) as a JSON-RPC 2.0 message: a request, a notification or a
 * response. Anything else yields a ready-made -32600 error response.
 *
 * @param value - one element of the body (never an array; see {@link parseBatch})
 */
export function parseMessage(value: unknown): ParsedMessage {
  if (!isObject(value)) {
    return {
      ok: false,
      error: failure(
        null,
        new JsonRpcError(ErrorCode.InvalidRequest, 'Invalid Request: a JSON-RPC message must be a JSON object'),
      ),
    };
  }
  if (value.jsonrpc !== '2.0') return invalid(value, '"jsonrpc" must be exactly "2.0"');
  const hasId = 'id' in value;
  // MCP (all versions): request ids are strings or integers, never null.
  if (hasId && !isJsonRpcId(value.id)) return invalid(value, '"id" must be a string or a number');

  if ('method' in value) {
    if (typeof value.method !== 'string' || value.method === '')
      return invalid(value, '"method" must be a non-empty string');
    if ('params' in value && value.params !== undefined && !isObject(value.params)) {
      // JSON-RPC allows by-position params; MCP defines every method with named params.
      return Array.isArray(value.params)
        ? invalid(value, '"params" must be an object (MCP uses named params)', ErrorCode.InvalidParams)
        : invalid(value, '"params" must be an object');
    }
    return { ok: true, message: value as unknown as JsonRpcMessage };
  }

  const hasResult = 'result' in value;
  const hasError = 'error' in value;
  // MCP 2025-11-25 schema: an error response may omit its id (when the request's id was unreadable).
  if (!hasId && !hasError)
    return invalid(value, 'a message needs a "method" (request or notification) or an "id" (response)');
  if (hasResult === hasError) return invalid(value, 'a response carries exactly one of "result" and "error"');
  if (hasError) {
    const error = value.error;
    if (!isObject(error) || !Number.isInteger(error.code) || typeof error.message !== 'string') {
      return invalid(value, '"error" must be an object with an integer "code" and a string "message"');
    }
  }
  return { ok: true, message: value as unknown as JsonRpcMessage };
}
