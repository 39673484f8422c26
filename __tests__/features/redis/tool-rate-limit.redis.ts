// Issue 29 item 12: a tool's rateLimit counts in the router's shared store, so the limit holds across instances as the
// router-wide one does (it was counted per process: N instances let a caller make N times the calls).

import { randomUUID } from 'node:crypto';
import express, { type Express } from 'express';
import request from 'supertest';
import { mcpRouter, type McpRouter } from '../../../lib';
import { redisStore } from '../../../lib/redis';
import { RedisConnection } from '../../../lib/features/redis/connection';
import { MCP_ACCEPT } from '../../helpers/messages';
import { startRedis, type RedisServer } from './redis-server';

let redis: RedisServer;
const routers: McpRouter[] = [];
let runs = 0;

beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  await Promise.all(routers.splice(0).map((mcp) => mcp.close()));
});
afterAll(() => redis?.close());

/** One instance: its own connection to the shared Redis, under the prefix the instances share. */
function instance(prefix: string, routerLimit: false | undefined = undefined): Express {
  const mcp = mcpRouter({
    name: 'limited',
    version: '1.0.0',
    sessions: false,
    auth: {
      tokens: [
        { token: 'alice-token', subject: 'alice' },
        { token: 'bob-token', subject: 'bob' },
      ],
    },
    store: redisStore({ url: redis.url, prefix }),
    logger: { error: jest.fn(), warn: jest.fn() },
    ...(routerLimit === false ? { rateLimit: false as const } : {}),
  });
  mcp.tool({
    name: 'export',
    description: 'Costly export, twice a minute',
    rateLimit: { limit: 2, windowMs: 60_000 },
    handler: () => {
      runs++;
      return 'exported';
    },
  });
  routers.push(mcp);
  const app = express();
  app.use('/mcp', mcp);
  return app;
}

async function call(app: Express, token: string): Promise<Record<string, unknown>> {
  const res = await request(app)
    .post('/mcp')
    .set({
      'Content-Type': 'application/json',
      Accept: MCP_ACCEPT,
      Authorization: `Bearer ${token}`,
      'MCP-Protocol-Version': '2025-11-25',
    })
    .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'export', arguments: {} } });
  expect(res.status).toBe(200);
  return res.body.result as Record<string, unknown>;
}

it('counts one caller across two instances: the third call is refused whichever instance it reaches', async () => {
  runs = 0;
  const prefix = `t${randomUUID().slice(0, 8)}:`;
  const [a, b] = [instance(prefix), instance(prefix)];
  expect(await call(a, 'alice-token')).toEqual({ content: [{ type: 'text', text: 'exported' }] });
  expect(await call(b, 'alice-token')).toEqual({ content: [{ type: 'text', text: 'exported' }] });
  for (const target of [a, b]) {
    expect(await call(target, 'alice-token')).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/^Tool 'export' is over its rate limit; try again in \d+ s$/) }],
    });
  }
  expect(runs).toBe(2);
  // Another caller counts apart.
  expect(await call(b, 'bob-token')).toEqual({ content: [{ type: 'text', text: 'exported' }] });
  const keys = await fetchKeys(prefix);
  expect(keys.sort()).toEqual([`${prefix}rl:tool:export:principal:alice`, `${prefix}rl:tool:export:principal:bob`]);
});

it('refuses the call without running it while Redis is down, and counts again once it is back', async () => {
  runs = 0;
  const prefix = `t${randomUUID().slice(0, 8)}:`;
  // The router-wide limit off: it counts in Redis too, and would answer 503 first.
  const app = instance(prefix, false);
  expect(await call(app, 'alice-token')).toEqual({ content: [{ type: 'text', text: 'exported' }] });
  await redis.stop(true);
  try {
    expect(await call(app, 'alice-token')).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/cannot check its rate limit now/) }],
    });
  } finally {
    await redis.start();
  }
  expect(runs).toBe(1);
});

async function fetchKeys(prefix: string): Promise<string[]> {
  const connection = new RedisConnection({ url: redis.url });
  try {
    return await connection.send<string[]>(['KEYS', `${prefix}rl:tool:*`]);
  } finally {
    await connection.close();
  }
}
