// McpLogger: the one route by which the router reports its own failures (console by default).

/** Where the router reports failures it cannot send to the client (a handler's bug, a failed write). */
export interface McpLogger {
  error(error: unknown, message?: string): void;
  warn(error: unknown, message?: string): void;
}
