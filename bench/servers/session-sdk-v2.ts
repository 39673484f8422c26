// Scenario `session-per-call`, SDK v2: `createMcpHandler(factory)` as in sdk-v2.ts (an McpServer per request, its
// default stateless handling of 2025 requests), with the shared `lookup` tool.

import express from 'express';
import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { serveForBench } from './control';
import { SERVER_INFO } from './common';
import { LOOKUP_DESCRIPTION, lookupTool, toolArgs } from './session-tool';

async function main(): Promise<void> {
  const { redisUrl, serviceUrl } = toolArgs(process.argv, 2);
  const lookup = await lookupTool(redisUrl, serviceUrl);
  const handler = createMcpHandler(() => {
    const server = new McpServer(SERVER_INFO);
    server.registerTool(
      'lookup',
      { description: LOOKUP_DESCRIPTION, inputSchema: z.object({ key: z.string() }) },
      async ({ key }) => lookup(key),
    );
    return server;
  });
  const validateHost = localhostHostValidation();
  const validateOrigin = localhostOriginValidation();
  const node = toNodeHandler(handler);
  const app = express();
  app.use(express.json());
  app.all('/mcp', (req, res) => {
    if (validateHost(req, res) && validateOrigin(req, res)) void node(req, res, req.body);
  });
  serveForBench(app);
}

void main();
