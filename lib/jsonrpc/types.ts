// JSON-RPC 2.0 message types and the type guards that tell them apart.

/** A request id: JSON-RPC allows strings and numbers (MCP forbids null). */
export type JsonRpcId = string | number;

/** Request or notification params: MCP only ever uses objects. */
export type JsonRpcParams = Record<string, unknown>;

/** A request: expects exactly one response with the same id. */
export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: string;
  params?: JsonRpcParams;
}

/** A notification: has no id and is never answered. */
export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: JsonRpcParams;
}

/** A successful response. */
export interface JsonRpcSuccess {
  jsonrpc: '2.0';
  id: JsonRpcId;
  result: Record<string, unknown>;
}

/** An error response; `id` is null only when the request's id could not be read. */
export interface JsonRpcFailure {
  jsonrpc: '2.0';
  id: JsonRpcId | null;
  error: { code: number; message: string; data?: unknown };
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
