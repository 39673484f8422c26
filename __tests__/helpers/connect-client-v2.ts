// Starts an Express app on a free loopback port and connects the official SDK v2 client to it, pinned to MCP 2026-07-28.

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

/**
 * Listens on 127.0.0.1:0, connects a v2 `Client` pinned to 2026-07-28 over Streamable HTTP to `path` (sending
 * `headers` with every request, e.g. a bearer token), and closes both on `close()`.
 */
export async function connectClientV2(
  app: Express,
  path = '/mcp',
  headers: Record<string, string> = {},
): Promise<{ client: Client; close(): Promise<void> }> {
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const client = new Client(
    { name: 'v2-client', version: '2.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const close = async (): Promise<void> => {
    await client.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  try {
    const { port } = server.address() as AddressInfo;
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}${path}`), { requestInit: { headers } }),
    );
  } catch (error) {
    await close();
    throw error;
  }
  return { client, close };
}
