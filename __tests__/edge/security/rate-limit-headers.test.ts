// The router's rate-limit headers: byte for byte what express-rate-limit alone writes with draft-8, after the host's
// own, and the package's other forms whenever the caller chooses header options.

import express, { type Express } from 'express';
import { ipKeyGenerator, rateLimit, type Options as RateLimitOptions } from 'express-rate-limit';
import type { IncomingMessage } from 'node:http';
import request from 'supertest';
import { createApp, MCP_ACCEPT, rpc, silentLogger } from '../../helpers/create-app';

const PING = rpc('ping');

async function ping(app: Express, headers: Record<string, string> = {}): Promise<request.Response> {
  return request(app).post('/mcp').set('Accept', MCP_ACCEPT).set(headers).send(PING);
}

/** express-rate-limit alone, with the router's key (the client IP, as the router keys an unauthenticated caller). */
function packageApp(options: Partial<RateLimitOptions>): Express {
  const app = express();
  app.use(
    rateLimit({
      standardHeaders: 'draft-8',
      legacyHeaders: false,
      keyGenerator: (req) => `ip:${ipKeyGenerator(req.ip ?? '')}`,
      ...options,
    }),
  );
  app.post('/mcp', (_req, res) => {
    res.json({});
  });
  return app;
}

describe("the router's RateLimit and RateLimit-Policy headers", () => {
  it.each([
    ['the default window and limit', {}],
    ['30 s and 5', { windowMs: 30_000, limit: 5 }],
    ['1.5 s', { windowMs: 1_500, limit: 3 }],
    ['2 hours', { windowMs: 2 * 3_600_000, limit: 50 }],
    ['1 hour', { windowMs: 3_600_000, limit: 50 }],
    ['2 days', { windowMs: 2 * 86_400_000, limit: 7 }],
  ] as const)('are what express-rate-limit writes with draft-8, for %s', async (_name, options) => {
    const ours = createApp({ rateLimit: options });
    const theirs = packageApp({ windowMs: 60_000, limit: 1_000, ...options });
    for (let i = 0; i < 2; i++) {
      const [mine, reference] = [await ping(ours), await ping(theirs)];
      expect(mine.status).toBe(200);
      expect(mine.headers.ratelimit).toBe(reference.headers.ratelimit);
      expect(mine.headers['ratelimit-policy']).toBe(reference.headers['ratelimit-policy']);
      expect(mine.headers['retry-after']).toBeUndefined();
    }
  });

  it("are the package's on a refusal too, Retry-After included", async () => {
    const ours = createApp({ logger: silentLogger(), rateLimit: { limit: 1, windowMs: 30_000 } });
    const theirs = packageApp({ windowMs: 30_000, limit: 1 });
    await ping(ours);
    await ping(theirs);
    const [mine, reference] = [await ping(ours), await ping(theirs)];
    expect([mine.status, reference.status]).toEqual([429, 429]);
    for (const name of ['ratelimit', 'ratelimit-policy', 'retry-after'])
      expect(mine.headers[name]).toBe(reference.headers[name]);
  });

  it('follow a limit that is a function of the request', async () => {
    const app = createApp({
      rateLimit: { limit: (req: IncomingMessage) => (req.headers['x-tier'] === 'gold' ? 10 : 2) },
    });
    expect((await ping(app, { 'x-tier': 'gold' })).headers.ratelimit).toBe('"10-in-1min"; r=9; t=60');
    const basic = await ping(app);
    expect(basic.headers.ratelimit).toBe('"2-in-1min"; r=0; t=60');
    expect(basic.headers['ratelimit-policy']).toMatch(/^"2-in-1min"; q=2; w=60; pk=:[A-Za-z0-9+/=]+:$/);
    const refused = await ping(app);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.headers.ratelimit).toBe('"2-in-1min"; r=0; t=60');
  });

  it('are not on CORS preflights, which the limit does not count', async () => {
    const app = createApp({ rateLimit: { limit: 1 } });
    for (let i = 0; i < 2; i++) {
      const preflight = await request(app)
        .options('/mcp')
        .set({ Origin: 'http://localhost:5173', 'Access-Control-Request-Method': 'POST' });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.ratelimit).toBeUndefined();
      expect(preflight.headers['ratelimit-policy']).toBeUndefined();
    }
    expect((await ping(app)).headers.ratelimit).toBe('"1-in-1min"; r=0; t=60');
  });

  it('come after a RateLimit field the host app set before the router, as res.append would put them', async () => {
    const app = express();
    app.use((_req, res, next) => {
      res.setHeader('RateLimit', '"host"; r=5; t=1');
      next();
    });
    app.use('/mcp', createApp({ rateLimit: { limit: 3 } }));
    const res = await request(app).post('/mcp/mcp').set('Accept', MCP_ACCEPT).send(PING);
    expect(res.status).toBe(200);
    expect(res.headers.ratelimit).toBe('"host"; r=5; t=1, "3-in-1min"; r=2; t=60');
  });

  it.each([
    [
      "standardHeaders: 'draft-7'",
      { standardHeaders: 'draft-7' },
      { ratelimit: 'limit=2, remaining=1, reset=60', 'ratelimit-policy': '2;w=60' },
    ],
    ['legacyHeaders: true', { legacyHeaders: true }, { 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '1' }],
    ['an identifier', { identifier: 'mcp' }, { ratelimit: '"mcp"; r=1; t=60' }],
  ] as const)("are the package's when the caller sets %s", async (_name, options, expected) => {
    const res = await ping(createApp({ rateLimit: { limit: 2, ...options } }));
    expect(res.status).toBe(200);
    expect(res.headers).toMatchObject(expected);
  });

  it("are the package's, Retry-After included, for a caller's own 429 handler", async () => {
    const app = createApp({
      logger: silentLogger(),
      rateLimit: {
        limit: 1,
        handler: (_req, res) => {
          res.status(429).json({ error: 'slow down' });
        },
      },
    });
    expect((await ping(app)).headers.ratelimit).toBe('"1-in-1min"; r=0; t=60');
    const refused = await ping(app);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'slow down' });
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.headers.ratelimit).toBe('"1-in-1min"; r=0; t=60');
  });
});
