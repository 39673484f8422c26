// Server (h1) of scenario `stdio`'s HTTP part: this router fronting an HTTP MCP upstream (the (d) router in a child process) with mcp.upstream({ url }).

import { fork } from 'node:child_process';
import path from 'node:path';
import express from 'express';
import { mcpRouter } from '../../lib';
import { serveForBench, type ReadyMessage } from './control';
import { SERVER_INFO } from './common';

/** Starts the upstream, `router.ts stateless` as (h0) runs it, and resolves with its port once it listens. */
function startUpstream(): Promise<number> {
  const child = fork(path.join(__dirname, 'router.js'), ['stateless'], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  // The upstream ends with its IPC channel, that is with this process: it never outlives the gateway.
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the HTTP upstream exited (code ${String(code)})`)));
    child.once('message', (message: ReadyMessage) => resolve(message.port));
  });
}

async function main(): Promise<void> {
  const port = await startUpstream();
  // (u1)'s configuration (the (e) options), so that the two gateways differ only in their upstream's transport.
  const mcp = mcpRouter({ ...SERVER_INFO, rateLimit: false });
  const upstream = mcp.upstream({ prefix: 'up', url: `http://127.0.0.1:${port}/mcp` });
  // Ready once the upstream's tools are mounted: the harness's first call names one.
  await upstream.refresh();
  const app = express();
  app.use('/mcp', mcp);
  // The upstream is a process of its own: its CPU time counts with the gateway's, as (u1)'s stdio server does.
  serveForBench(app, { countDescendants: true });
}

void main();
