// Child process of closed-streams.test.ts (run with --expose-gc): opens sessions and their GET streams over real HTTP,
// closes the streams from the client side, keeps the sessions, and prints as one JSON line how many of the server's
// responses are still reachable after full collections, and the heap per session the closed streams left behind.

import http from 'node:http';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { mcpRouter } from '../../lib';

// The jest project decides which Express major the child loads (express4 is an npm alias of express@4).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const express = require(process.env.MCP_TEST_EXPRESS ?? 'express') as typeof import('express');

const SESSIONS = Number(process.env.MCP_TEST_SESSIONS ?? 300);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

async function heapAfterGc(): Promise<number> {
  for (let i = 0; i < 4; i++) {
    gc?.();
    // Finalizers and socket teardown run between collections.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}

async function main(): Promise<void> {
  const mcp = mcpRouter({ name: 'closed-streams', version: '1.0.0', rateLimit: false });
  const app = express();
  const getResponses: Array<WeakRef<object>> = [];
  app.use((req, res, next) => {
    if (req.method === 'GET') getResponses.push(new WeakRef(res));
    next();
  });
  app.use('/mcp', mcp);
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const agent = new http.Agent({ keepAlive: false });
  const post = (body: unknown, session?: string): Promise<string | undefined> =>
    new Promise((resolve, reject) => {
      const req = http.request(
        {
          port,
          host: '127.0.0.1',
          path: '/mcp',
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2025-11-25',
            ...(session === undefined ? {} : { 'mcp-session-id': session }),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.headers['mcp-session-id'] as string | undefined));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
  const sessions: string[] = [];
  for (let i = 0; i < SESSIONS; i++) {
    const session = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    });
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session);
    sessions.push(session as string);
  }
  const before = await heapAfterGc();
  const sockets: Socket[] = [];
  for (const session of sessions) {
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => {
      socket.once('data', () => resolve());
      socket.write(
        `GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\nMcp-Session-Id: ${session}\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n`,
      );
    });
    sockets.push(socket);
  }
  await Promise.all(sockets.map((socket) => new Promise((resolve) => socket.once('close', resolve).destroy())));
  sockets.length = 0;
  // The server sees each close on its own socket: wait until it holds no connection.
  for (;;) {
    const open = await new Promise<number>((resolve) => server.getConnections((_err, count) => resolve(count)));
    if (open === 0) break;
    await new Promise((resolve) => setImmediate(resolve));
  }
  const after = await heapAfterGc();
  const reachable = getResponses.filter((ref) => ref.deref() !== undefined).length;
  process.stdout.write(
    `${JSON.stringify({ sessions: SESSIONS, opened: getResponses.length, reachable, before, after })}\n`,
  );
  await mcp.close();
  server.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exitCode = 1;
});
