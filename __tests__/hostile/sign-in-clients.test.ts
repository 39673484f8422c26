// Hostile clients of the authorization server: registration floods and bad metadata, SSRF through metadata documents, secret timing.

import crypto from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { addressRefusal, hostNameRefusal } from '../../lib/features/sign-in/clients/address';
import {
  resolveClientsOptions,
  type ClientMetadataDocumentOptions,
  type ClientsOptions,
} from '../../lib/features/sign-in/clients/client-options';
import { createClientDirectory } from '../../lib/features/sign-in/clients/clients';
import { createRegistrationHandler } from '../../lib/features/sign-in/clients/register-handler';
import { MemorySignInStore } from '../../lib/edge/store/memory-sign-in-store';
import { Signal } from '../helpers/events';

function registrationApp(options: ClientsOptions = {}) {
  const resolved = resolveClientsOptions(options);
  // The memory store bounds clients by maxClients, as the router does.
  const store = new MemorySignInStore({
    clients: resolved.registration === false ? undefined : resolved.registration.maxClients,
  });
  const directory = createClientDirectory(resolved, store);
  const app = express();
  app.set('trust proxy', true);
  app.post('/oauth/register', createRegistrationHandler(directory, resolved));
  return { app, directory };
}

describe('registration floods and bad metadata', () => {
  it('a flood of 1,000 registrations from 1,000 addresses keeps at most maxClients, the newest', async () => {
    const { app, directory } = registrationApp({ registration: { maxClients: 50 } });
    // One listening server for the 1,000 requests (request(app) would start and close one per request: slow under load).
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const ids: string[] = [];
    try {
      for (let batch = 0; batch < 20; batch++) {
        const answers = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            request(server)
              .post('/oauth/register')
              .set('X-Forwarded-For', `198.51.${batch}.${i + 1}`)
              .send({ redirect_uris: ['https://flood.example/cb'], token_endpoint_auth_method: 'none' }),
          ),
        );
        for (const answer of answers) {
          expect(answer.status).toBe(201);
          ids.push(answer.body.client_id);
        }
      }
    } finally {
      server.close();
    }
    const kept = await Promise.all(ids.map(async (id) => (await directory.find(id)) !== undefined));
    expect(kept.filter(Boolean)).toHaveLength(50);
    expect(kept.slice(-50).every(Boolean)).toBe(true);
  });

  it('one address gets 429 with the JSON error after perMinute registrations', async () => {
    const { app } = registrationApp({ registration: { perMinute: 10 } });
    for (let i = 0; i < 10; i++)
      await request(app)
        .post('/oauth/register')
        .set('X-Forwarded-For', '203.0.113.9')
        .send({ redirect_uris: ['https://a.example/cb'] })
        .expect(201);
    const refused = await request(app)
      .post('/oauth/register')
      .set('X-Forwarded-For', '203.0.113.9')
      .send({ redirect_uris: ['https://a.example/cb'] })
      .expect(429);
    expect(refused.body).toEqual({
      error: 'too_many_requests',
      error_description: expect.stringMatching(/at most 10 registrations a minute/),
    });
    expect(refused.headers['content-type']).toMatch(/^application\/json/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    await request(app)
      .post('/oauth/register')
      .set('X-Forwarded-For', '203.0.113.10')
      .send({ redirect_uris: ['https://a.example/cb'] })
      .expect(201);
  });

  it('oversized metadata: 413 JSON, declared or streamed; malformed JSON: 400 JSON', async () => {
    const { app } = registrationApp({ registration: { maxMetadataBytes: 1_024 } });
    const big = JSON.stringify({ redirect_uris: ['https://a.example/cb'], client_name: 'x'.repeat(2_000) });
    const declared = await request(app)
      .post('/oauth/register')
      .set('Content-Type', 'application/json')
      .send(big)
      .expect(413);
    expect(declared.body).toEqual({
      error: 'invalid_client_metadata',
      error_description: expect.stringMatching(/exceeds 1024 bytes/),
    });
    const streamed = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const server = app.listen(0, '127.0.0.1', () => {
        const req = http.request(
          {
            port: (server.address() as AddressInfo).port,
            method: 'POST',
            path: '/oauth/register',
            headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
          },
          (res) => {
            let body = '';
            res
              .on('data', (chunk) => (body += chunk))
              .on('end', () => server.close(() => resolve({ status: res.statusCode ?? 0, body })));
          },
        );
        req.on('error', reject);
        for (let i = 0; i < 4; i++) req.write(big.slice(i * 600, (i + 1) * 600));
        req.end(big.slice(2_400));
      });
    });
    expect(streamed.status).toBe(413);
    expect(JSON.parse(streamed.body).error).toBe('invalid_client_metadata');
    const malformed = await request(app)
      .post('/oauth/register')
      .set('Content-Type', 'application/json')
      .send('{"redirect_uris": [')
      .expect(400);
    expect(malformed.body.error).toBe('invalid_client_metadata');
  });

  // RFC 7591 §2 makes these optional; clients send "" for "none" (mcp-use outside a browser: client_uri ""). The last
  // two are members the server does not use (ignored, RFC 7591 §2), "" or not.
  it.each(['client_uri', 'logo_uri', 'tos_uri', 'policy_uri'])(
    'an empty %s is the member left out: 201, and not in the answer',
    async (member) => {
      const { app, directory } = registrationApp();
      const res = await request(app)
        .post('/oauth/register')
        .send({ redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'none', [member]: '' })
        .expect(201);
      expect(res.body).not.toHaveProperty(member);
      const kept = await directory.find(res.body.client_id);
      expect(kept).toMatchObject({ clientId: res.body.client_id });
      expect(kept?.clientUri).toBeUndefined();
      expect(kept?.logoUri).toBeUndefined();
    },
  );

  it('mcp-use’s registration (client_uri "", a logo) is accepted; a non-empty URL that is not one is still refused', async () => {
    const { app } = registrationApp();
    const accepted = await request(app)
      .post('/oauth/register')
      .send({
        redirect_uris: ['http://localhost:3000/oauth/callback'],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        client_name: 'mcp-use',
        client_uri: '',
        logo_uri: 'https://mcp-use.com/logo.png',
      })
      .expect(201);
    expect(accepted.body).toMatchObject({ client_name: 'mcp-use', logo_uri: 'https://mcp-use.com/logo.png' });
    expect(accepted.body).not.toHaveProperty('client_uri');
    for (const [member, value] of [
      ['client_uri', 'not a url'],
      ['client_uri', ' '],
      ['logo_uri', 'not a url'],
      ['client_uri', null],
      ['logo_uri', 0],
    ] as const) {
      const refused = await request(app)
        .post('/oauth/register')
        .send({ redirect_uris: ['https://a.example/cb'], [member]: value })
        .expect(400);
      expect(refused.body).toEqual({
        error: 'invalid_client_metadata',
        error_description: expect.stringMatching(new RegExp(`^${member} `)),
      });
    }
  });

  it.each([
    ['a fragment', 'https://a.example/cb#frag'],
    ['an empty fragment', 'https://a.example/cb#'],
    ['http off loopback', 'http://a.example/cb'],
    ['http to a look-alike of loopback', 'http://127.0.0.1.evil.example/cb'],
    ['javascript:', 'javascript:alert(document.cookie)'],
    ['data:', 'data:text/html,<script>alert(1)</script>'],
    ['a relative URL', '/cb'],
    ['credentials in the URL', 'https://user:pass@a.example/cb'],
    ['a URL of 3,000 characters', `https://a.example/${'x'.repeat(3_000)}`],
  ])('refuses a redirect URI with %s: invalid_redirect_uri', async (_why, uri) => {
    const { app } = registrationApp();
    const res = await request(app)
      .post('/oauth/register')
      .send({ redirect_uris: ['https://ok.example/cb', uri] })
      .expect(400);
    expect(res.body).toEqual({
      error: 'invalid_redirect_uri',
      error_description: expect.stringMatching(/^redirect_uris\[1\]/),
    });
  });
});

describe('the address check (SSRF)', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:7f00:0001', 'loopback'],
    ['::127.0.0.1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['fc00::1', 'unique local'],
    ['fd12:3456::1', 'unique local'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['100.64.0.1', 'CGNAT'],
    ['100.127.255.255', 'CGNAT'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['2002:7f00:1::', 'loopback'],
    ['example.com', 'not an IP address'],
  ])('refuses %s (%s)', (address, why) => {
    expect(addressRefusal(address)).toContain(why);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '172.15.255.255',
    '100.128.0.1',
    '192.169.0.1',
    '11.0.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001::200e',
    '::ffff:8.8.8.8',
  ])('allows the public address %s', (address) => {
    expect(addressRefusal(address)).toBeUndefined();
  });

  it('refuses localhost names before resolving them (RFC 6761)', () => {
    for (const name of ['localhost', 'localhost.', 'LOCALHOST', 'app.localhost', 'app.localhost.'])
      expect(hostNameRefusal(name)).toMatch(/loopback/);
    expect(hostNameRefusal('localhost.example.com')).toBeUndefined();
  });
});

describe('metadata documents naming private hosts (no traffic is sent to them)', () => {
  const directoryWith = (documents: ClientMetadataDocumentOptions) =>
    createClientDirectory(resolveClientsOptions({ clientMetadataDocuments: documents }), new MemorySignInStore());

  it.each([
    'https://127.0.0.1/client.json',
    'https://127.1/client.json',
    'https://0x7f000001/client.json',
    'https://2130706433/client.json',
    'https://017700000001/client.json',
    'https://0177.0.0.1/client.json',
    'https://[::1]/client.json',
    'https://[::ffff:127.0.0.1]/client.json',
    'https://[0:0:0:0:0:0:0:1]/client.json',
    'https://localhost/client.json',
    'https://localhost./client.json',
    'https://api.localhost/client.json',
  ])('refuses %s as loopback, resolving nothing', async (clientId) => {
    const resolve = jest.fn(async (): Promise<string[]> => {
      throw new Error('must not resolve');
    });
    const err = await directoryWith({ resolve })
      .find(clientId)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toMatchObject({
      error: 'invalid_client',
      description: expect.stringMatching(/is not fetched: its host is loopback/),
    });
    expect(resolve).not.toHaveBeenCalled();
  });

  it.each([
    [['10.0.0.7'], 'private'],
    [['172.20.1.1'], 'private'],
    [['192.168.1.1'], 'private'],
    [['169.254.169.254'], 'link-local'],
    [['fe80::abcd'], 'link-local'],
    [['fd00::1'], 'unique local'],
    [['100.64.1.1'], 'CGNAT'],
    [['0.0.0.0'], 'unspecified'],
    [['::ffff:192.168.0.1'], 'private'],
    [['93.184.216.34', '10.0.0.1'], 'private'],
    [['2606:4700::1111', '::1'], 'loopback'],
    [[], 'not resolvable'],
    [['not-an-address'], 'not an IP address'],
  ])('refuses a host resolving to %j (%s)', async (addresses, why) => {
    const directory = directoryWith({ resolve: async () => addresses });
    await expect(directory.find('https://client.example.com/oauth/client.json')).rejects.toMatchObject({
      error: 'invalid_client',
      description: expect.stringContaining(why),
    });
  });

  it('refuses a host that does not resolve', async () => {
    const directory = directoryWith({ resolve: async () => Promise.reject(new Error('ENOTFOUND')) });
    await expect(directory.find('https://nowhere.example/client.json')).rejects.toMatchObject({
      error: 'invalid_client',
      description: expect.stringMatching(/not resolvable/),
    });
  });

  it('refuses http documents unless private addresses are allowed', async () => {
    await expect(
      directoryWith({ resolve: async () => ['93.184.216.34'] }).find('http://client.example.com/c.json'),
    ).resolves.toBeUndefined();
  });
});

describe('metadata documents that misbehave (a local server, allowPrivateAddresses)', () => {
  let server: http.Server;
  let base = '';
  const closed: string[] = [];
  const closing = new Signal();
  const hits: string[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const path = req.url ?? '';
      hits.push(path);
      res.on('close', () => {
        closed.push(path);
        closing.notify();
      });
      // The id as the client named it: the Host header carries the name it used, whatever address it connected to.
      const doc = JSON.stringify({
        client_id: `http://${req.headers.host}${path}`,
        redirect_uris: ['https://a.example/cb'],
        token_endpoint_auth_method: 'none',
      });
      if (path === '/huge.json') {
        res.writeHead(200, { 'Content-Type': 'application/json' }); // chunked: no length declared
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        let sent = 0;
        const pump = (): void => {
          while (sent < 10 * 1024 * 1024 && !res.destroyed) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        pump();
      } else if (path === '/declared-huge.json') {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(10 * 1024 * 1024) });
        res.write('{');
      } else if (path === '/endless.json') {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        const tick = setInterval(() => (res.destroyed ? clearInterval(tick) : res.write(' '.repeat(512))), 1);
      } else if (path === '/silent.json') {
        // Never answers.
      } else if (path === '/stalled.json') {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write('{"client_id":');
      } else if (path === '/redirect.json') {
        res.writeHead(302, { Location: `${base}/target.json` });
        res.end();
      } else if (path === '/not-json.json') {
        res.end('<html>hello</html>');
      } else if (path === '/array.json') {
        res.end('[]');
      } else if (path === '/trailing-slash.json') {
        res.end(JSON.stringify({ client_id: `${base}${path}/`, redirect_uris: ['https://a.example/cb'] }));
      } else if (path === '/missing.json') {
        res.writeHead(404);
        res.end();
      } else {
        res.end(doc);
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  });

  const directoryWith = (documents: ClientMetadataDocumentOptions = {}) =>
    createClientDirectory(
      resolveClientsOptions({ clientMetadataDocuments: { allowPrivateAddresses: true, ...documents } }),
      new MemorySignInStore(),
    );

  it.each(['/huge.json', '/declared-huge.json', '/endless.json'])(
    'stops reading %s at maxBytes and drops the connection',
    async (path) => {
      const started = Date.now();
      await expect(directoryWith({ maxBytes: 5_120, timeoutMs: 4_000 }).find(`${base}${path}`)).rejects.toMatchObject({
        error: 'invalid_client',
        description: expect.stringMatching(/larger than 5120 bytes/),
      });
      expect(Date.now() - started).toBeLessThan(4_000); // refused for its size, not by the timeout
      await closing.when(() => closed.includes(path), `the server to see ${path}'s connection closed`);
    },
  );

  it.each(['/silent.json', '/stalled.json'])('gives up on %s after timeoutMs', async (path) => {
    await expect(directoryWith({ timeoutMs: 200 }).find(`${base}${path}`)).rejects.toMatchObject({
      error: 'invalid_client',
      description: expect.stringMatching(/no complete answer within 200 ms/),
    });
    await closing.when(() => closed.includes(path), `the server to see ${path}'s connection closed`);
  });

  it('does not follow a redirect', async () => {
    await expect(directoryWith().find(`${base}/redirect.json`)).rejects.toMatchObject({
      error: 'invalid_client',
      description: expect.stringMatching(/redirect \(302\), which is not followed/),
    });
    expect(hits).not.toContain('/target.json');
  });

  it.each([
    ['/not-json.json', /is not JSON/],
    ['/array.json', /names another client_id/],
    ['/trailing-slash.json', /names another client_id/],
    ['/missing.json', /answered HTTP 404/],
  ])('refuses %s', async (path, why) => {
    await expect(directoryWith().find(`${base}${path}`)).rejects.toMatchObject({
      error: 'invalid_client',
      description: expect.stringMatching(why),
    });
  });

  it('refuses a client_id that names a document under another spelling (dot segments, default port)', async () => {
    await expect(directoryWith().find(`${base}/a/../client.json`)).rejects.toMatchObject({
      description: expect.stringMatching(/not a URL in normal form/),
    });
    expect(hits).not.toContain('/client.json');
  });

  it('connects to the address it checked, not to a second resolution (DNS rebinding)', async () => {
    const answers = [['127.0.0.1'], ['10.0.0.1']];
    const resolve = jest.fn(async () => answers.shift() as string[]);
    const port = new URL(base).port;
    // `rebind.invalid` cannot resolve through DNS (RFC 6761 §6.4): the fetch reaches the local server only because it
    // uses the address the check saw, and the resolver's second, different answer is never asked for.
    const client = await directoryWith({ resolve }).find(`http://rebind.invalid:${port}/client.json`);
    expect(client).toMatchObject({ clientId: `http://rebind.invalid:${port}/client.json` });
    expect(resolve).toHaveBeenCalledTimes(1);
  });
});

describe('client secrets', () => {
  it('are compared by digest, in constant time, whatever the length presented', async () => {
    const directory = createClientDirectory(
      resolveClientsOptions({
        clients: [{ clientId: 'app', clientSecret: 's3cret-value', redirectUris: ['https://a.example/cb'] }],
      }),
      new MemorySignInStore(),
    );
    const compare = jest.spyOn(crypto, 'timingSafeEqual');
    try {
      for (const secret of ['s', 's3cret-valuf', 'x'.repeat(100_000)]) {
        await expect(
          directory.authenticate(undefined, { client_id: 'app', client_secret: secret }),
        ).rejects.toMatchObject({ error: 'invalid_client' });
      }
      await expect(
        directory.authenticate(undefined, { client_id: 'app', client_secret: 's3cret-value' }),
      ).resolves.toMatchObject({ clientId: 'app' });
      expect(compare).toHaveBeenCalledTimes(4);
      for (const [a, b] of compare.mock.calls) expect([(a as Buffer).length, (b as Buffer).length]).toEqual([32, 32]);
    } finally {
      compare.mockRestore();
    }
  });
});
