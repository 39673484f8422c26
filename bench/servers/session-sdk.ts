// Scenario `session-per-call`, SDK v1: its stateless example as users copy it (a new McpServer and transport per
// POST, replies on the POST's SSE stream, GET and DELETE answered 405), with the shared `lookup` tool.

import type { Request, Response } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import * as z from 'zod/v4';
import { serveForBench } from './control';
import { SERVER_INFO } from './common';
import { LOOKUP_DESCRIPTION, lookupTool, toolArgs, type LookupResult } from './session-tool';

function getServer(lookup: (key: string) => Promise<LookupResult>): McpServer {
  const server = new McpServer(SERVER_INFO);
  server.registerTool(
    'lookup',
    { description: LOOKUP_DESCRIPTION, inputSchema: { key: z.string() } },
    async ({ key }) => lookup(key),
  );
  return server;
}

const notAllowed = (_req: Request, res: Response): void => {
  res
    .writeHead(405)
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }));
};

async function main(): Promise<void> {
  const { redisUrl, serviceUrl } = toolArgs(process.argv, 2);
  const lookup = await lookupTool(redisUrl, serviceUrl);
  const app = createMcpExpressApp();
  app.post('/mcp', async (req: Request, res: Response) => {
    const server = getServer(lookup);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
  });
  app.get('/mcp', notAllowed);
  app.delete('/mcp', notAllowed);
  serveForBench(app);
}

void main();
