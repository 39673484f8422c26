// The demo's MCP App (demo/apps/): the order form page is the app's HTML, for the web and over MCP in both eras;
// order_form names the app and answers non-UI clients in text; submit_order_form places orders; the sandbox proxy
// page and the AppBridge bundle the playground loads are served.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import request from 'supertest';
import { createSandboxApp } from '../demo/apps/sandbox';
import { createDemoApp } from '../demo/server';
import { connectClient, type ConnectedClient } from './helpers/connect-client';
import { connectClientV2 } from './helpers/connect-client-v2';

const ORDER_APP_URI = 'ui://demo-store/order-form';
const APP_MIME_TYPE = 'text/html;profile=mcp-app';
const token = 'demo-apps-token';
const bearer = { Authorization: `Bearer ${token}` };

// The first render bundles the App SDK with esbuild (about a second).
jest.setTimeout(30_000);

function text(result: Record<string, unknown>): string {
  return (result.content as Array<{ text?: string }>).map((block) => block.text ?? '').join('');
}

describe('the order form app (2025-11-25, SDK v1 client without the UI extension)', () => {
  const app = createDemoApp({ token, sandboxUrl: 'http://127.0.0.1:1/' });
  let connected: ConnectedClient;
  beforeAll(async () => {
    connected = await connectClient(app, '/mcp', bearer);
  });
  afterAll(() => connected?.close());

  it('serves the page for the web, and the same HTML as the ui:// resource, with the MCP Apps MIME type and CSP', async () => {
    const page = await request(app)
      .get('/apps/order-form')
      .expect(200)
      .expect('Content-Type', /^text\/html/);
    expect(page.text).toContain('<option value="p3">Burr grinder · 189 € · 6 in stock</option>');
    expect(page.text).not.toContain('value="p4"'); // out of stock

    const listed = (await connected.client.listResources()).resources.find((r) => r.uri === ORDER_APP_URI);
    expect(listed).toMatchObject({ name: 'order-form', mimeType: APP_MIME_TYPE });
    const { contents } = await connected.client.readResource({ uri: ORDER_APP_URI });
    expect(contents).toEqual([
      {
        uri: ORDER_APP_URI,
        mimeType: 'text/html;profile=mcp-app',
        text: page.text,
        _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } },
      },
    ]);
  });

  it('links order_form to the app, and answers a client that renders no UI with text', async () => {
    const { tools } = await connected.client.listTools();
    // SEP-1865 "Resource Discovery": `_meta.ui.resourceUri`, and the flat key older hosts read.
    expect(tools.find((tool) => tool.name === 'order_form')?._meta).toEqual({
      ui: { resourceUri: ORDER_APP_URI },
      'ui/resourceUri': ORDER_APP_URI,
    });
    // The app-only tool is not the model's: a client without the UI extension neither sees nor calls it.
    expect(tools.map((tool) => tool.name)).not.toContain('submit_order_form');
    await expect(
      connected.client.callTool({
        name: 'submit_order_form',
        arguments: { productId: 'p6', quantity: 1, customerId: 'c1' },
      }),
    ).rejects.toThrow('MCP error -32602: Unknown tool: submit_order_form');
    const result = await connected.client.callTool({ name: 'order_form', arguments: { productId: 'p1', quantity: 3 } });
    expect(text(result)).toMatch(/^Order form for 3 × Espresso beans, 1 kg \(24\.5 € each, 40 in stock\)\./);
    expect(result.structuredContent).toEqual({
      productId: 'p1',
      quantity: 3,
      name: 'Espresso beans, 1 kg',
      price: 24.5,
      stock: 40,
    });
    const unknown = await connected.client.callTool({ name: 'order_form', arguments: { productId: 'nope' } });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toContain("No product 'nope'");
  });

  it('places an order with submit_order_form for a host with the UI extension, and refuses one the stock cannot fill', async () => {
    // A host that renders apps declares the extension; its apps call their app-only tools through it.
    const host = new Client(
      { name: 'apps-host', version: '1.0.0' },
      { capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [APP_MIME_TYPE] } } } },
    );
    const hosting = await connectClient(app, '/mcp', bearer, host);
    try {
      expect((await host.listTools()).tools.find((tool) => tool.name === 'submit_order_form')?._meta).toMatchObject({
        ui: { resourceUri: ORDER_APP_URI, visibility: ['app'] },
      });
      const placed = await host.callTool({
        name: 'submit_order_form',
        arguments: { productId: 'p6', quantity: 2, customerId: 'c1' },
      });
      expect(text(placed)).toMatch(/^Order o\d+ placed: 2 × French press, 70 €\.$/);
      const refused = await host.callTool({
        name: 'submit_order_form',
        arguments: { productId: 'p7', quantity: 5, customerId: 'c1' },
      });
      expect(refused).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: "Only 2 of 'Espresso machine' in stock." }],
      });
    } finally {
      await hosting.close();
    }
    // The page renders from the store: the French presses left.
    expect((await request(app).get('/apps/order-form')).text).toContain('French press · 35 € · 7 in stock');
  });

  it('tells the playground where the sandbox is, and serves the AppBridge bundled for the browser', async () => {
    await request(app).get('/playground/host.json').expect(200, { sandboxUrl: 'http://127.0.0.1:1/' });
    const bundle = await request(app)
      .get('/playground/app-bridge.js')
      .expect(200)
      .expect('Content-Type', /javascript/);
    expect(bundle.text).toMatch(/export\s*\{[^}]*\bAppBridge\b/);
    expect(bundle.text).not.toMatch(/from\s*"@modelcontextprotocol\//); // nothing left for the browser to resolve
  });
});

describe('the order form app (2026-07-28, SDK v2 client)', () => {
  it('lists and reads the app, and calls order_form', async () => {
    const { client, close } = await connectClientV2(createDemoApp({ token }), '/mcp', bearer);
    try {
      const { contents } = await client.readResource({ uri: ORDER_APP_URI });
      expect(contents[0]).toMatchObject({ mimeType: APP_MIME_TYPE, _meta: { ui: { prefersBorder: true } } });
      expect((contents[0] as { text: string }).text).toMatch(/^<!doctype html>/);
      const result = await client.callTool({ name: 'order_form', arguments: { productId: 'p3' } });
      expect(text(result)).toMatch(/^Order form for 1 × Burr grinder/);
    } finally {
      await close();
    }
  });
});

describe('the sandbox proxy app', () => {
  it('serves its page under the CSP built from the csp in its URL (SEP-1865 default without one), and its script', async () => {
    const sandbox = createSandboxApp();
    const page = await request(sandbox)
      .get('/')
      .expect(200)
      .expect('Content-Type', /^text\/html/);
    expect(page.text).toContain('<iframe id="view"');
    expect(page.headers['content-security-policy']).toBe(
      "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; connect-src 'self'; " +
        "img-src 'self' data:; font-src 'self'; media-src 'self' data:; frame-src 'none'; object-src 'none'; " +
        "base-uri 'self'; form-action 'none'",
    );
    const declared = {
      connectDomains: ['https://api.example.com', "https://a.com; script-src 'unsafe-eval'", 'javascript:alert(1)'],
      resourceDomains: ['https://*.cdn.example.com'],
      frameDomains: ['https://player.example.com'],
    };
    const policy = (
      await request(sandbox)
        .get('/')
        .query({ csp: JSON.stringify(declared) })
    ).headers['content-security-policy'] as string;
    expect(policy).toContain("connect-src 'self' https://api.example.com;"); // what is not an origin is dropped
    expect(policy).toContain("script-src 'self' 'unsafe-inline' https://*.cdn.example.com;");
    expect(policy).toContain('frame-src https://player.example.com;');
    expect(policy).not.toMatch(/unsafe-eval|javascript/);
    for (const csp of ['not json', '[1]', 'null'])
      expect((await request(sandbox).get('/').query({ csp })).headers['content-security-policy']).toBe(
        page.headers['content-security-policy'],
      );
    await request(sandbox)
      .get('/sandbox.js')
      .expect(200)
      .expect('Content-Type', /javascript/);
    await request(sandbox).get('/../order-app.ts').expect(404);
  });
});
