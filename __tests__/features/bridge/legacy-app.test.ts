// A legacy Express API exposed as MCP tools in each of the three ways (mcp.route, mcp.exposeRoutes, a decorated
// controller): the REST routes answer exactly as before, and the tools answer through the official SDK client.

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import request from 'supertest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { mcpRouter, type McpRouter } from '../../../lib';
import { tool } from '../../../lib/decorators';
import { silentLogger } from '../../helpers/messages';
import {
  API_KEY,
  API_TOKEN,
  createLegacyApp,
  PNG_BYTES,
  SECRET_DETAIL,
  type LegacyHandlers,
  type Order,
} from './legacy-app';

const BEARER = { Authorization: `Bearer ${API_TOKEN}` };
const SEARCH_INPUT = {
  query: {
    type: 'object',
    properties: { tag: { type: 'array', items: { type: 'string' } }, limit: { type: 'integer' } },
  },
};
const ORDER_INPUT = {
  body: { type: 'object', properties: { item: { type: 'string' }, quantity: { type: 'integer' } }, required: ['item'] },
};
const TOOL_NAMES = [
  'search_users',
  'get_user',
  'create_order',
  'crash',
  'fail',
  'export_orders',
  'slow',
  'receipt',
  'delete_order',
];

/** Way 3: a controller whose methods are Express handlers, mounted on the app and registered with mcp.register. */
class LegacyController {
  constructor(private readonly h: LegacyHandlers) {}

  @tool({
    name: 'search_users',
    description: 'Search users by tags',
    method: 'GET',
    path: '/users',
    input: SEARCH_INPUT,
  })
  searchUsers(req: Request, res: Response, next: NextFunction) {
    this.h.searchUsers(req, res, next);
  }

  @tool({ name: 'get_user', description: 'Fetch a user by id', method: 'GET', path: '/users/:id' })
  getUser(req: Request, res: Response, next: NextFunction) {
    this.h.getUser(req, res, next);
  }

  @tool({ name: 'create_order', description: 'Create an order', method: 'POST', path: '/orders', input: ORDER_INPUT })
  createOrder(req: Request, res: Response, next: NextFunction) {
    this.h.createOrder(req, res, next);
  }

  @tool({ name: 'crash', description: 'Throws', method: 'GET', path: '/orders/crash' })
  crash(req: Request, res: Response, next: NextFunction) {
    this.h.crash(req, res, next);
  }

  @tool({ name: 'fail', description: 'Calls next(err)', method: 'GET', path: '/orders/fail' })
  fail(req: Request, res: Response, next: NextFunction) {
    this.h.fail(req, res, next);
  }

  @tool({ name: 'export_orders', description: 'Streams the orders export', method: 'GET', path: '/orders/export' })
  exportOrders(req: Request, res: Response, next: NextFunction) {
    this.h.exportOrders(req, res, next);
  }

  @tool({ name: 'slow', description: 'Never answers', method: 'GET', path: '/orders/slow', timeoutMs: 200 })
  slow(req: Request, res: Response, next: NextFunction) {
    this.h.slow(req, res, next);
  }

  @tool({ name: 'receipt', description: 'The receipt image of an order', method: 'GET', path: '/orders/:id/receipt' })
  receipt(req: Request, res: Response, next: NextFunction) {
    this.h.receipt(req, res, next);
  }

  @tool({ name: 'delete_order', description: 'Delete an order', method: 'DELETE', path: '/orders/:id' })
  deleteOrder(req: Request, res: Response, next: NextFunction) {
    this.h.deleteOrder(req, res, next);
  }
}

interface Setup {
  app: express.Express;
  mcp: McpRouter;
  orders: Map<string, Order>;
}

interface Way {
  title: string;
  /** Where the users and orders routes answer over REST. */
  users: string;
  orders: string;
  /** Whether the tools run the app's auth middleware (a decorated handler runs only itself). */
  toolsRunAppAuth: boolean;
  build(logger: ReturnType<typeof silentLogger>): Setup;
}

function newRouter(logger: ReturnType<typeof silentLogger>): McpRouter {
  return mcpRouter({ name: 'legacy', version: '1.0.0', logger, rateLimit: false });
}

const WAYS: Way[] = [
  {
    title: 'mcp.route wrapped at the routes inside the legacy routers',
    users: '/api/v1/users',
    orders: '/api/v1/orders',
    toolsRunAppAuth: true,
    build(logger) {
      const mcp = newRouter(logger);
      const { app, orders } = createLegacyApp({ mcp, wrapRoutes: true });
      return { app, mcp, orders };
    },
  },
  {
    title: 'mcp.exposeRoutes(app) on the same app',
    users: '/api/v1/users',
    orders: '/api/v1/orders',
    toolsRunAppAuth: true,
    build(logger) {
      const mcp = newRouter(logger);
      const { app, orders } = createLegacyApp({ mcp });
      mcp.exposeRoutes(app, [
        {
          method: 'GET',
          path: '/api/v1/users',
          name: 'search_users',
          description: 'Search users by tags',
          input: SEARCH_INPUT,
        },
        { method: 'GET', path: '/api/v1/users/:id', name: 'get_user', description: 'Fetch a user by id' },
        {
          method: 'POST',
          path: '/api/v1/orders',
          name: 'create_order',
          description: 'Create an order',
          input: ORDER_INPUT,
        },
        { method: 'GET', path: '/api/v1/orders/crash', name: 'crash', description: 'Throws' },
        { method: 'GET', path: '/api/v1/orders/fail', name: 'fail', description: 'Calls next(err)' },
        {
          method: 'GET',
          path: '/api/v1/orders/export',
          name: 'export_orders',
          description: 'Streams the orders export',
        },
        { method: 'GET', path: '/api/v1/orders/slow', name: 'slow', description: 'Never answers', timeoutMs: 200 },
        {
          method: 'GET',
          path: '/api/v1/orders/:id/receipt',
          name: 'receipt',
          description: 'The receipt image of an order',
        },
        { method: 'DELETE', path: '/api/v1/orders/:id', name: 'delete_order', description: 'Delete an order' },
      ]);
      return { app, mcp, orders };
    },
  },
  {
    title: 'a decorated controller mounted on the app and registered with mcp.register',
    users: '/api/v1/ctl/users',
    orders: '/api/v1/ctl/orders',
    toolsRunAppAuth: false,
    build(logger) {
      const mcp = newRouter(logger);
      const { app, v1, handlers, orders } = createLegacyApp({ mcp });
      const ctl = new LegacyController(handlers);
      expect(mcp.register(ctl)).toHaveLength(TOOL_NAMES.length);
      const users = express.Router();
      users.get('/', ctl.searchUsers.bind(ctl));
      users.get('/:id', ctl.getUser.bind(ctl));
      const ordersRouter = express.Router();
      ordersRouter.post('/', ctl.createOrder.bind(ctl));
      ordersRouter.get('/crash', ctl.crash.bind(ctl));
      ordersRouter.get('/fail', ctl.fail.bind(ctl));
      ordersRouter.get('/export', ctl.exportOrders.bind(ctl));
      ordersRouter.get('/slow', ctl.slow.bind(ctl));
      ordersRouter.get('/:id/receipt', ctl.receipt.bind(ctl));
      ordersRouter.delete('/:id', ctl.deleteOrder.bind(ctl));
      // Behind the legacy /api/v1 router-level auth, like the rest of the API.
      v1.use('/ctl/users', users);
      v1.use('/ctl/orders', ordersRouter);
      return { app, mcp, orders };
    },
  },
];

describe.each(WAYS)('legacy app, $title', (way) => {
  let logger: ReturnType<typeof silentLogger>;
  let setup: Setup;
  let server: Server | undefined;
  let clients: Client[];

  beforeEach(() => {
    logger = silentLogger();
    setup = way.build(logger);
    server = undefined;
    clients = [];
  });

  afterEach(async () => {
    for (const client of clients) await client.close();
    await setup?.mcp.close();
    if (server) {
      const open = server;
      open.closeAllConnections();
      await new Promise<void>((resolve) => open.close(() => resolve()));
    }
  });

  /** An SDK client on the app's /mcp, sending `headers` on every request (the router forwards Authorization). */
  async function connect(headers: Record<string, string> = BEARER): Promise<Client> {
    if (!server) {
      server = await new Promise<Server>((resolve) => {
        const listening = setup.app.listen(0, '127.0.0.1', () => resolve(listening));
      });
    }
    const { port } = server.address() as AddressInfo;
    const client = new Client({ name: 'legacy-test', version: '1.0.0' });
    clients.push(client);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), { requestInit: { headers } }),
    );
    return client;
  }

  describe('REST routes answer exactly as before', () => {
    it('serves params, query arrays, 404 JSON and the router-level auth', async () => {
      const { app } = setup;
      await request(app)
        .get(`${way.users}/1`)
        .set(BEARER)
        .expect(200, { id: '1', name: 'Ada', tags: ['admin', 'ops'] });
      await request(app)
        .get(`${way.users}/1`)
        .set('x-api-key', API_KEY)
        .expect(200, { id: '1', name: 'Ada', tags: ['admin', 'ops'] });
      await request(app).get(`${way.users}/1`).expect(401, { error: 'unauthorized' });
      await request(app).get(`${way.users}/9`).set(BEARER).expect(404, { error: 'no user 9' });
      await request(app)
        .get(`${way.users}?tag=ops&tag=admin`)
        .set(BEARER)
        .expect(200, { tags: ['ops', 'admin'], limit: 10, ids: ['1'] });
      await request(app)
        .get(`${way.users}?tag=ops&limit=1`)
        .set(BEARER)
        .expect(200, { tags: ['ops'], limit: 1, ids: ['1'] });
    });

    it('serves the POST body, 204, the PNG and the streamed text', async () => {
      const { app, orders } = setup;
      await request(app)
        .post(way.orders)
        .set(BEARER)
        .send({ item: 'gear', quantity: 3 })
        .expect(201, { id: '101', item: 'gear', quantity: 3 });
      await request(app).post(way.orders).set(BEARER).send({ quantity: 3 }).expect(400, { error: 'item is required' });
      const png = await request(app)
        .get(`${way.orders}/100/receipt`)
        .set(BEARER)
        .buffer(true)
        .parse((res, done) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => done(null, Buffer.concat(chunks)));
        });
      expect(png.status).toBe(200);
      expect(png.headers['content-type']).toBe('image/png');
      expect(Buffer.compare(png.body as Buffer, PNG_BYTES)).toBe(0);
      const streamed = await request(app).get(`${way.orders}/export`).set(BEARER);
      expect(streamed.status).toBe(200);
      expect(streamed.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(streamed.text).toBe('abc');
      const deleted = await request(app).delete(`${way.orders}/100`).set(BEARER);
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe('');
      expect(orders.has('100')).toBe(false);
    });

    it('answers a throw and next(err) with Express’s own 500, and leaves the hanging route hanging', async () => {
      const { app } = setup;
      const crashed = await request(app).get(`${way.orders}/crash`).set(BEARER);
      expect(crashed.status).toBe(500);
      expect(crashed.text).toContain('ledger unreachable');
      const failed = await request(app).get(`${way.orders}/fail`).set(BEARER);
      expect(failed.status).toBe(500);
      expect(failed.text).toContain('query failed');
      await expect(request(app).get(`${way.orders}/slow`).set(BEARER).timeout(150)).rejects.toMatchObject({
        timeout: 150,
      });
      // Logged by the app's final handler, never by the MCP router: these were not tool calls.
      expect(logger.error).not.toHaveBeenCalled();
    });
  });

  describe('tools answer through the SDK client', () => {
    it('lists every route as a tool', async () => {
      const client = await connect();
      const { tools } = await client.listTools();
      expect(tools.map((listed) => listed.name).sort()).toEqual([...TOOL_NAMES].sort());
      expect(tools.find((listed) => listed.name === 'get_user')).toMatchObject({
        inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        annotations: { readOnlyHint: true },
      });
      expect(tools.find((listed) => listed.name === 'delete_order')?.annotations).toEqual({
        destructiveHint: true,
        idempotentHint: true,
      });
    });

    it('maps a 2xx JSON answer to structuredContent plus its text, and a 404 to isError with the body', async () => {
      const client = await connect();
      const ada = { id: '1', name: 'Ada', tags: ['admin', 'ops'] };
      expect(await client.callTool({ name: 'get_user', arguments: { id: '1' } })).toEqual({
        content: [{ type: 'text', text: JSON.stringify(ada) }],
        structuredContent: ada,
      });
      expect(await client.callTool({ name: 'get_user', arguments: { id: '9' } })).toEqual({
        content: [{ type: 'text', text: 'HTTP 404 Not Found: {"error":"no user 9"}' }],
        isError: true,
      });
    });

    // A decorated handler's tool runs that handler alone, so only the other two ways reach the app's auth.
    if (way.toolsRunAppAuth)
      it('runs the app’s auth on the caller’s forwarded Authorization header', async () => {
        const anonymous = await connect({});
        expect(await anonymous.callTool({ name: 'get_user', arguments: { id: '1' } })).toEqual({
          content: [{ type: 'text', text: 'HTTP 401 Unauthorized: {"error":"unauthorized"}' }],
          isError: true,
        });
        const wrongToken = await connect({ Authorization: 'Bearer wrong' });
        expect((await wrongToken.callTool({ name: 'get_user', arguments: { id: '1' } })).isError).toBe(true);
      });

    it('sends the POST body and query arrays where the route expects them', async () => {
      const client = await connect();
      expect(await client.callTool({ name: 'create_order', arguments: { item: 'gear', quantity: 3 } })).toEqual({
        content: [{ type: 'text', text: '{"id":"101","item":"gear","quantity":3}' }],
        structuredContent: { id: '101', item: 'gear', quantity: 3 },
      });
      expect(setup.orders.get('101')).toEqual({ id: '101', item: 'gear', quantity: 3 });
      expect(
        (await client.callTool({ name: 'search_users', arguments: { tag: ['ops', 'admin'], limit: 5 } }))
          .structuredContent,
      ).toEqual({ tags: ['ops', 'admin'], limit: 5, ids: ['1'] });
      expect((await client.callTool({ name: 'search_users', arguments: { tag: ['ops'] } })).structuredContent).toEqual({
        tags: ['ops'],
        limit: 10,
        ids: ['1', '2'],
      });
    });

    it.each([
      ['crash', 'ledger unreachable', '/crash'],
      ['fail', 'query failed', '/fail'],
    ])('maps %s (a server error) to isError without internals, and logs the error', async (name, internal, path) => {
      const client = await connect();
      const result = await client.callTool({ name, arguments: {} });
      expect(result).toEqual({
        content: [{ type: 'text', text: 'HTTP 500: the operation failed on the server' }],
        isError: true,
      });
      expect(JSON.stringify(result)).not.toContain(internal);
      expect(JSON.stringify(result)).not.toContain('hunter2');
      expect(logger.error).toHaveBeenCalledTimes(1);
      const [err, message] = logger.error.mock.calls[0] as [Error, string];
      expect(err).toBeInstanceOf(Error);
      expect(err.message).toBe(`${internal} ${name === 'crash' ? 'at' : 'on'} ${SECRET_DETAIL}`);
      expect(message).toContain(`GET `);
      expect(message).toContain(path);
    });

    it('collects a streamed answer into its text', async () => {
      const client = await connect();
      expect(await client.callTool({ name: 'export_orders', arguments: {} })).toEqual({
        content: [{ type: 'text', text: 'abc' }],
      });
    });

    it('reports one progress notification per written chunk, before the result, when the caller asks', async () => {
      const client = await connect();
      const events: string[] = [];
      const progress: Progress[] = [];
      const result = await client.callTool({ name: 'export_orders', arguments: {} }, CallToolResultSchema, {
        onprogress: (update) => {
          progress.push(update);
          events.push('progress');
        },
      });
      events.push('result');
      expect(result).toEqual({ content: [{ type: 'text', text: 'abc' }] });
      expect(events).toEqual(['progress', 'progress', 'progress', 'result']);
      expect(progress.map((update) => update.progress)).toEqual([1, 2, 3]);
      expect(progress.map((update) => update.message)).toEqual([
        '1 bytes received',
        '2 bytes received',
        '3 bytes received',
      ]);
    });

    it('gives up on a route that never answers at its timeoutMs', async () => {
      const client = await connect();
      const started = Date.now();
      const result = await client.callTool({ name: 'slow', arguments: {} });
      const elapsed = Date.now() - started;
      expect(result).toEqual({
        content: [{ type: 'text', text: "Tool 'slow' timed out after 200 ms" }],
        isError: true,
      });
      expect(elapsed).toBeGreaterThanOrEqual(190);
      expect(elapsed).toBeLessThan(5_000);
    });

    it('maps a 204 to a short note and an image to an image content block', async () => {
      const client = await connect();
      expect(await client.callTool({ name: 'receipt', arguments: { id: '100' } })).toEqual({
        content: [{ type: 'image', data: PNG_BYTES.toString('base64'), mimeType: 'image/png' }],
      });
      expect(await client.callTool({ name: 'delete_order', arguments: { id: '100' } })).toEqual({
        content: [{ type: 'text', text: 'Done (HTTP 204, no content)' }],
      });
      expect(setup.orders.has('100')).toBe(false);
    });
  });
});
