// JSON-RPC 2.0 message types and the type guards that tell them apart.

/** A request id: JSON-RPC allows strings and numbers (MCP forbids null). */
export type JsonRpcId = string | number;

/** Request or notification params: MCP only ever uses objects. */
export type JsonRpcParams = Record<string, unknown>;

/** A request: expects exactly one response with the same id. */
export interface JsonRpcRequest {
  /** Always `'2.0'`. */
  jsonrpc: '2.0';
  /** The request's id, echoed by its response. */
  id: JsonRpcId;
  /** The method called, e.g. `tools/call`. */
  method: string;
  /** The method's arguments, if any. */
  params?: JsonRpcParams;
}

/** A notification: has no id and is never answered. */
export interface JsonRpcNotification {
  /** Always `'2.0'`. */
  jsonrpc: '2.0';
  /** The method called, e.g. `tools/call`. */
  method: string;
  /** The method's arguments, if any. */
  params?: JsonRpcParams;
}

/** A successful response. */
export interface JsonRpcSuccess {
  /** Always `'2.0'`. */
  jsonrpc: '2.0';
  /** The id of the request answered. */
  id: JsonRpcId;
  /** What the method answered. */
  result: Record<string, unknown>;
}

/** An error response; `id` is null only when the request's id could not be read. */
export interface JsonRpcFailure {
  /** Always `'2.0'`. */
  jsonrpc: '2.0';
  /** The id of the request answered, or null when it could not be read. */
  id: JsonRpcId | null;
  /** The error: its code (see `ErrorCode`), a message, and optional data. */
  error: {
    /** The JSON-RPC error code (see `ErrorCode`). */
    code: number;
    /** A short description, safe to show. */
    message: string;
    /** More about the error, if the server gives any. */
    data?: unknown;
  };
}

/** Either kind of response. */
export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure;

/** Anything a peer may send in one JSON-RPC message. */
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** True for plain JSON objects (not arrays, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True for a valid JSON-RPC id (string or finite number). */
export function isJsonRpcId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/** True for a message with a method and an id. */
export function isRequest(message: JsonRpcMessage): message is JsonRpcRequest {
  return 'method' in message && 'id' in message;
}

/** True for a message with a method and no id. */
export function isNotification(message: JsonRpcMessage): message is JsonRpcNotification {
  return 'method' in message && !('id' in message);
}

/** True for a response (a result or an error, no method). */
export function isResponse(message: JsonRpcMessage): message is JsonRpcResponse {
  return !('method' in message);
}
