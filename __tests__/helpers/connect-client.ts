// Starts an Express app on a free loopback port and connects the official MCP SDK client to it.

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export interface ConnectedClient {
  client: Client;
  transport: StreamableHTTPClientTransport;
  url: URL;
  close(): Promise<void>;
}

/**
 * Listens on 127.0.0.1:0, connects a `Client` over Streamable HTTP to `path` (sending `headers` with every
 * request, e.g. a bearer token), and closes both on `close()`. Pass your own `client` to declare capabilities or set
 * request handlers (sampling, elicitation) before it connects.
 */
export async function connectClient(
  app: Express,
  path = '/mcp',
  headers: Record<string, string> = {},
  client = new Client({ name: 'jest-client', version: '1.0.0' }),
): Promise<ConnectedClient> {
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const { port } = server.address() as AddressInfo;
  const url = new URL(`http://127.0.0.1:${port}${path}`);
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
  await client.connect(transport);
  return {
    client,
    transport,
    url,
    async close() {
      await client.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
