// DNS-rebinding guard over HTTP (supertest reaches the app on 127.0.0.1, so the loopback Host rule applies) and isLoopbackHost.

import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import express, { type Express } from 'express';
import request from 'supertest';
import { mcpRouter, type McpRouter } from '../../../lib';
import { isLoopbackHost } from '../../../lib/edge/security/origin-host';
import { MCP_ACCEPT, rpc, silentLogger } from '../../helpers/messages';

const INIT = rpc('initialize', {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'client', version: '0.0.1' },
});

let mcp: McpRouter;
let app: Express;
beforeEach(() => {
  mcp = mcpRouter({ name: 'test', version: '1.0.0', logger: silentLogger(), sessions: {} });
  app = express();
  app.use('/mcp', mcp);
});
afterEach(async () => {
  await mcp?.close();
});

type Method = 'POST' | 'GET' | 'DELETE';

/** One request of `method` with extra headers; POST carries an initialize. */
function send(method: Method, headers: Record<string, string>): request.Test {
  if (method === 'POST') {
    return request(app)
      .post('/mcp')
      .set({ 'Content-Type': 'application/json', Accept: MCP_ACCEPT, ...headers })
      .send(JSON.stringify(INIT));
  }
  if (method === 'GET')
    return request(app)
      .get('/mcp')
      .set({ Accept: 'text/event-stream', ...headers });
  return request(app).delete('/mcp').set(headers);
}

/** What each method answers once past the guard: initialize succeeds; GET and DELETE lack a session id. */
const PASSED: Record<Method, number> = { POST: 200, GET: 400, DELETE: 400 };
const METHODS: Method[] = ['POST', 'GET', 'DELETE'];

function forbidden(res: request.Response): void {
  expect(res.status).toBe(403);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body).toEqual({
    jsonrpc: '2.0',
    id: null,
    error: { code: -32000, message: expect.stringMatching(/^Forbidden/) },
  });
  expect(res.headers['mcp-session-id']).toBeUndefined();
}

describe('Origin', () => {
  it.each(
    METHODS.flatMap((method) =>
      [
        'http://evil.example.com',
        'https://evil.example.com:443',
        'http://localhost.evil.example.com',
        'http://127.0.0.1.nip.io',
        'http://evil.example.com/localhost',
        'null',
        'not a url',
      ].map((origin): [Method, string] => [method, origin]),
    ),
  )('%s with Origin %s → 403 with a JSON-RPC body', async (method, origin) => {
    forbidden(await send(method, { Origin: origin }));
  });

  it.each(
    METHODS.flatMap((method) =>
      [
        'http://localhost:5173',
        'http://localhost',
        'https://localhost:8443',
        'http://127.0.0.1:3000',
        'http://[::1]:8080',
        'http://LOCALHOST:3000',
        'http://app.localhost:3000',
      ].map((origin): [Method, string] => [method, origin]),
    ),
  )('%s with Origin %s passes', async (method, origin) => {
    const res = await send(method, { Origin: origin });
    expect(res.status).toBe(PASSED[method]);
  });

  it.each(METHODS)('%s without Origin (a non-browser client) passes', async (method) => {
    expect((await send(method, {})).status).toBe(PASSED[method]);
  });

  it('an origins predicate that throws refuses the origin with 403, not a 500', async () => {
    await mcp.close();
    mcp = mcpRouter({
      name: 'test',
      version: '1.0.0',
      logger: silentLogger(),
      origins: (origin) => new URL(origin).hostname === 'app.example.com',
    });
    app = express();
    app.use('/mcp', mcp);
    forbidden(await send('POST', { Origin: 'null' }));
    expect((await send('POST', { Origin: 'https://app.example.com' })).status).toBe(200);
  });

  it('a request refused for its Origin creates no session', async () => {
    const onSessionCreated = jest.fn();
    const guarded = mcpRouter({ name: 'test', version: '1.0.0', sessions: { onSessionCreated } });
    const host = express();
    host.use('/mcp', guarded);
    try {
      const res = request(host)
        .post('/mcp')
        .set({ 'Content-Type': 'application/json', Accept: MCP_ACCEPT, Origin: 'http://evil.example.com' });
      forbidden(await res.send(JSON.stringify(INIT)));
      expect(onSessionCreated).not.toHaveBeenCalled();
    } finally {
      await guarded.close();
    }
  });
});

describe('Host (server reached on loopback)', () => {
  it.each(
    METHODS.flatMap((method) =>
      [
        'evil.example.com',
        'evil.example.com:80',
        'localhost.evil.example.com',
        '127.0.0.1.nip.io:3000',
        '0.0.0.0',
        '192.168.1.10:3000',
      ].map((host): [Method, string] => [method, host]),
    ),
  )('%s with Host %s → 403', async (method, host) => {
    forbidden(await send(method, { Host: host }));
  });

  it.each(
    METHODS.flatMap((method) =>
      ['localhost:1234', 'localhost', '127.0.0.1', '127.0.0.1:3000', '[::1]:80', '[::1]', 'LocalHost:8080'].map(
        (host): [Method, string] => [method, host],
      ),
    ),
  )('%s with Host %s passes', async (method, host) => {
    expect((await send(method, { Host: host })).status).toBe(PASSED[method]);
  });

  it('a localhost Origin does not excuse a foreign Host', async () => {
    forbidden(await send('POST', { Origin: 'http://localhost:5173', Host: 'evil.example.com' }));
  });

  it('a loopback Host does not excuse a foreign Origin', async () => {
    forbidden(await send('POST', { Origin: 'http://evil.example.com', Host: 'localhost:3000' }));
  });

  it('is checked before methods: a PUT from a foreign Origin is 403, not 405', async () => {
    forbidden(await request(app).put('/mcp').set('Origin', 'http://evil.example.com'));
  });
});

/** A documentation address (RFC 5737 TEST-NET-1): not loopback, and on no machine's interface. */
const EXTERNAL = '192.0.2.10';

describe('Host (server reached on another interface)', () => {
  // The Host rule protects loopback servers; a server reached on a public address is addressed by any name. The
  // router tells them apart by the connection's local address, which is injected: the server listens on 127.0.0.1 and
  // each connection reports EXTERNAL as its local address, as one accepted on another interface would, so the case
  // runs on any machine (one with no interface but loopback included).
  it('accepts any Host, but still refuses a foreign Origin', async () => {
    const server = http.createServer(app);
    server.on('connection', (socket: Socket) => Object.defineProperty(socket, 'localAddress', { value: EXTERNAL }));
    server.listen(0, '127.0.0.1');
    try {
      await once(server, 'listening');
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const post = (headers: Record<string, string>) =>
        request(base)
          .post('/mcp')
          .set({ 'Content-Type': 'application/json', Accept: MCP_ACCEPT, ...headers })
          .send(JSON.stringify(INIT));
      expect((await post({ Host: 'mcp.example.com' })).status).toBe(200);
      forbidden(await post({ Host: 'mcp.example.com', Origin: 'http://evil.example.com' }));
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('isLoopbackHost', () => {
  it.each([
    'localhost',
    'LOCALHOST',
    'LocalHost',
    'app.localhost',
    'a.b.localhost',
    '127.0.0.1',
    '127.0.0.2',
    '127.1.2.3',
    '127.255.255.254',
    '::1',
    '[::1]',
  ])('%s is loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });

  it.each([
    '',
    'evil.example.com',
    'localhost.evil.example.com',
    'evil-localhost',
    'notlocalhost',
    '127.0.0.1.evil.example.com',
    '127.0.0.1.nip.io',
    'x127.0.0.1',
    '128.0.0.1',
    '126.255.255.255',
    '10.0.0.1',
    '192.168.0.1',
    '0.0.0.0',
    '::',
    '[::]',
    '::2',
    '127.0.0',
    '127.0.0.1:3000',
  ])('%j is not loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });
});
