// POST over HTTP: happy paths, 202s, batches, ids, versions, 405s, mount paths, routes added to the router, host body parsers, and client aborts.

import express, { type Express } from 'express';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { mcpRouter, type McpRouter, type RequestContext } from '../../../lib';
import { PROTOCOL_VERSIONS_2025 } from '../../../lib/core/versions';
import { createApp, MCP_ACCEPT, notification, post, rpc, silentLogger } from '../../helpers/create-app';

const JSON_TYPE = /^application\/json(; *charset=utf-8)?$/i;
const INIT_PARAMS = {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'client', version: '0.0.1' },
};

/** A router with one tool, `add`, and a silent logger. */
function makeRouter(logger = silentLogger()): McpRouter {
  const mcp = mcpRouter({ name: 'test', version: '1.0.0', sessions: false, logger });
  mcp.tool({
    name: 'add',
    description: 'Adds two numbers',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    handler: ({ a, b }: { a: number; b: number }) => ({ sum: a + b }),
  });
  return mcp;
}

function appWith(mount: (app: Express, mcp: McpRouter) => void): Express {
  const app = express();
  mount(app, makeRouter());
  return app;
}

const app = appWith((host, mcp) => host.use('/mcp', mcp));

describe('POST: single messages', () => {
  it('answers initialize with the negotiated version, capabilities and serverInfo, and no session header (stateless)', async () => {
    const res = await post(app, rpc('initialize', INIT_PARAMS));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(JSON_TYPE);
    expect(res.headers['mcp-session-id']).toBeUndefined();
    expect(JSON.parse(res.text)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        protocolVersion: '2025-11-25',
        capabilities: { logging: {}, tools: {} },
        serverInfo: { name: 'test', version: '1.0.0' },
      },
    });
  });

  it('offers its newest revision when the client asks for one it does not speak', async () => {
    const res = await post(app, rpc('initialize', { ...INIT_PARAMS, protocolVersion: '1999-01-01' }));
    expect(res.status).toBe(200);
    expect(res.body.result.protocolVersion).toBe(PROTOCOL_VERSIONS_2025[0]);
  });

  it('answers a tool call with a JSON body', async () => {
    const res = await post(app, rpc('tools/call', { name: 'add', arguments: { a: 2, b: 3 } }, 'call-1'), {
      'MCP-Protocol-Version': '2025-11-25',
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(JSON_TYPE);
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
    expect(JSON.parse(res.text)).toEqual({
      jsonrpc: '2.0',
      id: 'call-1',
      result: { content: [{ type: 'text', text: '{"sum":5}' }], structuredContent: { sum: 5 } },
    });
  });

  it.each([
    ['notifications/initialized', notification('notifications/initialized')],
    ['notifications/cancelled', notification('notifications/cancelled', { requestId: 1, reason: 'changed my mind' })],
    ['an unknown notification', notification('notifications/whatever')],
    ['a success response', { jsonrpc: '2.0', id: 'srv-1', result: {} }],
    ['an error response', { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } }],
    // MCP 2025-11-25 schema (JSONRPCErrorResponse `id?`): a client that could not read a request's id omits it.
    [
      'an error response without an id (MCP 2025-11-25)',
      { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } },
    ],
  ])('answers %s with 202 and an empty body', async (_label, body) => {
    const res = await post(app, body, { 'MCP-Protocol-Version': '2025-11-25' });
    expect(res.status).toBe(202);
    expect(res.text).toBe('');
    expect(res.headers['content-type']).toBeUndefined();
  });

  it.each<[string | number]>([[0], [''], ['0'], ['abc'], [42], [-7], [Number.MAX_SAFE_INTEGER], ['ü 🚀 "quoted"']])(
    'echoes the id %j exactly',
    async (id) => {
      const res = await post(app, rpc('ping', undefined, id));
      expect(res.status).toBe(200);
      const body = JSON.parse(res.text);
      expect(body).toStrictEqual({ jsonrpc: '2.0', id, result: {} });
      expect(typeof body.id).toBe(typeof id);
    },
  );

  it.each(PROTOCOL_VERSIONS_2025.map((version) => [version]))('accepts MCP-Protocol-Version %s', async (version) => {
    const ping = await post(app, rpc('ping'), { 'MCP-Protocol-Version': version });
    expect(ping.status).toBe(200);
    expect(ping.body).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    const init = await post(app, rpc('initialize', { ...INIT_PARAMS, protocolVersion: version }), {
      'MCP-Protocol-Version': version,
    });
    expect(init.status).toBe(200);
    expect(init.body.result.protocolVersion).toBe(version);
  });

  it.each([
    ['application/json'],
    ['application/json; charset=utf-8'],
    ['application/json;charset=UTF-8'],
    ['Application/JSON'],
    ['application/json; charset="utf-8"'],
  ])('accepts Content-Type %s', async (contentType) => {
    const res = await post(app, rpc('ping'), { 'Content-Type': contentType });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });
});

describe('POST: batches (MCP 2025-03-26 only)', () => {
  it.each<[string, Record<string, string>]>([
    ['no MCP-Protocol-Version header', {}],
    ['MCP-Protocol-Version 2025-03-26', { 'MCP-Protocol-Version': '2025-03-26' }],
  ])(
    'answers a batch with %s with an array of responses, in order, leaving out notifications',
    async (_label, headers) => {
      const res = await post(
        app,
        [
          rpc('ping', undefined, 1),
          notification('notifications/initialized'),
          rpc('tools/call', { name: 'add', arguments: { a: 1, b: 1 } }, 'two'),
          { jsonrpc: '2.0', id: 'srv-9', result: {} },
          rpc('no/such/method', undefined, 3),
          { jsonrpc: '2.0', id: 4, method: 42 },
        ],
        headers,
      );
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(JSON_TYPE);
      const body = JSON.parse(res.text) as Array<Record<string, unknown>>;
      expect(body.map((response) => response.id)).toEqual([1, 'two', 3, 4]);
      expect(body[0]).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
      // 2025-03-26 has no structuredContent: the result is shaped for it.
      expect(body[1]).toEqual({
        jsonrpc: '2.0',
        id: 'two',
        result: { content: [{ type: 'text', text: '{"sum":2}' }] },
      });
      expect((body[2]?.error as { code: number }).code).toBe(-32601);
      expect((body[3]?.error as { code: number }).code).toBe(-32600);
    },
  );

  it('answers a batch of only notifications and responses with 202 and an empty body', async () => {
    const res = await post(app, [
      notification('notifications/initialized'),
      { jsonrpc: '2.0', id: 5, result: {} },
      notification('notifications/progress', { progressToken: 1, progress: 1 }),
    ]);
    expect(res.status).toBe(202);
    expect(res.text).toBe('');
  });
});

describe('other HTTP methods and paths', () => {
  it.each([['get'], ['delete'], ['put'], ['patch']] as const)(
    '%s → 405 with Allow: POST and a JSON-RPC body',
    async (method) => {
      const res = await request(app)[method]('/mcp').set('Accept', MCP_ACCEPT);
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('POST');
      expect(res.headers['content-type']).toMatch(JSON_TYPE);
      const body = JSON.parse(res.text);
      expect(body).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32000, message: expect.stringContaining(method.toUpperCase()) },
      });
    },
  );

  it.each([
    ['post', '/mcp/other'],
    ['get', '/mcp/other'],
    ['post', '/mcp/tools/list'],
    ['post', '/mcpx'],
  ] as const)('leaves %s %s to the host app (its 404)', async (method, path) => {
    const res = await request(app)
      [method](path)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(rpc('ping')));
    expect(res.status).toBe(404);
    // Express's own final handler answered, not the router.
    expect(res.text).toContain(`Cannot ${method.toUpperCase()} ${path}`);
  });
});

describe('mount paths', () => {
  it.each<[string, string, (host: Express, mcp: McpRouter) => void]>([
    ['at the root', '/', (host, mcp) => host.use(mcp)],
    ["at '/'", '/', (host, mcp) => host.use('/', mcp)],
    ['at a deep path', '/a/b/mcp', (host, mcp) => host.use('/a/b/mcp', mcp)],
    [
      'inside an express.Router()',
      '/api/v1/mcp',
      (host, mcp) => {
        const api = express.Router();
        api.use('/mcp', mcp);
        host.use('/api/v1', api);
      },
    ],
  ])('works %s (%s)', async (_label, path, mount) => {
    const mounted = appWith(mount);
    const res = await post(
      mounted,
      rpc('tools/call', { name: 'add', arguments: { a: 20, b: 22 } }),
      { 'MCP-Protocol-Version': '2025-06-18' },
      path,
    );
    expect(res.status).toBe(200);
    expect(res.body.result.structuredContent).toEqual({ sum: 42 });
    const get = await request(mounted).get(path);
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
  });
});

describe('routes the host adds to the router itself', () => {
  // The router skips Express's Router#handle while its stack is its own; these requests take Express's way.
  it("serves MCP and the host's own routes and middleware on the router", async () => {
    const seen: string[] = [];
    const mounted = appWith((host, mcp) => {
      mcp.use((req, _res, next) => {
        seen.push(`${req.baseUrl} ${req.url}`);
        next();
      });
      mcp.get('/health', (_req, res) => {
        res.json({ ok: true });
      });
      host.use('/mcp', mcp);
    });
    const call = await post(mounted, rpc('tools/call', { name: 'add', arguments: { a: 1, b: 2 } }), {
      'MCP-Protocol-Version': '2025-06-18',
    });
    expect(call.status).toBe(200);
    expect(call.body.result.structuredContent).toEqual({ sum: 3 });
    const health = await request(mounted).get('/mcp/health');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ ok: true });
    expect((await request(mounted).get('/mcp')).status).toBe(405);
    // The MCP endpoint answered /mcp itself; the host's middleware saw only the other path.
    expect(seen).toEqual(['/mcp /health']);
  });

  it('hands other paths back to the host with its URL as Express leaves it', async () => {
    const mounted = appWith((host, mcp) => {
      host.use('/mcp', mcp);
      host.use('/mcp', (req, res) => {
        res.json({ baseUrl: req.baseUrl, url: req.url, originalUrl: req.originalUrl });
      });
    });
    const res = await request(mounted).get('/mcp/other?x=1');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ baseUrl: '/mcp', url: '/other?x=1', originalUrl: '/mcp/other?x=1' });
  });
});

describe('host body parsers', () => {
  it('works after the host ran express.json(): valid requests use the parsed body', async () => {
    const host = appWith((h, mcp) => {
      h.use(express.json());
      h.use('/mcp', mcp);
    });
    const call = await post(host, rpc('tools/call', { name: 'add', arguments: { a: 1, b: 2 } }), {
      'MCP-Protocol-Version': '2025-11-25',
    });
    expect(call.status).toBe(200);
    expect(call.body.result.structuredContent).toEqual({ sum: 3 });
    const note = await post(host, notification('notifications/initialized'));
    expect(note.status).toBe(202);
    expect(note.text).toBe('');
  });

  it('cannot answer malformed JSON when the host ran express.json() first: the host answers it', async () => {
    const host = appWith((h, mcp) => {
      h.use(express.json());
      h.use('/mcp', mcp);
    });
    const res = await post(host, '{"jsonrpc":');
    // express.json() fails before the router is reached, so the router never sees this request:
    // the host's error handling answers (Express's default: an HTML 400, not a JSON-RPC -32700).
    // Mount mcpRouter before express.json() (or scope the parser to other paths) to get JSON-RPC errors.
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
  });

  it('answers malformed JSON itself (-32700) when the host runs express.json() after mounting', async () => {
    const host = appWith((h, mcp) => {
      h.use('/mcp', mcp);
      h.use(express.json());
    });
    const res = await post(host, '{"jsonrpc":');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(JSON_TYPE);
    expect(JSON.parse(res.text)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: expect.any(String) },
    });
    const ok = await post(host, rpc('ping'));
    expect(ok.body).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('parses the text itself when the host ran express.text({ type: "application/json" }) first', async () => {
    const host = appWith((h, mcp) => {
      h.use(express.text({ type: 'application/json' }));
      h.use('/mcp', mcp);
    });
    const ok = await post(host, rpc('tools/call', { name: 'add', arguments: { a: 4, b: 5 } }), {
      'MCP-Protocol-Version': '2025-11-25',
    });
    expect(ok.status).toBe(200);
    expect(ok.body.result.structuredContent).toEqual({ sum: 9 });
    const bad = await post(host, '{"jsonrpc":');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: expect.any(String) },
    });
  });
});

describe('results that cannot be sent', () => {
  function cyclic(): Record<string, unknown> {
    const value: Record<string, unknown> = { name: 'loop' };
    value.self = value;
    return value;
  }

  it('answers -32603 for a result with a cycle, logs it, and keeps serving', async () => {
    const logger = silentLogger();
    const host = createApp({ logger }, (mcp) => {
      mcp.tool({
        name: 'cyclic',
        description: 'Returns a structuredContent with a cycle',
        handler: () => ({ content: [{ type: 'text', text: 'loop' }], structuredContent: cyclic() }),
      });
    });
    const res = await post(host, rpc('tools/call', { name: 'cyclic' }, 'c'), { 'MCP-Protocol-Version': '2025-11-25' });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({
      jsonrpc: '2.0',
      id: 'c',
      error: { code: -32603, message: 'Internal error' },
    });
    expect(logger.error).toHaveBeenCalledTimes(1);
    const ping = await post(host, rpc('ping'));
    expect(ping.body).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('answers -32603 for only the bad request of a batch', async () => {
    const logger = silentLogger();
    const host = createApp({ logger }, (mcp) => {
      mcp.tool({
        name: 'cyclic_meta',
        description: 'Returns a _meta with a cycle',
        handler: () => ({ content: [{ type: 'text', text: 'loop' }], _meta: cyclic() }),
      });
    });
    const res = await post(host, [rpc('ping', undefined, 1), rpc('tools/call', { name: 'cyclic_meta' }, 2)]);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual([
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'Internal error' } },
    ]);
    expect(logger.error).toHaveBeenCalledTimes(1);
  });
});

describe('client disconnects', () => {
  it('aborts ctx.signal when the client goes away mid-call', async () => {
    let signal: AbortSignal | undefined;
    let markStarted!: () => void;
    let markAborted!: (reason: unknown) => void;
    const started = new Promise<void>((resolve) => (markStarted = resolve));
    const aborted = new Promise<unknown>((resolve) => (markAborted = resolve));
    const logger = silentLogger();
    const host = createApp({ logger }, (mcp) => {
      mcp.tool({
        name: 'wait',
        description: 'Waits until cancelled',
        handler: (_args, ctx: RequestContext) =>
          new Promise((resolve) => {
            signal = ctx.signal;
            ctx.signal.addEventListener('abort', () => {
              markAborted(ctx.signal.reason);
              resolve('stopped');
            });
            markStarted();
          }),
      });
    });
    const server = host.listen(0, '127.0.0.1');
    try {
      await once(server, 'listening');
      const { port } = server.address() as AddressInfo;
      const req = http.request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/mcp',
        headers: { 'Content-Type': 'application/json', Accept: MCP_ACCEPT },
      });
      req.on('error', () => undefined); // the socket is destroyed on purpose below
      req.end(JSON.stringify(rpc('tools/call', { name: 'wait' })));

      await started;
      expect(signal?.aborted).toBe(false);
      req.destroy();
      await aborted;
      expect(signal?.aborted).toBe(true);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    expect(logger.error).not.toHaveBeenCalled();
  });
});
