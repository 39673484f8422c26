// The router's CORS headers: on every request and preflight, exactly what the `cors` package writes with the
// router's options, whatever the `origins` policy and the caller's `cors` options.

import cors, { type CorsOptions } from 'cors';
import express, { type Express, type RequestHandler } from 'express';
import request from 'supertest';
import type { McpRouterOptions } from '../../../lib';
import { resolveOptions } from '../../../lib/resolved-config';
import { corsOptions } from '../../../lib/edge/security/cors';
import { createOriginMatcher, type OriginsOption } from '../../../lib/edge/security/origin-host';
import { createApp, MCP_ACCEPT, rpc } from '../../helpers/create-app';

/** What a host app may have set before the router runs: a Vary of its own (compression middleware does). */
const hostVary: RequestHandler = (_req, res, next) => {
  res.setHeader('Vary', 'Accept-Encoding');
  next();
};

/** The `cors` package alone, with the router's options (the caller's, resolved over the defaults), in front of a handler that answers 200. */
function packageApp(origins: OriginsOption | undefined, user: CorsOptions, before: RequestHandler[]): Express {
  const resolved = resolveOptions({ name: 'test', version: '1.0.0', origins, cors: user }).cors as CorsOptions;
  const app = express();
  app.use(...before, cors(corsOptions(origins, createOriginMatcher(origins), resolved)), (_req, res) => {
    res.status(200).end();
  });
  return app;
}

function routerApp(origins: OriginsOption | undefined, user: CorsOptions, before: RequestHandler[]): Express {
  const app = createApp({ origins, cors: user } as Partial<McpRouterOptions>);
  const host = express();
  if (before.length > 0) host.use(...before);
  host.use(app);
  return host;
}

type Send = (app: Express) => request.Test;
const withOrigin = (origin: string | undefined, test: request.Test): request.Test =>
  origin === undefined ? test : test.set('Origin', origin);
const REQUESTS: ReadonlyArray<[string, (origin: string | undefined) => Send]> = [
  [
    'a POST',
    (origin) => (app) => withOrigin(origin, request(app).post('/mcp').set('Accept', MCP_ACCEPT).send(rpc('ping'))),
  ],
  ['a GET', (origin) => (app) => withOrigin(origin, request(app).get('/mcp').set('Accept', 'text/event-stream'))],
  [
    'a preflight',
    (origin) => (app) =>
      withOrigin(
        origin,
        request(app).options('/mcp').set({
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'content-type, mcp-session-id',
        }),
      ),
  ],
];

function corsHeaders(res: request.Response): Record<string, string> {
  return Object.fromEntries(
    Object.entries(res.headers as Record<string, string>).filter(
      ([name]) => name.startsWith('access-control-') || name === 'vary',
    ),
  );
}

const ALLOWED = 'https://app.example.com';
const POLICIES: ReadonlyArray<[string, OriginsOption | undefined, string]> = [
  ['the default (localhost)', undefined, 'http://localhost:5173'],
  ['a list', [ALLOWED], ALLOWED],
  ['a function', (origin: string) => origin.endsWith('.example.com'), ALLOWED],
  ["'*'", '*', 'https://anywhere.example.org'],
];
const USER_OPTIONS: ReadonlyArray<[string, CorsOptions]> = [
  ['no cors options', {}],
  ['credentials', { credentials: true }],
  ['exposed headers as a list', { exposedHeaders: ['X-Trace-Id', 'Mcp-Session-Id'] }],
  ['exposed headers as a string', { exposedHeaders: 'X-Trace-Id' }],
  ['no exposed headers', { exposedHeaders: '' }],
  ['preflight options', { maxAge: 60, methods: ['POST'], allowedHeaders: ['Content-Type'], optionsSuccessStatus: 200 }],
];

describe("the router's CORS headers are the cors package's", () => {
  const cases = POLICIES.flatMap(([policy, origins, origin]) =>
    USER_OPTIONS.filter(([, user]) => !(origins === '*' && user.credentials === true)).flatMap(([optionsName, user]) =>
      REQUESTS.flatMap(([kind, send]) =>
        [origin, undefined].flatMap((sentOrigin) =>
          [false, true].map((vary) => ({
            name: `${policy}, ${optionsName}: ${kind} ${sentOrigin ? 'with' : 'without'} Origin${vary ? ', host Vary set' : ''}`,
            origins,
            user,
            send: send(sentOrigin),
            vary,
          })),
        ),
      ),
    ),
  );

  it.each(cases)('$name', async ({ origins, user, send, vary }) => {
    const before = vary ? [hostVary] : [];
    const [ours, theirs] = await Promise.all([
      send(routerApp(origins, user, before)),
      send(packageApp(origins, user, before)),
    ]);
    expect(ours.status).toBeLessThan(500);
    expect(corsHeaders(ours)).toEqual(corsHeaders(theirs));
  });

  it("replays the package's answer to an origin seen before: same names as sent, same order, same values", async () => {
    const router = routerApp([ALLOWED], { credentials: true }, []);
    const reference = packageApp([ALLOWED], { credentials: true }, []);
    const post = (app: Express): request.Test =>
      request(app).post('/mcp').set({ Accept: MCP_ACCEPT, Origin: ALLOWED }).send(rpc('ping'));
    const sent = (res: request.Response): string[] =>
      (res as unknown as { res: { rawHeaders: string[] } }).res.rawHeaders.filter((_value, index, raw) =>
        /^(access-control-|vary$)/i.test(raw[index - (index % 2)] ?? ''),
      );
    const theirs = sent(await post(reference));
    for (let i = 0; i < 3; i++) expect(sent(await post(router))).toEqual(theirs);
    expect(theirs).toContain('Access-Control-Allow-Origin');
  });

  it('writes nothing for an Origin the policy refuses (the Origin check answers 403 first)', async () => {
    const res = await request(routerApp([ALLOWED], {}, []))
      .post('/mcp')
      .set({ Accept: MCP_ACCEPT, Origin: 'https://evil.example.com' })
      .send(rpc('ping'));
    expect(res.status).toBe(403);
    expect(corsHeaders(res)).toEqual({});
  });

  it('writes nothing with cors: false', async () => {
    const res = await request(routerApp([ALLOWED], false as never, []))
      .post('/mcp')
      .set({ Accept: MCP_ACCEPT, Origin: ALLOWED })
      .send(rpc('ping'));
    expect(res.status).toBe(200);
    expect(corsHeaders(res)).toEqual({});
  });
});
