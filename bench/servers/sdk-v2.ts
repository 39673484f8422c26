// Server (g): the official SDK v2 (`@modelcontextprotocol/server` + `@modelcontextprotocol/node`) on Express 5,
// written as its Express guide shows: `createMcpHandler(factory)` adapted with `toNodeHandler`, on `app.all('/mcp')`.
// It answers 2026-07-28 ("modern") requests statelessly, building an `McpServer` per request from the factory.

import express from 'express';
import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { serveForBench } from './control';
import { addResult, COUNT_RESULT, PROGRESS_STEPS, SERVER_INFO } from './common';

const handler = createMcpHandler(() => {
  const server = new McpServer(SERVER_INFO);
  server.registerTool(
    'add',
    { description: 'Add two numbers', inputSchema: z.object({ a: z.number(), b: z.number() }) },
    async ({ a, b }) => addResult(a, b),
  );
  server.registerTool(
    'count',
    { description: `Reports ${PROGRESS_STEPS} progress steps`, inputSchema: z.object({}) },
    async (_args, ctx) => {
      const progressToken = ctx.mcpReq._meta?.progressToken;
      for (let progress = 1; progress <= PROGRESS_STEPS; progress++) {
        if (progressToken !== undefined)
          await ctx.mcpReq.notify({
            method: 'notifications/progress',
            params: { progressToken, progress, total: PROGRESS_STEPS },
          });
      }
      return COUNT_RESULT;
    },
  );
  return server;
});

// The guide's `createMcpExpressApp()` (in `@modelcontextprotocol/express`, not installed here) is Express with
// `express.json()`, then the localhost Host check and the localhost Origin check (a request without Origin
// passes); the same three steps, with the Node package's guards.
const validateHost = localhostHostValidation();
const validateOrigin = localhostOriginValidation();
const node = toNodeHandler(handler);
const app = express();
app.use(express.json());
app.all('/mcp', (req, res) => {
  if (validateHost(req, res) && validateOrigin(req, res)) void node(req, res, req.body);
});

serveForBench(app);
