// The Server Card over HTTP (draft SEP-2127): its shape and media type, ETag and 304, HEAD, CORS, 405, Host checks, mount paths.

import express, { type Express } from 'express';
import request from 'supertest';
import { mcpRouter, type McpRouterOptions } from '../../../lib';
import { silentLogger } from '../../helpers/messages';

const SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';
const ALL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2026-07-28'];

const SAMPLE: McpRouterOptions = {
  name: 'com.example/inventory',
  version: '1.4.0',
  title: 'Inventory',
  description: 'Stock levels and orders of the warehouse',
  websiteUrl: 'https://example.com/inventory',
  icons: [{ src: 'https://example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'] }],
  sessions: false,
  serverCard: { repository: { url: 'https://github.com/example/inventory', source: 'github' } },
};

/** The Host every request names (supertest listens on a new port for each request of an app). */
const HOST = 'localhost:3000';

type Method = 'get' | 'head' | 'options' | 'post' | 'put' | 'delete' | 'patch';
/** A request to `path` of `app` with a fixed Host, so the card (and its ETag) names one endpoint URL. */
const send = (app: Express, method: Method, path = '/mcp/server-card'): request.Test =>
  request(app)[method](path).set('Host', HOST);

/** An app with the router mounted at `mount`, and a last handler that says the request passed the router. */
function appWith(options: Partial<McpRouterOptions>, mount = '/mcp'): Express {
  const app = express();
  app.use(mount, mcpRouter({ ...SAMPLE, ...options }));
  app.use((_req, res) => {
    res.status(404).json({ passed: true });
  });
  return app;
}

describe('the Server Card', () => {
  const app = appWith({});

  it('is the card of the router, naming the endpoint at the URL the client reached', async () => {
    const res = await send(app, 'get').set('Accept', 'application/mcp-server-card+json').expect(200);
    expect(res.headers['content-type']).toBe('application/mcp-server-card+json');
    expect(JSON.parse(res.text)).toEqual({
      $schema: SCHEMA,
      name: 'com.example/inventory',
      version: '1.4.0',
      description: 'Stock levels and orders of the warehouse',
      title: 'Inventory',
      websiteUrl: 'https://example.com/inventory',
      repository: { url: 'https://github.com/example/inventory', source: 'github' },
      icons: [{ src: 'https://example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'] }],
      remotes: [
        {
          type: 'streamable-http',
          url: 'http://localhost:3000/mcp',
          supportedProtocolVersions: ALL_VERSIONS,
        },
      ],
    });
    expect(res.headers['cache-control']).toBe('public, max-age=3600');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-expose-headers']).toBe('ETag');
  });

  it('names no tool, resource or prompt, however many the router serves', async () => {
    const mcp = mcpRouter(SAMPLE);
    mcp.tool({ name: 'count_pallets', description: 'Pallets of an item', handler: () => 'none' });
    mcp.resource({ uri: 'docs://zebra', name: 'zebra', read: () => '# Zebra' });
    mcp.prompt({ name: 'audit_prompt', get: () => 'Audit the pallets' });
    const res = await send(express().use('/mcp', mcp), 'get').expect(200);
    expect(Object.keys(JSON.parse(res.text) as object)).toEqual([
      '$schema',
      'name',
      'version',
      'description',
      'title',
      'websiteUrl',
      'repository',
      'icons',
      'remotes',
    ]);
    expect(res.text).not.toMatch(/pallet|zebra|audit/i);
  });

  it('lists the revisions of the eras served', async () => {
    const res = await send(appWith({ eras: ['2026'] }), 'get').expect(200);
    expect(JSON.parse(res.text).remotes[0].supportedProtocolVersions).toEqual(['2026-07-28']);
  });

  it('has a strong ETag, the same on every request, and a different one when the card differs', async () => {
    const first = await send(app, 'get').expect(200);
    const second = await send(app, 'get').expect(200);
    expect(first.headers.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(second.headers.etag).toBe(first.headers.etag);
    const other = await send(appWith({ version: '1.5.0' }), 'get').expect(200);
    expect(other.headers.etag).not.toBe(first.headers.etag);
    const elsewhere = await send(app, 'get').set('Host', 'localhost').expect(200);
    expect(elsewhere.headers.etag).not.toBe(first.headers.etag);
    expect(JSON.parse(elsewhere.text).remotes[0].url).toBe('http://localhost/mcp');
  });

  it.each([
    ['the tag', (etag: string) => etag],
    ['the tag, weak', (etag: string) => `W/${etag}`],
    ['a list holding the tag', (etag: string) => `"other", ${etag}`],
    ['*', () => '*'],
  ])('answers 304 Not Modified to If-None-Match with %s', async (_name, header) => {
    const { etag } = (await send(app, 'get')).headers as { etag: string };
    const res = await send(app, 'get').set('If-None-Match', header(etag)).expect(304);
    expect(res.text).toBe('');
    expect(res.headers.etag).toBe(etag);
    expect(res.headers['cache-control']).toBe('public, max-age=3600');
    await send(app, 'head').set('If-None-Match', header(etag)).expect(304);
  });

  it.each([['"other"'], ['W/"other", "another"'], ['not a tag']])(
    'sends the card to If-None-Match: %s',
    async (header) => {
      const res = await send(app, 'get').set('If-None-Match', header).expect(200);
      expect(JSON.parse(res.text).name).toBe('com.example/inventory');
    },
  );

  it("answers HEAD with GET's headers and no body", async () => {
    const get = await send(app, 'get').expect(200);
    const head = await send(app, 'head').expect(200);
    expect(head.text).toBeUndefined();
    expect(head.headers['content-type']).toBe('application/mcp-server-card+json');
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(get.text)));
    expect(head.headers.etag).toBe(get.headers.etag);
  });

  it('answers a CORS preflight from any origin, allowing If-None-Match', async () => {
    const res = await send(app, 'options')
      .set('Origin', 'https://elsewhere.example')
      .set('Access-Control-Request-Method', 'GET')
      .set('Access-Control-Request-Headers', 'if-none-match')
      .expect(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-methods']).toBe('GET, HEAD, OPTIONS');
    expect(res.headers['access-control-allow-headers']).toMatch(/(^|, )If-None-Match(,|$)/);
  });

  it('is readable from an origin the endpoint refuses, and with auth set, without a token', async () => {
    const guarded = appWith({ origins: ['https://app.example'], auth: { tokens: ['t'.repeat(32)] } });
    const res = await send(guarded, 'get').set('Origin', 'https://elsewhere.example').expect(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    await request(guarded).post('/mcp').set('Origin', 'https://elsewhere.example').send({}).expect(403);
  });

  it.each([['POST'], ['PUT'], ['DELETE'], ['PATCH']] as const)('answers %s with a JSON 405', async (method) => {
    const res = await send(app, method.toLowerCase() as Method).expect(405);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
    expect(res.body.error.message).toMatch(/^Method Not Allowed/);
  });

  it('refuses a malformed Host (400) and an unexpected one (403), as the metadata does', async () => {
    const bad = await send(app, 'get').set('Host', 'a@b').expect(400);
    expect(bad.body.error.message).toMatch(/^Bad Request: the Host header/);
    const rebound = await send(app, 'get').set('Host', 'evil.example').expect(403);
    expect(rebound.body.error.message).toMatch(/option 'allowedHosts'/);
    const allowed = appWith({ allowedHosts: ['mcp.example.com'] });
    const res = await send(allowed, 'get').set('Host', 'mcp.example.com').expect(200);
    expect(JSON.parse(res.text).remotes[0].url).toBe('http://mcp.example.com/mcp');
  });

  it('names the public scheme and host behind a proxy Express trusts', async () => {
    const proxied = appWith({ allowedHosts: ['mcp.example.com'] });
    proxied.set('trust proxy', 'loopback');
    const res = await request(proxied)
      .get('/mcp/server-card')
      .set('Host', '127.0.0.1:8080')
      .set('X-Forwarded-Host', 'mcp.example.com')
      .set('X-Forwarded-Proto', 'https')
      .expect(200);
    expect(JSON.parse(res.text).remotes[0].url).toBe('https://mcp.example.com/mcp');
    await request(proxied).get('/mcp/server-card').set('X-Forwarded-Host', 'evil.example').expect(403);
  });

  it('names publicUrl whatever the request says, one card for every Host allowed', async () => {
    const fixed = appWith({
      publicUrl: 'https://mcp.example.com/tools/mcp',
      allowedHosts: ['a.internal', 'b.internal'],
      // The router warns that these Hosts are not publicUrl's (edge/security/public-url.ts): not what is tested here.
      logger: silentLogger(),
    });
    const a = await request(fixed).get('/mcp/server-card').set('Host', 'a.internal').expect(200);
    const b = await request(fixed).get('/mcp/server-card').set('Host', 'b.internal').expect(200);
    expect(JSON.parse(a.text).remotes[0].url).toBe('https://mcp.example.com/tools/mcp');
    expect(b.text).toBe(a.text);
    expect(b.headers.etag).toBe(a.headers.etag);
  });

  it('is off by default: the request passes on to the app, as the metadata does without auth', async () => {
    const { serverCard: _card, ...withoutCard } = SAMPLE;
    const off = express();
    off.use('/mcp', mcpRouter(withoutCard));
    off.use((_req, res) => {
      res.status(404).json({ passed: true });
    });
    expect((await send(off, 'get').expect(404)).body).toEqual({ passed: true });
    expect((await send(appWith({ serverCard: false }), 'get').expect(404)).body).toEqual({
      passed: true,
    });
  });

  it.each([
    ['/mcp', '/mcp'],
    ['/api/v2/tenants/mcp', '/api/v2/tenants/mcp'],
    ['/', ''],
  ])('is served under the mount path %s, naming that endpoint', async (mount, path) => {
    const mounted = appWith({ serverCard: true, name: 'com.example/inventory' }, mount);
    const res = await request(mounted).get(`${path}/server-card`).set('Host', 'localhost:3000').expect(200);
    const card = JSON.parse(res.text) as { remotes: Array<{ url: string }>; repository?: unknown };
    expect(card.remotes[0]?.url).toBe(`http://localhost:3000${path}`);
    expect(card.repository).toBeUndefined();
    // The endpoint itself still answers at the mount path.
    await request(mounted).get(`${path}/`).set('Host', 'localhost:3000').expect(405);
  });
});
