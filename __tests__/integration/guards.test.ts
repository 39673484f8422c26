// Guards over HTTP (supertest, a real express() app) and with the official SDK client: tools, resources, templates, prompts, bridged routes and decorators.

import express, { type Express } from 'express';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import {
  ErrorCode,
  JsonRpcError,
  McpConfigError,
  guardFor,
  mcpRouter,
  type CallToolResult,
  type Guard,
  type McpRouter,
  type McpRouterOptions,
  type ToolGuard,
} from '../../lib';
import { tool } from '../../lib/decorators';
import { connectClient, type ConnectedClient } from '../helpers/connect-client';
import { createApp, post, rpc, silentLogger } from '../helpers/create-app';
import { configError } from '../helpers/errors';

/** Without this header a raw request is treated as 2025-03-26, which has no structuredContent. */
const V = { 'MCP-Protocol-Version': '2025-11-25' };

/** A JSON-RPC call over HTTP; its body (`result` or `error`) once the status is 200. */
async function call(
  app: Express,
  method: string,
  params: Record<string, unknown>,
): Promise<{ result?: Record<string, unknown>; error?: Record<string, unknown> }> {
  const res = await post(app, rpc(method, params), V);
  expect(res.status).toBe(200);
  return res.body as { result?: Record<string, unknown>; error?: Record<string, unknown> };
}

const failed = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

/**
 * TEST FIXTURE, not a product feature: a guard shaped like issue 18's x402 guard, to show the chain serves it.
 * No payment in `_meta.paid` → an isError result (payment required). With one → the tool runs; only after a
 * successful result is the payment "settled" and the receipt added to the result's `_meta`; a failing tool is
 * not settled; a failed settlement replaces the result (the output is withheld).
 */
function paymentShapedGuard(settle: jest.Mock<{ ok: boolean; tx?: string }, [unknown]>): ToolGuard {
  return async (call, next) => {
    const payment = call.meta?.paid;
    if (payment === undefined)
      return failed(
        JSON.stringify({
          error: 'payment required',
          resource: `mcp://tool/${call.name}`,
          price: call.descriptor._meta,
        }),
      );
    const result = await next();
    if (result.isError) return result;
    const receipt = settle(payment);
    if (!receipt.ok) return failed(JSON.stringify({ error: 'settlement failed' }));
    return { ...result, _meta: { ...result._meta, 'test/payment-response': receipt } };
  };
}

describe('a payment-shaped guard on a tool (the chain serves issue 18)', () => {
  const settle = jest.fn<{ ok: boolean; tx?: string }, [unknown]>(() => ({ ok: true, tx: '0xabc' }));
  const handler = jest.fn((args: { q?: string }) => ({ hits: [args.q ?? ''] }));
  let app: Express;

  beforeEach(() => {
    jest.clearAllMocks();
    app = createApp({ rateLimit: false }, (mcp) => {
      const pay = paymentShapedGuard(settle);
      mcp.tool({
        name: 'search',
        description: 'Paid search',
        _meta: { 'test/price': '0.01' },
        inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
        guards: [pay],
        handler,
      });
      mcp.tool({
        name: 'broken',
        description: 'Paid, and fails',
        guards: [pay],
        handler: () => {
          throw new Error('index offline');
        },
      });
      mcp.tool({
        name: 'sloppy',
        description: 'Paid, and breaks its outputSchema',
        outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
        guards: [pay],
        handler: () => ({ n: 'not a number' }),
      });
    });
  });

  it('ends an unpaid call with an isError result (HTTP 200), and the tool does not run', async () => {
    const { result } = await call(app, 'tools/call', { name: 'search', arguments: { q: 'x' } });
    expect(result).toEqual(
      failed('{"error":"payment required","resource":"mcp://tool/search","price":{"test/price":"0.01"}}'),
    );
    expect(handler).not.toHaveBeenCalled();
    expect(settle).not.toHaveBeenCalled();
  });

  it('with a payment: runs the tool, then settles and adds the receipt to the result _meta', async () => {
    const { result } = await call(app, 'tools/call', {
      name: 'search',
      arguments: { q: 'x' },
      _meta: { paid: 'token-1' },
    });
    expect(result).toEqual({
      content: [{ type: 'text', text: '{"hits":["x"]}' }],
      structuredContent: { hits: ['x'] },
      _meta: { 'test/payment-response': { ok: true, tx: '0xabc' } },
    });
    expect(settle).toHaveBeenCalledWith('token-1');
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it.each([
    ['a tool that throws', 'broken', failed('index offline')],
    [
      'output that fails the outputSchema',
      'sloppy',
      failed("Tool 'sloppy' returned output that does not match its outputSchema: n: must be number"),
    ],
  ])('does not settle %s: the guard sees the isError result', async (_label, name, expected) => {
    const { result } = await call(app, 'tools/call', { name, arguments: {}, _meta: { paid: 'token-2' } });
    expect(result).toEqual(expected);
    expect(settle).not.toHaveBeenCalled();
  });

  it('replaces the result when settlement fails (the output is withheld)', async () => {
    settle.mockReturnValueOnce({ ok: false });
    const { result } = await call(app, 'tools/call', {
      name: 'search',
      arguments: { q: 'secret' },
      _meta: { paid: 'token-3' },
    });
    expect(result).toEqual(failed('{"error":"settlement failed"}'));
    expect(JSON.stringify(result)).not.toContain('secret');
  });

  it('runs after argument validation: invalid arguments are answered before any payment is asked for', async () => {
    const { result } = await call(app, 'tools/call', { name: 'search', arguments: { q: 5 } });
    expect(result).toEqual(failed("Invalid arguments for tool 'search': q: must be string"));
  });
});

describe('router-wide and item guards over HTTP', () => {
  const logger = silentLogger();
  const log: string[] = [];
  const tracer = (name: string): Guard =>
    async function trace(call, next) {
      log.push(`${name}>${call.kind}:${call.name}`);
      const result = await next();
      log.push(`<${name}`);
      return result;
    };
  const blocked: Guard = (call, next) => {
    if (call.meta?.block === true)
      throw new JsonRpcError(ErrorCode.InvalidRequest, 'Blocked by policy', { kind: call.kind });
    return next();
  };
  const crashing: Guard = (call, next) => {
    if (call.meta?.crash === true) throw new Error('policy store unreachable');
    return next();
  };
  const options: Partial<McpRouterOptions> = {
    rateLimit: false,
    logger,
    guards: [tracer('router'), blocked, crashing],
  };
  let app: Express;

  beforeAll(() => {
    app = createApp(options, (mcp) => {
      mcp.tool({
        name: 'echo',
        description: 'Echo',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
        guards: [tracer('item')],
        handler: ({ text }) => text,
      });
      mcp.tool({ name: 'hidden', description: 'Hidden', scopes: ['admin'], handler: () => 'secret' });
      mcp.resource({
        uri: 'docs://readme',
        name: 'readme',
        guards: [
          tracer('item'),
          async (_call, next) => {
            const result = await next();
            return { contents: result.contents.map((content) => ({ ...content, _meta: { 'test/checked': true } })) };
          },
        ],
        read: () => '# Readme',
      });
      mcp.resourceTemplate({
        uriTemplate: 'users://{id}/profile',
        name: 'profile',
        guards: [
          (call, next) =>
            call.arguments.id === '0' ? Promise.resolve({ contents: [{ uri: call.uri, text: 'nobody' }] }) : next(),
        ],
        read: (_uri, { id }) => `user ${id}`,
      });
      mcp.prompt({
        name: 'review',
        arguments: [{ name: 'code', required: true }],
        guards: [
          tracer('item'),
          async (call, next) => {
            if (call.arguments.code === 'rm -rf /')
              throw new JsonRpcError(ErrorCode.InvalidParams, 'Refused: destructive code');
            return { ...(await next()), description: `Review (guarded) of ${call.name}` };
          },
        ],
        get: ({ code }) => `Review ${code}`,
      });
    });
  });

  beforeEach(() => {
    log.length = 0;
    jest.clearAllMocks();
  });

  it('runs the router-wide guards before the item’s, and their after steps in reverse', async () => {
    expect((await call(app, 'tools/call', { name: 'echo', arguments: { text: 'hi' } })).result).toEqual({
      content: [{ type: 'text', text: 'hi' }],
    });
    expect(log).toEqual(['router>tool:echo', 'item>tool:echo', '<item', '<router']);
  });

  it('changes a resource read in an after step', async () => {
    expect((await call(app, 'resources/read', { uri: 'docs://readme' })).result).toEqual({
      contents: [{ uri: 'docs://readme', text: '# Readme', _meta: { 'test/checked': true } }],
    });
    expect(log).toEqual(['router>resource:readme', 'item>resource:readme', '<item', '<router']);
  });

  it('ends a template read with contents of its own, from the matched variables', async () => {
    expect((await call(app, 'resources/read', { uri: 'users://0/profile' })).result).toEqual({
      contents: [{ uri: 'users://0/profile', text: 'nobody' }],
    });
    expect((await call(app, 'resources/read', { uri: 'users://7/profile' })).result).toEqual({
      contents: [{ uri: 'users://7/profile', text: 'user 7' }],
    });
  });

  it('changes a prompt get, and ends one with a JSON-RPC error', async () => {
    expect((await call(app, 'prompts/get', { name: 'review', arguments: { code: 'x' } })).result).toEqual({
      description: 'Review (guarded) of review',
      messages: [{ role: 'user', content: { type: 'text', text: 'Review x' } }],
    });
    expect((await call(app, 'prompts/get', { name: 'review', arguments: { code: 'rm -rf /' } })).error).toEqual({
      code: -32602,
      message: 'Refused: destructive code',
    });
  });

  it.each([
    ['tools/call', { name: 'echo', arguments: {} }, 'tool'],
    ['resources/read', { uri: 'docs://readme' }, 'resource'],
    ['resources/read', { uri: 'users://7/profile' }, 'resource'],
    ['prompts/get', { name: 'review', arguments: { code: 'x' } }, 'prompt'],
  ])(
    '%s: a guard ends the call with its JSON-RPC error, code, message and data as thrown (%j)',
    async (method, params, kind) => {
      const { result, error } = await call(app, method, { ...params, _meta: { block: true } });
      expect(result).toBeUndefined();
      expect(error).toEqual({ code: -32600, message: 'Blocked by policy', data: { kind } });
    },
  );

  it('a guard that throws: an isError result on a tool, as a throwing handler gives', async () => {
    expect((await call(app, 'tools/call', { name: 'echo', arguments: {}, _meta: { crash: true } })).result).toEqual(
      failed('policy store unreachable'),
    );
    expect(logger.error).not.toHaveBeenCalled();
  });

  it.each([
    ['resources/read', { uri: 'docs://readme' }],
    ['prompts/get', { name: 'review', arguments: { code: 'x' } }],
  ])(
    'a guard that throws: -32603 without internals on %s, as a throwing read/get gives, and it is logged',
    async (method, params) => {
      const { error } = await call(app, method, { ...params, _meta: { crash: true } });
      expect(error).toEqual({ code: -32603, message: 'Internal error' });
      expect(logger.error).toHaveBeenCalledWith(
        expect.objectContaining({ message: 'policy store unreachable' }),
        `mcpRouter: ${method} failed`,
      );
    },
  );

  it('does not run any guard for a caller the access rule denies: the error is the unknown tool’s', async () => {
    const denied = await call(app, 'tools/call', { name: 'hidden', arguments: {} });
    const unknown = await call(app, 'tools/call', { name: 'nope', arguments: {} });
    expect(denied.error).toEqual({ code: -32602, message: 'Unknown tool: hidden' });
    expect(unknown.error).toEqual({ code: -32602, message: 'Unknown tool: nope' });
    expect(log).toEqual([]);
  });
});

describe('guardFor over HTTP', () => {
  it('puts a tool guard router-wide: every tool, no resource', async () => {
    const stamp: ToolGuard = async (_call, next) => ({ ...(await next()), _meta: { 'test/stamped': true } });
    const app = createApp({ rateLimit: false, guards: [guardFor('tool', stamp)] }, (mcp) => {
      mcp.tool({ name: 'a', description: 'A', handler: () => 'a' });
      mcp.resource({ uri: 'docs://a', name: 'a', read: () => 'a' });
    });
    expect((await call(app, 'tools/call', { name: 'a' })).result).toEqual({
      content: [{ type: 'text', text: 'a' }],
      _meta: { 'test/stamped': true },
    });
    expect((await call(app, 'resources/read', { uri: 'docs://a' })).result).toEqual({
      contents: [{ uri: 'docs://a', text: 'a' }],
    });
  });
});

describe('guards on bridged routes and decorated tools', () => {
  const refuse: ToolGuard = (call) => failed(`refused ${call.name}`);

  it('a route exposed as a tool runs its guards before the route is dispatched', async () => {
    const route = jest.fn((_req: express.Request, res: express.Response) => res.json({ pong: true }));
    const app = express();
    app.get('/api/ping', route);
    const mcp = mcpRouter({ name: 'bridge', version: '1.0.0', sessions: false, rateLimit: false });
    mcp.exposeRoutes(app, [{ method: 'GET', path: '/api/ping', name: 'ping', description: 'Ping', guards: [refuse] }]);
    app.use('/mcp', mcp);
    expect((await call(app, 'tools/call', { name: 'ping', arguments: {} })).result).toEqual(failed('refused ping'));
    expect(route).not.toHaveBeenCalled();
  });

  it('a route wrapped with mcp.route() takes guards too', async () => {
    const route = jest.fn((_req: express.Request, res: express.Response) => res.json({ pong: true }));
    const app = express();
    const mcp = mcpRouter({ name: 'bridge', version: '1.0.0', sessions: false, rateLimit: false });
    app.get('/api/ping', mcp.route({ name: 'ping', description: 'Ping', guards: [refuse] }, route));
    app.use('/mcp', mcp);
    expect((await call(app, 'tools/call', { name: 'ping', arguments: {} })).result).toEqual(failed('refused ping'));
    expect(route).not.toHaveBeenCalled();
  });

  it('a decorated tool takes guards in its metadata', async () => {
    class Orders {
      @tool({ name: 'count_orders', description: 'Count orders', guards: [refuse] })
      count() {
        return 3;
      }
    }
    const app = createApp({ rateLimit: false }, (mcp) => mcp.register(new Orders()));
    expect((await call(app, 'tools/call', { name: 'count_orders', arguments: {} })).result).toEqual(
      failed('refused count_orders'),
    );
  });
});

describe('guards: configuration errors at boot', () => {
  it.each<[string, unknown, RegExp]>([
    [
      'a string',
      'pay',
      /^mcpRouter: option 'guards' must be an array of guard functions \(call, next\) => result, got "pay"$/,
    ],
    [
      'an array with a non-function',
      [() => undefined, 'pay'],
      /^mcpRouter: option 'guards' must be an array of guard functions/,
    ],
    ['an object', { tool: () => undefined }, /^mcpRouter: option 'guards' must be an array/],
  ])('router-wide guards as %s → ERR_MCP_INVALID_OPTION naming the option', (_label, guards, message) => {
    const err = configError(() => mcpRouter({ name: 'x', version: '1', guards: guards as Guard[] }));
    expect(err.code).toBe('ERR_MCP_INVALID_OPTION');
    expect(err.message).toMatch(message);
  });

  it('item guards that are not functions → ERR_MCP_INVALID_DEFINITION naming the item', () => {
    const mcp = mcpRouter({ name: 'x', version: '1' });
    expect(() => mcp.tool({ name: 'paid', description: 'd', guards: ['pay' as never], handler: () => 'x' })).toThrow(
      expect.objectContaining({
        code: 'ERR_MCP_INVALID_DEFINITION',
        message: "mcpRouter: tool 'paid' guards must be an array of guard functions (call, next) => result",
      }),
    );
    expect(() => mcp.prompt({ name: 'p', guards: {} as never, get: () => 'x' })).toThrow(McpConfigError);
  });

  it('keeps a copy of the router-wide guards: changing the array later changes nothing', async () => {
    const guards: Guard[] = [];
    const app = createApp({ rateLimit: false, guards }, (mcp) =>
      mcp.tool({ name: 'a', description: 'A', handler: () => 'a' }),
    );
    guards.push(() => {
      throw new JsonRpcError(ErrorCode.InvalidRequest, 'added later');
    });
    expect((await call(app, 'tools/call', { name: 'a' })).result).toEqual({ content: [{ type: 'text', text: 'a' }] });
  });
});

describe('guards with the official SDK client', () => {
  let connected: ConnectedClient;
  let mcp: McpRouter;

  beforeAll(async () => {
    mcp = mcpRouter({
      name: 'guarded',
      version: '1.0.0',
      rateLimit: false,
      guards: [
        (call, next) => {
          if (call.name === 'forbidden')
            throw new JsonRpcError(ErrorCode.InvalidRequest, 'Forbidden by policy', { name: call.name });
          return next();
        },
      ],
    });
    mcp.tool({
      name: 'paid',
      description: 'Paid tool',
      guards: [paymentShapedGuard(jest.fn<{ ok: boolean; tx?: string }, [unknown]>(() => ({ ok: true, tx: '0x1' })))],
      handler: () => ({ answer: 42 }),
    });
    mcp.tool({ name: 'forbidden', description: 'Refused by a router-wide guard', handler: () => 'never' });
    mcp.resource({ uri: 'docs://forbidden', name: 'forbidden', read: () => 'never' });
    const app = express();
    app.use('/mcp', mcp);
    connected = await connectClient(app);
  });
  afterAll(async () => {
    await connected?.close();
    await mcp?.close();
  });

  it('a guard ends a call with a result: the client gets it as the tool result', async () => {
    const result = await connected.client.callTool({ name: 'paid', arguments: {} });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([
      { type: 'text', text: '{"error":"payment required","resource":"mcp://tool/paid"}' },
    ]);
  });

  it('with a payment in _meta the client gets the result and the receipt', async () => {
    const result = await connected.client.callTool({ name: 'paid', arguments: {}, _meta: { paid: 'token' } });
    expect(result).toEqual({
      content: [{ type: 'text', text: '{"answer":42}' }],
      structuredContent: { answer: 42 },
      _meta: { 'test/payment-response': { ok: true, tx: '0x1' } },
    });
  });

  it.each([
    ['callTool', () => connected.client.callTool({ name: 'forbidden', arguments: {} })],
    ['readResource', () => connected.client.readResource({ uri: 'docs://forbidden' })],
  ])('a JSON-RPC error from a guard reaches the client (%s)', async (_label, run) => {
    const err = await run().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(err).toBeInstanceOf(McpError);
    expect(err).toMatchObject({ code: -32600, data: { name: 'forbidden' } });
    expect((err as McpError).message).toContain('Forbidden by policy');
  });
});
