// Issue 13, defect 1: a tool argument can never change the route that runs, by any of the four bridge ways.

import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { mcpRouter } from '../../../lib';
import { tool } from '../../../lib/decorators';
import { post, rpc, silentLogger } from '../../helpers/create-app';

declare const EXPRESS_MAJOR: number;

const READER = 'reader-token'; // no scopes
const ADMIN = 'admin-token'; // orders:read
const SECRET = 'every order of every user';

/** What the host's routes saw: the path values of the routes that may run, and which protected handlers ran. */
interface Seen {
  values: unknown[];
  protectedRan: string[];
}

/** Way 4: a decorated controller whose method is an Express handler, registered with mcp.register. */
class UsersController {
  constructor(private readonly handler: RequestHandler) {}

  @tool({ name: 'user_orders_controller', description: 'Orders of a user', method: 'GET', path: '/users/:id/orders' })
  orders(req: Request, res: Response, next: NextFunction) {
    this.handler(req, res, next);
  }
}

const OPENAPI = {
  openapi: '3.0.3',
  info: { title: 'shop', version: '1.0.0' },
  paths: {
    '/api/users/{id}/orders': {
      get: {
        operationId: 'user_orders_openapi',
        summary: 'Orders of a user',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      },
    },
    '/api/orders': { get: { operationId: 'all_orders_openapi', summary: 'Every order', 'x-mcp': false } },
    // A name that is no identifier: kept whole (`:"user-id"`), not read as `:user` followed by the text `-id`.
    '/api/users/{user-id}/orders': {
      get: {
        operationId: 'user_orders_dashed',
        summary: 'Orders of a user',
        parameters: [{ name: 'user-id', in: 'path', required: true, schema: { type: 'string' } }],
      },
    },
  },
};

/**
 * The host: `/api/users/:id/orders` is open, `/api/orders` is exposed as a tool that needs `orders:read`.
 * Like the host, its own guard checks REST callers and leaves bridged calls (`req.mcp`) to the tool's scopes.
 */
function hostApp(seen: Seen): express.Express {
  const mcp = mcpRouter({
    name: 'path-params',
    version: '1.0.0',
    sessions: false,
    rateLimit: false,
    logger: silentLogger(),
    auth: {
      tokens: [
        { token: READER, subject: 'reader' },
        { token: ADMIN, subject: 'admin', scopes: ['orders:read'] },
      ],
    },
  });
  const requireScope: RequestHandler = (req, res, next) => {
    if ('mcp' in req || req.headers['x-api-key'] === 'admin-key') next();
    else res.status(403).json({ error: 'forbidden' });
  };
  const record =
    (param: string): RequestHandler =>
    (req, res) => {
      seen.values.push(req.params[param]);
      res.json({ [param]: req.params[param] ?? null });
    };
  const secret =
    (name: string): RequestHandler =>
    (_req, res) => {
      seen.protectedRan.push(name);
      res.json({ secret: SECRET });
    };

  const app = express();
  app.use('/mcp', mcp);
  // A host that lets `?_method=` override the method (the method-override package, used this way).
  app.use((req, _res, next) => {
    const override = new URL(req.url, 'http://host').searchParams.get('_method');
    if (req.method === 'GET' && override) req.method = override.toUpperCase();
    next();
  });
  const api = express.Router();
  // Way 1: wrapped at the route.
  api.get('/users/:id/orders', mcp.route({ name: 'user_orders_route', description: 'Orders of a user' }, record('id')));
  api.get('/orders', requireScope, secret('orders'));
  api.get('/users', requireScope, secret('users'));
  api.get('/users/:id', record('id'));
  api.delete('/users/:id', requireScope, secret('delete user'));
  api.post('/users/:id/notes', express.json(), (req, res) => {
    seen.values.push(req.body);
    res.status(201).json({});
  });
  api.get(EXPRESS_MAJOR === 5 ? '/docs{/:page}' : '/docs/:page?', record('page'));
  // Two params in one segment, split by a `.` or a `-` that a value may contain too.
  api.get('/plants/:genus.:species', (req, res) => {
    seen.values.push([req.params.genus, req.params.species]);
    res.json({});
  });
  api.get('/flights/:from-:to', (req, res) => {
    seen.values.push([req.params.from, req.params.to]);
    res.json({});
  });
  if (EXPRESS_MAJOR === 4) {
    // Express 4 only: a regex-constrained param, and a protected route that takes what it does not match.
    api.get('/items/:id(\\d+)', record('id'));
    api.get('/items/:slug', requireScope, secret('item by slug'));
  } else {
    api.get('/files/*path', record('path'));
  }
  app.use('/api', api);

  // Way 2: declared by method and path, dispatched through the whole app.
  mcp.exposeRoutes(app, [
    { method: 'GET', path: '/api/users/:id/orders', name: 'user_orders_routes', description: 'Orders of a user' },
    { method: 'GET', path: '/api/orders', name: 'all_orders', description: 'Every order', scopes: ['orders:read'] },
    { method: 'GET', path: '/api/users/:id', name: 'get_user', description: 'One user' },
    {
      method: 'GET',
      path: '/api/users/:id',
      name: 'get_user_nested',
      description: 'One user',
      layout: 'nested',
      input: { params: { type: 'object', properties: { id: {} }, required: ['id'] } },
    },
    {
      method: 'GET',
      path: '/api/users/:id',
      name: 'get_user_nested_query',
      description: 'One user',
      layout: 'nested',
      input: { query: { type: 'object', properties: { fields: { type: 'string' } } } },
    },
    ...[false, true].map((open) => ({
      method: 'POST',
      path: '/api/users/:id/notes',
      name: open ? 'add_note_open' : 'add_note',
      description: 'Add a note',
      layout: 'nested' as const,
      input: {
        body: {
          type: 'object',
          properties: { text: { type: 'string' } },
          ...(open ? { additionalProperties: true } : {}),
        },
      },
    })),
    {
      method: 'GET',
      path: EXPRESS_MAJOR === 5 ? '/api/docs{/:page}' : '/api/docs/:page?',
      name: 'docs',
      description: 'A docs page',
    },
    { method: 'GET', path: '/api/plants/:genus.:species', name: 'plant', description: 'A plant' },
    { method: 'GET', path: '/api/flights/:from-:to', name: 'flight', description: 'A flight' },
    ...(EXPRESS_MAJOR === 4
      ? [{ method: 'GET', path: '/api/items/:id(\\d+)', name: 'item', description: 'An item by number' }]
      : [{ method: 'GET', path: '/api/files/*path', name: 'file', description: 'A file' }]),
  ]);
  // Way 3: an OpenAPI 3 document.
  mcp.exposeOpenApi(app, OPENAPI);
  // Way 4: a decorated controller.
  mcp.register(new UsersController(record('id')));
  return app;
}

interface ToolResult {
  content: Array<{ type: string; text: string }>;
  isError?: boolean;
  structuredContent?: unknown;
}

const WAYS = ['user_orders_route', 'user_orders_routes', 'user_orders_openapi', 'user_orders_controller'];

describe('path parameters of bridged routes (issue 13)', () => {
  const seen: Seen = { values: [], protectedRan: [] };
  const app = hostApp(seen);

  beforeEach(() => {
    seen.values.length = 0;
    seen.protectedRan.length = 0;
  });

  async function callTool(name: string, args: Record<string, unknown>, token = READER): Promise<ToolResult> {
    const res = await post(app, rpc('tools/call', { name, arguments: args }), {
      Authorization: `Bearer ${token}`,
      'MCP-Protocol-Version': '2025-11-25',
    });
    expect(res.status).toBe(200);
    expect(res.body.error).toBeUndefined();
    return res.body.result as ToolResult;
  }

  /** The call was refused before any route ran, with a text naming the argument. */
  function expectRefused(result: ToolResult, argument: string, detail: RegExp): void {
    expect(seen.protectedRan).toEqual([]);
    expect(seen.values).toEqual([]);
    expect(result.isError).toBe(true);
    expect(result.content).toHaveLength(1);
    const text = result.content[0]?.text ?? '';
    expect(text).toMatch(new RegExp(`^Invalid argument '${argument}': `));
    expect(text).toMatch(detail);
    expect(text).not.toContain(SECRET);
  }

  it('keeps the protected tool protected: the reader cannot call it, the admin can', async () => {
    const denied = await post(app, rpc('tools/call', { name: 'all_orders', arguments: {} }), {
      Authorization: `Bearer ${READER}`,
      'MCP-Protocol-Version': '2025-11-25',
    });
    expect(JSON.stringify(denied.body)).not.toContain(SECRET);
    expect(JSON.stringify(await callTool('all_orders', {}, ADMIN))).toContain(SECRET);
  });

  // RFC 3986 §5.2.4 removes `.` and `..` segments, and the WHATWG URL parser (used for the in-process request)
  // also treats `%2e` (any case) as a dot. A value that is or holds a dot segment, decoded any number of times,
  // is refused, so a host or proxy that decodes once more, or builds a path from req.params, cannot be walked.
  const DOT_SEGMENTS = [
    ...['.', '..', '%2e', '%2E', '%2e%2e', '%2E%2e', '.%2e', '%2e.', '%252e%252e', '%252E.', '%25252e%25252e'],
    ...['..%2f', '%2e%2e%2F', '../x', 'x/..', 'a/../b', 'a/./b', 'a%2F..%2Fb', '..\\x', '..%5cx'],
  ];
  const refusedTable = WAYS.flatMap((way) => DOT_SEGMENTS.map((value) => [way, value] as const));

  it.each(refusedTable)('%s refuses id %p (a dot segment): no route runs', async (way, value) => {
    expectRefused(await callTool(way, { id: value }), 'id', /cannot be carried in a URL path segment/);
  });

  it.each(WAYS)('%s refuses an empty id (the segment would vanish or match another route)', async (way) => {
    expectRefused(await callTool(way, { id: '' }), 'id', /an empty value cannot be carried in a URL path segment/);
  });

  it.each(WAYS)('%s refuses a lone UTF-16 surrogate, as a tool result, not an internal error', async (way) => {
    expectRefused(await callTool(way, { id: 'a\ud800b' }), 'id', /not well-formed Unicode/);
  });

  it('refuses an empty id where `/api/users/` would have matched the protected `/api/users`', async () => {
    expectRefused(await callTool('get_user', { id: '' }), 'id', /empty value/);
  });

  // Each value is percent-encoded into exactly one segment, and Express decodes it back for req.params.
  const LITERALS = [
    'a/b',
    'a?b',
    'a#b',
    '100%',
    '%41',
    'x%2Fy',
    '%2e%2e%2e',
    '...',
    '.a/b..',
    'a.b',
    '-',
    '~',
    "(it's)",
    'a\\b',
    ' ',
    'a b+c',
    '/',
    '\u0000',
    '\r\n',
    '\t',
    'é',
    '日本',
    '😀',
    '1.json',
  ];
  const literalTable = WAYS.flatMap((way) => LITERALS.map((value) => [way, value] as const));

  it.each(literalTable)('%s carries id %p to req.params.id exactly', async (way, value) => {
    const result = await callTool(way, { id: value });
    expect(result.isError).toBeUndefined();
    expect(seen.values).toEqual([value]);
    expect(seen.protectedRan).toEqual([]);
  });

  it.each([
    ['plant', { genus: 'a.b', species: 'c' }, ['a.b', 'c']],
    ['plant', { genus: 'a', species: 'b.c' }, ['a', 'b.c']],
    ['flight', { from: 'x-y', to: 'z' }, ['x-y', 'z']],
    ['flight', { from: 'x', to: 'y-z' }, ['x', 'y-z']],
  ])('%s: a value holding the separator of two params in one segment stays whole (%p)', async (name, args, values) => {
    expect((await callTool(name, args)).isError).toBeUndefined();
    expect(seen.values).toEqual([values]);
  });

  it('keeps an OpenAPI parameter name that is no identifier whole', async () => {
    expect((await callTool('user_orders_dashed', { 'user-id': 'a/b' })).isError).toBeUndefined();
    expect(seen.values).toEqual(['a/b']);
    seen.values.length = 0;
    expectRefused(await callTool('user_orders_dashed', { 'user-id': '..' }), 'user-id', /cannot be carried/);
  });

  describe('the nested layout', () => {
    it.each([
      ['an object', {}],
      ['an array', ['a', 'b']],
      ['null', null],
    ])('refuses %s as a path value', async (_label, id) => {
      expectRefused(await callTool('get_user_nested', { params: { id } }), 'id', /must be a string, number or boolean/);
    });

    it.each([
      [7, '7'],
      [true, 'true'],
      ['7', '7'],
    ])('carries %p as the text %p', async (id, text) => {
      expect((await callTool('get_user_nested', { params: { id } })).isError).toBeUndefined();
      expect(seen.values).toEqual([text]);
    });

    it('refuses dot segments as in the flat layout', async () => {
      expectRefused(await callTool('get_user_nested', { params: { id: '..' } }), 'id', /cannot be carried/);
    });

    it('sends only declared query names: an undeclared _method cannot turn a GET into a DELETE', async () => {
      const result = await callTool('get_user_nested_query', {
        params: { id: '1' },
        query: { fields: 'name', _method: 'DELETE' },
      });
      expect(result.isError).toBeUndefined();
      expect(seen.values).toEqual(['1']);
      expect(seen.protectedRan).toEqual([]);
      expect(
        await callTool('get_user_nested', { params: { id: '1' }, query: { _method: 'DELETE' } }),
      ).not.toHaveProperty('isError');
      expect(seen.protectedRan).toEqual([]);
    });

    it('sends only the listed properties of an object body, unless its schema opens it to others', async () => {
      const body = { text: 'hi', _method: 'DELETE' };
      expect((await callTool('add_note', { params: { id: '1' }, body })).isError).toBeUndefined();
      expect((await callTool('add_note_open', { params: { id: '1' }, body })).isError).toBeUndefined();
      expect(seen.values).toEqual([{ text: 'hi' }, body]);
    });
  });

  describe('optional params', () => {
    it('leaves an absent optional param out of the path', async () => {
      expect((await callTool('docs', {})).isError).toBeUndefined();
      expect(seen.values).toEqual([undefined]);
    });

    it('carries a given optional param', async () => {
      expect((await callTool('docs', { page: 'a/b' })).isError).toBeUndefined();
      expect(seen.values).toEqual(['a/b']);
    });

    it.each(['', '..', '%2e'])('refuses %p for an optional param (omit it instead)', async (page) => {
      expectRefused(await callTool('docs', { page }), 'page', /cannot be carried in a URL path segment/);
    });

    it('does not make an optional param required in the default schema', async () => {
      const res = await post(app, rpc('tools/list'), {
        Authorization: `Bearer ${READER}`,
        'MCP-Protocol-Version': '2025-11-25',
      });
      const docs = (res.body.result.tools as Array<{ name: string; inputSchema: Record<string, unknown> }>).find(
        (listed) => listed.name === 'docs',
      );
      expect(docs?.inputSchema).toEqual({ type: 'object', properties: { page: { type: 'string' } }, required: [] });
    });
  });

  // Each major's own path syntax, defined only in that major's project (nothing is skipped).
  if (EXPRESS_MAJOR === 4)
    describe('Express 4 regex-constrained params', () => {
      it('carries a value the regex matches', async () => {
        expect((await callTool('item', { id: '42' })).isError).toBeUndefined();
        expect(seen.values).toEqual(['42']);
      });

      it.each(['abc', '4a', ''])(
        'refuses %p, which the route does not match (another route would take it)',
        async (id) => {
          expectRefused(
            await callTool('item', { id }),
            'id',
            id === '' ? /empty value/ : /does not match the route's pattern/,
          );
        },
      );
    });

  if (EXPRESS_MAJOR === 5)
    describe('Express 5 splat params', () => {
      it.each([
        ['a', ['a']],
        ['a/b/c', ['a', 'b', 'c']],
        ['dir/read me.md', ['dir', 'read me.md']],
        ['%2F/é', ['%2F', 'é']],
      ])('carries %p as the segments %p', async (path, segments) => {
        expect((await callTool('file', { path })).isError).toBeUndefined();
        expect(seen.values).toEqual([segments]);
      });

      it.each(['..', 'a/../../orders', 'a/./b', 'a/%2e%2e/b', 'a/..%2fb', '', '/a', 'a/', 'a//b'])(
        'refuses %p (a dot or empty segment)',
        async (path) => {
          expectRefused(await callTool('file', { path }), 'path', /cannot be carried in a URL path segment/);
        },
      );
    });
});
