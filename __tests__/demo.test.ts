// The demo store: its legacy REST API still answers as before, and MCP reaches all of it, as a newcomer
// would use it from the official SDK client (`npm run demo` as a child process: demo-process.test.ts).

import request from 'supertest';
import {
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { createDemoApp } from '../demo/server';
import { connectionHelp, inspectorCommand } from '../demo/connect';
import { FORECAST_PRICE } from '../demo/store-mcp';
import { testPayment } from '../lib/x402-testing';
import { connectClient, type ConnectedClient } from './helpers/connect-client';
import { STORE_RESOURCE_URIS } from './helpers/demo-lists';

const token = 'demo-test-token';
const bearer = { Authorization: `Bearer ${token}` };

function text(result: Record<string, unknown>): string {
  return (result.content as Array<{ text?: string }>).map((block) => block.text ?? '').join('');
}

describe('the demo store over MCP', () => {
  let connected: ConnectedClient;
  const logs: Array<{ level: string; data: unknown }> = [];
  beforeAll(async () => {
    connected = await connectClient(createDemoApp({ token }), '/mcp', bearer);
    connected.client.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => {
      logs.push({ level: params.level, data: params.data });
    });
  });
  afterAll(() => connected?.close());

  it('lists the tools of all three bridge styles next to its own, and its resources and prompts', async () => {
    const { client } = connected;
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
      'audit_inventory',
      'premium_stock_forecast', // paid (x402), through the demo's test facilitator
      'order_form', // the order form app's (demo/apps/order-app.ts)
      'list_customers', // decorated controller
      'get_customer',
      'list_orders', // mcp.exposeRoutes
      'get_order',
      'place_order',
      'cancel_order',
      'list_products', // mcp.route wrappers, learned from the app on the first request (so listed last)
      'get_product',
      'restock_product',
    ]);
    expect((await client.listResources()).resources.map((resource) => resource.uri)).toEqual([...STORE_RESOURCE_URIS]);
    expect((await client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate)).toEqual([
      'product://{id}',
      'customer://{id}',
      'skill://{+path}', // every other file of a skill
    ]);
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['recommend', 'follow_up_email']);
  });

  it('audits the inventory with a progress notification per product and log lines for low stock', async () => {
    const progress: Array<{ progress: number; total?: number }> = [];
    logs.length = 0;
    const result = await connected.client.callTool({ name: 'audit_inventory', arguments: { delayMs: 0 } }, undefined, {
      onprogress: ({ progress: done, total }) => progress.push({ progress: done, total }),
    });
    expect(result.structuredContent).toEqual({
      products: 10,
      units: 111,
      value: 4881.7,
      lowStock: ['p2', 'p4', 'p7', 'p9'],
    });
    expect(progress).toHaveLength(10);
    expect(progress.at(-1)).toEqual({ progress: 10, total: 10 });
    expect(logs.map((log) => log.level)).toEqual(['info', 'warning', 'warning', 'warning', 'warning']);
    expect(logs[1]?.data).toBe('Filter roast, 250 g: 3 left');
  });

  it('places and cancels an order through the whole app (its API-key middleware lets MCP calls through)', async () => {
    const { client } = connected;
    const placed = await client.callTool({
      name: 'place_order',
      arguments: { customerId: 'c2', lines: [{ productId: 'p5', quantity: 2 }] },
    });
    expect(placed.structuredContent).toMatchObject({ id: 'o1003', customerId: 'c2', total: 44, status: 'placed' });
    expect((await client.callTool({ name: 'get_product', arguments: { id: 'p5' } })).structuredContent).toMatchObject({
      stock: 13,
    });
    expect(
      (await client.callTool({ name: 'cancel_order', arguments: { id: 'o1003' } })).structuredContent,
    ).toMatchObject({ status: 'cancelled' });
    expect((await client.callTool({ name: 'get_product', arguments: { id: 'p5' } })).structuredContent).toMatchObject({
      stock: 15,
    });
    const again = await client.callTool({ name: 'cancel_order', arguments: { id: 'o1003' } });
    expect(again.isError).toBe(true);
    expect(text(again)).toBe(
      'HTTP 409 Conflict: {"error":"Order o1003 is cancelled; only placed orders can be cancelled."}',
    );
  });

  it("tells the model what went wrong in the legacy API's own words", async () => {
    const { client } = connected;
    const unknown = await client.callTool({
      name: 'place_order',
      arguments: { customerId: 'c9', lines: [{ productId: 'p1', quantity: 1 }] },
    });
    expect(unknown).toEqual({
      content: [{ type: 'text', text: `HTTP 400 Bad Request: {"error":"Unknown customer 'c9'."}` }],
      isError: true,
    });
    const tooMany = await client.callTool({
      name: 'place_order',
      arguments: { customerId: 'c1', lines: [{ productId: 'p7', quantity: 5 }] },
    });
    expect(text(tooMany)).toBe(`HTTP 409 Conflict: {"error":"Only 2 of 'Espresso machine' in stock."}`);
  });

  it('runs the wrapped product routes, with query and body arguments', async () => {
    const { client } = connected;
    const brewers = await client.callTool({
      name: 'list_products',
      arguments: { category: 'grinders', inStock: true },
    });
    expect(brewers.structuredContent).toEqual({
      products: [{ id: 'p3', name: 'Burr grinder', category: 'grinders', price: 189, stock: 6 }],
    });
    expect(
      (await client.callTool({ name: 'restock_product', arguments: { id: 'p4', units: 5 } })).structuredContent,
    ).toMatchObject({ id: 'p4', stock: 5 });
    const invalid = await client.callTool({ name: 'restock_product', arguments: { id: 'p4', units: 0 } });
    expect(invalid.isError).toBe(true);
    expect(text(invalid)).toContain('units: must be >= 1');
  });

  it('serves the decorated controller: a customer as a tool, a resource and a prompt', async () => {
    const { client } = connected;
    expect((await client.callTool({ name: 'get_customer', arguments: { id: 'c3' } })).structuredContent).toMatchObject({
      name: 'Grace Hopper',
      orders: [{ id: 'o1002' }],
    });
    const read = await client.readResource({ uri: 'customer://c1' });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ id: 'c1', tier: 'gold' });
    const prompt = await client.getPrompt({ name: 'follow_up_email', arguments: { customerId: 'c1' } });
    expect(prompt.messages[0]?.content).toEqual({
      type: 'text',
      text: 'Write a short, friendly email to Ada Lovelace <ada@example.com> about their order o1001 (shipped, 49 EUR). Read customer://c1 for details.',
    });
  });

  it('reads products by URI and completes product ids and brewing styles', async () => {
    const { client } = connected;
    const read = await client.readResource({ uri: 'product://p1' });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({
      id: 'p1',
      name: 'Espresso beans, 1 kg',
    });
    await expect(client.readResource({ uri: 'product://p99' })).rejects.toMatchObject({
      code: -32002,
      message: expect.stringContaining("No product 'p99'."),
      data: { uri: 'product://p99' },
    });
    await expect(client.readResource({ uri: 'customer://c9' })).rejects.toMatchObject({ code: -32002 });
    await expect(client.getPrompt({ name: 'follow_up_email', arguments: { customerId: 'c9' } })).rejects.toMatchObject({
      code: -32602,
    });
    const ids = await client.complete({
      ref: { type: 'ref/resource', uri: 'product://{id}' },
      argument: { name: 'id', value: 'p1' },
    });
    expect(ids.completion.values).toEqual(['p1', 'p10']);
    const styles = await client.complete({
      ref: { type: 'ref/prompt', name: 'recommend' },
      argument: { name: 'style', value: 'f' },
    });
    expect(styles.completion.values).toEqual(['filter', 'french press']);
  });

  it('tells a client subscribed to a product that a restock changed it (mcp.notifyResourceUpdated)', async () => {
    const { client } = connected;
    const updated = new Promise<string>((resolve) =>
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, ({ params }) => resolve(params.uri)),
    );
    await client.subscribeResource({ uri: 'product://p5' });
    await client.callTool({ name: 'restock_product', arguments: { id: 'p5', units: 1 } });
    expect(await updated).toBe('product://p5');
  });
});

it('names PUBLIC_URL (publicUrl) in its sign-in metadata and accepts its Host, as a tunnel reaches it', async () => {
  const app = createDemoApp({ token, publicUrl: 'https://demo.tunnel.example/mcp' });
  const { body } = await request(app)
    .get('/mcp/.well-known/oauth-protected-resource')
    .set('Host', 'demo.tunnel.example')
    .expect(200);
  expect(body.resource).toBe('https://demo.tunnel.example/mcp');
});

describe('the demo store over HTTP', () => {
  const app = createDemoApp({ token, apiKey: 'k', allowedOrigins: ['https://play.example'] });

  it('keeps its REST API behind the API key', async () => {
    await request(app).get('/api/products/p2').expect(401, { error: 'Send the API key in the x-api-key header.' });
    const { body } = await request(app).get('/api/products/p2').set('x-api-key', 'k').expect(200);
    expect(body).toMatchObject({ id: 'p2', stock: 3 });
    await request(app).get('/api/nothing').set('x-api-key', 'k').expect(404, { error: 'Not found' });
  });

  it('refuses MCP calls without the token, with a bearer challenge', async () => {
    const response = await request(app)
      .post('/mcp')
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/^Bearer /);
  });

  it('answers CORS preflights from localhost pages and the listed origins, and refuses others', async () => {
    for (const origin of ['http://localhost:5173', 'https://play.example']) {
      const preflight = await request(app)
        .options('/mcp')
        .set('Origin', origin)
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'authorization, content-type, mcp-session-id');
      expect(preflight.status).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe(origin);
    }
    for (const origin of ['https://evil.example', 'null']) {
      await request(app)
        .post('/mcp')
        .set('Origin', origin)
        .set(bearer)
        .send({ jsonrpc: '2.0', id: 1, method: 'ping' })
        .expect(403);
    }
  });

  it('rate-limits MCP traffic, saying so in the headers', async () => {
    const response = await request(app).post('/mcp').set(bearer).send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(response.headers.ratelimit).toMatch(/^"600-in-1min"; r=\d+; t=\d+$/);
  });

  /** A 2025 session over plain HTTP: initialize, then each call with its Mcp-Session-Id; JSON or SSE replies read alike. */
  async function openSession(): Promise<
    (id: number, method: string, params?: Record<string, unknown>) => Promise<Record<string, unknown>>
  > {
    const accept = { Accept: 'application/json, text/event-stream' };
    const init = await request(app)
      .post('/mcp')
      .set(accept)
      .set(bearer)
      .send({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'supertest', version: '1' } },
      })
      .expect(200);
    const session = { 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-06-18' };
    await request(app)
      .post('/mcp')
      .set(accept)
      .set(bearer)
      .set(session)
      .send({ jsonrpc: '2.0', method: 'notifications/initialized' })
      .expect(202);
    return async (id, method, params) => {
      const response = await request(app)
        .post('/mcp')
        .set(accept)
        .set(bearer)
        .set(session)
        .send({ jsonrpc: '2.0', id, method, params })
        .expect(200);
      const body = /^text\/event-stream/.test(String(response.headers['content-type']))
        ? JSON.parse(
            response.text
              .split('\n')
              .filter((line) => line.startsWith('data: '))
              .map((line) => line.slice(6))
              .at(-1) ?? 'null',
          )
        : response.body;
      return (body as { result: Record<string, unknown> }).result;
    };
  }

  it('sells premium_stock_forecast with x402: the price, a test payment that settles, and a replay refused', async () => {
    const call = await openSession();
    const unpaid = await call(1, 'tools/call', { name: 'premium_stock_forecast', arguments: { days: 10 } });
    expect(unpaid.isError).toBe(true);
    expect(unpaid.structuredContent).toEqual({
      x402Version: 2,
      resource: expect.objectContaining({ url: 'mcp://tool/premium_stock_forecast' }),
      accepts: [FORECAST_PRICE],
    });
    expect(JSON.parse(text(unpaid))).toEqual(unpaid.structuredContent);

    // What the package's test facilitator accepts: a testPayment() of the price asked.
    const payment = testPayment(FORECAST_PRICE);
    const paid = await call(2, 'tools/call', {
      name: 'premium_stock_forecast',
      arguments: { days: 10 },
      _meta: { 'x402/payment': payment },
    });
    expect(paid.isError).toBeUndefined();
    expect(paid.structuredContent).toEqual({
      days: 10,
      reorder: expect.arrayContaining([{ id: 'p2', name: expect.any(String), stock: 3, runsOutInDays: 6, reorder: 2 }]),
    });
    expect((paid._meta as Record<string, unknown>)['x402/payment-response']).toEqual({
      success: true,
      payer: (payment.payload.authorization as { from: string }).from,
      transaction: expect.stringMatching(/^0xtest-[0-9a-f]{16}$/),
      network: 'eip155:84532',
      amount: '10000',
    });

    const replay = await call(3, 'tools/call', {
      name: 'premium_stock_forecast',
      arguments: { days: 10 },
      _meta: { 'x402/payment': payment },
    });
    expect(replay.isError).toBe(true);
    expect(replay.structuredContent).toMatchObject({ error: 'Payment already used', accepts: [FORECAST_PRICE] });

    const forged = await call(4, 'tools/call', {
      name: 'premium_stock_forecast',
      arguments: {},
      _meta: {
        'x402/payment': { ...payment, payload: { ...testPayment(FORECAST_PRICE).payload, signature: '0xreal?' } },
      },
    });
    expect(forged.structuredContent).toMatchObject({
      error: expect.stringMatching(/^Payment verification failed: invalid_signature/),
    });
  });

  it('shows the price of the paid tool in tools/list', async () => {
    const call = await openSession();
    const { tools } = (await call(1, 'tools/list')) as {
      tools: Array<{ name: string; _meta?: Record<string, unknown> }>;
    };
    expect(tools.find((tool) => tool.name === 'premium_stock_forecast')?._meta).toEqual({
      'x402/paid': true,
      'x402/accepts': [FORECAST_PRICE],
    });
  });

  it('answers a body that is not JSON, or too large, with a JSON error, not an HTML page', async () => {
    const sent = [
      ['/playground/test-payment', '{bad'],
      ['/playground/test-payment', JSON.stringify({ pad: 'x'.repeat(200_000) })],
      ['/api/orders', '{bad'],
    ] as const;
    for (const [path, body] of sent) {
      const res = await request(app)
        .post(path)
        .set('x-api-key', 'k')
        .set('Content-Type', 'application/json')
        .send(body);
      expect([path, res.status, res.headers['content-type']]).toEqual([
        path,
        body === '{bad' ? 400 : 413,
        'application/json; charset=utf-8',
      ]);
      expect(res.body.error).toEqual(expect.any(String));
    }
    // The playground's test payment: a price in, a payment out; anything else is a 400 saying what was expected.
    const price = {
      scheme: 'exact',
      network: 'eip155:84532',
      amount: '1',
      asset: '0xa',
      payTo: '0xb',
      maxTimeoutSeconds: 9,
    };
    const made = await request(app).post('/playground/test-payment').send(price).expect(200);
    expect(made.body).toMatchObject({ x402Version: 2, accepted: price });
    const refused = await request(app).post('/playground/test-payment').send([1]).expect(400);
    expect(refused.body.error).toMatch(/expected x402 PaymentRequirements/);
  });

  it('serves the playground, and sends / there', async () => {
    await request(app).get('/').expect(302).expect('Location', '/playground/');
    const page = await request(app).get('/playground/').expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
  });
});

describe('the start-up message', () => {
  const help = connectionHelp({ origin: 'http://127.0.0.1:3000', token: 'tok', apiKey: 'key' });

  it('gives the Inspector command that works on this Node: Node 22 fetched on older ones', () => {
    expect(inspectorCommand('22.19.0')).toBe('npx @modelcontextprotocol/inspector');
    expect(inspectorCommand('20.20.2')).toBe(
      'npx -y -p node@22 -p @modelcontextprotocol/inspector@latest mcp-inspector',
    );
    expect(help).toContain(`    ${inspectorCommand()} --cli http://127.0.0.1:3000/mcp --transport http`);
  });

  it('names the endpoint, the token and the playground link', () => {
    expect(help).toContain('MCP endpoint   http://127.0.0.1:3000/mcp');
    expect(help).toContain('Bearer token   tok');
    expect(help).toContain('http://127.0.0.1:3000/playground/#token=tok');
  });

  it('gives client configurations that are valid JSON with the URL and the token', () => {
    const configs = help
      .split('\n')
      .filter((line) => line.startsWith('    {'))
      .map((line) => JSON.parse(line) as unknown);
    expect(configs).toHaveLength(3);
    for (const config of configs) {
      expect(JSON.stringify(config)).toContain('http://127.0.0.1:3000/mcp');
      expect(JSON.stringify(config)).toContain('Bearer tok');
    }
  });
});
