// A number or boolean sent for a string path or query value is its text (the wire carries text there), before the
// schema is checked; body fields are checked as sent. By layout, by each bridge way, and the caller's object untouched.

import express from 'express';
import request from 'supertest';
import { inputLayoutFor } from '../../../lib/features/bridge/input';
import { mcpRouter, type McpRouter } from '../../../lib';
import { post, rpc, silentLogger } from '../../helpers/create-app';

describe('inputLayoutFor().wireText', () => {
  const flat = inputLayoutFor(
    {
      query: {
        type: 'object',
        properties: {
          q: { type: 'string' },
          note: { type: ['string', 'null'] },
          limit: { type: 'integer' },
          either: { type: ['string', 'number'] },
          tags: { type: 'array', items: { type: 'string' } },
          any: {},
        },
      },
      body: { type: 'object', properties: { name: { type: 'string' } } },
    },
    ['id'],
    "route 'x'",
    'flat',
  );

  it.each([
    [2, '2'],
    [-7, '-7'],
    [0.1, '0.1'],
    [-0, '0'],
    [1e21, '1e+21'],
    [1e-7, '1e-7'],
    [Number.MAX_SAFE_INTEGER + 2, '9007199254740992'],
    [true, 'true'],
    [false, 'false'],
  ])('a path value %p is sent as %p', (value, text) => {
    expect(flat.wireText({ id: value })).toEqual({ id: text });
  });

  it.each([[Number.NaN], [Number.POSITIVE_INFINITY], [Number.NEGATIVE_INFINITY], [null], [{}], [[1]]])(
    'leaves %p as it is, for the schema to refuse',
    (value) => {
      expect(flat.wireText({ id: value })).toEqual({ id: value });
    },
  );

  it('turns string query values and string array items to text, and nothing else', () => {
    const args = { id: 1, q: 2, note: false, limit: 3, either: 4, tags: [1, 'b', true], any: 5, name: 6 };
    expect(flat.wireText(args)).toEqual({
      id: '1',
      q: '2',
      note: 'false',
      limit: 3,
      either: 4,
      tags: ['1', 'b', 'true'],
      any: 5,
      name: 6,
    });
  });

  it('never writes to the caller’s object, and returns it when nothing changes', () => {
    const args = Object.freeze({ id: 2, tags: Object.freeze([3]) });
    expect(flat.wireText(args)).toEqual({ id: '2', tags: ['3'] });
    expect(args).toEqual({ id: 2, tags: [3] });
    const text = { id: '2', name: 7 };
    expect(flat.wireText(text)).toBe(text);
  });

  it('keeps an own __proto__ argument an own property, not a prototype', () => {
    const args = JSON.parse('{"id":2,"__proto__":{"polluted":true}}') as Record<string, unknown>;
    const text = flat.wireText(args);
    expect(Object.getPrototypeOf(text)).toBe(Object.prototype);
    expect(Object.hasOwn(text, '__proto__')).toBe(true);
  });

  it('works inside params and query in the nested layout, and leaves the body alone', () => {
    const nested = inputLayoutFor(
      { query: { type: 'object', properties: { q: { type: 'string' } } }, body: { type: 'object' } },
      ['id'],
      "route 'x'",
      'nested',
    );
    const args = Object.freeze({ params: Object.freeze({ id: 2 }), body: { id: 3 } });
    expect(nested.wireText(args)).toEqual({ params: { id: '2' }, body: { id: 3 } });
    expect(nested.wireText({ query: { q: true } })).toEqual({ query: { q: 'true' } });
    const untouched = { params: 'not an object', query: { q: 'x' } };
    expect(nested.wireText(untouched)).toBe(untouched);
  });
});

/** The host's routes: each answers what it got, as the route saw it. */
function hostApp(setup: (mcp: McpRouter, app: express.Express) => void): express.Express {
  const mcp = mcpRouter({ name: 'wire-text', version: '1.0.0', sessions: false, logger: silentLogger() });
  const app = express();
  app.use(express.json());
  app.use('/mcp', mcp);
  setup(mcp, app);
  return app;
}

const echo: express.RequestHandler = (req, res) => {
  res.json({ params: req.params, query: req.query, body: req.body ?? {} });
};

async function call(app: express.Express, name: string, args: Record<string, unknown>) {
  const res = await post(app, rpc('tools/call', { name, arguments: args }), {
    'MCP-Protocol-Version': '2025-11-25',
  });
  expect(res.status).toBe(200);
  return (res.body as { result: { isError?: boolean; structuredContent?: unknown; content: Array<{ text: string }> } })
    .result;
}

/** What the route answered: without an output schema, the JSON body is the result's text. */
function sent(result: { isError?: boolean; content: Array<{ text: string }> }): unknown {
  expect(result.isError).toBeUndefined();
  return JSON.parse(result.content[0]?.text ?? 'null') as unknown;
}

const OPENAPI = {
  openapi: '3.0.3',
  info: { title: 'items', version: '1.0.0' },
  paths: {
    '/openapi/items/{id}': {
      get: {
        operationId: 'openapi_item',
        summary: 'One item',
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9]+$' } },
          { name: 'q', in: 'query', schema: { type: 'string' } },
          { name: 'page', in: 'query', schema: { type: 'integer' } },
        ],
      },
    },
  },
};

describe.each([
  ['mcp.route', 'route_item'],
  ['exposeRoutes', 'exposed_item'],
  ['exposeOpenApi', 'openapi_item'],
])('%s: a number for a string path or query parameter', (_way, name) => {
  const app = hostApp((mcp, host) => {
    host.get(
      '/route/items/:id',
      mcp.route(
        {
          name: 'route_item',
          description: 'One item',
          input: { query: { type: 'object', properties: { q: { type: 'string' }, page: { type: 'integer' } } } },
        },
        echo,
      ),
    );
    host.get('/exposed/items/:id', echo);
    mcp.exposeRoutes(host, [
      {
        method: 'GET',
        path: '/exposed/items/:id',
        name: 'exposed_item',
        description: 'One item',
        input: { query: { type: 'object', properties: { q: { type: 'string' }, page: { type: 'integer' } } } },
      },
    ]);
    host.get('/openapi/items/:id', echo);
    mcp.exposeOpenApi(host, OPENAPI);
  });

  beforeAll(async () => {
    // mcp.route learns its path from the app on the first request to the endpoint.
    await post(app, rpc('ping')).expect(200);
  });

  it('is sent as its text, and the tool still advertises a string', async () => {
    const result = await call(app, name, { id: 2, q: 3.5, page: 4 });
    expect(result.isError).toBeUndefined();
    expect(sent(result)).toMatchObject({ params: { id: '2' }, query: { q: '3.5', page: '4' } });
    const list = await post(app, rpc('tools/list'));
    const tool = (
      list.body as { result: { tools: Array<{ name: string; inputSchema: Record<string, any> }> } }
    ).result.tools.find((listed) => listed.name === name);
    expect(tool?.inputSchema.properties.id).toMatchObject({ type: 'string' });
    expect(tool?.inputSchema.properties.q).toEqual({ type: 'string' });
  });

  it('takes a boolean as its text too', async () => {
    const result = await call(app, name, { id: 7, q: false });
    expect(sent(result)).toMatchObject({ params: { id: '7' }, query: { q: 'false' } });
  });

  it('still refuses a string for an integer query parameter', async () => {
    const result = await call(app, name, { id: '2', page: 'four' });
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toBe(`Invalid arguments for tool '${name}': page: must be integer`);
  });

  it('does not write to the arguments object the caller passed', async () => {
    const args = { id: 2 };
    await call(app, name, args);
    expect(args).toEqual({ id: 2 });
  });
});

describe('the schema checks the text', () => {
  const app = hostApp((mcp, host) => {
    host.post('/things/:id', echo);
    mcp.exposeRoutes(host, [
      {
        method: 'POST',
        path: '/things/:id',
        name: 'make_thing',
        description: 'Makes a thing',
        input: {
          params: { type: 'object', properties: { id: { type: 'string', maxLength: 2 } }, required: ['id'] },
          body: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        },
      },
    ]);
    host.get('/openapi/items/:id', echo);
    mcp.exposeOpenApi(host, OPENAPI);
  });

  it('refuses a number whose text breaks the string’s own rules (maxLength, pattern)', async () => {
    const long = await call(app, 'make_thing', { id: 123, name: 'x' });
    expect(long.content[0]?.text).toBe(
      "Invalid arguments for tool 'make_thing': id: must NOT have more than 2 characters",
    );
    const negative = await call(app, 'openapi_item', { id: -1 });
    expect(negative.content[0]?.text).toBe(
      `Invalid arguments for tool 'openapi_item': id: must match pattern "^[0-9]+$"`,
    );
  });

  it('refuses a number for a string body field', async () => {
    const result = await call(app, 'make_thing', { id: 12, name: 5 });
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toBe("Invalid arguments for tool 'make_thing': name: must be string");
  });

  it('takes the number for the path and the string body as sent', async () => {
    const result = await call(app, 'make_thing', { id: 12, name: '5' });
    expect(sent(result)).toEqual({ params: { id: '12' }, query: {}, body: { name: '5' } });
  });
});

describe('over HTTP with a session-less client that sends numbers', () => {
  it('serves tools/call with id: 2 end to end (supertest)', async () => {
    const app = hostApp((mcp, host) => {
      host.get('/users/:id', echo);
      mcp.exposeRoutes(host, [{ method: 'GET', path: '/users/:id', name: 'get_user', description: 'A user' }]);
    });
    const res = await request(app)
      .post('/mcp')
      .set('Content-Type', 'application/json')
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_user', arguments: { id: 2 } } });
    expect(sent(res.body.result)).toEqual({ params: { id: '2' }, query: {}, body: {} });
  });
});
