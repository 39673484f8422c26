// sessions.maxPerPrincipal with a shared Redis store: one principal's sessions are bounded across every instance, the least recently active going first wherever it lives.

import express, { type Express } from 'express';
import request from 'supertest';
import { mcpRouter, type McpRouter } from '../../../lib';
import { redisStore } from '../../../lib/redis';
import { MCP_ACCEPT } from '../../helpers/messages';
import { startRedis, type RedisServer } from './redis-server';

let redis: RedisServer;
const routers: McpRouter[] = [];

beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  await Promise.all(routers.splice(0).map((mcp) => mcp.close()));
});
afterAll(() => redis?.close());

/** One instance of the router: its own connection to the shared Redis, under the prefix the instances share. */
function instance(prefix: string): Express {
  const mcp = mcpRouter({
    name: 'capped',
    version: '1.0.0',
    auth: {
      tokens: [
        { token: 'alice-token', subject: 'alice' },
        { token: 'bob-token', subject: 'bob' },
      ],
    },
    store: redisStore({ url: redis.url, prefix }),
    sessions: { maxPerPrincipal: 2 },
    logger: { error: jest.fn(), warn: jest.fn() },
  });
  routers.push(mcp);
  const app = express();
  app.use('/mcp', mcp);
  return app;
}

async function initialize(app: Express, token: string): Promise<string> {
  const res = await request(app)
    .post('/mcp')
    .set({ 'Content-Type': 'application/json', Accept: MCP_ACCEPT, Authorization: `Bearer ${token}` })
    .send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
  expect(res.status).toBe(200);
  return res.headers['mcp-session-id'] as string;
}

async function list(app: Express, token: string, session: string): Promise<number> {
  const res = await request(app)
    .post('/mcp')
    .set({
      'Content-Type': 'application/json',
      Accept: MCP_ACCEPT,
      Authorization: `Bearer ${token}`,
      'Mcp-Session-Id': session,
      'MCP-Protocol-Version': '2025-11-25',
    })
    .send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  return res.status;
}

it("bounds one principal's sessions across instances, ending the least recently active, and leaves others' alone", async () => {
  const prefix = `cap-${Date.now()}:`;
  const first = instance(prefix);
  const second = instance(prefix);
  const bob = await initialize(first, 'bob-token');
  const oldest = await initialize(first, 'alice-token');
  const middle = await initialize(second, 'alice-token');
  // The oldest was used since: the middle one is now the least recently active.
  expect(await list(second, 'alice-token', oldest)).toBe(200);
  const newest = await initialize(second, 'alice-token');
  expect(await list(first, 'alice-token', middle)).toBe(404);
  expect(await list(first, 'alice-token', oldest)).toBe(200);
  expect(await list(second, 'alice-token', newest)).toBe(200);
  expect(await list(second, 'bob-token', bob)).toBe(200);
});
