// A sample legacy Express API (not a test file): nested routers, router-level auth, express.json(), params,
// query arrays, a JSON POST, a sync throw, next(err), a streamed body, a hanging route, 404 JSON, 204 and a PNG.

import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import type { BridgedRouteMeta, McpRouter } from '../../../lib';

/** The bearer token the legacy API accepts (the `x-api-key` header works too, as in many legacy APIs). */
export const API_TOKEN = 'legacy-secret';
export const API_KEY = 'legacy-key';

/** Internal detail that must never reach an MCP result (it is in the thrown / passed errors). */
export const SECRET_DETAIL = 'postgres://admin:hunter2@db.internal';

/** The 8-byte PNG signature plus an IHDR chunk start: enough bytes to be recognisably a PNG. */
export const PNG_BYTES = Buffer.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
]);

export interface User {
  id: string;
  name: string;
  tags: string[];
}

export interface Order {
  id: string;
  item: string;
  quantity: number;
}

/** The legacy route handlers, bound to one in-memory store. */
export interface LegacyHandlers {
  requireAuth: RequestHandler;
  getUser: RequestHandler;
  searchUsers: RequestHandler;
  createOrder: RequestHandler;
  crash: RequestHandler;
  fail: RequestHandler;
  exportOrders: RequestHandler;
  slow: RequestHandler;
  deleteOrder: RequestHandler;
  receipt: RequestHandler;
}

export function legacyHandlers(): { handlers: LegacyHandlers; users: Map<string, User>; orders: Map<string, Order> } {
  const users = new Map<string, User>([
    ['1', { id: '1', name: 'Ada', tags: ['admin', 'ops'] }],
    ['2', { id: '2', name: 'Lin', tags: ['ops'] }],
    ['3', { id: '3', name: 'Bo', tags: ['dev'] }],
  ]);
  const orders = new Map<string, Order>([['100', { id: '100', item: 'widget', quantity: 2 }]]);
  let nextOrder = 101;

  const handlers: LegacyHandlers = {
    requireAuth(req: Request, res: Response, next: NextFunction) {
      if (req.headers.authorization === `Bearer ${API_TOKEN}` || req.headers['x-api-key'] === API_KEY) next();
      else res.status(401).json({ error: 'unauthorized' });
    },
    getUser(req, res) {
      const user = users.get(String(req.params.id));
      if (user) res.json(user);
      else res.status(404).json({ error: `no user ${String(req.params.id)}` });
    },
    searchUsers(req, res) {
      // ?tag=a&tag=b arrives as an array, ?tag=a as a string: legacy code normalises.
      const tags = ([] as unknown[]).concat(req.query.tag ?? []).map(String);
      const limit = req.query.limit === undefined ? 10 : Number(req.query.limit);
      const found = [...users.values()].filter((user) => tags.every((tag) => user.tags.includes(tag))).slice(0, limit);
      res.json({ tags, limit, ids: found.map((user) => user.id) });
    },
    createOrder(req, res) {
      const body = req.body as { item?: unknown; quantity?: unknown } | undefined;
      if (typeof body?.item !== 'string') {
        res.status(400).json({ error: 'item is required' });
        return;
      }
      const order: Order = {
        id: String(nextOrder++),
        item: body.item,
        quantity: typeof body.quantity === 'number' ? body.quantity : 1,
      };
      orders.set(order.id, order);
      res.status(201).json(order);
    },
    crash() {
      throw new Error(`ledger unreachable at ${SECRET_DETAIL}`);
    },
    fail(_req, _res, next) {
      next(new Error(`query failed on ${SECRET_DETAIL}`));
    },
    exportOrders(_req, res) {
      res.type('text/plain');
      let sent = 0;
      const chunks = ['a', 'b', 'c'];
      const tick = (): void => {
        res.write(chunks[sent++]);
        if (sent < chunks.length) setTimeout(tick, 10);
        else res.end();
      };
      tick();
    },
    slow() {
      // Never answers: a legacy bug (a forgotten res.send on some branch).
    },
    deleteOrder(req, res) {
      orders.delete(String(req.params.id));
      res.status(204).end();
    },
    receipt(_req, res) {
      res.type('image/png').send(PNG_BYTES);
    },
  };
  return { handlers, users, orders };
}

export interface LegacyAppOptions {
  /** An MCP router to mount at /mcp, before the app's own middleware (as the README shows). */
  mcp?: McpRouter;
  /** Wrap every route's handlers with `mcp.route` (way 1). Defaults to false: the routes are plain Express. */
  wrapRoutes?: boolean;
}

export interface LegacyApp {
  app: express.Express;
  /** The /api/v1 router, behind the router-level auth: more routers can be mounted on it later. */
  v1: Router;
  handlers: LegacyHandlers;
  users: Map<string, User>;
  orders: Map<string, Order>;
}

/**
 * Builds the legacy app: /api → /v1 (router-level auth) → /users and /orders. With `wrapRoutes`, each route's
 * handlers are wrapped with `mcp.route`, which learns the full path (`/api/v1/users/:id`) from the app; a tool
 * call runs through the whole app, so the router-level auth checks it as it checks a REST request.
 */
export function createLegacyApp({ mcp, wrapRoutes = false }: LegacyAppOptions = {}): LegacyApp {
  const { handlers: h, users, orders } = legacyHandlers();
  const route = (meta: BridgedRouteMeta, ...chain: RequestHandler[]): RequestHandler[] =>
    wrapRoutes && mcp ? mcp.route(meta, ...chain) : chain;

  const usersRouter = express.Router();
  usersRouter.get(
    '/',
    ...route(
      {
        name: 'search_users',
        description: 'Search users by tags',
        input: {
          query: {
            type: 'object',
            properties: { tag: { type: 'array', items: { type: 'string' } }, limit: { type: 'integer' } },
          },
        },
      },
      h.searchUsers,
    ),
  );
  usersRouter.get('/:id', ...route({ name: 'get_user', description: 'Fetch a user by id' }, h.getUser));

  const ordersRouter = express.Router();
  ordersRouter.post(
    '/',
    ...route(
      {
        name: 'create_order',
        description: 'Create an order',
        method: 'POST',
        input: {
          body: {
            type: 'object',
            properties: { item: { type: 'string' }, quantity: { type: 'integer' } },
            required: ['item'],
          },
        },
      },
      h.createOrder,
    ),
  );
  ordersRouter.get('/crash', ...route({ name: 'crash', description: 'Throws' }, h.crash));
  ordersRouter.get('/fail', ...route({ name: 'fail', description: 'Calls next(err)' }, h.fail));
  ordersRouter.get(
    '/export',
    ...route({ name: 'export_orders', description: 'Streams the orders export' }, h.exportOrders),
  );
  ordersRouter.get('/slow', ...route({ name: 'slow', description: 'Never answers', timeoutMs: 200 }, h.slow));
  ordersRouter.get(
    '/:id/receipt',
    ...route({ name: 'receipt', description: 'The receipt image of an order' }, h.receipt),
  );
  ordersRouter.delete(
    '/:id',
    ...route({ name: 'delete_order', description: 'Delete an order', method: 'DELETE' }, h.deleteOrder),
  );

  const v1 = express.Router();
  v1.use(h.requireAuth); // router-level auth: everything under /api/v1
  v1.use('/users', usersRouter);
  v1.use('/orders', ordersRouter);
  const api = express.Router();
  api.use('/v1', v1);

  const app = express();
  if (mcp) app.use('/mcp', mcp);
  app.use(express.json());
  app.use('/api', api);
  return { app, v1, handlers: h, users, orders };
}
