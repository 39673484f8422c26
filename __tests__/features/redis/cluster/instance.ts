// One router instance in its own process for the multi-instance tests: the store is Redis, the tools let a test see which instance ran what.

import express from 'express';
import { mcpRouter } from '../../../../lib';
import { redisStore } from '../../../../lib/redis';
import { scaled } from '../../../helpers/time-scale';

const [portArg, redisUrl, name] = process.argv.slice(2);
if (portArg === undefined || redisUrl === undefined || name === undefined)
  throw new Error('usage: instance.ts <port> <redis url> <name>');

const mcp = mcpRouter({
  name: 'cluster-test',
  version: '1.0.0',
  // A command's bound stands for a slow machine here (a busy one missed 1 s: 503 at initialize), so it is scaled.
  store: redisStore({ url: redisUrl, prefix: 'cluster:', commandTimeoutMs: scaled(1_000) }),
  rateLimit: { limit: 100, windowMs: 60_000 },
  logger: { error: (err, message) => console.error(`[${name}] ${message ?? ''}`, err), warn: () => undefined },
  // MCP_TEST_MAX_STREAMS: a test of the per-session stream cap sets it low.
  sessions: { idleTtlMs: 60_000, maxStreams: Number(process.env.MCP_TEST_MAX_STREAMS ?? 100) },
});
mcp.tool({ name: 'whoami', description: 'Which instance runs this call', handler: () => ({ instance: name }) });
mcp.tool({
  name: 'ask',
  description: 'Asks the client to confirm, then says which instance asked',
  handler: async (_args, ctx) => {
    const answer = await ctx.elicit({
      message: 'Confirm?',
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
    });
    return { instance: name, answer };
  },
});
mcp.tool({
  name: 'hang',
  description: 'Runs until cancelled, then reports it on stdout',
  handler: (_args, ctx) =>
    new Promise((resolve) => {
      console.log(`${name} hang started ${ctx.requestId}`);
      ctx.signal.addEventListener('abort', () => {
        console.log(`${name} hang aborted ${ctx.requestId}`);
        resolve('aborted');
      });
    }),
});
mcp.tool({
  name: 'slow_steps',
  description:
    'Reports step 1, drops the connection (the client must resume), then reports the other steps, one every delayMs',
  inputSchema: {
    type: 'object',
    properties: { steps: { type: 'number' }, delayMs: { type: 'number' } },
    required: ['steps', 'delayMs'],
  },
  handler: async ({ steps, delayMs }: { steps: number; delayMs: number }, ctx) => {
    await ctx.progress(1, steps);
    ctx.closeStream();
    console.log(`${name} slow_steps started`);
    for (let step = 2; step <= steps; step++) {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      await ctx.progress(step, steps);
    }
    return { instance: name, steps };
  },
});
mcp.tool({
  name: 'add_tool',
  description: 'Registers a tool on this instance (a list change every instance announces)',
  inputSchema: { type: 'object', properties: { toolName: { type: 'string' } }, required: ['toolName'] },
  handler: ({ toolName }: { toolName: string }) => {
    mcp.tool({ name: toolName, description: `added on ${name}`, handler: () => name });
    return `added ${toolName} on ${name}`;
  },
});
mcp.tool({
  name: 'long_task',
  description: 'A task that runs until cancelled',
  task: 'optional',
  handler: (_args, ctx) =>
    new Promise((resolve) => {
      console.log(`${name} task started`);
      ctx.signal.addEventListener('abort', () => {
        console.log(`${name} task aborted`);
        resolve('aborted');
      });
    }),
});

const app = express();
// Which Express this process runs (the redis4 project loads Express 4 through express4.cjs).
console.log(`${name} express ${(require('express/package.json') as { version: string }).version}`);
app.use('/mcp', mcp);
const server = app.listen(Number(portArg), '127.0.0.1', () => console.log(`${name} ready`));
const stop = (): void => {
  void mcp.close().finally(() => server.close(() => process.exit(0)));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
