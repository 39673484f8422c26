// The SDK v2 servers' Express app as its Express guide builds it: `express.json()`, the localhost Host and Origin checks, `toNodeHandler`.

import express, { type Express } from 'express';
import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from '@modelcontextprotocol/node';
import type { createMcpHandler } from '@modelcontextprotocol/server';

/**
 * The guide's `createMcpExpressApp()` (in `@modelcontextprotocol/express`, not installed here) is Express with
 * `express.json()`, then the localhost Host check and the localhost Origin check (a request without Origin passes);
 * the same three steps, with the Node package's guards, in front of `handler` on `app.all('/mcp')`.
 */
export function sdkV2App(handler: ReturnType<typeof createMcpHandler>): Express {
  const validateHost = localhostHostValidation();
  const validateOrigin = localhostOriginValidation();
  const node = toNodeHandler(handler);
  const app = express();
  app.use(express.json());
  app.all('/mcp', (req, res) => {
    if (validateHost(req, res) && validateOrigin(req, res)) void node(req, res, req.body);
  });
  return app;
}
