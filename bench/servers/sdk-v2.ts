// Server (g): the official SDK v2 (`@modelcontextprotocol/server` + `@modelcontextprotocol/node`) on Express 5,
// written as its Express guide shows: `createMcpHandler(factory)` adapted with `toNodeHandler`, on `app.all('/mcp')`.
// It answers 2026-07-28 ("modern") requests statelessly, building an `McpServer` per request from the factory.

import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { serveForBench } from './control';
import { sdkV2App } from './sdk-v2-app';
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

serveForBench(sdkV2App(handler));
