// The rate-limit store against a real redis-server: one count across two apps, outages rejected in bounded time, recovery after a restart.

import { randomUUID } from 'node:crypto';
import express, { type ErrorRequestHandler, type Express } from 'express';
import { rateLimit, type Options } from 'express-rate-limit';
import request from 'supertest';
import type { RedisConnection } from '../../../lib/features/redis/connection';
import { redisRateLimitStore } from '../../../lib/features/redis/rate-limit';
import { StoreUnavailableError } from '../../../lib/edge/store/shared-store';
import { until } from '../../helpers/until';
import { useRedis } from './redis-server';

const redis = useRedis();

const logger = { error: jest.fn(), warn: jest.fn() };

/** One instance: an app whose limiter counts in Redis on its own connection; store errors become 503 here, as the router should. */
function app(prefix: string, options: Partial<Options> = {}, commandTimeoutMs = 500): Express {
  const connection = redis.connect({ prefix, commandTimeoutMs });
  const served = express();
  served.use(
    rateLimit({
      windowMs: 60_000,
      limit: 5,
      keyGenerator: () => 'client',
      store: redisRateLimitStore(connection, 'mcp'),
      logger,
      ...options,
    }),
  );
  served.get('/', (_req, res) => void res.send('ok'));
  const onError: ErrorRequestHandler = (err, _req, res, _next) => {
    res.status(err instanceof StoreUnavailableError ? 503 : 500).json({ name: (err as Error).name });
  };
  served.use(onError);
  return served;
}

/** Whether `check` came true within `ms` (polled by helpers/until). */
async function eventually(check: () => Promise<boolean>, ms = 5_000): Promise<boolean> {
  return until(check, 'the check', ms).then(
    () => true,
    () => false,
  );
}

it('counts across two instances: the 6th request gets 429 whichever instance it reaches', async () => {
  const prefix = `r${randomUUID().slice(0, 8)}:`;
  const [a, b] = [app(prefix), app(prefix)];
  const statuses: number[] = [];
  for (const target of [a, b, a, b, a]) statuses.push((await request(target).get('/')).status);
  expect(statuses).toEqual([200, 200, 200, 200, 200]);
  expect((await request(b).get('/')).status).toBe(429);
  expect((await request(a).get('/')).status).toBe(429);
  // Another router (a different connection prefix) counts apart.
  expect((await request(app(`other${prefix}`)).get('/')).status).toBe(200);
});

it('keeps its counter under the connection prefix, with the window as TTL', async () => {
  const prefix = `r${randomUUID().slice(0, 8)}:`;
  await request(app(prefix)).get('/').expect(200);
  const connection = redis.connect();
  const keys = await connection.send<string[]>(['KEYS', `${prefix}*`]);
  expect(keys).toEqual([`${prefix}rl:mcp:client`]);
  const ttl = await connection.send<number>(['PTTL', `${prefix}rl:mcp:client`]);
  expect(ttl).toBeGreaterThan(0);
  expect(ttl).toBeLessThanOrEqual(60_000);
});

it('rejects with StoreUnavailableError in bounded time while Redis is down (passed to next: 503 here), and counts again once it is back', async () => {
  const prefix = `r${randomUUID().slice(0, 8)}:`;
  const instance = app(prefix);
  await request(instance).get('/').expect(200);
  await redis.stop(true);
  const started = Date.now();
  await request(instance).get('/').expect(503, { name: 'StoreUnavailableError' });
  expect(Date.now() - started).toBeLessThan(2_000);
  await redis.start();
  // A restarted Redis has lost its scripts (NOSCRIPT): the store loads them again.
  expect(await eventually(async () => (await request(instance).get('/')).status === 200)).toBe(true);
});

it('lets requests through unlimited during an outage with passOnStoreError (fail open), logging the error', async () => {
  const prefix = `r${randomUUID().slice(0, 8)}:`;
  const instance = app(prefix, { passOnStoreError: true });
  await request(instance).get('/').expect(200);
  await redis.stop(true);
  logger.error.mockClear();
  await request(instance).get('/').expect(200);
  expect(logger.error).toHaveBeenCalledWith(
    expect.any(StoreUnavailableError),
    expect.stringMatching(/allowing request/),
  );
});

it('works once Redis comes up, even when it was down when the limiter was made', async () => {
  const prefix = `r${randomUUID().slice(0, 8)}:`;
  await redis.stop(true);
  const instance = app(prefix);
  await request(instance).get('/').expect(503);
  await redis.start();
  expect(await eventually(async () => (await request(instance).get('/')).status === 200)).toBe(true);
});
