// Test helpers: a fresh express() app with an MCP router mounted at /mcp, JSON-RPC body builders, and a POST helper.

import express, { type Express } from 'express';
import request from 'supertest';
import { mcpRouter, type McpRouter, type McpRouterOptions } from '../../lib';
import { MCP_ACCEPT } from './messages';

export { MCP_ACCEPT, notification, rpc, silentLogger } from './messages';

/**
 * Builds `express()` with `app.use('/mcp', mcpRouter({ name: 'test', version: '1.0.0', sessions: false, ...options }))`.
 * Stateless by default, so every request stands alone; pass `sessions: {}` for the stateful server.
 *
 * @param options - merged over `{ name: 'test', version: '1.0.0', sessions: false }`
 * @param setup - registers tools, resources and prompts on the router (it may keep `mcp` for later)
 */
export function createApp(options: Partial<McpRouterOptions> = {}, setup?: (mcp: McpRouter) => void): Express {
  const mcp = mcpRouter({ name: 'test', version: '1.0.0', sessions: false, ...options });
  setup?.(mcp);
  const app = express();
  app.use('/mcp', mcp);
  return app;
}

/**
 * POSTs `body` with `Content-Type: application/json` and the MCP `Accept` header.
 *
 * @param body - an object or array (sent as JSON), or a string / Buffer sent byte for byte
 * @param headers - extra headers; a header set to `undefined` is not sent at all (e.g. no Content-Type)
 * @param path - where to POST; defaults to `/mcp`
 */
export function post(
  app: Express,
  body: unknown,
  headers: Record<string, string | undefined> = {},
  path = '/mcp',
): request.Test {
  const all: Record<string, string | undefined> = {
    'Content-Type': 'application/json',
    Accept: MCP_ACCEPT,
    ...headers,
  };
  const test = request(app).post(path);
  for (const [name, value] of Object.entries(all)) if (value !== undefined) test.set(name, value);
  // Strings and Buffers go out exactly as given (superagent would otherwise JSON-encode a Buffer); the rest as JSON text.
  if (Buffer.isBuffer(body)) return test.serialize((bytes: unknown) => bytes as string).send(body);
  return test.send(typeof body === 'string' ? body : JSON.stringify(body));
}
