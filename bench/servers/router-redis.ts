// Server (r) of the Redis scenario: the (e) router (sessions, `responseMode: 'auto'`, no rate limit) with
// `store: redisStore({ url })`, so two of these behind a proxy share every session. argv[2]: the Redis URL.

import express from 'express';
import { mcpRouter } from '../../lib';
import { redisStore } from '../../lib/redis';
import { serveForBench } from './control';
import { ADD_INPUT_SCHEMA, addResult, SERVER_INFO } from './common';

const redisUrl = process.argv[2];
if (redisUrl === undefined) throw new Error('usage: servers/router-redis.ts <redis url>');
const mcp = mcpRouter({ ...SERVER_INFO, rateLimit: false, store: redisStore({ url: redisUrl, prefix: 'bench:' }) });
mcp.tool({
  name: 'add',
  description: 'Add two numbers',
  inputSchema: ADD_INPUT_SCHEMA,
  handler: ({ a, b }) => addResult(a, b),
});
const app = express();
app.use('/mcp', mcp);
serveForBench(app);
