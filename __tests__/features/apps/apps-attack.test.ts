// MCP Apps under attack: other principals, forged capabilities, hostile routes (hang, stream, redirect, cookies), many reads.

import express from 'express';
import request from 'supertest';
import { mcpRouter, type McpRouter } from '../../../lib';
import { createApp, post, rpc } from '../../helpers/create-app';
import { modern } from '../../helpers/modern';

const UI = 'io.modelcontextprotocol/ui';

function register(mcp: McpRouter): void {
  mcp.app({ name: 'order-form', html: '<p>form</p>' });
  mcp.tool({ name: 'a', description: 'A', handler: () => 'a' });
  mcp.tool({
    name: 'place_order',
    description: 'P',
    ui: { app: 'order-form', visibility: ['app'] },
    handler: () => 'p',
  });
  mcp.tool({ name: 'b', description: 'B', handler: () => 'b' });
  mcp.tool({
    name: 'place_other',
    description: 'Q',
    ui: { app: 'order-form', visibility: ['app'] },
    handler: () => 'q',
  });
}

const names = (res: request.Response): string[] => res.body.result.tools.map((tool: { name: string }) => tool.name);

/** What a client without the extension gets for an app-only tool: the answer to a tool that does not exist. */
const UNKNOWN_PLACE_ORDER = { jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'Unknown tool: place_order' } };

/** The whole answer to a read of the route app that failed: -32603 naming the app, the route and why, and nothing more. */
const failedRead = (why: string) => ({ jsonrpc: '2.0', id: 7, error: { code: -32603, message: `app 'app': ${why}` } });

describe('a 2026 request that declares the extension in a wrong shape is a client without it', () => {
  const app = createApp({}, register);
  it.each([true, [], 'yes', null, 1])('%j: app-only tools hidden and refused', async (shape) => {
    const meta = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { [UI]: shape } } };
    expect(names(await modern(app, 'tools/list', {}, {}, meta).expect(200))).toEqual(['a', 'b']);
    const call = await modern(app, 'tools/call', { name: 'place_order', arguments: {} }, {}, meta).expect(200);
    expect(call.body).toEqual(UNKNOWN_PLACE_ORDER);
  });
  it.each([[[UI]], ['yes'], [null], [1]])(
    'extensions itself not an object (%j): a client without extensions, app-only tools hidden and refused',
    async (extensions) => {
      const meta = { 'io.modelcontextprotocol/clientCapabilities': { extensions } };
      const res = await modern(app, 'tools/list', {}, {}, meta).expect(200);
      expect(res.body.error).toBeUndefined();
      expect(names(res)).toEqual(['a', 'b']);
      const call = await modern(app, 'tools/call', { name: 'place_order', arguments: {} }, {}, meta).expect(200);
      expect(call.body).toEqual(UNKNOWN_PLACE_ORDER);
    },
  );
});

describe('2025 session: initialize declaring the extension as true', () => {
  it('hides app-only tools', async () => {
    const app = createApp({ sessions: {} }, register);
    const init = await post(
      app,
      rpc('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: { extensions: { [UI]: true } },
        clientInfo: { name: 'x', version: '1' },
      }),
    ).expect(200);
    const session = init.headers['mcp-session-id'] as string;
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await post(app, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers).expect(202);
    const list = await post(app, rpc('tools/list', {}, 2), headers).expect(200);
    expect(names(list)).toEqual(['a', 'b']);
  });
});

describe('paging with app-only tools hidden', () => {
  it.each([1, 2, 3])(
    'pageSize %i: every visible tool once, hidden ones never, in both shapes of client',
    async (size) => {
      const app = createApp({ pageSize: size }, register);
      for (const [meta, expected] of [
        [{}, ['a', 'b']],
        [
          { 'io.modelcontextprotocol/clientCapabilities': { extensions: { [UI]: {} } } },
          ['a', 'place_order', 'b', 'place_other'],
        ],
      ] as const) {
        const seen: string[] = [];
        let cursor: string | undefined;
        let pages = 0;
        do {
          const res = await modern(app, 'tools/list', cursor === undefined ? {} : { cursor }, {}, meta).expect(200);
          seen.push(...names(res));
          cursor = res.body.result.nextCursor;
          expect(++pages).toBeLessThan(10);
        } while (cursor !== undefined);
        expect(seen).toEqual(expected);
      }
    },
  );
});

/** A host whose app routes misbehave in each way, with two bearer tokens: only `admin` may see the order form. */
function hostileHost(route: string, maxBytes = 64 * 1024) {
  const web = express();
  let onClose: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (onClose = resolve));
  const seenHeaders: Record<string, unknown>[] = [];
  web.get('/apps/form', (req, res) => {
    seenHeaders.push({ ...req.headers });
    if (req.headers.authorization !== 'Bearer admin-token') {
      res.status(403).type('html').send('<p>secret 403</p>');
      return;
    }
    res.cookie('sid', 'leak').type('html').send('<p>admin form</p>');
  });
  web.get('/apps/self', (_req, res) => res.redirect('/apps/self'));
  web.get('/apps/away', (_req, res) => res.redirect('https://evil.example/'));
  web.get('/apps/throws', () => {
    throw new Error('secret stack detail');
  });
  web.get('/apps/stream', (req, res) => {
    res.type('html');
    let open = true;
    let writes = 0;
    req.on('close', () => {
      open = false;
      onClose();
    });
    // "Forever" for this test: far past maxBytes, and past the default test timeout, but ending if nothing stops it.
    const pump = (): void => {
      if (!open) return;
      if (++writes > 20_000) return void res.end();
      res.write('x'.repeat(1024));
      setImmediate(pump);
    };
    pump();
  });
  const mcp = mcpRouter({
    name: 'shop',
    version: '1.0.0',
    sessions: false,
    auth: {
      tokens: [
        { token: 'admin-token', subject: 'admin', scopes: ['admin'] },
        { token: 'user-token', subject: 'user', scopes: [] },
      ],
    },
    logger: { error: () => undefined, warn: () => undefined },
  });
  mcp.app({ name: 'app', route, maxBytes });
  web.use('/mcp', mcp);
  return { web, closed, seenHeaders };
}

const readApp = (web: express.Express, token: string, extra: Record<string, string> = {}) =>
  modern(web, 'resources/read', { uri: 'ui://shop/app' }, { authorization: `Bearer ${token}`, ...extra });

describe('route apps and principals', () => {
  it("a token the route refuses over the web cannot read the route's page over MCP", async () => {
    const { web } = hostileHost('/apps/form');
    const denied = await readApp(web, 'user-token').expect(200);
    expect(denied.body).toEqual(failedRead('the route GET /apps/form answered HTTP 403'));
    const allowed = await readApp(web, 'admin-token').expect(200);
    expect(allowed.body.result.contents).toEqual([
      { uri: 'ui://shop/app', text: '<p>admin form</p>', mimeType: 'text/html;profile=mcp-app' },
    ]);
    // The route's own answer is the server's business: its cookie is not the MCP client's.
    expect(allowed.headers['set-cookie']).toBeUndefined();
    expect(allowed.body.result.cacheScope).toBe('private');
  });

  it("forwards the caller's authorization and none of its other headers (cookies, session, forwarding)", async () => {
    const { web, seenHeaders } = hostileHost('/apps/form');
    await readApp(web, 'admin-token', {
      cookie: 'sid=victim',
      'x-forwarded-for': '10.0.0.1',
      'x-api-key': 'k',
      'proxy-authorization': 'Basic x',
    }).expect(200);
    expect(Object.keys(seenHeaders[0]!).sort()).toEqual(['accept', 'authorization', 'host', 'user-agent']);
    expect(seenHeaders[0]!.authorization).toBe('Bearer admin-token');
  });
});

describe('hostile routes', () => {
  it.each([
    ['/apps/self', 302],
    ['/apps/away', 302],
    ['/apps/throws', 500],
  ])('%s fails the read with HTTP %i, naming it, never following or leaking', async (route, status) => {
    const { web } = hostileHost(route);
    const res = await readApp(web, 'admin-token').expect(200);
    // Exactly this body: no Location (evil.example), no stack ('secret stack detail').
    expect(res.body).toEqual(failedRead(`the route GET ${route} answered HTTP ${status}`));
  });

  it('a route that streams forever fails the read once it passes maxBytes, and is told to stop', async () => {
    const { web, closed } = hostileHost('/apps/stream', 8 * 1024);
    const res = await readApp(web, 'admin-token').expect(200);
    expect(res.body).toEqual(failedRead('the route GET /apps/stream sent a page larger than maxBytes (8192 bytes)'));
    await closed;
  });
});
