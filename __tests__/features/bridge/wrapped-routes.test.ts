// mcp.route() learns its route's full path from the host app: routers nested at any depth, params at each level, both majors.

import express, { type Request, type RequestHandler, type Response } from 'express';
import request from 'supertest';
import { mcpRouter, type McpRouter } from '../../../lib';
import { post, rpc, silentLogger } from '../../helpers/create-app';

declare const EXPRESS_MAJOR: number;

const LATEST = { 'MCP-Protocol-Version': '2025-11-25' };

interface Tool {
  name: string;
  inputSchema: { properties?: Record<string, unknown>; required?: string[] };
}

/** What a handler saw: its params, the URL Express gave it, and what the app's middleware put on the request. */
const echo: RequestHandler = function echoRequest(req: Request, res: Response) {
  res.json({
    params: req.params,
    originalUrl: req.originalUrl,
    seenBy: (req as Request & { seenBy?: string[] }).seenBy ?? [],
    method: req.method,
  });
};

function mark(name: string): RequestHandler {
  return (req, _res, next) => {
    const seen = ((req as Request & { seenBy?: string[] }).seenBy ??= []);
    seen.push(name);
    next();
  };
}

function setup(logger = silentLogger()): {
  app: express.Express;
  mcp: McpRouter;
  logger: ReturnType<typeof silentLogger>;
} {
  const mcp = mcpRouter({ name: 'wrapped', version: '1.0.0', sessions: false, rateLimit: false, logger });
  const app = express();
  app.use('/mcp', mcp);
  app.use(mark('app'));
  return { app, mcp, logger };
}

async function listTools(app: express.Express): Promise<Tool[]> {
  const res = await post(app, rpc('tools/list'), LATEST);
  expect(res.body).toHaveProperty('result');
  return (res.body as { result: { tools: Tool[] } }).result.tools;
}

async function call(
  app: express.Express,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ structuredContent?: Record<string, unknown>; isError?: boolean; content: Array<{ text: string }> }> {
  const res = await post(app, rpc('tools/call', { name, arguments: args }), LATEST);
  expect(res.status).toBe(200);
  return (
    res.body as {
      result: { structuredContent?: Record<string, unknown>; isError?: boolean; content: Array<{ text: string }> };
    }
  ).result;
}

describe('mcp.route() learns where its route is mounted', () => {
  it("gives a route inside an express.Router() its mount path, its params and a name from its full path (the issue's case)", async () => {
    const { app, mcp } = setup();
    const api = express.Router();
    api.get('/items/:id', mcp.route({ name: 'get_item', description: 'Fetch an item' }, echo));
    api.get('/items', mcp.route({ description: 'List items' }, echo));
    api.get('/', mcp.route({ description: 'The API root' }, echo));
    app.use('/api', api);

    const tools = await listTools(app);
    expect(tools.map((tool) => tool.name).sort()).toEqual(['get_api', 'get_api_items', 'get_item']);
    expect(tools.find((tool) => tool.name === 'get_item')?.inputSchema).toMatchObject({
      properties: { id: { type: 'string' } },
      required: ['id'],
    });
    expect((await call(app, 'get_item', { id: '7' })).structuredContent).toEqual({
      params: { id: '7' },
      originalUrl: '/api/items/7',
      seenBy: ['app'],
      method: 'GET',
    });
    expect((await call(app, 'get_api')).structuredContent).toMatchObject({ originalUrl: '/api' });
  });

  it('reads routers nested two deep, with params at every level (mergeParams), and runs app and router middleware', async () => {
    const { app, mcp } = setup();
    const shops = express.Router({ mergeParams: true });
    const aisles = express.Router({ mergeParams: true });
    aisles.use(mark('aisles'));
    aisles.get('/items/:id', mcp.route({ description: 'An item of an aisle' }, echo));
    aisles.delete('/items/:id', mcp.route({ description: 'Remove an item' }, echo));
    shops.use(mark('shops'));
    shops.use('/aisles/:aisle', aisles);
    app.use('/shops/:shop', shops);

    const tools = await listTools(app);
    const get = tools.find((tool) => tool.name === 'get_shops_by_shop_aisles_by_aisle_items_by_id');
    expect(get?.inputSchema.required?.sort()).toEqual(['aisle', 'id', 'shop']);
    expect(tools.map((tool) => tool.name)).toContain('delete_shops_by_shop_aisles_by_aisle_items_by_id');
    const result = await call(app, 'get_shops_by_shop_aisles_by_aisle_items_by_id', {
      shop: 's 1',
      aisle: 'a/2',
      id: '3',
    });
    expect(result.structuredContent).toEqual({
      params: { shop: 's 1', aisle: 'a/2', id: '3' },
      originalUrl: '/shops/s%201/aisles/a%2F2/items/3',
      seenBy: ['app', 'shops', 'aisles'],
      method: 'GET',
    });
    expect(
      (await call(app, 'delete_shops_by_shop_aisles_by_aisle_items_by_id', { shop: 's', aisle: 'a', id: '3' }))
        .structuredContent,
    ).toMatchObject({ method: 'DELETE' });
  });

  it('leaves parent params out of req.params without mergeParams, as Express does, yet still fills them in the URL', async () => {
    const { app, mcp } = setup();
    const items = express.Router();
    items.get('/:id', mcp.route({ description: 'An item' }, echo));
    app.use('/shops/:shop/items', items);
    const result = await call(app, 'get_shops_by_shop_items_by_id', { shop: 'x', id: '1' });
    expect(result.structuredContent).toMatchObject({ params: { id: '1' }, originalUrl: '/shops/x/items/1' });
  });

  it('learns app.route() chains, one tool per method', async () => {
    const { app, mcp } = setup();
    app
      .route('/things/:id')
      .get(mcp.route({ description: 'Read a thing' }, echo))
      .put(
        mcp.route(
          {
            description: 'Replace a thing',
            input: { body: { type: 'object', properties: { name: { type: 'string' } } } },
          },
          echo,
        ),
      );
    const tools = await listTools(app);
    expect(tools.map((tool) => tool.name).sort()).toEqual(['get_things_by_id', 'put_things_by_id']);
    expect((await call(app, 'put_things_by_id', { id: '1', name: 'n' })).structuredContent).toMatchObject({
      method: 'PUT',
      originalUrl: '/things/1',
    });
  });

  it('keeps the case and trailing slash of strict, case-sensitive routers', async () => {
    const { app, mcp } = setup();
    const strict = express.Router({ strict: true, caseSensitive: true });
    strict.get('/Items/', mcp.route({ name: 'strict_items', description: 'Items, strictly' }, echo));
    app.use('/Api', strict);
    expect((await call(app, 'strict_items')).structuredContent).toMatchObject({ originalUrl: '/Api/Items/' });
  });

  it('learns optional params of both majors', async () => {
    const { app, mcp } = setup();
    const api = express.Router();
    const path = EXPRESS_MAJOR === 4 ? '/files/:name?' : '/files{/:name}';
    api.get(path, mcp.route({ name: 'files', description: 'A file or all of them' }, echo));
    app.use('/v1', api);
    const tool = (await listTools(app)).find((entry) => entry.name === 'files');
    expect(tool?.inputSchema.required ?? []).toEqual([]);
    expect((await call(app, 'files', { name: 'a.txt' })).structuredContent).toMatchObject({
      params: { name: 'a.txt' },
      originalUrl: '/v1/files/a%2Etxt',
    });
    expect((await call(app, 'files')).structuredContent).toMatchObject({ originalUrl: '/v1/files' });
  });

  it('learns middleware mounted with use() and all(), with the method from meta', async () => {
    const { app, mcp } = setup();
    app.use('/hooks/:kind', mcp.route({ name: 'hook', description: 'A hook', method: 'POST' }, echo));
    app.all('/any', mcp.route({ name: 'any', description: 'Any method' }, echo));
    expect((await call(app, 'hook', { kind: 'k' })).structuredContent).toMatchObject({
      method: 'POST',
      originalUrl: '/hooks/k',
    });
    expect((await call(app, 'any')).structuredContent).toMatchObject({ method: 'GET', originalUrl: '/any' });
  });

  it('learns a route declared after the first request on the next one', async () => {
    const { app, mcp } = setup();
    mcp.tool({ name: 'plain', description: 'A plain tool', handler: () => 'ok' });
    expect((await listTools(app)).map((tool) => tool.name)).toEqual(['plain']);
    app.get('/late', mcp.route({ description: 'Declared late' }, echo));
    expect((await listTools(app)).map((tool) => tool.name)).toEqual(['plain', 'get_late']);
  });

  it('takes an explicit path as the full path, dispatched through the whole app', async () => {
    const { app, mcp } = setup();
    const api = express.Router();
    api.get(/^\/re\/(\d+)$/, mcp.route({ name: 'by_regexp', description: 'A RegExp route', path: '/api/re/:n' }, echo));
    app.use('/api', api);
    expect((await call(app, 'by_regexp', { n: '42' })).structuredContent).toMatchObject({
      originalUrl: '/api/re/42',
      seenBy: ['app'],
    });
  });

  it('runs the route through the whole app: the real REST route answers exactly as before', async () => {
    const { app, mcp } = setup();
    const api = express.Router();
    api.get('/items/:id', mcp.route({ name: 'get_item', description: 'Fetch an item' }, echo));
    app.use('/api', api);
    const rest = await request(app).get('/api/items/9');
    expect(rest.body).toEqual({ params: { id: '9' }, originalUrl: '/api/items/9', seenBy: ['app'], method: 'GET' });
  });

  describe('fails loudly where the path cannot be learned: the tool is left out, one error names it and says to pass path', () => {
    const cases: Array<[string, (mcp: McpRouter, app: express.Express) => void]> = [
      [
        'a RegExp path',
        (mcp, app) => app.get(/^\/re\/(\d+)$/, mcp.route({ name: 'the_tool', description: 'x' }, echo)),
      ],
      ['an array path', (mcp, app) => app.get(['/a', '/b'], mcp.route({ name: 'the_tool', description: 'x' }, echo))],
      [
        'a router mounted at a RegExp',
        (mcp, app) =>
          app.use(/^\/r/, express.Router().get('/x', mcp.route({ name: 'the_tool', description: 'x' }, echo))),
      ],
      [
        'a router never mounted in the app',
        (mcp) => express.Router().get('/x', mcp.route({ name: 'the_tool', description: 'x' }, echo)),
      ],
      [
        'a router mounted twice',
        (mcp, app) => {
          const api = express.Router().get('/x', mcp.route({ name: 'the_tool', description: 'x' }, echo));
          app.use('/v1', api);
          app.use('/v2', api);
        },
      ],
      [
        'one handler array on two routes',
        (mcp, app) => {
          const handlers = mcp.route({ name: 'the_tool', description: 'x' }, echo);
          app.get('/a', handlers);
          app.get('/b', handlers);
        },
      ],
      [
        'the original handler mounted instead of what mcp.route() returned',
        (mcp, app) => (mcp.route({ name: 'the_tool', description: 'x' }, echo), app.get('/x', echo)),
      ],
      [
        'a second tool of the same name',
        (mcp, app) =>
          app
            .get('/a', mcp.route({ name: 'the_tool', description: 'x' }, echo))
            .get('/b', mcp.route({ name: 'the_tool', description: 'y' }, echo)),
      ],
    ];
    it.each(cases)('%s', async (_label, declare) => {
      const { app, mcp, logger } = setup();
      mcp.tool({ name: 'plain', description: 'A plain tool', handler: () => 'ok' });
      declare(mcp, app);
      const tools = await listTools(app);
      const expected = _label === 'a second tool of the same name' ? ['plain', 'the_tool'] : ['plain'];
      expect(tools.map((tool) => tool.name)).toEqual(expected);
      expect(logger.error).toHaveBeenCalledTimes(1);
      expect(String(logger.error.mock.calls[0]?.[1])).toContain("the tool 'the_tool'");
      // The route cases point at the `path` option; a duplicate name does not.
      expect(String(logger.error.mock.calls[0]?.[1]).includes('`path`')).toBe(expected.length === 1);
      await listTools(app);
      expect(logger.error).toHaveBeenCalledTimes(1);
    });
  });
});
