// Test helpers that load no Express: the MCP Accept header, JSON-RPC body builders, a silent logger (create-app.ts
// re-exports them; a test that needs only these stays in the core jest project).

/** The Accept header every MCP client sends on POST (MCP transports). */
export const MCP_ACCEPT = 'application/json, text/event-stream';

/** A logger that records instead of printing, so expected failures stay out of the test output. */
export function silentLogger(): { error: jest.Mock; warn: jest.Mock } {
  return { error: jest.fn(), warn: jest.fn() };
}

/** A JSON-RPC request body; `params` is left out when undefined. */
export function rpc(
  method: string,
  params?: Record<string, unknown>,
  id: string | number = 1,
): Record<string, unknown> {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

/** A JSON-RPC notification body (no id). */
export function notification(method: string, params?: Record<string, unknown>): Record<string, unknown> {
  return params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
}
