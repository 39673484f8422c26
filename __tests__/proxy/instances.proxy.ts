// Two router instances behind one nginx upstream (round robin, no stickiness) on one redis-server with redisStore: a
// 2025 session made on one works on the other, and 2026-07-28 calls work whichever instance answers.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { redisStore } from '../../lib/redis';
import { MODERN } from '../helpers/modern';
import { startRedis, type RedisServer } from '../features/redis/redis-server';
import { startBehindProxy, type BehindProxy } from './behind-proxy';

jest.setTimeout(30_000);

let redis: RedisServer | undefined;
let proxy: BehindProxy | undefined;
/** The MCP methods each instance was sent, in order (index = instance). */
const served: string[][] = [[], []];

beforeAll(async () => {
  redis = await startRedis();
  const url = redis.url;
  proxy = await startBehindProxy({
    instances: 2,
    router: () => ({ store: redisStore({ url, prefix: 'proxy-test:' }) }),
    setup: (mcp, instance) => {
      mcp.tool({ name: 'where', description: 'Which instance answered', handler: () => ({ instance }) });
    },
    app: (app, instance) => {
      app.use((req, _res, next) => {
        served[instance]!.push(`${req.method} ${String(req.headers['mcp-method'] ?? '')}`);
        next();
      });
    },
  });
});
afterAll(async () => {
  await proxy?.stop();
  await redis?.close();
});

const running = (): BehindProxy => {
  if (proxy === undefined) throw new Error('the proxy starts in beforeAll');
  return proxy;
};

it('a 2025 session initialized on one instance is served by both (SDK v1)', async () => {
  const before = served.map((requests) => requests.length);
  const client = new Client({ name: 'round-robin-v1', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(running().url), { fetch: running().fetch });
  await client.connect(transport);
  const answered = new Set<number>();
  for (let call = 0; call < 4; call++) {
    const result = await client.callTool({ name: 'where', arguments: {} });
    answered.add((result.structuredContent as { instance: number }).instance);
  }
  expect(transport.sessionId).toEqual(expect.any(String));
  // Round robin without stickiness: the session's requests landed on both instances, and every call succeeded.
  expect([...answered].sort()).toEqual([0, 1]);
  expect(served.map((requests, at) => requests.length > before[at]!)).toEqual([true, true]);
  await client.close();
});

it('2026-07-28 calls work whichever instance answers (SDK v2)', async () => {
  const client = new ClientV2(
    { name: 'round-robin-v2', version: '2.0.0' },
    { versionNegotiation: { mode: { pin: MODERN } } },
  );
  await client.connect(new TransportV2(new URL(running().url), { fetch: running().fetch }));
  const answered = new Set<number>();
  for (let call = 0; call < 4; call++) {
    const result = await client.callTool({ name: 'where', arguments: {} });
    answered.add((result.structuredContent as { instance: number }).instance);
  }
  expect([...answered].sort()).toEqual([0, 1]);
  await client.close();
});
