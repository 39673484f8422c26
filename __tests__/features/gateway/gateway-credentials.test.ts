// Credentials at the gateway: the caller's Authorization and cookies never reach an upstream, `headers` and `forwardHeaders` do; local guards (x402, router-level) and scopes apply to upstream tools.

import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as z from 'zod/v4';
import { ErrorCode, JsonRpcError, mcpRouter, type Guard, type McpRouter, type RequestContext } from '../../../lib';
import { x402Facilitator, x402Guard, type PaymentPayload, type PaymentRequirements } from '../../../lib/x402';
import { startFacilitator, type FakeFacilitator } from '../payments/fake-facilitator';
import {
  closeAfterEach,
  closeGatewaysAfterEach,
  routerCallUpstream,
  sdkV1CallUpstream,
  serveGateway,
  type Received,
  type Upstream,
} from './upstreams';
import { PRICE } from '../payments/price';
import { scaled } from '../../helpers/time-scale';

closeGatewaysAfterEach();
closeAfterEach();

const TOKENS = [
  { token: 'alice-token', subject: 'alice', scopes: ['fs'] },
  { token: 'bob-token', subject: 'bob', scopes: [] },
];
/** What every caller sends: its own credentials (which must stay at the gateway) and two other headers. */
const CALLER_HEADERS = { Cookie: 'session=caller-cookie', 'X-Request-Id': 'req-42', 'X-Other': 'not-forwarded' };

const clients: V1Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

/** The SDK v1 client (2025) authenticated as `token`, sending {@link CALLER_HEADERS} on every request. */
async function callerClient(url: string, token: string): Promise<V1Client> {
  const client = new V1Client({ name: 'caller', version: '1.0.0' });
  await client.connect(
    new V1Transport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}`, ...CALLER_HEADERS } },
    }),
  );
  clients.push(client);
  return client;
}

function routerTools(mcp: McpRouter): void {
  mcp.tool({
    name: 'add',
    description: 'Adds',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
    handler: ({ a, b }: { a: number; b: number }) => String(a + b),
  });
}

/** Two upstreams recording every request: the SDK v1 McpServer (2025, a session) and this router (2026). */
async function bothEras(): Promise<{ v1: Upstream; router: Upstream; received: Record<'v1' | 'router', Received[]> }> {
  const received = { v1: [] as Received[], router: [] as Received[] };
  const v1 = await sdkV1CallUpstream((server) => {
    server.registerTool(
      'add',
      { description: 'Adds', inputSchema: { a: z.number(), b: z.number() } },
      async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
    );
  }, received.v1);
  const router = await routerCallUpstream({}, routerTools, received.router);
  return { v1, router, received };
}

describe("the caller's credentials never reach an upstream; the upstream's own do, on every request", () => {
  it('a headers function that throws: the caller gets -32603 naming the upstream, logger.error what it threw', async () => {
    const SECRET = 'exchange-refused-s3cr3t-0815';
    const router = await routerCallUpstream({}, routerTools);
    const logger = { error: jest.fn(), warn: jest.fn() };
    const gateway = await serveGateway({ auth: { tokens: TOKENS }, logger }, (mcp) => [
      mcp.upstream({
        prefix: 'new',
        url: router.url,
        headers: (ctx) => {
          if (ctx === undefined) return { authorization: 'Bearer up' };
          throw new Error(`token exchange for ${ctx.auth?.subject}: ${SECRET}`);
        },
      }),
    ]);
    const client = await callerClient(gateway.url, 'alice-token');
    const error: unknown = await client.callTool({ name: 'new__add', arguments: { a: 1, b: 2 } }).catch((e) => e);
    expect(error).toMatchObject({
      code: ErrorCode.InternalError,
      message: expect.stringContaining('Upstream "new" could not be called: its headers function failed'),
    });
    expect(JSON.stringify(error) + String(error)).not.toContain(SECRET);
    expect(logger.error).toHaveBeenCalledWith(
      expect.objectContaining({ message: `token exchange for alice: ${SECRET}` }),
      "mcpRouter: upstream 'new': its headers function failed",
    );
  });

  it("static headers: 'Bearer up' on the handshake, lists, calls and the session's DELETE; no caller Authorization or Cookie anywhere", async () => {
    const { v1, router, received } = await bothEras();
    const gateway = await serveGateway({ auth: { tokens: TOKENS } }, (mcp) => [
      mcp.upstream({ prefix: 'old', url: v1.url, headers: { authorization: 'Bearer up' } }),
      mcp.upstream({ prefix: 'new', url: router.url, headers: { authorization: 'Bearer up' } }),
    ]);
    const client = await callerClient(gateway.url, 'alice-token');
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['new__add', 'old__add']);
    expect(await client.callTool({ name: 'old__add', arguments: { a: 1, b: 2 } })).toEqual({
      content: [{ type: 'text', text: '3' }],
    });
    expect(await client.callTool({ name: 'new__add', arguments: { a: 1, b: 2 } })).toMatchObject({
      content: [{ type: 'text', text: '3' }],
    });
    await gateway.mcp.close();
    expect(received.v1.map((request) => request.rpc ?? request.http)).toEqual(
      expect.arrayContaining([
        'server/discover',
        'initialize',
        'notifications/initialized',
        'tools/list',
        'tools/call',
        'DELETE',
      ]),
    );
    expect(received.router.map((request) => request.rpc)).toEqual(
      expect.arrayContaining(['server/discover', 'tools/list', 'tools/call']),
    );
    for (const request of [...received.v1, ...received.router]) {
      expect({
        what: request.rpc ?? request.http,
        authorization: request.headers.authorization,
        cookie: request.headers.cookie,
      }).toEqual({ what: request.rpc ?? request.http, authorization: 'Bearer up', cookie: undefined });
    }
  });

  it("without headers, an upstream gets no Authorization at all (the caller's is not passed through)", async () => {
    const { v1, router, received } = await bothEras();
    const gateway = await serveGateway({ auth: { tokens: TOKENS } }, (mcp) => [
      mcp.upstream({ prefix: 'old', url: v1.url }),
      mcp.upstream({ prefix: 'new', url: router.url }),
    ]);
    const client = await callerClient(gateway.url, 'alice-token');
    await client.callTool({ name: 'old__add', arguments: { a: 1, b: 2 } });
    await client.callTool({ name: 'new__add', arguments: { a: 1, b: 2 } });
    const calls = [...received.v1, ...received.router].filter((request) => request.rpc === 'tools/call');
    expect(calls).toHaveLength(2);
    for (const request of [...received.v1, ...received.router]) {
      expect(JSON.stringify(request.headers)).not.toMatch(/alice-token|caller-cookie/);
    }
  });

  it("headers as a function: called with undefined for the handshake and lists, with the caller's ctx for calls", async () => {
    const { v1, router, received } = await bothEras();
    const asked: (string | undefined)[] = [];
    const perCaller = (ctx: RequestContext | undefined): Record<string, string> => {
      asked.push(ctx === undefined ? undefined : ctx.auth?.subject);
      return { authorization: `Bearer for-${ctx?.auth?.subject ?? 'gateway'}` };
    };
    const gateway = await serveGateway({ auth: { tokens: TOKENS } }, (mcp) => [
      mcp.upstream({ prefix: 'old', url: v1.url, headers: perCaller }),
      mcp.upstream({ prefix: 'new', url: router.url, headers: perCaller }),
    ]);
    expect(new Set(asked)).toEqual(new Set([undefined]));
    await (await callerClient(gateway.url, 'alice-token')).callTool({ name: 'old__add', arguments: { a: 1, b: 2 } });
    await (await callerClient(gateway.url, 'bob-token')).callTool({ name: 'new__add', arguments: { a: 1, b: 2 } });
    expect(asked.filter((subject) => subject !== undefined)).toEqual(['alice', 'bob']);
    const authorizations = (list: Received[]): Record<string, unknown> =>
      Object.fromEntries(
        list
          .filter((request) => request.rpc !== undefined)
          .map((request) => [request.rpc, request.headers.authorization]),
      );
    expect(authorizations(received.v1)).toEqual({
      'server/discover': 'Bearer for-gateway',
      initialize: 'Bearer for-gateway',
      'notifications/initialized': 'Bearer for-gateway',
      'tools/list': 'Bearer for-gateway',
      'prompts/list': 'Bearer for-gateway',
      'resources/list': 'Bearer for-gateway',
      'resources/templates/list': 'Bearer for-gateway',
      'tools/call': 'Bearer for-alice',
    });
    expect(authorizations(received.router)).toMatchObject({
      'server/discover': 'Bearer for-gateway',
      'tools/list': 'Bearer for-gateway',
      'tools/call': 'Bearer for-bob',
    });
  });

  it("forwardHeaders: ['x-request-id'] copies that header of the caller's call, and no other", async () => {
    const { v1, router, received } = await bothEras();
    const gateway = await serveGateway({ auth: { tokens: TOKENS } }, (mcp) => [
      mcp.upstream({ prefix: 'old', url: v1.url, forwardHeaders: ['x-request-id'] }),
      mcp.upstream({ prefix: 'new', url: router.url, forwardHeaders: ['X-Request-Id'] }),
    ]);
    const client = await callerClient(gateway.url, 'alice-token');
    await client.callTool({ name: 'old__add', arguments: { a: 1, b: 2 } });
    await client.callTool({ name: 'new__add', arguments: { a: 1, b: 2 } });
    for (const list of [received.v1, received.router]) {
      const call = list.find((request) => request.rpc === 'tools/call')!;
      expect(call.headers['x-request-id']).toBe('req-42');
      expect(call.headers['x-other']).toBeUndefined();
      expect(call.headers.authorization).toBeUndefined();
      expect(call.headers.cookie).toBeUndefined();
      // The gateway's own requests (handshake, lists) have no caller, so nothing to forward.
      expect(
        list.filter((request) => request.headers['x-request-id'] !== undefined).map((request) => request.rpc),
      ).toEqual(['tools/call']);
    }
  });
});

describe('an upstream behind bearer auth', () => {
  it.each([
    { era: '2026', options: {} },
    { era: '2025', options: { eras: ['2025' as const], sessions: {} } },
  ])('($era) is connected with the static headers, and refuses the gateway without them', async ({ era, options }) => {
    const upstream = await routerCallUpstream({ ...options, auth: { tokens: ['up-secret'] } }, routerTools);
    const gateway = await serveGateway({}, (mcp) => [
      mcp.upstream({ prefix: 'good', url: upstream.url, headers: { Authorization: 'Bearer up-secret' } }),
      mcp.upstream({ prefix: 'bare', url: upstream.url, listTimeoutMs: 1_000 }),
    ]);
    const [good, bare] = gateway.handles.map((handle) => handle.status());
    expect(good).toMatchObject({ state: 'healthy', era, items: { tools: 1 } });
    expect(bare).toMatchObject({
      state: 'down',
      error: 'Upstream "bare" refused the gateway\'s credentials (HTTP 401)',
    });
    const client = new V1Client({ name: 'caller', version: '1.0.0' });
    await client.connect(new V1Transport(new URL(gateway.url)));
    clients.push(client);
    expect(await client.callTool({ name: 'good__add', arguments: { a: 2, b: 2 } })).toMatchObject({
      content: [{ type: 'text', text: '4' }],
    });
  });
});

describe("an upstream's own headers", () => {
  it('may not set a protocol header: refused at boot, naming the option and the header', () => {
    const mcp = mcpRouter({ name: 'gw', version: '1.0.0' });
    for (const name of ['MCP-Protocol-Version', 'mcp-session-id', 'Mcp-Method', 'Content-Type', 'Last-Event-ID']) {
      expect(() => mcp.upstream({ prefix: 'up', url: 'http://127.0.0.1:1/mcp', headers: { [name]: 'x' } })).toThrow(
        `upstream 'up': option 'headers' must be free of protocol headers: the gateway writes those of each hop itself, got "${name}"`,
      );
    }
  });

  it.each([
    { era: '2026', options: {} },
    { era: '2025', options: { eras: ['2025' as const], sessions: {} } },
  ])('($era) from a function never replace the protocol headers, whatever their case', async ({ era, options }) => {
    const upstream = await routerCallUpstream(options, routerTools);
    const gateway = await serveGateway({}, (mcp) => [
      mcp.upstream({
        prefix: 'up',
        url: upstream.url,
        headers: () => ({ 'MCP-Protocol-Version': '1999-01-01', 'Mcp-Method': 'ping', 'X-Tenant': 't1' }),
      }),
    ]);
    expect(gateway.handles[0]!.status()).toMatchObject({ state: 'healthy', era, items: { tools: 1 } });
    const client = new V1Client({ name: 'caller', version: '1.0.0' });
    await client.connect(new V1Transport(new URL(gateway.url)));
    clients.push(client);
    expect(await client.callTool({ name: 'up__add', arguments: { a: 1, b: 2 } })).toMatchObject({
      content: [{ type: 'text', text: '3' }],
    });
  });
});

describe('a paid upstream tool behind a local x402 guard', () => {
  const payment = (nonce: string): PaymentPayload => ({
    x402Version: 2,
    accepted: PRICE,
    payload: { signature: 'ok', authorization: { from: '0xPayer', nonce } },
  });
  let facilitator: FakeFacilitator;
  beforeAll(async () => {
    facilitator = await startFacilitator();
  });
  afterAll(() => facilitator?.close());

  it.each([
    {
      era: '2025',
      start: (received: Received[]) =>
        sdkV1CallUpstream((server) => {
          server.registerTool('search', { description: 'Searches', inputSchema: { q: z.string() } }, async ({ q }) => ({
            content: [{ type: 'text', text: `hits for ${q}` }],
          }));
        }, received),
    },
    {
      era: '2026',
      start: (received: Received[]) =>
        routerCallUpstream(
          {},
          (mcp) => {
            mcp.tool({
              name: 'search',
              description: 'Searches',
              inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
              handler: ({ q }: { q: string }) => `hits for ${q}`,
            });
          },
          received,
        ),
    },
  ])(
    '($era upstream) unpaid: PaymentRequired, the upstream not called; paid: called once, settled, the payment not forwarded',
    async ({ era, start }) => {
      const received: Received[] = [];
      const upstream = await start(received);
      const pay = x402Guard({
        facilitator: x402Facilitator({ url: facilitator.url, timeoutMs: scaled(2_000) }),
        accepts: [PRICE],
      });
      const gateway = await serveGateway({}, (mcp) => [
        mcp.upstream({ prefix: 'idx', url: upstream.url, guards: { search: [pay] } }),
      ]);
      expect(gateway.handles[0]!.status().era).toBe(era);
      const client = new V1Client({ name: 'payer', version: '1.0.0' });
      await client.connect(new V1Transport(new URL(gateway.url)));
      clients.push(client);
      const calls = (): number => received.filter((request) => request.rpc === 'tools/call').length;

      const unpaid = await client.callTool({ name: 'idx__search', arguments: { q: 'x' } });
      expect(unpaid).toMatchObject({ isError: true, structuredContent: { x402Version: 2, accepts: [PRICE] } });
      expect(calls()).toBe(0);

      const paid = await client.callTool({
        name: 'idx__search',
        arguments: { q: 'x' },
        _meta: { 'x402/payment': payment(`gw-${era}`), 'example.com/trace': 't-1' },
      });
      expect(paid.isError).toBeUndefined();
      expect(paid.content).toEqual([{ type: 'text', text: 'hits for x' }]);
      expect(paid._meta?.['x402/payment-response']).toEqual({
        success: true,
        payer: '0xPayer',
        transaction: `0xtx-gw-${era}`,
        network: 'eip155:84532',
      });
      expect(calls()).toBe(1);
      // The guard here consumed the payment: the upstream gets the rest of the caller's _meta, never the payment.
      const meta = received.find((request) => request.rpc === 'tools/call')!.meta ?? {};
      expect(meta['example.com/trace']).toBe('t-1');
      expect(Object.keys(meta).filter((key) => key.startsWith('x402'))).toEqual([]);
    },
  );

  it('a payment in the PAYMENT-SIGNATURE header is consumed here and not forwarded, even with forwardHeaders naming it (issue 29: one payment, one call)', async () => {
    const received: Received[] = [];
    const upstream = await routerCallUpstream(
      {},
      (mcp) => {
        mcp.tool({
          name: 'search',
          description: 'Searches',
          inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
          handler: ({ q }: { q: string }) => `hits for ${q}`,
        });
      },
      received,
    );
    const pay = x402Guard({
      facilitator: x402Facilitator({ url: facilitator.url, timeoutMs: scaled(2_000) }),
      accepts: [PRICE],
    });
    const gateway = await serveGateway({}, (mcp) => [
      mcp.upstream({
        prefix: 'idx',
        url: upstream.url,
        guards: { search: [pay] },
        forwardHeaders: ['payment-signature', 'x-payment', 'x-request-id'],
      }),
    ]);
    const header = Buffer.from(JSON.stringify(payment('gw-header'))).toString('base64');
    const client = new V1Client({ name: 'payer', version: '1.0.0' });
    await client.connect(
      new V1Transport(new URL(gateway.url), {
        requestInit: { headers: { 'PAYMENT-SIGNATURE': header, 'X-Request-Id': 'req-7' } },
      }),
    );
    clients.push(client);
    const paid = await client.callTool({ name: 'idx__search', arguments: { q: 'x' } });
    expect(paid._meta?.['x402/payment-response']).toMatchObject({ success: true });
    const call = received.find((request) => request.rpc === 'tools/call')!;
    expect(call.headers['x-request-id']).toBe('req-7');
    expect(call.headers['payment-signature']).toBeUndefined();
  });
});

describe('router guards and upstream scopes apply to upstream items as to local ones', () => {
  it("scopes: ['fs'] hides the upstream's tools from a caller without the scope; calling one is an unknown tool", async () => {
    const { router } = await bothEras();
    const gateway = await serveGateway({ auth: { tokens: TOKENS } }, (mcp) => {
      mcp.tool({ name: 'local', description: 'A local tool', handler: () => 'local' });
      return [mcp.upstream({ prefix: 'fs', url: router.url, scopes: ['fs'] })];
    });
    const alice = await callerClient(gateway.url, 'alice-token');
    const bob = await callerClient(gateway.url, 'bob-token');
    expect((await alice.listTools()).tools.map((tool) => tool.name)).toEqual(['local', 'fs__add']);
    expect((await bob.listTools()).tools.map((tool) => tool.name)).toEqual(['local']);
    expect(await alice.callTool({ name: 'fs__add', arguments: { a: 1, b: 1 } })).toMatchObject({
      content: [{ type: 'text', text: '2' }],
    });
    const denied = await bob.callTool({ name: 'fs__add', arguments: { a: 1, b: 1 } }).then(
      () => undefined,
      (error: unknown) => error as { code: number; message: string },
    );
    expect(denied).toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringMatching(/Unknown tool: fs__add/),
    });
  });

  it('a router-level guard sees upstream calls under their downstream names and can refuse one before it reaches the upstream', async () => {
    const { router, received } = await bothEras();
    const seen: string[] = [];
    const onlyAlice: Guard = (call, next) => {
      seen.push(`${call.ctx.auth?.subject ?? '-'} ${call.name}`);
      if (call.ctx.auth?.subject !== 'alice')
        throw new JsonRpcError(ErrorCode.InvalidRequest, 'Only alice may call tools');
      return next();
    };
    const gateway = await serveGateway({ auth: { tokens: TOKENS }, guards: [onlyAlice] }, (mcp) => [
      mcp.upstream({ prefix: 'new', url: router.url }),
    ]);
    const alice = await callerClient(gateway.url, 'alice-token');
    const bob = await callerClient(gateway.url, 'bob-token');
    expect(await alice.callTool({ name: 'new__add', arguments: { a: 1, b: 1 } })).toMatchObject({
      content: [{ type: 'text', text: '2' }],
    });
    await expect(bob.callTool({ name: 'new__add', arguments: { a: 1, b: 1 } })).rejects.toMatchObject({
      code: ErrorCode.InvalidRequest,
      message: expect.stringMatching(/Only alice may call tools/),
    });
    expect(seen).toEqual(['alice new__add', 'bob new__add']);
    expect(received.router.filter((request) => request.rpc === 'tools/call')).toHaveLength(1);
  });
});
