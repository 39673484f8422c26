// A router on Redis when Redis goes away: a session's requests get 503 with Retry-After (never a hang), it serves again once Redis is back, and close() ends in bounded time with Redis gone.

import express, { type Express } from 'express';
import request from 'supertest';
import { mcpRouter, type McpRouter } from '../../../lib';
import { redisStore } from '../../../lib/redis';
import { MCP_ACCEPT } from '../../helpers/messages';
import { until } from '../../helpers/until';
import { startRedis, type RedisServer } from './redis-server';

let redis: RedisServer;

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis?.close());

function app(mcp: McpRouter): Express {
  const served = express();
  served.use('/mcp', mcp);
  return served;
}

const HEADERS = { 'Content-Type': 'application/json', Accept: MCP_ACCEPT };

it('answers 503 while Redis is down, recovers by itself, and closes in bounded time with Redis gone', async () => {
  const mcp = mcpRouter({
    name: 'outage',
    version: '1.0.0',
    // Long enough for a loaded CI machine's first commands (connect, script load), short enough to see the outage.
    store: redisStore({ url: redis.url, commandTimeoutMs: 1_000 }),
    logger: { error: jest.fn(), warn: jest.fn() },
  });
  mcp.tool({ name: 'hello', description: 'Says hello', handler: () => 'hello' });
  const served = app(mcp);
  const init = await request(served)
    .post('/mcp')
    .set(HEADERS)
    .send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
  expect(init.status).toBe(200);
  const session = {
    ...HEADERS,
    'Mcp-Session-Id': init.headers['mcp-session-id'] as string,
    'MCP-Protocol-Version': '2025-11-25',
  };
  expect(
    (await request(served).post('/mcp').set(session).send({ jsonrpc: '2.0', id: 2, method: 'tools/list' })).status,
  ).toBe(200);

  await redis.stop(true);
  const started = Date.now();
  const refused = await request(served).post('/mcp').set(session).send({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
  expect(refused.status).toBe(503);
  expect(refused.headers['retry-after']).toMatch(/^\d+$/);
  expect(refused.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
  expect(Date.now() - started).toBeLessThan(3_000);

  await redis.start();
  // Redis came back empty (no persistence in the test): a new session works, without restarting the router.
  let status = 0;
  await until(
    async () =>
      (status = (
        await request(served)
          .post('/mcp')
          .set(HEADERS)
          .send({
            jsonrpc: '2.0',
            id: 4,
            method: 'initialize',
            params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
          })
      ).status) === 200,
    'a new session after the restart',
    10_000,
  ).catch(() => undefined);
  expect(status).toBe(200);

  await redis.stop(true);
  const closing = Date.now();
  await mcp.close();
  expect(Date.now() - closing).toBeLessThan(5_000);
  await redis.start();
});
