// McpLogger: the one route by which the router reports its own failures (console by default).

/** Where the router reports failures it cannot send to the client (a handler's bug, a failed write). */
export interface McpLogger {
  /** A failure the router cannot recover from for this request or connection (a handler's bug, a failed write). */
  error(error: unknown, message?: string): void;
  /** Something the router worked around but an operator should know (a misbehaving client, a dropped event). */
  warn(error: unknown, message?: string): void;
}
