// Discovery: the router with auth.server is found by the SDK clients' discovery from the one mount line, and by the root helper.

import express from 'express';
import request from 'supertest';
import {
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { mcpRouter } from '../../../lib';
import { listenLocally } from '../../helpers/ports';
import { cookieSignIn } from '../../helpers/sign-in-server';

const newRouter = () =>
  mcpRouter({ name: 'meta', version: '1.0.0', auth: { server: { signIn: cookieSignIn, scopes: ['mcp', 'admin'] } } });

it('the one mount line is enough for the SDK: resource metadata names the issuer, whose OpenID-shaped document it finds', async () => {
  const mcp = newRouter();
  const app = express();
  app.use('/mcp', mcp);
  const listening = await listenLocally(app);
  const base = `http://127.0.0.1:${listening.port}`;
  try {
    // The SDK follows the 401's resource_metadata, which names the router's own document.
    const resource = await discoverOAuthProtectedResourceMetadata(new URL(`${base}/mcp`), {
      resourceMetadataUrl: new URL(`${base}/mcp/.well-known/oauth-protected-resource`),
    });
    expect(resource.authorization_servers).toEqual([`${base}/mcp`]);
    expect(resource.scopes_supported).toEqual(['mcp', 'admin']);
    const metadata = await discoverAuthorizationServerMetadata(new URL(`${base}/mcp`));
    expect(metadata).toMatchObject({
      issuer: `${base}/mcp`,
      authorization_endpoint: `${base}/mcp/oauth/authorize`,
      token_endpoint: `${base}/mcp/oauth/token`,
      registration_endpoint: `${base}/mcp/oauth/register`,
      jwks_uri: `${base}/mcp/oauth/jwks`,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
      scopes_supported: ['mcp', 'admin'],
    });
    // What the SDK's schema keeps of the document is less than what it says: the rest, read as served.
    const served = await (await fetch(`${base}/mcp/.well-known/openid-configuration`)).json();
    expect(served).toMatchObject({
      revocation_endpoint: `${base}/mcp/oauth/revoke`,
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
      token_endpoint_auth_methods_supported: expect.arrayContaining(['none']),
    });
  } finally {
    await mcp.close();
    await listening.close();
  }
});

it('serves RFC 8414 and OIDC forms at the mount path, and at the root through mcp.authServerMetadata', async () => {
  const mcp = mcpRouter({
    name: 'meta',
    version: '1.0.0',
    allowedHosts: ['mcp.example.com'],
    auth: { server: { signIn: cookieSignIn, scopes: ['mcp', 'admin'] } },
  });
  const app = express();
  app.use(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'], mcp.authServerMetadata);
  app.use('/mcp', mcp);
  for (const path of [
    '/mcp/.well-known/oauth-authorization-server',
    '/mcp/.well-known/openid-configuration',
    '/.well-known/oauth-authorization-server/mcp',
    '/.well-known/openid-configuration/mcp',
  ]) {
    const response = await request(app).get(path).set('host', 'mcp.example.com');
    expect(response.status).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBe('*');
    expect(response.body.issuer).toBe('http://mcp.example.com/mcp');
  }
  await mcp.close();
});

it('the JWKS holds public keys only', async () => {
  const mcp = newRouter();
  const app = express().use('/mcp', mcp);
  const response = await request(app).get('/mcp/oauth/jwks');
  expect(response.status).toBe(200);
  expect(response.body.keys.length).toBeGreaterThan(0);
  for (const key of response.body.keys) {
    expect(key).toMatchObject({ kid: expect.any(String), kty: expect.any(String) });
    expect(key).not.toHaveProperty('d');
  }
  await mcp.close();
});

it('a 401 challenge names the metadata whose authorization server is the router', async () => {
  const mcp = newRouter();
  const app = express().use('/mcp', mcp);
  const response = await request(app)
    .post('/mcp')
    .set('content-type', 'application/json')
    .send({ jsonrpc: '2.0', id: 1, method: 'ping' });
  expect(response.status).toBe(401);
  expect(response.headers['www-authenticate']).toContain('scope="mcp admin"');
  await mcp.close();
});

it('without auth.server, mcp.authServerMetadata is a JSON 404', async () => {
  const mcp = mcpRouter({ name: 'meta', version: '1.0.0', auth: { tokens: ['t'] } });
  const app = express().use('/.well-known/oauth-authorization-server', mcp.authServerMetadata);
  const response = await request(app).get('/.well-known/oauth-authorization-server/mcp');
  expect(response.status).toBe(404);
  expect(response.body.error.message).toContain('auth.server');
  await mcp.close();
});

describe('CORS preflights of a browser client that sends discovery and token requests through its MCP fetch', () => {
  // The MCP Inspector in its Direct mode adds Content-Type: application/json and Accept to every request, discovery
  // included, and the SDK's discovery adds MCP-Protocol-Version: a preflight refusing one hid the documents from it.
  const mcp = mcpRouter({ name: 'meta', version: '1.0.0', auth: { server: { signIn: cookieSignIn } } });
  const app = express();
  app.use('/.well-known/oauth-protected-resource', mcp.authMetadata);
  app.use(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'], mcp.authServerMetadata);
  app.use('/mcp', mcp);
  afterAll(() => mcp.close());

  it.each([
    ['/.well-known/oauth-protected-resource/mcp', 'GET'],
    ['/mcp/.well-known/oauth-protected-resource', 'GET'],
    ['/.well-known/oauth-authorization-server/mcp', 'GET'],
    ['/.well-known/openid-configuration/mcp', 'GET'],
    ['/mcp/.well-known/oauth-authorization-server', 'GET'],
    ['/mcp/.well-known/openid-configuration', 'GET'],
    ['/mcp/oauth/jwks', 'GET'],
    ['/mcp/oauth/register', 'POST'],
    ['/mcp/oauth/token', 'POST'],
    ['/mcp/oauth/revoke', 'POST'],
  ])(
    '%s allows %s with Content-Type, Accept and MCP-Protocol-Version, from any origin and without credentials',
    async (path, method) => {
      const res = await request(app).options(path).set({
        Origin: 'http://localhost:6274',
        'Access-Control-Request-Method': method,
        'Access-Control-Request-Headers': 'accept,content-type,mcp-protocol-version',
      });
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      expect(res.headers['access-control-allow-methods']).toBe(`${method}, OPTIONS`);
      expect(res.headers['access-control-allow-headers']?.toLowerCase().split(', ')).toEqual(
        expect.arrayContaining(['accept', 'content-type', 'mcp-protocol-version']),
      );
    },
  );
});

it('behind a proxy that rewrites the host, a fixed issuer is also the resource: metadata and tokens name the public URL', async () => {
  const mcp = mcpRouter({
    name: 'meta',
    version: '1.0.0',
    allowedHosts: false,
    auth: { server: { signIn: cookieSignIn, issuer: 'https://mcp.example.com/mcp' } },
  });
  const app = express().use('/mcp', mcp);
  const resource = await request(app).get('/mcp/.well-known/oauth-protected-resource').set('host', 'internal:8080');
  expect(resource.body).toMatchObject({
    resource: 'https://mcp.example.com/mcp',
    authorization_servers: ['https://mcp.example.com/mcp'],
  });
  const server = await request(app).get('/mcp/.well-known/oauth-authorization-server').set('host', 'internal:8080');
  expect(server.body.token_endpoint).toBe('https://mcp.example.com/mcp/oauth/token');
  await mcp.close();
});
