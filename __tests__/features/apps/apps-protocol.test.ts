// MCP Apps on the wire (SEP-1865), both eras: the ui:// resource listed and read, tools linked, app-only tools hidden.

import express from 'express';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Client as ClientV2, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mcpRouter, type McpRouter } from '../../../lib';
import { connectClient } from '../../helpers/connect-client';
import { createApp, post, rpc } from '../../helpers/create-app';
import { modern } from '../../helpers/modern';

const UI = 'io.modelcontextprotocol/ui';
const MIME = 'text/html;profile=mcp-app';
const UI_CAPS = { extensions: { [UI]: { mimeTypes: [MIME] } } };
const HTML = '<!doctype html><title>Order</title><p>Order form</p>';

/** An app, a tool for model and app, an app-only tool, and a plain tool. */
function register(mcp: McpRouter): void {
  const app = mcp.app({
    name: 'order-form',
    title: 'Order form',
    description: 'Pick a product and quantity',
    html: HTML,
    csp: { resourceDomains: ['https://cdn.example.com', 'https://*.example.org'], connectDomains: [] },
    permissions: { clipboardWrite: {} },
    prefersBorder: true,
  });
  mcp.tool({ name: 'order', description: 'Order a product', ui: 'order-form', handler: () => 'ordered' });
  mcp.tool({
    name: 'place_order',
    description: 'Place the order the form holds',
    ui: { app: app.uri, visibility: ['app'] },
    _meta: { owner: 'shop' },
    handler: () => 'placed',
  });
  mcp.tool({ name: 'plain', description: 'A tool without an app', handler: () => 'plain' });
}

/** A host (the extension declared) lists the app-only tool and calls it for its app. */
interface ToolClient {
  listTools(): Promise<{ tools: Array<{ name: string }> }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
}
async function expectHostSeesAppOnlyTool(client: ToolClient): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name)).toEqual(['order', 'place_order', 'plain']);
  const result = await client.callTool({ name: 'place_order', arguments: {} });
  expect((result as { content?: unknown }).content).toEqual([{ type: 'text', text: 'placed' }]);
}

const RESOURCE_UI = {
  csp: { resourceDomains: ['https://cdn.example.com', 'https://*.example.org'], connectDomains: [] },
  permissions: { clipboardWrite: {} },
  prefersBorder: true,
};

describe('2026-07-28 (stateless), raw requests', () => {
  const app = createApp({}, register);
  const ui = { 'io.modelcontextprotocol/clientCapabilities': UI_CAPS };

  it('declares the extension in server/discover', async () => {
    const res = await modern(app, 'server/discover').expect(200);
    expect(res.body.result.capabilities.extensions[UI]).toEqual({});
  });

  it('lists the app as a ui:// resource with the exact MIME type and its _meta.ui', async () => {
    const res = await modern(app, 'resources/list').expect(200);
    expect(res.body.result.resources).toEqual([
      {
        uri: 'ui://test/order-form',
        name: 'order-form',
        title: 'Order form',
        description: 'Pick a product and quantity',
        mimeType: MIME,
        _meta: { ui: RESOURCE_UI },
      },
    ]);
  });

  it('reads the HTML as text, with the MIME type and _meta.ui on the contents', async () => {
    const res = await modern(app, 'resources/read', { uri: 'ui://test/order-form' }).expect(200);
    expect(res.body.result.contents).toEqual([
      { uri: 'ui://test/order-form', mimeType: MIME, text: HTML, _meta: { ui: RESOURCE_UI } },
    ]);
  });

  it('links tools with _meta.ui (and the legacy flat key), keeping visibility off when it is the default', async () => {
    const res = await modern(app, 'tools/list', {}, {}, ui).expect(200);
    const byName = Object.fromEntries(res.body.result.tools.map((tool: { name: string }) => [tool.name, tool]));
    expect(byName.order._meta).toEqual({
      ui: { resourceUri: 'ui://test/order-form' },
      'ui/resourceUri': 'ui://test/order-form',
    });
    expect(byName.place_order._meta).toEqual({
      owner: 'shop',
      ui: { resourceUri: 'ui://test/order-form', visibility: ['app'] },
      'ui/resourceUri': 'ui://test/order-form',
    });
    expect(byName.plain._meta).toBeUndefined();
  });

  it('hides the app-only tool from a client without the extension, and refuses to call it like an unknown tool', async () => {
    const list = await modern(app, 'tools/list').expect(200);
    expect(list.body.result.tools.map((tool: { name: string }) => tool.name)).toEqual(['order', 'plain']);
    const refused = await modern(app, 'tools/call', { name: 'place_order', arguments: {} }).expect(200);
    const unknown = await modern(app, 'tools/call', { name: 'no_such_tool', arguments: {} }).expect(200);
    expect(refused.body.error).toEqual({ ...unknown.body.error, message: 'Unknown tool: place_order' });
    const model = await modern(app, 'tools/call', { name: 'order', arguments: {} }).expect(200);
    expect(model.body.result.content).toEqual([{ type: 'text', text: 'ordered' }]);
  });

  it('lets a host that declared the extension call the app-only tool for its app', async () => {
    const res = await modern(app, 'tools/call', { name: 'place_order', arguments: {} }, {}, ui).expect(200);
    expect(res.body.result.content).toEqual([{ type: 'text', text: 'placed' }]);
  });

  it('pages through tools without the hidden one, for a client without the extension', async () => {
    const paged = createApp({ pageSize: 1 }, register);
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await modern(paged, 'tools/list', cursor === undefined ? {} : { cursor }).expect(200);
      names.push(...res.body.result.tools.map((tool: { name: string }) => tool.name));
      cursor = res.body.result.nextCursor;
    } while (cursor !== undefined);
    expect(names).toEqual(['order', 'plain']);
  });
});

describe('capabilities', () => {
  it('does not declare the extension without an app', async () => {
    const app = createApp({}, (mcp) => mcp.tool({ name: 'plain', description: 'Plain', handler: () => 'x' }));
    const res = await modern(app, 'server/discover').expect(200);
    expect(res.body.result.capabilities.extensions?.[UI]).toBeUndefined();
  });

  it('declares it in initialize (2025) once an app is registered', async () => {
    const app = createApp({}, register);
    const res = await post(
      app,
      rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } }),
    ).expect(200);
    expect(res.body.result.capabilities.extensions).toEqual({ [UI]: {} });
  });

  it('without an app-only tool, lists every tool to every client', async () => {
    const app = createApp({}, (mcp) => {
      mcp.app({ name: 'view', html: HTML });
      mcp.tool({ name: 'show', description: 'Show', ui: 'view', handler: () => 'x' });
    });
    const res = await modern(app, 'tools/list').expect(200);
    expect(res.body.result.tools.map((tool: { name: string }) => tool.name)).toEqual(['show']);
  });
});

describe('2025 session, SDK v1 client', () => {
  function serve(): express.Express {
    const mcp = mcpRouter({ name: 'shop', version: '1.0.0' });
    register(mcp);
    const app = express();
    app.use('/mcp', mcp);
    return app;
  }

  it('a model client (no extension) sees the app and linked tools, not the app-only tool, and cannot call it', async () => {
    const connection = await connectClient(serve());
    try {
      expect(connection.client.getServerCapabilities()?.extensions).toEqual({ [UI]: {} });
      const { tools } = await connection.client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['order', 'plain']);
      expect(tools[0]?._meta?.ui).toEqual({ resourceUri: 'ui://shop/order-form' });
      const read = await connection.client.readResource({ uri: 'ui://shop/order-form' });
      expect(read.contents[0]).toMatchObject({ mimeType: MIME, text: HTML });
      await expect(connection.client.callTool({ name: 'place_order', arguments: {} })).rejects.toThrow(
        /Unknown tool: place_order/,
      );
    } finally {
      await connection.close();
    }
  });

  it('a host that declared the extension in initialize sees and calls the app-only tool', async () => {
    const options = { capabilities: UI_CAPS } as ConstructorParameters<typeof Client>[1];
    const client = new Client({ name: 'host', version: '1.0.0' }, options);
    const connection = await connectClient(serve(), '/mcp', {}, client);
    try {
      await expectHostSeesAppOnlyTool(connection.client);
    } finally {
      await connection.close();
    }
  });
});

describe('2026-07-28, SDK v2 client', () => {
  async function connectV2(capabilities: Record<string, unknown>) {
    const mcp = mcpRouter({ name: 'shop', version: '1.0.0' });
    register(mcp);
    const app = express();
    app.use('/mcp', mcp);
    const server: Server = await new Promise((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    const { port } = server.address() as AddressInfo;
    const client = new ClientV2({ name: 'v2-host', version: '2.0.0' }, {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      capabilities,
    } as ConstructorParameters<typeof ClientV2>[1]);
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
    return {
      client,
      async close() {
        await client.close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      },
    };
  }

  it('a model client sees no app-only tool and reads the app', async () => {
    const connection = await connectV2({});
    try {
      const { tools } = await connection.client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['order', 'plain']);
      const read = await connection.client.readResource({ uri: 'ui://shop/order-form' });
      expect(read.contents[0]).toMatchObject({ mimeType: MIME, text: HTML, _meta: { ui: RESOURCE_UI } });
      await expect(connection.client.callTool({ name: 'place_order', arguments: {} })).rejects.toThrow(/Unknown tool/);
    } finally {
      await connection.close();
    }
  });

  it('a host with the extension in its capabilities calls the app-only tool', async () => {
    const connection = await connectV2(UI_CAPS);
    try {
      await expectHostSeesAppOnlyTool(connection.client);
    } finally {
      await connection.close();
    }
  });
});
