// Machine clients of the router's authorization server: private_key_jwt (RFC 7523 §2.2) for every kind of client, and
// the client_credentials grant (RFC 6749 §4.4) for pre-registered confidential clients; options, metadata, tokens.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { exportJWK } from 'jose';
import { mcpRouter } from '../../../lib';
import { McpConfigError } from '../../../lib/options/config-error';
import { resolveClientsOptions, type ClientsOptions } from '../../../lib/features/sign-in/clients/client-options';
import { ASYMMETRIC_JWS_ALGORITHMS } from '../../../lib/edge/security/jose-types';
import { makeSigningKey, startJwksServer, type JwksServer, type SigningKey } from '../../helpers/jwks-server';
import { assertionFields, clientAssertion } from '../../helpers/client-assertion';
import { silentLogger } from '../../helpers/messages';
import { listenLocally } from '../../helpers/ports';
import { codeFor, cookieSignIn, pkce, startSignInServer, type SignInServer } from '../../helpers/sign-in-server';

const REDIRECT = 'http://127.0.0.1:1/callback';
const SECRET = 'machine-secret-value';

let key: SigningKey;
let other: SigningKey;
let jwksServer: JwksServer;
let server: SignInServer;
let issuer: string;
const logger = silentLogger();

/** A server of client metadata documents on 127.0.0.1 (documents are fetched from it with allowPrivateAddresses). */
let documents: http.Server;
let documentBase: string;
const documentBodies = new Map<string, unknown>();

beforeAll(async () => {
  key = await makeSigningKey('client-key');
  other = await makeSigningKey('other-key');
  jwksServer = await startJwksServer([key]);
  documents = http.createServer((req, res) => {
    const body = documentBodies.get(req.url ?? '');
    if (body === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
  documentBase = `http://127.0.0.1:${(documents.address() as AddressInfo).port}`;
  documentBodies.set('/jwks.json', { keys: [key.publicJwk] });
  server = await startSignInServer({
    scopes: ['read', 'write', 'admin'],
    clientMetadataDocuments: { allowPrivateAddresses: true },
    clients: [
      { clientId: 'svc-secret', clientSecret: SECRET, grants: ['client_credentials'], scope: 'read write' },
      { clientId: 'svc-key', jwks: { keys: [key.publicJwk] }, grants: ['client_credentials'], scope: 'read' },
      { clientId: 'svc-uri', jwksUri: jwksServer.url, grants: ['client_credentials'] },
      { clientId: 'web', clientSecret: SECRET, redirectUris: [REDIRECT] },
      { clientId: 'cli', redirectUris: [REDIRECT] },
      {
        clientId: 'both',
        jwks: { keys: [key.publicJwk] },
        grants: ['authorization_code', 'client_credentials'],
        redirectUris: [REDIRECT],
      },
    ],
  });
  issuer = server.issuer;
});

afterAll(async () => {
  await server?.close();
  await jwksServer?.close();
  documents?.closeAllConnections();
  await new Promise((resolve) => documents?.close(resolve) ?? resolve(undefined));
});

const basic = (id: string, secret: string): string =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
const token = (form: Record<string, string>, authorization?: string) => {
  const req = request(server.app.server).post('/mcp/oauth/token').type('form');
  return (authorization === undefined ? req : req.set('Authorization', authorization)).send(form);
};
/** Calls the whoami tool with a bearer token (MCP 2026-07-28, stateless). */
async function whoami(accessToken: string): Promise<unknown> {
  const res = await request(server.app.server)
    .post('/mcp')
    .set('Authorization', `Bearer ${accessToken}`)
    .set('Accept', 'application/json, text/event-stream')
    .set('MCP-Protocol-Version', '2026-07-28')
    .set('Mcp-Method', 'tools/call')
    .set('Mcp-Name', 'whoami')
    .send({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'whoami',
        arguments: {},
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    });
  expect(res.status).toBe(200);
  return res.body.result.structuredContent;
}

describe('options (auth.server.clients[i].grants, jwks, jwksUri)', () => {
  it.each<[string, ClientsOptions, RegExp]>([
    [
      'client_credentials for a public client',
      { clients: [{ clientId: 'a', grants: ['client_credentials'] }] },
      /option 'auth\.server\.clients\[0\]\.grants' must be 'client_credentials' only for a confidential client: give it clientSecret, jwks or jwksUri/,
    ],
    [
      'an unknown grant',
      { clients: [{ clientId: 'a', clientSecret: 's', grants: ['password' as never] }] },
      /'auth\.server\.clients\[0\]\.grants' must be a non-empty array of 'authorization_code', 'refresh_token', 'client_credentials'/,
    ],
    [
      'no grants',
      { clients: [{ clientId: 'a', clientSecret: 's', grants: [] }] },
      /'auth\.server\.clients\[0\]\.grants' must be a non-empty array/,
    ],
    [
      'the code grant without redirect URIs',
      { clients: [{ clientId: 'a', clientSecret: 's' }] },
      /'auth\.server\.clients\[0\]\.redirectUris' must be a non-empty array of URLs \(the client has the 'authorization_code' grant\)/,
    ],
    [
      'a secret and keys',
      { clients: [{ clientId: 'a', clientSecret: 's', jwks: { keys: [] }, grants: ['client_credentials'] }] },
      /'auth\.server\.clients\[0\]\.clientSecret' and 'auth\.server\.clients\[0\]\.jwks' are two ways to authenticate/,
    ],
    [
      'jwks and jwksUri',
      {
        clients: [
          { clientId: 'a', jwks: { keys: [] }, jwksUri: 'https://a.example/jwks', grants: ['client_credentials'] },
        ],
      },
      /'auth\.server\.clients\[0\]\.jwks' and 'auth\.server\.clients\[0\]\.jwksUri' are two ways/,
    ],
    [
      'an empty key set',
      { clients: [{ clientId: 'a', jwks: { keys: [] }, grants: ['client_credentials'] }] },
      /'auth\.server\.clients\[0\]\.jwks' must be a JSON Web Key Set of public keys; it holds no key/,
    ],
    [
      'a symmetric key',
      { clients: [{ clientId: 'a', jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] }, grants: ['client_credentials'] }] },
      /it keys\[0\] is a symmetric key \(kty oct\)/,
    ],
    [
      'a jwksUri over http off loopback',
      { clients: [{ clientId: 'a', jwksUri: 'http://keys.example/jwks', grants: ['client_credentials'] }] },
      /'auth\.server\.clients\[0\]\.jwksUri' must be/,
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

  it('refuses a private key given as a client’s key set, rather than dropping it: that key has leaked', async () => {
    const privateJwk = { ...(await exportJWK(key.privateKey)), kid: key.kid, alg: key.alg };
    expect(() =>
      resolveClientsOptions({
        clients: [{ clientId: 'a', jwks: { keys: [privateJwk] }, grants: ['client_credentials'] }],
      }),
    ).toThrow(
      /'auth\.server\.clients\[0\]\.jwks' must be .*keys\[0\] holds private key material \('d'\): give the public key only/,
    );
  });

  it('defaults grants to the code and refresh grants; a client_credentials client needs no redirect URI', () => {
    const resolved = resolveClientsOptions({
      clients: [
        { clientId: 'cli', redirectUris: [REDIRECT] },
        { clientId: 'svc', jwks: { keys: [key.publicJwk] }, grants: ['client_credentials'] },
      ],
    });
    expect(resolved.clients.get('cli')).toMatchObject({
      grantTypes: ['authorization_code', 'refresh_token'],
      tokenEndpointAuthMethod: 'none',
    });
    expect(resolved.clients.get('svc')).toMatchObject({
      grantTypes: ['client_credentials'],
      redirectUris: [],
      tokenEndpointAuthMethod: 'private_key_jwt',
    });
    expect(resolved.keySets.has('svc')).toBe(true);
  });
});

describe('metadata (RFC 8414)', () => {
  it('lists private_key_jwt with its algorithms, and client_credentials since a client has it', async () => {
    const res = await request(server.app.server).get('/mcp/.well-known/oauth-authorization-server').expect(200);
    expect(res.body.token_endpoint_auth_methods_supported).toEqual([
      'client_secret_basic',
      'client_secret_post',
      'private_key_jwt',
      'none',
    ]);
    expect(res.body.token_endpoint_auth_signing_alg_values_supported).toEqual(ASYMMETRIC_JWS_ALGORITHMS);
    expect(res.body.token_endpoint_auth_signing_alg_values_supported).not.toContain('HS256');
    expect(res.body.revocation_endpoint_auth_signing_alg_values_supported).toEqual(ASYMMETRIC_JWS_ALGORITHMS);
    expect(res.body.grant_types_supported).toEqual(['authorization_code', 'refresh_token', 'client_credentials']);
  });

  it('lists neither without clients that use them', async () => {
    const plain = await startSignInServer({
      registration: false,
      clientMetadataDocuments: false,
      clients: [{ clientId: 'web', clientSecret: SECRET, redirectUris: [REDIRECT] }],
    });
    try {
      const res = await request(plain.app.server).get('/mcp/.well-known/oauth-authorization-server').expect(200);
      expect(res.body.token_endpoint_auth_methods_supported).toEqual(['client_secret_basic', 'client_secret_post']);
      expect(res.body.token_endpoint_auth_signing_alg_values_supported).toBeUndefined();
      expect(res.body.grant_types_supported).toEqual(['authorization_code', 'refresh_token']);
    } finally {
      await plain.close();
    }
  });
});

describe('metadata of a machine-only server', () => {
  it('lists only the grant and the methods its clients can use (no code flow, no public method)', async () => {
    const machines = await startSignInServer({
      registration: false,
      clientMetadataDocuments: false,
      clients: [
        { clientId: 'svc', jwks: { keys: [key.publicJwk] }, grants: ['client_credentials'] },
        { clientId: 'svc-secret', clientSecret: SECRET, grants: ['client_credentials'] },
      ],
    });
    try {
      const res = await request(machines.app.server).get('/mcp/.well-known/oauth-authorization-server').expect(200);
      expect(res.body.grant_types_supported).toEqual(['client_credentials']);
      expect(res.body.token_endpoint_auth_methods_supported).toEqual([
        'client_secret_basic',
        'client_secret_post',
        'private_key_jwt',
      ]);
    } finally {
      await machines.close();
    }
  });
});

describe('client_credentials (RFC 6749 §4.4)', () => {
  it('issues a token to a client authenticated by a secret: the client is the subject, no refresh token', async () => {
    const res = await token({ grant_type: 'client_credentials' }, basic('svc-secret', SECRET)).expect(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'read write',
    });
    expect(await whoami(res.body.access_token)).toEqual({ subject: 'svc-secret' });
    // The secret in the form works too (client_secret_post).
    await token({ grant_type: 'client_credentials', client_id: 'svc-secret', client_secret: SECRET }).expect(200);
  });

  it('issues a token to a client authenticated by an assertion (private_key_jwt), inline keys or a jwksUri', async () => {
    const inline = await token({
      grant_type: 'client_credentials',
      ...assertionFields(await clientAssertion(key, 'svc-key', issuer)),
    }).expect(200);
    expect(inline.body.scope).toBe('read');
    expect(await whoami(inline.body.access_token)).toEqual({ subject: 'svc-key' });
    // aud may be the token endpoint; client_id may be sent too.
    const fetched = await token({
      grant_type: 'client_credentials',
      client_id: 'svc-uri',
      ...assertionFields(await clientAssertion(key, 'svc-uri', `${issuer}/oauth/token`)),
    }).expect(200);
    // A client that names no scope may have every scope of the server.
    expect(fetched.body.scope).toBe('read write admin');
    expect(jwksServer.fetches).toBeGreaterThan(0);
  });

  it('grants the scopes asked that the client may have: fewer, not an error, when it asks for more', async () => {
    const asked = async (scope: string | undefined) =>
      (
        await token(
          { grant_type: 'client_credentials', ...(scope === undefined ? {} : { scope }) },
          basic('svc-secret', SECRET),
        ).expect(200)
      ).body.scope;
    expect(await asked('read')).toBe('read');
    expect(await asked('read admin unknown')).toBe('read');
    expect(await asked(undefined)).toBe('read write');
    expect(await asked('admin')).toBe('');
  });

  it('issues the token for this resource only (RFC 8707): another resource is invalid_target', async () => {
    await token({ grant_type: 'client_credentials', resource: `${issuer}/` }, basic('svc-secret', SECRET)).expect(200);
    const res = await token(
      { grant_type: 'client_credentials', resource: 'https://other.example/mcp' },
      basic('svc-secret', SECRET),
    ).expect(400);
    expect(res.body).toEqual({ error: 'invalid_target', error_description: expect.stringMatching(/resource must be/) });
  });

  it('refuses a client without the grant, and a public client: unauthorized_client, no token', async () => {
    const web = await token({ grant_type: 'client_credentials' }, basic('web', SECRET)).expect(400);
    expect(web.body).toEqual({
      error: 'unauthorized_client',
      error_description: 'the client is not registered for the client_credentials grant',
    });
    const cli = await token({ grant_type: 'client_credentials', client_id: 'cli' }).expect(400);
    expect(cli.body.error).toBe('unauthorized_client');
    expect(cli.body.access_token).toBeUndefined();
  });

  it('a client with both grants signs users in and acts as itself', async () => {
    const { verifier, challenge } = pkce();
    const code = await codeFor(issuer, 'both', REDIRECT, challenge);
    const res = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      ...assertionFields(await clientAssertion(key, 'both', issuer)),
    }).expect(200);
    expect(await whoami(res.body.access_token)).toEqual({ subject: 'alice' });
    const itself = await token({
      grant_type: 'client_credentials',
      ...assertionFields(await clientAssertion(key, 'both', issuer)),
    }).expect(200);
    expect(await whoami(itself.body.access_token)).toEqual({ subject: 'both' });
  });
});

describe('private_key_jwt at the revocation endpoint (RFC 7009 §2.1)', () => {
  it('authenticates the client by an assertion: 200; a bad one is 401 invalid_client', async () => {
    await request(server.app.server)
      .post('/mcp/oauth/revoke')
      .type('form')
      .send({ token: 'whatever', ...assertionFields(await clientAssertion(key, 'svc-key', issuer)) })
      .expect(200);
    const refused = await request(server.app.server)
      .post('/mcp/oauth/revoke')
      .type('form')
      .send({ token: 'whatever', ...assertionFields(await clientAssertion(other, 'svc-key', issuer)) })
      .expect(401);
    expect(refused.body.error).toBe('invalid_client');
  });
});

describe('registered clients (RFC 7591) with private_key_jwt', () => {
  const register = (metadata: Record<string, unknown>) =>
    request(server.app.server)
      .post('/mcp/oauth/register')
      .send({
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'private_key_jwt',
        ...metadata,
      });

  it('registers with jwks: no secret issued, the keys answered; the code is redeemed with an assertion only', async () => {
    const registered = await register({ jwks: { keys: [key.publicJwk] } }).expect(201);
    expect(registered.body).toMatchObject({
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [key.publicJwk] },
    });
    expect(registered.body.client_secret).toBeUndefined();
    const clientId = registered.body.client_id as string;
    const { verifier, challenge } = pkce();
    const code = await codeFor(issuer, clientId, REDIRECT, challenge);
    const exchange = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier };
    // Without the assertion (as a public client) it is refused, and the code is not spent.
    const publicTry = await token({ ...exchange, client_id: clientId }).expect(401);
    expect(publicTry.body).toEqual({
      error: 'invalid_client',
      error_description: 'this client authenticates with private_key_jwt, not none',
    });
    const res = await token({
      ...exchange,
      ...assertionFields(await clientAssertion(key, clientId, issuer)),
    }).expect(200);
    expect(res.body.refresh_token).toEqual(expect.any(String));
    // The refresh authenticates with an assertion too.
    await token({
      grant_type: 'refresh_token',
      refresh_token: res.body.refresh_token,
      ...assertionFields(await clientAssertion(key, clientId, issuer)),
    }).expect(200);
  });

  it('registers with a jwks_uri, fetched (here on loopback, allowPrivateAddresses) when an assertion comes', async () => {
    const registered = await register({ jwks_uri: `${documentBase}/jwks.json` }).expect(201);
    expect(registered.body.jwks_uri).toBe(`${documentBase}/jwks.json`);
    const clientId = registered.body.client_id as string;
    const { verifier, challenge } = pkce();
    const code = await codeFor(issuer, clientId, REDIRECT, challenge);
    await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      ...assertionFields(await clientAssertion(key, clientId, issuer)),
    }).expect(200);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['no keys', {}, /names exactly one of jwks and jwks_uri/],
    ['both jwks and jwks_uri', { jwks: { keys: [] }, jwks_uri: 'https://a.example/jwks' }, /exactly one/],
    ['an empty set', { jwks: { keys: [] } }, /^jwks holds no key$/],
    ['a symmetric key', { jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] } }, /symmetric key/],
    ['a private key', { jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', d: 'd' }] } }, /private key/],
    ['a jwks_uri that is not a URL', { jwks_uri: 'keys' }, /jwks_uri must be an absolute URL/],
    ['a jwks_uri with a fragment', { jwks_uri: 'https://a.example/jwks#k' }, /must not contain a fragment/],
  ])('refuses a registration with %s: invalid_client_metadata', async (_why, metadata, description) => {
    const res = await register(metadata).expect(400);
    expect(res.body).toEqual({
      error: 'invalid_client_metadata',
      error_description: expect.stringMatching(description),
    });
  });
});

describe('Client ID Metadata Document clients with private_key_jwt', () => {
  it('a document naming private_key_jwt with jwks: the client must authenticate with an assertion', async () => {
    const clientId = `${documentBase}/keyed.json`;
    documentBodies.set('/keyed.json', {
      client_id: clientId,
      client_name: 'Keyed',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [key.publicJwk] },
    });
    const { verifier, challenge } = pkce();
    const code = await codeFor(issuer, clientId, REDIRECT, challenge);
    const exchange = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier };
    const refused = await token({ ...exchange, client_id: clientId }).expect(401);
    expect(refused.body.error_description).toBe('this client authenticates with private_key_jwt, not none');
    const wrongKey = await token({ ...exchange, ...assertionFields(await clientAssertion(other, clientId, issuer)) });
    expect(wrongKey.status).toBe(401);
    await token({ ...exchange, ...assertionFields(await clientAssertion(key, clientId, issuer)) }).expect(200);
  });

  it('a document naming a jwks_uri; and one naming none stays a public client', async () => {
    const keyed = `${documentBase}/keyed-uri.json`;
    documentBodies.set('/keyed-uri.json', {
      client_id: keyed,
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks_uri: `${documentBase}/jwks.json`,
    });
    const pub = `${documentBase}/public.json`;
    documentBodies.set('/public.json', {
      client_id: pub,
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
    });
    for (const [clientId, auth] of [
      [keyed, assertionFields(await clientAssertion(key, keyed, issuer))],
      [pub, { client_id: pub }],
    ] as const) {
      const { verifier, challenge } = pkce();
      const code = await codeFor(issuer, clientId, REDIRECT, challenge);
      await token({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        ...auth,
      }).expect(200);
    }
  });

  it('refuses a document naming private_key_jwt without keys: invalid_client at authorization', async () => {
    const clientId = `${documentBase}/keyless.json`;
    documentBodies.set('/keyless.json', {
      client_id: clientId,
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'private_key_jwt',
    });
    const res = await token({
      grant_type: 'client_credentials',
      ...assertionFields(await clientAssertion(key, clientId, issuer)),
    }).expect(401);
    expect(res.body.error_description).toMatch(
      /not usable: a private_key_jwt client names exactly one of jwks and jwks_uri/,
    );
  });
});

describe('a jwks_uri a client names is fetched like a metadata document (SSRF)', () => {
  it('refuses to fetch a registered client’s keys from a private address: 401, logged, nothing fetched', async () => {
    const mcp = mcpRouter({ name: 'ssrf', version: '1.0.0', logger, auth: { server: { signIn: cookieSignIn } } });
    const guarded = await listenLocally(express().use('/mcp', mcp));
    try {
      const registered = await request(guarded.server)
        .post('/mcp/oauth/register')
        .send({
          redirect_uris: [REDIRECT],
          token_endpoint_auth_method: 'private_key_jwt',
          jwks_uri: `https://127.0.0.1:${jwksServer.url.split(':')[2]?.split('/')[0]}/jwks`,
        })
        .expect(201);
      const clientId = registered.body.client_id as string;
      const before = jwksServer.fetches;
      const res = await request(guarded.server)
        .post('/mcp/oauth/token')
        .type('form')
        .send({
          grant_type: 'client_credentials',
          ...assertionFields(await clientAssertion(key, clientId, `http://127.0.0.1:${guarded.port}/mcp`)),
        })
        .expect(401);
      expect(res.body).toEqual({ error: 'invalid_client', error_description: 'the client’s key set cannot be loaded' });
      expect(jwksServer.fetches).toBe(before);
      expect(logger.warn).toHaveBeenCalledWith(
        expect.anything(),
        expect.stringMatching(/client '.+': cannot load the JWKS at .* \(its host is loopback \(127\.0\.0\.1\)\)/),
      );
    } finally {
      await mcp.close();
      await guarded.close();
    }
  });
});
