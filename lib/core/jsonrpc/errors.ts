// JSON-RPC error codes and JsonRpcError, the one exception type that becomes a JSON-RPC error object.

/**
 * Error codes used on the wire. -32700…-32603 are JSON-RPC 2.0's own; the others are MCP's. -32020…-32022 are
 * MCP 2026-07-28's and go only on the 2026 request path, always with HTTP 400: a dual-era client reads them on a
 * probe as "this server serves 2026-07-28", so the 2025 path never sends them.
 */
export const ErrorCode = Object.freeze({
  /** Invalid JSON was received. */
  ParseError: -32700,
  /** The JSON sent is not a valid JSON-RPC request object. */
  InvalidRequest: -32600,
  /** The method does not exist or its capability was not declared. */
  MethodNotFound: -32601,
  /** Unknown tool or prompt, malformed params, bad cursor, missing argument. */
  InvalidParams: -32602,
  /** A bug on the server; never carries internals. */
  InternalError: -32603,
  /** Transport-level errors in HTTP error bodies (as the official SDK does). */
  ServerError: -32000,
  /** MCP: `resources/read` of an unknown URI. */
  ResourceNotFound: -32002,
  /** MCP 2026-07-28 (SEP-2243): an `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` or `Mcp-Param-*` header disagrees with the body, or is missing. */
  HeaderMismatch: -32020,
  /** MCP 2026-07-28: the method needs a client capability the request's `_meta` did not declare; `data.requiredCapabilities`. */
  MissingRequiredClientCapability: -32021,
  /** MCP 2026-07-28: the request's `_meta` names a revision this server does not serve; `data.supported`, `data.requested`. */
  UnsupportedProtocolVersion: -32022,
} as const);

/** One of the {@link ErrorCode} values. */
export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

/** The `error` member of a JSON-RPC error response. */
export interface JsonRpcErrorObject {
  /** The JSON-RPC error code: -32700 to -32600 for the protocol's own, others as the application defines. */
  code: number;
  /** A short description of the error, for people. */
  message: string;
  /** Anything more the client may use (MCP puts, for example, the unsupported versions here). */
  data?: unknown;
}

/**
 * Throw this from anywhere below the dispatcher to answer a request with a JSON-RPC error;
 * any other thrown value becomes -32603 "Internal error" without its message.
 *
 * @example
 * ```ts
 * throw new JsonRpcError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
 * ```
 */
export class JsonRpcError extends Error {
  /** Always `'JsonRpcError'`, so logs can tell it from other errors. */
  override readonly name = 'JsonRpcError';

  /**
   * @param code - a JSON-RPC or MCP error code
   * @param message - a short sentence the client (or a model) can act on
   * @param data - optional structured detail, e.g. `{ uri }` for -32002
   */
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }

  /** The wire form: `{ code, message, data? }`. */
  toObject(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}
