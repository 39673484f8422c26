// The stdio upstream of scenario `stdio` (issue 31): the SDK v1's McpServer with `add`, on StdioServerTransport, as its docs show.

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as z from 'zod/v4';
import { addResult, SERVER_INFO } from './common';

// Started by the router, by supergateway or by the SDK's stdio client, never by the harness: no IPC channel, and
// it ends when its stdin closes (the transport's own behaviour), so it never outlives the process that started it.
const server = new McpServer(SERVER_INFO);
server.registerTool(
  'add',
  { description: 'Add two numbers', inputSchema: { a: z.number(), b: z.number() } },
  async ({ a, b }) => addResult(a, b),
);
void server.connect(new StdioServerTransport());
