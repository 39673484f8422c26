// McpConfigError: the one error thrown at setup time (bad options, duplicate names, schemas that won't compile).

/** Stable machine codes of {@link McpConfigError}. */
export type McpConfigErrorCode =
  | 'ERR_MCP_UNKNOWN_OPTION'
  | 'ERR_MCP_INVALID_OPTION'
  | 'ERR_MCP_INVALID_NAME'
  | 'ERR_MCP_DUPLICATE'
  | 'ERR_MCP_INVALID_SCHEMA'
  | 'ERR_MCP_INVALID_DEFINITION'
  | 'ERR_MCP_INVALID_URI_TEMPLATE';

/**
 * Thrown synchronously while the router is being set up (by `mcpRouter()` or a registration such as
 * `mcp.tool()`), never while a request is served. The message starts with `mcpRouter:` and names the
 * option or registration at fault.
 *
 * @example
 * ```ts
 * try { mcp.tool({ name: 'bad name', description: '…', handler }) }
 * catch (err) { if (err instanceof McpConfigError) console.error(err.code) } // ERR_MCP_INVALID_NAME
 * ```
 */
export class McpConfigError extends Error {
  override readonly name = 'McpConfigError';

  /**
   * @param code - stable machine code, e.g. `ERR_MCP_DUPLICATE`
   * @param message - human text; `mcpRouter: ` is prefixed when missing
   */
  constructor(
    readonly code: McpConfigErrorCode,
    message: string,
  ) {
    super(message.startsWith('mcpRouter:') ? message : `mcpRouter: ${message}`);
  }
}

/** True for a positive safe integer: the one check of every count, limit and duration option. */
export function isPositiveInteger(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) > 0;
}
