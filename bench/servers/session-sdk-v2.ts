// Scenario `session-per-call`, SDK v2: `createMcpHandler(factory)` as in sdk-v2.ts (an McpServer per request, its
// default stateless handling of 2025 requests), with the shared `lookup` tool.

import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { serveForBench } from './control';
import { sdkV2App } from './sdk-v2-app';
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
  serveForBench(sdkV2App(handler));
}

void main();
