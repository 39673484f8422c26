// mcp.server.session.duration with instances sharing Redis: a session served by two instances is counted once, by its creator.

import express, { type Express } from 'express';
import request from 'supertest';
import { mcpRouter, type McpRouter } from '../../../lib';
import { redisStore } from '../../../lib/redis';
import { MCP_ACCEPT } from '../../helpers/messages';
import { startOtel, type TestOtel } from '../../helpers/otel';
import { until } from '../../helpers/until';
import { startRedis, type RedisServer } from './redis-server';

const VERSION = '2025-11-25';
let redis: RedisServer;
let otel: TestOtel;
const routers: McpRouter[] = [];

beforeAll(async () => {
  redis = await startRedis();
  otel = startOtel();
});
afterEach(async () => {
  await Promise.all(routers.splice(0).map((mcp) => mcp.close()));
});
afterAll(async () => {
  await otel?.stop();
  await redis?.close();
});

/** One instance: its own router and connection, the prefix shared. Both record into this process's one SDK. */
function instance(prefix: string): { app: Express; mcp: McpRouter } {
  const mcp = mcpRouter({
    name: 'counted',
    version: '1.0.0',
    store: redisStore({ url: redis.url, prefix }),
    logger: { error: jest.fn(), warn: jest.fn() },
  });
  routers.push(mcp);
  const app = express();
  app.use('/mcp', mcp);
  return { app, mcp };
}

async function initialize(app: Express): Promise<string> {
  const res = await request(app)
    .post('/mcp')
    .set({ 'Content-Type': 'application/json', Accept: MCP_ACCEPT })
    .send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
  expect(res.status).toBe(200);
  return res.headers['mcp-session-id'] as string;
}

function list(app: Express, session: string): request.Test {
  return request(app)
    .post('/mcp')
    .set({
      'Content-Type': 'application/json',
      Accept: MCP_ACCEPT,
      'Mcp-Session-Id': session,
      'MCP-Protocol-Version': VERSION,
    })
    .send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
}

async function sessionsCounted(): Promise<number> {
  const points = await otel.histogram('mcp.server.session.duration');
  return points.reduce((sum, point) => sum + point.value.count, 0);
}

it('counts a session used on two instances once: deleted on one, found gone by its creator', async () => {
  const prefix = `otel-${Date.now()}:`;
  const first = instance(prefix);
  const second = instance(prefix);
  const before = await sessionsCounted();
  const session = await initialize(first.app);
  await list(second.app, session).expect(200);
  await request(second.app)
    .delete('/mcp')
    .set({ 'Mcp-Session-Id': session, 'MCP-Protocol-Version': VERSION, Accept: MCP_ACCEPT })
    .expect(200);
  // The second instance ended it but did not create it: nothing yet.
  expect(await sessionsCounted()).toBe(before);
  // Its creator finds it gone (here on the next request; else within the store's check interval) and counts it.
  await list(first.app, session).expect(404);
  await until(async () => (await sessionsCounted()) === before + 1, 'the creator to count the session');
  await list(second.app, session).expect(404);
  // Nothing the second instance still had running can count it later: both shut down (which counts nothing: below).
  await second.mcp.close();
  await first.mcp.close();
  expect(await sessionsCounted()).toBe(before + 1);
});

it('records nothing when instances shut down: the session lives on in Redis for the others', async () => {
  const prefix = `otel-close-${Date.now()}:`;
  const first = instance(prefix);
  const second = instance(prefix);
  const before = await sessionsCounted();
  const session = await initialize(first.app);
  await list(second.app, session).expect(200);
  await second.mcp.close();
  await first.mcp.close();
  expect(await sessionsCounted()).toBe(before);
  // A third instance still serves it.
  const third = instance(prefix);
  await list(third.app, session).expect(200);
});
