// A route's meta is checked when it is given, like every option: a bad one is an McpConfigError naming it, never a TypeError.

import express, { type RequestHandler } from 'express';
import { McpConfigError, mcpRouter } from '../../../lib';

const handler: RequestHandler = (_req, res) => {
  res.end();
};

describe('route metas', () => {
  const mcp = mcpRouter({ name: 'routes', version: '1.0.0' });
  const app = express();

  it.each<[string, () => unknown, RegExp]>([
    [
      'mcp.route() without a description',
      () => mcp.route({} as never, handler),
      /route tool of handler 'handler': option 'description' must be a non-empty string, got undefined$/,
    ],
    ['mcp.route() with no meta', () => mcp.route(undefined as never, handler), /option 'meta' must be/],
    [
      'a route without a method',
      () => mcp.exposeRoutes(app, [{ path: '/x', description: 'd' } as never]),
      /route tool: option 'method' must be an HTTP method, got undefined$/,
    ],
    [
      'routes that are no array',
      () => mcp.exposeRoutes(app, undefined as never),
      /mcp\.exposeRoutes\(\): option 'routes' must be an array of/,
    ],
    [
      'forwardHeaders that are no array',
      () => mcp.exposeRoutes(app, [{ method: 'GET', path: '/y', description: 'd', forwardHeaders: 'x' as never }]),
      /route tool 'get_y': option 'forwardHeaders' must be an array of header names, got "x"$/,
    ],
  ])('refuses %s', (_label, register, message) => {
    expect(register).toThrow(McpConfigError);
    expect(register).toThrow(message);
  });
});
