// Where an app's HTML comes from: a host route rendered in-process (as the browser gets it), a file re-read on change.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import request from 'supertest';
import { mcpRouter, type McpAppOptions } from '../../../lib';
import { tool } from '../../../lib/decorators';
import { modern } from '../../helpers/modern';

/** A tiny template engine: `{{key}}` replaced by the view's data, as `res.render` would with any engine. */
function tinyEngine(file: string, data: object, done: (err: unknown, html?: string) => void): void {
  fs.readFile(file, 'utf8', (err, text) => {
    if (err) return done(err);
    done(
      null,
      text.replace(/\{\{(\w+)\}\}/g, (_, key: string) => String((data as Record<string, unknown>)[key])),
    );
  });
}

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-apps-'));
}

/** A host app with views, a page route, and routes that fail in each way; the MCP router at /mcp. */
function host(app: Partial<McpAppOptions> & { name: string }) {
  const views = tempDir();
  fs.writeFileSync(path.join(views, 'order.tiny'), '<!doctype html><h1>{{title}}</h1><p>{{count}} products</p>');
  const web = express();
  web.engine('tiny', tinyEngine);
  web.set('views', views);
  web.set('view engine', 'tiny');
  web.get('/apps/order-form', (_req, res) => res.render('order', { title: 'Order form', count: 3 }));
  web.get('/apps/missing', (_req, res) => res.status(404).send('<h1>Not here</h1>'));
  web.get('/apps/broken', () => {
    throw new Error('secret stack detail');
  });
  web.get('/apps/json', (_req, res) => res.json({ html: false }));
  web.get('/apps/huge', (_req, res) => res.type('html').send('x'.repeat(64 * 1024)));
  web.get('/apps/who', (req, res) => res.type('html').send(`<p>${req.headers.authorization ?? 'anonymous'}</p>`));
  web.get('/apps/links', (req, res) =>
    res.type('html').send(`<a href="${req.protocol}://${req.get('host')}/shop">shop</a>`),
  );
  const mcp = mcpRouter({
    name: 'shop',
    version: '1.0.0',
    sessions: false,
    logger: { error: () => undefined, warn: () => undefined },
  });
  mcp.app(app as McpAppOptions);
  web.use('/mcp', mcp);
  return web;
}

const read = (app: express.Express, uri: string) => modern(app, 'resources/read', { uri }).expect(200);

describe('route source', () => {
  it('renders the route in-process: the same HTML a browser gets, from the same template and data', async () => {
    const app = host({ name: 'order-form', route: '/apps/order-form' });
    const browser = await request(app).get('/apps/order-form').set('Accept', 'text/html').expect(200);
    const res = await read(app, 'ui://shop/order-form');
    expect(res.body.result.contents[0].text).toBe(browser.text);
    expect(browser.text).toBe('<!doctype html><h1>Order form</h1><p>3 products</p>');
    expect(res.body.result.contents[0].mimeType).toBe('text/html;profile=mcp-app');
  });

  it.each([
    ['/apps/missing', /^app 'bad': the route GET \/apps\/missing answered HTTP 404/],
    ['/apps/broken', /^app 'bad': the route GET \/apps\/broken answered HTTP 500/],
    ['/apps/json', /^app 'bad': the route GET \/apps\/json answered application\/json; charset=utf-8, not text\/html/],
    ['/apps/nowhere', /^app 'bad': the route GET \/apps\/nowhere answered HTTP 404/],
    ['/apps/huge', /the route GET \/apps\/huge sent a page larger than maxBytes \(1024 bytes\)/],
  ])(
    'a route %s that does not answer a page is an internal error naming it, never the page',
    async (route, message) => {
      const app = host({ name: 'bad', route, maxBytes: 1024 });
      const res = await read(app, 'ui://shop/bad');
      expect(res.body.error.code).toBe(-32603);
      expect(res.body.error.message).toMatch(message);
      expect(JSON.stringify(res.body)).not.toMatch(/Not here|secret stack|"html":false|xxxx/);
    },
  );

  it("passes on the MCP caller's authorization, as bridged routes do", async () => {
    const app = host({ name: 'who', route: '/apps/who' });
    const res = await modern(app, 'resources/read', { uri: 'ui://shop/who' }, { Authorization: 'Bearer t0k' }).expect(
      200,
    );
    expect(res.body.result.contents[0].text).toBe('<p>Bearer t0k</p>');
  });

  it("renders with the MCP caller's Host, so a page's absolute links name the server the client reached", async () => {
    const emitWarning = jest.spyOn(process, 'emitWarning');
    const app = host({ name: 'links', route: '/apps/links' });
    const res = await modern(app, 'resources/read', { uri: 'ui://shop/links' }, { Host: '127.0.0.1:4567' }).expect(200);
    expect(res.body.result.contents[0].text).toBe('<a href="http://127.0.0.1:4567/shop">shop</a>');
    // Express 4's req.protocol reads req.connection: no deprecation warning for it.
    expect(emitWarning).not.toHaveBeenCalled();
    emitWarning.mockRestore();
  });
});

describe('file source', () => {
  it('reads the file at registration and again once its mtime changes (outside production)', async () => {
    const file = path.join(tempDir(), 'app.html');
    fs.writeFileSync(file, '<p>one</p>');
    const app = host({ name: 'filed', file });
    expect((await read(app, 'ui://shop/filed')).body.result.contents[0].text).toBe('<p>one</p>');
    fs.writeFileSync(file, '<p>two</p>');
    const later = new Date(Date.now() + 10_000);
    fs.utimesSync(file, later, later);
    expect((await read(app, 'ui://shop/filed')).body.result.contents[0].text).toBe('<p>two</p>');
  });

  it('reads it once in production', async () => {
    const file = path.join(tempDir(), 'app.html');
    fs.writeFileSync(file, '<p>one</p>');
    const env = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    let app: express.Express;
    try {
      app = host({ name: 'filed', file });
    } finally {
      process.env.NODE_ENV = env;
    }
    fs.writeFileSync(file, '<p>two</p>');
    const later = new Date(Date.now() + 10_000);
    fs.utimesSync(file, later, later);
    expect((await read(app, 'ui://shop/filed')).body.result.contents[0].text).toBe('<p>one</p>');
  });

  it('a file grown past maxBytes fails the read, and a deleted one too, with an internal error', async () => {
    const file = path.join(tempDir(), 'app.html');
    fs.writeFileSync(file, '<p>one</p>');
    const app = host({ name: 'filed', file, maxBytes: 100 });
    fs.writeFileSync(file, 'x'.repeat(200));
    const grown = await read(app, 'ui://shop/filed');
    expect(grown.body.error).toMatchObject({ code: -32603, message: expect.stringMatching(/larger than maxBytes/) });
    fs.rmSync(file);
    const gone = await read(app, 'ui://shop/filed');
    expect(gone.body.error).toMatchObject({ code: -32603, message: "app 'filed': its file cannot be read" });
  });
});

describe('tools linked from routes and decorators', () => {
  it('mcp.route meta takes ui, and the bridged tool lists _meta.ui', async () => {
    const mcp = mcpRouter({ name: 'shop', version: '1.0.0', sessions: false });
    mcp.app({ name: 'order-form', html: '<p>form</p>' });
    const web = express();
    web.get(
      '/orders/:id',
      mcp.route({ description: 'Fetch an order', ui: 'order-form' }, (req, res) => res.json({ id: req.params.id })),
    );
    web.use('/mcp', mcp);
    const res = await modern(web, 'tools/list').expect(200);
    expect(res.body.result.tools[0]._meta.ui).toEqual({ resourceUri: 'ui://shop/order-form' });
    const call = await modern(web, 'tools/call', {
      name: res.body.result.tools[0].name,
      arguments: { id: '7' },
    }).expect(200);
    expect(call.body.result.structuredContent).toEqual({ id: '7' });
  });

  it('@tool takes ui, plain methods and bridged handlers alike, and an app-only one is hidden from non-UI clients', async () => {
    class OrdersController {
      @tool({ name: 'show_order', description: 'Show an order', ui: 'order-form' })
      show({ id }: { id?: string }) {
        return { id: id ?? '7' };
      }

      @tool({
        name: 'confirm_order',
        description: 'Confirm the order the form shows',
        method: 'POST',
        path: '/orders/:id/confirm',
        ui: { app: 'order-form', visibility: ['app'] },
      })
      confirm(req: express.Request, res: express.Response) {
        res.json({ confirmed: req.params.id });
      }
    }
    const mcp = mcpRouter({ name: 'shop', version: '1.0.0', sessions: false });
    mcp.app({ name: 'order-form', html: '<p>form</p>' });
    const controller = new OrdersController();
    const web = express();
    mcp.register(controller);
    web.use('/mcp', mcp);
    const ui = { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } };
    const hostTools = (
      await modern(web, 'tools/list', {}, {}, { 'io.modelcontextprotocol/clientCapabilities': { extensions: ui } })
    ).body.result.tools as Array<{ name: string; _meta?: unknown }>;
    expect(Object.fromEntries(hostTools.map((t) => [t.name, t._meta]))).toEqual({
      show_order: { ui: { resourceUri: 'ui://shop/order-form' }, 'ui/resourceUri': 'ui://shop/order-form' },
      confirm_order: {
        ui: { resourceUri: 'ui://shop/order-form', visibility: ['app'] },
        'ui/resourceUri': 'ui://shop/order-form',
      },
    });
    const plain = (await modern(web, 'tools/list')).body.result.tools as Array<{ name: string }>;
    expect(plain.map((t) => t.name)).toEqual(['show_order']);
  });
});
