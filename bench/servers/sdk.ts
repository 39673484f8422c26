// Servers (b) and (c): the official SDK on Express, written as its docs show. argv[2] picks the mode:
// `stateless` — a new McpServer and transport for every request, JSON reply (enableJsonResponse);
// `stateful` — a transport per session kept in a map, replies on the POST's SSE stream (the default).

import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';
import { serveForBench } from './control';
import { addResult, COUNT_RESULT, PROGRESS_STEPS, SERVER_INFO } from './common';

function getServer(): McpServer {
  const server = new McpServer(SERVER_INFO);
  server.registerTool(
    'add',
    { description: 'Add two numbers', inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => addResult(a, b),
  );
  server.registerTool(
    'count',
    { description: `Reports ${PROGRESS_STEPS} progress steps`, inputSchema: {} },
    async (_args, extra) => {
      const progressToken = extra._meta?.progressToken;
      for (let progress = 1; progress <= PROGRESS_STEPS; progress++) {
        if (progressToken !== undefined)
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken, progress, total: PROGRESS_STEPS },
          });
      }
      return COUNT_RESULT;
    },
  );
  return server;
}

function sendError(res: Response, status: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
}

const app = createMcpExpressApp();
const mode = process.argv[2];

if (mode === 'stateless') {
  app.post('/mcp', async (req: Request, res: Response) => {
    const server = getServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
} else if (mode === 'stateful') {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  app.post('/mcp', async (req: Request, res: Response) => {
    const sessionId = req.headers['mcp-session-id'] as string | undefined;
    let transport = sessionId === undefined ? undefined : transports.get(sessionId);
    if (transport === undefined) {
      if (sessionId !== undefined || !isInitializeRequest(req.body))
        return sendError(res, 400, 'Bad Request: No valid session ID provided');
      const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          transports.set(id, created);
        },
      });
      created.onclose = () => {
        if (created.sessionId !== undefined) transports.delete(created.sessionId);
      };
      await getServer().connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, req.body);
  });
  const handleSessionRequest = async (req: Request, res: Response): Promise<void> => {
    const transport = transports.get(req.headers['mcp-session-id'] as string);
    if (transport === undefined) return sendError(res, 400, 'Invalid or missing session ID');
    await transport.handleRequest(req, res);
  };
  app.get('/mcp', handleSessionRequest);
  app.delete('/mcp', handleSessionRequest);
} else {
  throw new Error(`bench/servers/sdk.ts: mode must be 'stateless' or 'stateful', got ${String(mode)}`);
}

serveForBench(app);
