// Pins the Express 4 and 5 internals lib/edge/express-host.ts relies on: an Express upgrade that changes them fails here, not in a user's app.

import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import request from 'supertest';
import {
  appOf,
  expressRouteOf,
  isExpressApp,
  locateHandler,
  runOwnLayersDirectly,
  trustsPeerAsProxy,
} from '../../lib/edge/express-host';

declare const EXPRESS_MAJOR: number;

const target: RequestHandler = function target(_req, res) {
  res.end();
};
const other: RequestHandler = (_req, _res, next) => next();

/** The router stack as Express keeps it, read the way express-host.ts reads it. */
function rootStack(app: express.Express): Array<Record<string, unknown>> {
  const host = app as unknown as {
    lazyrouter?: unknown;
    _router?: { stack: Array<Record<string, unknown>> };
    router?: { stack: Array<Record<string, unknown>> };
  };
  return (EXPRESS_MAJOR === 4 ? host._router?.stack : host.router?.stack) ?? [];
}

describe('the Express internals express-host.ts relies on', () => {
  it('finds the router of an app where this major keeps it', () => {
    const app = express();
    app.get('/x', target);
    const host = app as unknown as Record<string, unknown>;
    expect(typeof host.lazyrouter === 'function').toBe(EXPRESS_MAJOR === 4);
    expect(Array.isArray(rootStack(app))).toBe(true);
  });

  it('keeps a route as a layer with route.path as declared and route.stack entries with handle and method', () => {
    const app = express();
    app.get('/users/:id', other, target);
    const layer = rootStack(app).find((entry) => entry.route !== undefined) as {
      route: { path: unknown; stack: Array<{ handle: unknown; method: unknown }> };
    };
    expect(layer.route.path).toBe('/users/:id');
    expect(layer.route.stack.map((entry) => [entry.handle, entry.method])).toEqual([
      [other, 'get'],
      [target, 'get'],
    ]);
  });

  it('keeps a mounted router as a layer whose handle has a stack, and its mount path in the form this major writes', () => {
    const app = express();
    const shops = express.Router();
    shops.get('/items', target);
    app.use('/shops/:shop', shops);
    const layer = rootStack(app).find((entry) => entry.handle === shops) as Record<string, unknown>;
    expect(Array.isArray((layer.handle as { stack?: unknown }).stack)).toBe(true);
    if (EXPRESS_MAJOR === 4) {
      expect((layer.regexp as RegExp).source).toBe('^\\/shops(?:\\/([^/]+?))\\/?(?=\\/|$)');
      expect(layer.keys).toEqual([{ name: 'shop', optional: false, offset: 6 }]);
    } else {
      expect(layer.rawPath).toBe('/shops/:shop');
    }
  });

  it('gives every request the app serving it as req.app', async () => {
    const app = express();
    let seen: unknown;
    app.get('/', (req, res) => {
      seen = appOf(req);
      res.end();
    });
    await new Promise<void>((resolve) => {
      const server = app.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        void fetch(`http://127.0.0.1:${port}/`).then(() => server.close(() => resolve()));
      });
    });
    expect(seen).toBe(app);
    expect(isExpressApp(app)).toBe(true);
    expect(isExpressApp(express.Router())).toBe(false);
  });

  it("compiles `trust proxy` into the setting 'trust proxy fn', asked with the peer's address and hop 0, as req.hostname asks it", async () => {
    const seen: Array<[boolean, string]> = [];
    const app = express();
    app.get('/', (req, res) => {
      seen.push([trustsPeerAsProxy(req), req.hostname]);
      res.end();
    });
    const forwarded = { 'X-Forwarded-Host': 'public.example.com' };
    await request(app).get('/').set(forwarded);
    app.set('trust proxy', 'loopback');
    await request(app).get('/').set(forwarded);
    app.set('trust proxy', '10.0.0.1');
    await request(app).get('/').set(forwarded);
    expect(seen).toEqual([
      [false, '127.0.0.1'],
      [true, 'public.example.com'],
      [false, '127.0.0.1'],
    ]);
    expect(trustsPeerAsProxy({ socket: { remoteAddress: '127.0.0.1' } })).toBe(false);
  });
});

describe('locateHandler', () => {
  const paths: Array<[string, string, (app: express.Express) => void]> = [
    ['an app route', '/users/:id', (app) => app.get('/users/:id', target)],
    ['a router at the root', '/x', (app) => app.use(express.Router().get('/x', target))],
    ['a router at /', '/x', (app) => app.use('/', express.Router().get('/x', target))],
    ['a router with a trailing slash', '/api/x', (app) => app.use('/api/', express.Router().get('/x', target))],
    ['a route at / of a router', '/api', (app) => app.use('/api', express.Router().get('/', target))],
    ['dots and dashes', '/v1.0/my-api/x', (app) => app.use('/v1.0/my-api', express.Router().get('/x', target))],
    [
      'params at two levels',
      '/a/:b/c/:d/e/:f',
      (app) => app.use('/a/:b', express.Router().use('/c/:d', express.Router().get('/e/:f', target))),
    ],
    ['a strict router', '/s/t/', (app) => app.use('/s', express.Router({ strict: true }).get('/t/', target))],
    [
      'a case-sensitive router',
      '/Api/Items',
      (app) => app.use('/Api', express.Router({ caseSensitive: true }).get('/Items', target)),
    ],
    ['middleware mounted with use', '/hooks/:kind', (app) => app.use('/hooks/:kind', target)],
  ];
  it.each(paths)('reads %s', (_label, expected, declare) => {
    const app = express();
    declare(app);
    expect(locateHandler(app, target).map((place) => (place.ok ? place.path : place.reason))).toEqual([expected]);
  });

  if (EXPRESS_MAJOR === 4) {
    it('reads an optional param of an Express 4 mount path', () => {
      const app = express();
      app.use('/files/:dir?', express.Router().get('/x', target));
      expect(locateHandler(app, target)).toEqual([{ ok: true, path: '/files/:dir?/x', method: 'get' }]);
    });
  }

  const unreadable: Array<[string, (app: express.Express) => void]> = [
    ['a RegExp route', (app) => app.get(/^\/x$/, target)],
    ['an array route', (app) => app.get(['/a', '/b'], target)],
    ['a router at a RegExp', (app) => app.use(/^\/r/, express.Router().get('/x', target))],
    ['a router at an array', (app) => app.use(['/a', '/b'], express.Router().get('/x', target))],
  ];
  if (EXPRESS_MAJOR === 4)
    unreadable.push([
      'a router at a custom param pattern',
      (app) => app.use('/v/:n(\\d+)', express.Router().get('/x', target)),
    ]);
  it.each(unreadable)('says why it cannot read %s', (_label, declare) => {
    const app = express();
    declare(app);
    const [place, ...rest] = locateHandler(app, target);
    expect(rest).toEqual([]);
    expect(place).toMatchObject({ ok: false, reason: expect.stringMatching(/RegExp|array|cannot read/) });
  });

  it('finds every place a handler is, and nothing in mounted apps or where it is not', () => {
    const app = express();
    const api = express.Router().get('/x', target);
    app.use('/v1', api);
    app.use('/v2', api);
    const sub = express();
    sub.get('/y', target);
    app.use('/sub', sub);
    expect(locateHandler(app, target).map((place) => place.ok && place.path)).toEqual(['/v1/x', '/v2/x']);
    expect(locateHandler(app, () => undefined)).toEqual([]);
    expect(locateHandler(express(), target)).toEqual([]);
    expect(locateHandler(undefined, target)).toEqual([]);
  });

  it('walks a router mounted inside itself once, instead of forever', () => {
    const app = express();
    const loop = express.Router();
    loop.use('/again', loop);
    loop.get('/x', target);
    app.use('/loop', loop);
    expect(locateHandler(app, target).map((place) => place.ok && place.path)).toEqual(['/loop/x']);
  });

  it('changes nothing it reads', () => {
    const app = express();
    app.use('/a/:b', express.Router().get('/c/:d', target));
    const snapshot = (): string =>
      JSON.stringify(rootStack(app), (key, value: unknown) =>
        key === 'handle' || typeof value === 'function'
          ? typeof value
          : value instanceof RegExp
            ? String(value)
            : value,
      );
    const before = snapshot();
    locateHandler(app, target);
    expect(snapshot()).toBe(before);
  });
});

describe('the Express internals the router replaces: handle and route', () => {
  const ok =
    (text: string): RequestHandler =>
    (_req, res) =>
      void res.type('text').send(text);

  it('calls a mounted router through the handle it holds at that moment, with a callback', async () => {
    const app = express();
    const router = express.Router();
    const seen: unknown[] = [];
    (router as unknown as { handle: RequestHandler }).handle = (req, res, out) => {
      seen.push(typeof out);
      res.end('own handle');
    };
    app.use('/m', router);
    expect((await request(app).get('/m/x')).text).toBe('own handle');
    expect(seen).toEqual(['function']);
  });

  it('adds one layer to router.stack per use() and per route', () => {
    const router = express.Router();
    const stack = (router as unknown as { stack: unknown[] }).stack;
    router.use(other);
    router.get('/x', target);
    router.post('/x', target);
    expect(stack).toHaveLength(3);
  });

  it('makes Router#get call this.route(path), which expressRouteOf keeps answering when route is replaced', async () => {
    const router = express.Router();
    const own = expressRouteOf(router);
    const paths: string[] = [];
    (router as unknown as { route(path: string): unknown }).route = (path: string) => {
      paths.push(path);
      return own(path);
    };
    router.get('/x', ok('x'));
    router.route('/y').post(ok('y'));
    expect(paths).toEqual(['/x', '/y']);
    const app = express();
    app.use('/m', router);
    expect((await request(app).get('/m/x')).text).toBe('x');
    expect((await request(app).post('/m/y')).text).toBe('y');
  });

  describe('runOwnLayersDirectly', () => {
    /** A router with its two layers, whose Express handle counts its calls. */
    function mounted(
      serve: RequestHandler,
      onError: ErrorRequestHandler = (err, _req, res, _next) => void res.status(500).send(`onError: ${String(err)}`),
    ) {
      const router = express.Router();
      router.use(serve);
      router.use(onError);
      const holder = router as unknown as { handle: RequestHandler };
      const expressHandle = holder.handle;
      const counted = { calls: 0 };
      holder.handle = function handle(this: unknown, ...args: Parameters<RequestHandler>) {
        counted.calls++;
        return expressHandle.apply(this, args);
      };
      runOwnLayersDirectly(router, serve, onError);
      const app = express();
      app.use('/m', router);
      app.use((_req, res) => void res.status(404).send('app 404'));
      return { app, router, counted };
    }

    it('runs serve without Express’s handle while the stack holds only its own layers', async () => {
      const { app, counted } = mounted((req, res) => void res.send(`${req.baseUrl} ${req.path}`));
      expect((await request(app).get('/m/a')).text).toBe('/m /a');
      expect(counted.calls).toBe(0);
    });

    it.each([
      ['next()', undefined, 'app 404'],
      ["next('route')", 'route', 'app 404'],
      ["next('router')", 'router', 'app 404'],
      ['next(err)', new Error('boom'), 'onError: Error: boom'],
    ])('hands %s on as Express would', async (_label, value, answer) => {
      const { app } = mounted((_req, _res, next) => next(value));
      expect((await request(app).get('/m/a')).text).toBe(answer);
    });

    it('gives an error that onError throws to the app', async () => {
      const { app } = mounted(
        (_req, _res, next) => next(new Error('first')),
        () => {
          throw new Error('second');
        },
      );
      app.use(
        ((err, _req, res, _next) => void res.status(500).send(`app: ${(err as Error).message}`)) as ErrorRequestHandler,
      );
      expect((await request(app).get('/m/a')).text).toBe('app: second');
    });

    it('hands requests to Express’s own handle once the host adds to the router', async () => {
      const { app, router, counted } = mounted((req, res, next) =>
        req.path === '/a' ? void res.send('serve') : next(),
      );
      router.get('/later', ok('later'));
      expect((await request(app).get('/m/later')).text).toBe('later');
      expect((await request(app).get('/m/a')).text).toBe('serve');
      expect(counted.calls).toBe(2);
    });
  });
});
