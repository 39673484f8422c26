// Legacy Express routes as MCP tools: wrapped at the route (mcp.route) and declared by method and path (exposeRoutes).

import express, { type NextFunction, type Request, type Response } from 'express';
import request from 'supertest';
import { mcpRouter } from '../../lib';
import { connectClient, type ConnectedClient } from '../helpers/connect-client';
import { silentLogger } from '../helpers/messages';

interface User {
  id: string;
  name: string;
}

/** A small legacy API: its own router, an API-key middleware, express.json(), params, query, body, errors. */
function legacyApi() {
  const users = new Map<string, User>([['1', { id: '1', name: 'Ada' }]]);
  const requireKey = (req: Request, res: Response, next: NextFunction): void => {
    if (req.headers.authorization === 'Bearer good' || req.headers['x-api-key'] === 'k') next();
    else res.status(401).json({ error: 'unauthorized' });
  };
  const getUser = (req: Request, res: Response): void => {
    const user = users.get(String(req.params.id));
    if (user) res.json(user);
    else res.status(404).json({ error: `no user ${String(req.params.id)}` });
  };
  const createUser = (req: Request, res: Response): void => {
    const user = { id: String(users.size + 1), name: String(req.body.name) };
    users.set(user.id, user);
    res.status(201).json(user);
  };
  const search = (req: Request, res: Response): void => {
    const tags = ([] as unknown[]).concat(req.query.tag ?? []);
    res.json({ tags, limit: Number(req.query.limit ?? 10) });
  };
  const boom = (_req: Request, _res: Response, next: NextFunction): void =>
    next(new Error('database password is hunter2'));
  const remove = (_req: Request, res: Response): void => {
    res.status(204).end();
  };
  const stream = (_req: Request, res: Response): void => {
    res.type('text/plain');
    res.write('a');
    res.write('b');
    res.end('c');
  };
  return { users, requireKey, getUser, createUser, search, boom, remove, stream };
}

describe('mcp.route and mcp.exposeRoutes', () => {
  let connected: ConnectedClient;
  let app: express.Express;
  const logger = silentLogger();

  beforeAll(async () => {
    const api = legacyApi();
    const mcp = mcpRouter({ name: 'legacy', version: '1.0.0', logger, rateLimit: false });
    app = express();
    app.use('/mcp', mcp);
    app.use(express.json());
    const users = express.Router();
    users.get('/', api.search);
    users.delete('/:id', api.remove);
    // Everything after this line needs the API key (router-level middleware, as legacy apps do).
    users.use(api.requireKey);
    // 1. Wrapped at the route: the REST route is unchanged; the tool learns /api/users/:id and runs through the app.
    users.get('/:id', mcp.route({ description: 'Fetch a user by id', name: 'get_user' }, api.requireKey, api.getUser));
    users.post(
      '/',
      mcp.route(
        {
          description: 'Create a user',
          name: 'create_user',
          input: { body: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
        },
        api.createUser,
      ),
    );
    app.use('/api/users', users);
    app.get('/api/boom', api.boom);
    app.get('/api/stream', api.stream);
    // 2. Declared by method and path, dispatched through the whole app.
    mcp.exposeRoutes(app, [
      {
        method: 'GET',
        path: '/api/users',
        description: 'Search users',
        input: {
          query: {
            type: 'object',
            properties: { tag: { type: 'array', items: { type: 'string' } }, limit: { type: 'integer' } },
          },
        },
      },
      { method: 'DELETE', path: '/api/users/:id', description: 'Delete a user' },
      { method: 'GET', path: '/api/boom', name: 'boom', description: 'Always fails' },
      { method: 'GET', path: '/api/stream', name: 'stream', description: 'Streams text' },
      {
        method: 'GET',
        path: '/api/users/:id',
        name: 'get_user_declared',
        description: 'Fetch a user through the whole app',
      },
      {
        method: 'GET',
        path: '/api/stream',
        name: 'stream_twice',
        description: 'Streams text, twice a minute',
        rateLimit: { limit: 2, windowMs: 60_000 },
      },
    ]);
    connected = await connectClient(app);
  });
  afterAll(() => connected?.close());

  it('leaves the REST routes answering exactly as before', async () => {
    await request(app).get('/api/users/1').set('x-api-key', 'k').expect(200, { id: '1', name: 'Ada' });
    await request(app).get('/api/users/1').expect(401, { error: 'unauthorized' });
    await request(app)
      .post('/api/users')
      .set('x-api-key', 'k')
      .send({ name: 'Lin' })
      .expect(201, { id: '2', name: 'Lin' });
  });

  it('lists the bridged tools with names, schemas and annotations from the routes', async () => {
    const { tools } = await connected.client.listTools();
    // Wrapped routes are learned from the app on the first request, so they come after those declared at boot.
    expect(tools.map((tool) => tool.name)).toEqual([
      'get_api_users',
      'delete_api_users_by_id',
      'boom',
      'stream',
      'get_user_declared',
      'stream_twice',
      'get_user',
      'create_user',
    ]);
    expect(tools[6]).toMatchObject({
      inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      annotations: { readOnlyHint: true },
    });
    expect(tools[1]).toMatchObject({ annotations: { destructiveHint: true, idempotentHint: true } });
  });

  it('runs a wrapped route in-process with the MCP caller’s Authorization header', async () => {
    const { client } = connected;
    // The SDK client sends no Authorization here: the route's own middleware refuses, and the model learns why.
    expect(await client.callTool({ name: 'get_user', arguments: { id: '1' } })).toEqual({
      content: [{ type: 'text', text: 'HTTP 401 Unauthorized: {"error":"unauthorized"}' }],
      isError: true,
    });
  });

  it('maps 4xx to isError with the body, 5xx and next(err) to isError without internals, 204 and text bodies', async () => {
    const { client } = connected;
    const boom = await client.callTool({ name: 'boom', arguments: {} });
    expect(boom).toEqual({
      content: [{ type: 'text', text: 'HTTP 500: the operation failed on the server' }],
      isError: true,
    });
    expect(JSON.stringify(boom)).not.toContain('hunter2');
    expect(logger.error).toHaveBeenCalled();
    expect(await client.callTool({ name: 'delete_api_users_by_id', arguments: { id: '1' } })).toEqual({
      content: [{ type: 'text', text: 'Done (HTTP 204, no content)' }],
    });
    expect(await client.callTool({ name: 'stream', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'abc' }],
    });
  });

  it('runs the whole app’s middleware for a declared route: the router-level API key check refuses', async () => {
    expect(await connected.client.callTool({ name: 'get_user_declared', arguments: { id: '1' } })).toEqual({
      content: [{ type: 'text', text: 'HTTP 401 Unauthorized: {"error":"unauthorized"}' }],
      isError: true,
    });
  });

  it('limits calls of a bridged tool with its rateLimit, as any tool', async () => {
    const { client } = connected;
    expect(await client.callTool({ name: 'stream_twice', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'abc' }],
    });
    expect(await client.callTool({ name: 'stream_twice', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'abc' }],
    });
    const third = await client.callTool({ name: 'stream_twice', arguments: {} });
    expect(third.isError).toBe(true);
    expect(JSON.stringify(third.content)).toMatch(/try again in \d+ s/i);
  });

  it('passes query arrays and body objects where the route expects them', async () => {
    const { client } = connected;
    const found = await client.callTool({ name: 'get_api_users', arguments: { tag: ['a', 'b'], limit: 3 } });
    expect(found.structuredContent).toEqual({ tags: ['a', 'b'], limit: 3 });
  });
});

describe('mcp.route with the caller’s token', () => {
  it('forwards the MCP caller’s Authorization header to the wrapped chain', async () => {
    const api = legacyApi();
    const mcp = mcpRouter({ name: 'legacy', version: '1.0.0', rateLimit: false, auth: { tokens: ['good'] } });
    const app = express();
    app.use('/mcp', mcp);
    app.get(
      '/users/:id',
      mcp.route({ description: 'Fetch a user', path: '/users/:id', name: 'get_user' }, api.requireKey, api.getUser),
    );
    const { client, close } = await connectClient(app, '/mcp', { Authorization: 'Bearer good' });
    try {
      expect(await client.callTool({ name: 'get_user', arguments: { id: '1' } })).toEqual({
        content: [{ type: 'text', text: '{"id":"1","name":"Ada"}' }],
        structuredContent: { id: '1', name: 'Ada' },
      });
      expect(await client.callTool({ name: 'get_user', arguments: { id: '9' } })).toEqual({
        content: [{ type: 'text', text: 'HTTP 404 Not Found: {"error":"no user 9"}' }],
        isError: true,
      });
    } finally {
      await close();
      await mcp.close();
    }
  });
});
