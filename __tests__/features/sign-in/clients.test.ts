// The authorization server's clients: options at boot, registration over HTTP (and by the SDK client), metadata documents, authentication.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { registerClient as sdkRegisterClient } from '@modelcontextprotocol/sdk/client/auth.js';
import { McpConfigError } from '../../../lib/options/config-error';
import { ClientAuthenticationError } from '../../../lib/features/sign-in/clients/client-auth';
import { resolveClientsOptions, type ClientsOptions } from '../../../lib/features/sign-in/clients/client-options';
import { createClientDirectory, redirectAllowed } from '../../../lib/features/sign-in/clients/clients';
import { documentTtlMs } from '../../../lib/features/sign-in/clients/cimd';
import { createRegistrationHandler } from '../../../lib/features/sign-in/clients/register-handler';
import { OAuthError } from '../../../lib/features/sign-in/oauth-error';
import { MemorySignInStore } from '../../../lib/edge/store/memory-sign-in-store';
import { ASYMMETRIC_JWS_ALGORITHMS } from '../../../lib/edge/security/jose-types';
import { listenLocally, type Listening } from '../../helpers/ports';

const basic = (id: string, secret: string): string =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

function registrationApp(options: ClientsOptions = {}) {
  const resolved = resolveClientsOptions(options);
  const store = new MemorySignInStore();
  const directory = createClientDirectory(resolved, store);
  const app = express();
  app.set('trust proxy', true);
  app.all('/oauth/register', createRegistrationHandler(directory, resolved));
  return { app, directory, store };
}

/** A server of metadata documents on 127.0.0.1: `documents[path]` is answered as JSON with `headers`. */
async function documentServer(
  answer: (path: string, res: http.ServerResponse, base: string) => void,
): Promise<{ base: string; close(): Promise<void>; hits: string[] }> {
  const hits: string[] = [];
  let base = '';
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    answer(req.url ?? '', res, base);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    hits,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('client options (auth.server.clients, registration, clientMetadataDocuments)', () => {
  it('defaults: registration and metadata documents on, no pre-registered clients', () => {
    const resolved = resolveClientsOptions({});
    expect(resolved.clients.size).toBe(0);
    expect(resolved.registration).toEqual({
      maxClients: 10_000,
      maxMetadataBytes: 8_192,
      perMinute: 10,
      clientTtlMs: 90 * 24 * 3_600_000,
    });
    expect(resolved.clientMetadataDocuments).toMatchObject({
      timeoutMs: 5_000,
      maxBytes: 5_120,
      allowPrivateAddresses: false,
    });
    expect(Object.isFrozen(resolved)).toBe(true);
  });

  it.each<[string, ClientsOptions, RegExp]>([
    [
      'a redirect URI with a fragment',
      { clients: [{ clientId: 'a', redirectUris: ['https://a.example/cb#x'] }] },
      /^mcpRouter: option 'auth\.server\.clients\[0\]\.redirectUris\[0\]' must not contain a fragment/,
    ],
    [
      'an http redirect off loopback',
      { clients: [{ clientId: 'a', redirectUris: ['https://a.example/cb', 'http://a.example/cb'] }] },
      /'auth\.server\.clients\[0\]\.redirectUris\[1\]' may use http only on a loopback host/,
    ],
    [
      'no redirect URIs',
      { clients: [{ clientId: 'a', redirectUris: [] }] },
      /option 'auth\.server\.clients\[0\]\.redirectUris' must be a non-empty array/,
    ],
    [
      'an empty client id',
      { clients: [{ clientId: '', redirectUris: ['https://a.example/cb'] }] },
      /'auth\.server\.clients\[0\]\.clientId' must be a string/,
    ],
    [
      'a misspelt key',
      { clients: [{ clientId: 'a', redirectUri: ['https://a.example/cb'] } as never] },
      /unknown option 'auth\.server\.clients\[0\]\.redirectUri'\. Did you mean 'auth\.server\.clients\[0\]\.redirectUris'\?/,
    ],
    [
      'a duplicate id',
      {
        clients: [
          { clientId: 'a', redirectUris: ['https://a.example/cb'] },
          { clientId: 'a', redirectUris: ['https://a.example/cb'] },
        ],
      },
      /'auth\.server\.clients\[1\]\.clientId': 'a' is listed twice/,
    ],
    [
      'a bad registration limit',
      { registration: { perMinute: 0 } },
      /option 'auth\.server\.registration\.perMinute' must be a positive integer, got 0/,
    ],
    [
      'an unknown registration key',
      { registration: { maxClient: 5 } as never },
      /unknown option 'auth\.server\.registration\.maxClient'\. Did you mean 'auth\.server\.registration\.maxClients'\?/,
    ],
    [
      'a bad document option',
      { clientMetadataDocuments: { allowPrivateAddresses: 'yes' as never } },
      /'auth\.server\.clientMetadataDocuments\.allowPrivateAddresses' must be true or false/,
    ],
    [
      'registration as a string',
      { registration: 'on' as never },
      /'auth\.server\.registration' must be an options object, true or false/,
    ],
  ])('refuses %s at boot, naming the option', (_why, options, message) => {
    let thrown: unknown;
    try {
      resolveClientsOptions(options);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(McpConfigError);
    expect((thrown as Error).message).toMatch(message);
  });

  it('never changes the caller’s objects', () => {
    const options = Object.freeze({
      clients: Object.freeze([
        Object.freeze({ clientId: 'a', redirectUris: Object.freeze(['https://a.example/cb']) as string[] }),
      ]),
      registration: Object.freeze({ perMinute: 3 }),
    });
    expect(resolveClientsOptions(options as ClientsOptions).registration).toMatchObject({
      perMinute: 3,
      maxClients: 10_000,
    });
  });

  it('tells the server metadata what the configuration allows', () => {
    const store = new MemorySignInStore();
    expect(createClientDirectory(resolveClientsOptions({}), store).metadata).toEqual({
      registration: true,
      metadataDocuments: true,
      // A client may register or publish its keys: private_key_jwt, with the asymmetric algorithms only.
      authMethods: ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'],
      authSigningAlgorithms: ASYMMETRIC_JWS_ALGORITHMS,
      grantTypes: ['authorization_code', 'refresh_token'],
    });
    const onlyPublic = resolveClientsOptions({
      registration: false,
      clientMetadataDocuments: false,
      clients: [{ clientId: 'cli', redirectUris: ['http://127.0.0.1/cb'] }],
    });
    expect(createClientDirectory(onlyPublic, store).metadata).toEqual({
      registration: false,
      metadataDocuments: false,
      authMethods: ['none'],
      authSigningAlgorithms: undefined,
      grantTypes: ['authorization_code', 'refresh_token'],
    });
  });
});

describe('Dynamic Client Registration (POST /oauth/register)', () => {
  it('registers a public MCP client: 201, no secret, no-store, CORS *', async () => {
    const { app, directory } = registrationApp();
    const metadata = {
      redirect_uris: ['http://127.0.0.1:33418/callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      client_name: 'Inspector',
      extra: { ignored: true },
    };
    const res = await request(app)
      .post('/oauth/register')
      .set('Origin', 'https://inspector.example')
      .send(metadata)
      .expect(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.body).toEqual({
      client_id: expect.any(String),
      client_id_issued_at: expect.any(Number),
      redirect_uris: metadata.redirect_uris,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      client_name: 'Inspector',
    });
    const client = await directory.find(res.body.client_id);
    expect(client).toMatchObject({
      source: 'dynamic',
      clientName: 'Inspector',
      tokenEndpointAuthMethod: 'none',
      firstParty: false,
    });
    expect(client?.secretDigest).toBeUndefined();
  });

  it('gives a confidential client a secret once, keeping only its digest; Basic is the RFC 7591 default', async () => {
    const { app, store, directory } = registrationApp();
    const res = await request(app)
      .post('/oauth/register')
      .send({ redirect_uris: ['https://app.example/cb'] })
      .expect(201);
    expect(res.body).toMatchObject({
      token_endpoint_auth_method: 'client_secret_basic',
      client_secret: expect.any(String),
      client_secret_expires_at: 0,
      grant_types: ['authorization_code'],
    });
    const stored = JSON.stringify(await store.get('client', res.body.client_id));
    expect(stored).not.toContain(res.body.client_secret);
    await expect(directory.authenticate(basic(res.body.client_id, res.body.client_secret), {})).resolves.toMatchObject({
      clientId: res.body.client_id,
    });
  });

  it('answers a preflight from any origin', async () => {
    const { app } = registrationApp();
    const res = await request(app)
      .options('/oauth/register')
      .set('Origin', 'https://web.example')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-headers']).toMatch(/content-type/i);
  });

  it.each([
    ['no redirect_uris', {}, 'invalid_redirect_uri'],
    [
      'a grant type we do not issue',
      { redirect_uris: ['https://a.example/cb'], grant_types: ['authorization_code', 'password'] },
      'invalid_client_metadata',
    ],
    [
      'a response type other than code',
      { redirect_uris: ['https://a.example/cb'], response_types: ['token'] },
      'invalid_client_metadata',
    ],
    [
      'private_key_jwt',
      { redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'private_key_jwt' },
      'invalid_client_metadata',
    ],
    [
      'a logo over http',
      { redirect_uris: ['https://a.example/cb'], logo_uri: 'http://a.example/logo.png' },
      'invalid_client_metadata',
    ],
    [
      'a name of 5,000 characters',
      { redirect_uris: ['https://a.example/cb'], client_name: 'x'.repeat(5_000) },
      'invalid_client_metadata',
    ],
    [
      'a scope with quotes',
      { redirect_uris: ['https://a.example/cb'], scope: 'read "write"' },
      'invalid_client_metadata',
    ],
    ['an array body', [{ redirect_uris: ['https://a.example/cb'] }], 'invalid_client_metadata'],
  ])('refuses %s with the RFC 7591 error', async (_why, body, error) => {
    const { app } = registrationApp();
    const res = await request(app)
      .post('/oauth/register')
      .send(body as object)
      .expect(400);
    expect(res.body).toEqual({ error, error_description: expect.any(String) });
  });

  it('accepts a native app’s private-use scheme and loopback http', async () => {
    const { app } = registrationApp();
    await request(app)
      .post('/oauth/register')
      .send({
        redirect_uris: [
          'com.example.app:/oauth2redirect',
          'cursor://anysphere.cursor-retrieval/oauth/callback',
          'http://[::1]:8080/cb',
          'http://localhost/cb',
        ],
        token_endpoint_auth_method: 'none',
      })
      .expect(201);
  });

  it('answers another method 405 and a non-JSON body 415, as JSON', async () => {
    const { app } = registrationApp();
    const get = await request(app).get('/oauth/register').expect(405);
    expect(get.body.error).toBe('invalid_request');
    const text = await request(app)
      .post('/oauth/register')
      .set('Content-Type', 'text/plain')
      .send('redirect_uris=x')
      .expect(415);
    expect(text.body.error).toBe('invalid_request');
  });

  it('answers 404 with a JSON error when registration is off', async () => {
    const { app, directory } = registrationApp({ registration: false });
    const res = await request(app)
      .post('/oauth/register')
      .send({ redirect_uris: ['https://a.example/cb'] })
      .expect(404);
    expect(res.body.error).toBe('invalid_request');
    await expect(directory.register({ redirect_uris: ['https://a.example/cb'] })).rejects.toMatchObject({
      status: 404,
    });
  });

  it('works with the SDK v1 client’s registerClient()', async () => {
    const { app, directory } = registrationApp();
    const listening: Listening = await listenLocally(app);
    try {
      const issuer = `http://127.0.0.1:${listening.port}`;
      const info = await sdkRegisterClient(issuer, {
        metadata: {
          issuer,
          authorization_endpoint: `${issuer}/oauth/authorize`,
          token_endpoint: `${issuer}/oauth/token`,
          registration_endpoint: `${issuer}/oauth/register`,
          response_types_supported: ['code'],
        },
        clientMetadata: {
          redirect_uris: ['http://localhost:3000/callback'],
          client_name: 'SDK client',
          token_endpoint_auth_method: 'none',
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
        },
        scope: 'mcp',
      });
      expect(info).toMatchObject({ client_name: 'SDK client', scope: 'mcp', token_endpoint_auth_method: 'none' });
      expect(await directory.find(info.client_id)).toMatchObject({
        scope: 'mcp',
        redirectUris: ['http://localhost:3000/callback'],
      });
    } finally {
      await listening.close();
    }
  });

  it('keeps an idle registration clientTtlMs, and each use extends it', async () => {
    let now = 1_000_000;
    const store = new MemorySignInStore({ clients: 100 }, () => now);
    const directory = createClientDirectory(resolveClientsOptions({ registration: { clientTtlMs: 1_000_000 } }), store);
    const realNow = Date.now;
    Date.now = () => now;
    try {
      const { client_id } = await directory.register({
        redirect_uris: ['https://a.example/cb'],
        token_endpoint_auth_method: 'none',
      });
      now += 900_000;
      expect(await directory.find(client_id as string)).toBeDefined(); // used: kept 1,000,000 ms from here
      now += 900_000;
      expect(await directory.find(client_id as string)).toBeDefined();
      now += 1_000_001;
      expect(await directory.find(client_id as string)).toBeUndefined();
    } finally {
      Date.now = realNow;
    }
  });
});

describe('redirect URI matching', () => {
  it('is exact, but for the port of a loopback IP redirect (RFC 8252 §7.3)', () => {
    const registered = [
      'https://a.example/cb',
      'http://127.0.0.1/callback',
      'http://[::1]:9000/cb',
      'http://localhost:3000/cb',
    ];
    expect(redirectAllowed(registered, 'https://a.example/cb')).toBe(true);
    expect(redirectAllowed(registered, 'https://a.example/cb?x=1')).toBe(false);
    expect(redirectAllowed(registered, 'https://a.example/cb/')).toBe(false);
    expect(redirectAllowed(registered, 'https://A.example/cb')).toBe(false);
    expect(redirectAllowed(registered, 'http://127.0.0.1:51234/callback')).toBe(true);
    expect(redirectAllowed(registered, 'http://127.0.0.1:51234/other')).toBe(false);
    expect(redirectAllowed(registered, 'http://[::1]/cb')).toBe(true);
    expect(redirectAllowed(registered, 'http://localhost:4000/cb')).toBe(false);
    expect(redirectAllowed(registered, 'https://127.0.0.1:51234/callback')).toBe(false);
  });
});

describe('Client ID Metadata Documents (served by a local test server, allowPrivateAddresses)', () => {
  let server: Awaited<ReturnType<typeof documentServer>>;
  beforeAll(async () => {
    server = await documentServer((path, res, base) => {
      const client = {
        client_id: `${base}${path}`,
        client_name: 'Doc client',
        redirect_uris: ['http://127.0.0.1:7777/cb'],
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'none',
      };
      const body =
        path === '/mismatch.json'
          ? { ...client, client_id: 'https://elsewhere.example/client.json' }
          : path === '/secret.json'
            ? { ...client, token_endpoint_auth_method: 'client_secret_post' }
            : path === '/empty-uris.json'
              ? { ...client, client_uri: '', logo_uri: '', tos_uri: '', policy_uri: '' }
              : client;
      res.writeHead(200, {
        'Content-Type': 'application/json',
        'Cache-Control': path === '/nostore.json' ? 'no-store' : 'max-age=60',
      });
      res.end(JSON.stringify(body));
    });
  });
  afterAll(() => server?.close());

  const directoryFor = (store = new MemorySignInStore()) =>
    createClientDirectory(resolveClientsOptions({ clientMetadataDocuments: { allowPrivateAddresses: true } }), store);

  it('finds a client by its document, caches it in the store (shared by instances), and authenticates it as public', async () => {
    const store = new MemorySignInStore();
    const id = `${server.base}/client.json`;
    const client = await directoryFor(store).find(id);
    expect(client).toMatchObject({
      clientId: id,
      source: 'metadata-document',
      clientName: 'Doc client',
      tokenEndpointAuthMethod: 'none',
      redirectUris: ['http://127.0.0.1:7777/cb'],
    });
    const hits = server.hits.length;
    const otherInstance = directoryFor(store);
    await expect(otherInstance.find(id)).resolves.toEqual(client);
    await expect(otherInstance.authenticate(undefined, { client_id: id })).resolves.toMatchObject({ clientId: id });
    expect(server.hits.length).toBe(hits);
  });

  it('does not cache a no-store document', async () => {
    const directory = directoryFor();
    const id = `${server.base}/nostore.json`;
    await directory.find(id);
    await directory.find(id);
    expect(server.hits.filter((path) => path === '/nostore.json')).toHaveLength(2);
  });

  it('shares one fetch between concurrent requests for one document', async () => {
    const directory = directoryFor();
    const id = `${server.base}/concurrent.json`;
    await Promise.all([directory.find(id), directory.find(id), directory.find(id)]);
    expect(server.hits.filter((path) => path === '/concurrent.json')).toHaveLength(1);
  });

  it('reads an empty client_uri or logo_uri in a document as absent, as registration does', async () => {
    const id = `${server.base}/empty-uris.json`;
    const client = await directoryFor().find(id);
    expect(client).toMatchObject({ clientId: id, clientName: 'Doc client' });
    expect(client?.clientUri).toBeUndefined();
    expect(client?.logoUri).toBeUndefined();
  });

  it('refuses a document whose client_id differs, or that asks for a secret', async () => {
    const directory = directoryFor();
    await expect(directory.find(`${server.base}/mismatch.json`)).rejects.toMatchObject({
      error: 'invalid_client',
      description: expect.stringMatching(/names another client_id/),
    });
    await expect(directory.find(`${server.base}/secret.json`)).rejects.toMatchObject({
      error: 'invalid_client',
      description: expect.stringMatching(/token_endpoint_auth_method must be 'none'/),
    });
  });

  it('treats an id that is not a URL with a path as a registration id, and ignores documents when they are off', async () => {
    const off = createClientDirectory(
      resolveClientsOptions({ clientMetadataDocuments: false }),
      new MemorySignInStore(),
    );
    await expect(off.find(`${server.base}/client.json`)).resolves.toBeUndefined();
    await expect(directoryFor().find('https://app.example')).resolves.toBeUndefined();
    expect(off.metadata.metadataDocuments).toBe(false);
  });

  it('reads Cache-Control within [0, 24 h], 5 minutes when silent', () => {
    expect(documentTtlMs(undefined)).toBe(300_000);
    expect(documentTtlMs('public, max-age=120')).toBe(120_000);
    expect(documentTtlMs('max-age=99999999')).toBe(86_400_000);
    expect(documentTtlMs('no-store')).toBe(0);
    expect(documentTtlMs('max-age=0')).toBe(0);
    expect(documentTtlMs('max-age=banana')).toBe(300_000);
  });
});

describe('client authentication (token and revocation endpoints)', () => {
  const resolved = resolveClientsOptions({
    clients: [
      { clientId: 'web app', clientSecret: 'p@ss:w%rd é', redirectUris: ['https://web.example/cb'], firstParty: true },
      { clientId: 'cli', redirectUris: ['http://127.0.0.1/cb'] },
    ],
  });
  const directory = createClientDirectory(resolved, new MemorySignInStore());

  it('client_secret_basic, with the id and secret form-urlencoded (RFC 6749 §2.3.1)', async () => {
    await expect(
      directory.authenticate(basic('web app', 'p@ss:w%rd é'), { grant_type: 'authorization_code' }),
    ).resolves.toMatchObject({ clientId: 'web app', firstParty: true });
  });

  it('client_secret_post', async () => {
    await expect(
      directory.authenticate(undefined, { client_id: 'web app', client_secret: 'p@ss:w%rd é' }),
    ).resolves.toMatchObject({ clientId: 'web app' });
  });

  it('none, for a public client', async () => {
    await expect(directory.authenticate(undefined, { client_id: 'cli' })).resolves.toMatchObject({
      clientId: 'cli',
      tokenEndpointAuthMethod: 'none',
    });
  });

  it.each<[string, string | undefined, Record<string, string>, boolean]>([
    ['a wrong secret (Basic)', basic('web app', 'nope'), {}, true],
    ['a wrong secret (post)', undefined, { client_id: 'web app', client_secret: 'nope' }, false],
    ['an unknown client (Basic)', basic('ghost', 'x'), {}, true],
    ['an unknown client (none)', undefined, { client_id: 'ghost' }, false],
    ['a confidential client without its secret', undefined, { client_id: 'web app' }, false],
    ['a public client presenting a secret', undefined, { client_id: 'cli', client_secret: 'anything' }, false],
    ['two methods at once', basic('web app', 'p@ss:w%rd é'), { client_secret: 'p@ss:w%rd é' }, true],
    ['Basic for one client, client_id for another', basic('web app', 'p@ss:w%rd é'), { client_id: 'cli' }, true],
    ['no client at all', undefined, {}, false],
    ['a Bearer header', 'Bearer abc', { client_id: 'cli' }, false],
    ['Basic credentials without a colon', `Basic ${Buffer.from('web app').toString('base64')}`, {}, true],
    ['Basic credentials with a broken escape', `Basic ${Buffer.from('web%zzapp:x').toString('base64')}`, {}, true],
  ])('refuses %s: invalid_client 401', async (_why, authorization, form, challenge) => {
    const err = await directory.authenticate(authorization, form).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ClientAuthenticationError);
    expect(err).toBeInstanceOf(OAuthError);
    expect(err).toMatchObject({ error: 'invalid_client', status: 401 });
    expect((err as ClientAuthenticationError).headers['WWW-Authenticate']).toBe(
      challenge ? 'Basic realm="oauth", charset="UTF-8"' : undefined,
    );
  });

  it('holds a dynamically registered client to the method it registered', async () => {
    const store = new MemorySignInStore();
    const dynamic = createClientDirectory(resolveClientsOptions({}), store);
    const post = await dynamic.register({
      redirect_uris: ['https://a.example/cb'],
      token_endpoint_auth_method: 'client_secret_post',
    });
    const id = post.client_id as string;
    const secret = post.client_secret as string;
    await expect(dynamic.authenticate(undefined, { client_id: id, client_secret: secret })).resolves.toMatchObject({
      clientId: id,
    });
    await expect(dynamic.authenticate(basic(id, secret), {})).rejects.toMatchObject({
      error: 'invalid_client',
      description: expect.stringMatching(/client_secret_post, not client_secret_basic/),
    });
  });
});
