// The ID-JAG grant (SEP-990) at the token endpoint, through supertest: the options, the metadata, an access token for
// a good ID-JAG (subject, scopes, mapIdentity), and which clients may use the grant.

import request from 'supertest';
import { mcpRouter, McpConfigError, type AuthServerOptions, type McpLogger } from '../../../lib';
import { enterpriseSubject } from '../../../lib/features/sign-in/tokens/id-jag';
import { startIdJagIdp, startIdJagRouter, type IdJagIdp, type IdJagRouter } from '../../helpers/id-jag-idp';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer' as const;
const AGENT = { clientId: 'agent', clientSecret: 'agent-secret', grants: [JWT_BEARER] };

let idp: IdJagIdp;
let router: IdJagRouter;
let mapped: IdJagRouter;

beforeAll(async () => {
  idp = await startIdJagIdp({});
  router = await startIdJagRouter({
    scopes: ['read', 'write', 'admin'],
    trustedIdps: [{ issuer: idp.issuer, jwksUri: idp.jwksUri }],
    clients: [
      AGENT,
      { clientId: 'limited', clientSecret: 'limited-secret', grants: [JWT_BEARER], scope: 'read' },
      { clientId: 'browser', clientSecret: 'browser-secret', redirectUris: ['http://127.0.0.1:1/cb'] },
    ],
  });
  mapped = await startIdJagRouter({
    scopes: ['read', 'write'],
    trustedIdps: [{ issuer: idp.issuer, jwks: { keys: [idp.key.publicJwk] } }],
    clients: [AGENT],
    mapIdentity: (claims, { issuer, clientId }) =>
      claims.sub === 'mallory'
        ? null
        : { subject: `user:${claims.sub}`, scopes: ['read'], extra: { issuer, clientId, email: claims.email } },
  });
});
afterAll(async () => {
  await router?.close();
  await mapped?.close();
  await idp?.close();
});

/** Claims of a good ID-JAG for `target` and the client `agent`. */
const forRouter = (target: IdJagRouter, claims: Record<string, unknown> = {}) =>
  idp.mint({ aud: target.issuer, resource: target.issuer, client_id: 'agent', scope: 'read write', ...claims });

/** POSTs the JWT bearer grant to `target`'s token endpoint as `client` (Basic). */
function present(target: IdJagRouter, assertion: string, form: Record<string, string> = {}, client = AGENT) {
  return request(target.app.server)
    .post('/mcp/oauth/token')
    .auth(client.clientId, client.clientSecret)
    .type('form')
    .send({ grant_type: JWT_BEARER, assertion, ...form });
}

/** Calls `whoami` with an access token (2025-11-25, a one-request session is enough). */
async function whoami(target: IdJagRouter, token: string): Promise<Record<string, unknown>> {
  const init = await request(target.app.server)
    .post('/mcp')
    .set({ authorization: `Bearer ${token}`, accept: 'application/json, text/event-stream' })
    .send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
  expect(init.status).toBe(200);
  const call = await request(target.app.server)
    .post('/mcp')
    .set({
      authorization: `Bearer ${token}`,
      accept: 'application/json, text/event-stream',
      'mcp-session-id': init.headers['mcp-session-id'] as string,
      'mcp-protocol-version': '2025-11-25',
    })
    .send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {} } });
  return call.body.result.structuredContent as Record<string, unknown>;
}

describe('the grant', () => {
  it('issues an access token for a good ID-JAG: no refresh token, the subject keyed by issuer and sub', async () => {
    const res = await present(router, await forRouter(router, { sub: 'U019488227' }));
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'read write',
    });
    expect(await whoami(router, res.body.access_token)).toEqual({
      subject: `${idp.issuer}#U019488227`,
      scopes: ['read', 'write'],
      extra: { clientId: 'agent' },
    });
  });

  it('grants the intersection of the scopes asked for and the ID-JAG scope claim (SEP-990 §7.2.1)', async () => {
    const asked = await present(router, await forRouter(router), { scope: 'write admin' });
    expect(asked.body.scope).toBe('write');
    const none = await present(router, await forRouter(router, { scope: undefined }), { scope: 'read' });
    expect(none.body).toMatchObject({ scope: '' });
    const unknown = await present(router, await forRouter(router, { scope: 'read delete' }));
    expect(unknown.body.scope).toBe('read');
  });

  it("keeps within the scopes the client registered (the client 'limited' may ask for read only)", async () => {
    const assertion = await forRouter(router, { client_id: 'limited' });
    const res = await present(
      router,
      assertion,
      {},
      { clientId: 'limited', clientSecret: 'limited-secret', grants: [] },
    );
    expect(res.body.scope).toBe('read');
  });

  it('accepts an aud of one element, a resource array naming the server, and a resource parameter', async () => {
    const res = await present(
      router,
      await forRouter(router, { aud: [router.issuer], resource: ['https://other.example/mcp', `${router.issuer}/`] }),
      { resource: router.issuer },
    );
    expect(res.status).toBe(200);
  });

  it('gives a tenant its own subjects: iss#tenant/sub, percent-encoded', async () => {
    const res = await present(router, await forRouter(router, { sub: 'a/b#c', tenant: 'acme corp' }));
    expect((await whoami(router, res.body.access_token)).subject).toBe(`${idp.issuer}#acme%20corp/a%2Fb%23c`);
    expect(enterpriseSubject('https://idp', 'x')).not.toBe(enterpriseSubject('https://idp', 'x', ''));
  });
});

describe("an IdP's options at work", () => {
  it('audience, algorithms and maxLifetimeSec decide what is taken', async () => {
    const target = await startIdJagRouter({
      trustedIdps: [
        { issuer: idp.issuer, jwks: { keys: [idp.key.publicJwk] }, audience: 'https://as.example', maxLifetimeSec: 60 },
      ],
      clients: [AGENT],
    });
    const strict = await startIdJagRouter({
      trustedIdps: [{ issuer: idp.issuer, jwks: { keys: [idp.key.publicJwk] }, algorithms: ['RS256'] }],
      clients: [AGENT],
    });
    try {
      expect((await present(target, await forRouter(target))).body.error_description).toMatch(
        /aud must be https:\/\/as\.example/,
      );
      const ok = await present(
        target,
        await forRouter(target, { aud: 'https://as.example', exp: Math.floor(Date.now() / 1000) + 60 }),
      );
      expect(ok.status).toBe(200);
      const long = await present(target, await forRouter(target, { aud: 'https://as.example' }));
      expect(long.body.error_description).toMatch(/lives longer than 60 s/);
      // The IdP signs with ES256; this router takes RS256 only.
      expect((await present(strict, await forRouter(strict))).body.error_description).toMatch(/"alg"/);
    } finally {
      await target.close();
      await strict.close();
    }
  });
});

describe('mapIdentity', () => {
  it("maps the claims to the app's user, its scopes and extra (ctx.auth.extra)", async () => {
    const res = await present(mapped, await forRouter(mapped, { sub: 'alice', email: 'alice@acme.example' }));
    expect(res.body.scope).toBe('read');
    expect(await whoami(mapped, res.body.access_token)).toEqual({
      subject: 'user:alice',
      scopes: ['read'],
      extra: { issuer: idp.issuer, clientId: 'agent', email: 'alice@acme.example' },
    });
  });

  it('null refuses the user: invalid_grant, nothing issued', async () => {
    const res = await present(mapped, await forRouter(mapped, { sub: 'mallory' }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_grant', error_description: expect.stringContaining('mapIdentity') });
  });

  it.each([
    ['a subject that is not a string', () => ({ subject: 7 })],
    ['scopes that are not strings', () => ({ subject: 'u', scopes: [1] })],
    ['an extra that is not an object', () => ({ subject: 'u', extra: 'x' })],
    ['an extra too large for a token', () => ({ subject: 'u', extra: { blob: 'x'.repeat(5_000) } })],
  ])('answering %s is the app’s bug: 500 server_error, logged, nothing leaked', async (_name, answer) => {
    const logged: unknown[] = [];
    const logger: McpLogger = { error: (err) => logged.push(err), warn: () => undefined };
    const target = await startIdJagRouter(
      {
        trustedIdps: [{ issuer: idp.issuer, jwks: { keys: [idp.key.publicJwk] } }],
        clients: [AGENT],
        mapIdentity: answer as never,
      },
      { logger },
    );
    try {
      const res = await present(target, await forRouter(target));
      expect(res.status).toBe(500);
      expect(res.body).toEqual({
        error: 'server_error',
        error_description: 'the authorization server failed; see its logs',
      });
      expect(logged).toEqual([
        expect.objectContaining({ message: expect.stringMatching(/^mcpRouter: auth\.server\.mapIdentity/) }),
      ]);
    } finally {
      await target.close();
    }
  });
});

describe('which clients may use it', () => {
  it('a client not registered for the grant: unauthorized_client', async () => {
    const assertion = await forRouter(router, { client_id: 'browser' });
    const res = await present(
      router,
      assertion,
      {},
      { clientId: 'browser', clientSecret: 'browser-secret', grants: [] },
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('unauthorized_client');
  });

  it('a dynamically registered client cannot register for it (only pre-registered clients, by option)', async () => {
    const res = await request(router.app.server)
      .post('/mcp/oauth/register')
      .send({ redirect_uris: ['http://127.0.0.1:1/cb'], grant_types: ['authorization_code', JWT_BEARER] });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_client_metadata');
  });

  it('a router trusting no IdP: unsupported_grant_type', async () => {
    const plain = await startIdJagRouter({
      clients: [{ ...AGENT, grants: ['authorization_code'], redirectUris: ['http://127.0.0.1:1/cb'] }],
    });
    try {
      const res = await present(plain, await forRouter(plain));
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('unsupported_grant_type');
    } finally {
      await plain.close();
    }
  });
});

describe('metadata', () => {
  it('names the JWT bearer grant and the ID-JAG profile when an IdP is trusted (draft §7.2)', async () => {
    const res = await request(router.app.server).get('/mcp/.well-known/oauth-authorization-server');
    expect(res.body.grant_types_supported).toEqual(['authorization_code', 'refresh_token', JWT_BEARER]);
    expect(res.body.authorization_grant_profiles_supported).toEqual(['urn:ietf:params:oauth:grant-profile:id-jag']);
  });

  it('names neither when no client may redeem ID-JAGs, though an IdP is trusted', async () => {
    const idle = await startIdJagRouter({ trustedIdps: [{ issuer: idp.issuer, jwksUri: idp.jwksUri }] });
    try {
      const res = await request(idle.app.server).get('/mcp/.well-known/oauth-authorization-server');
      expect(res.body.grant_types_supported).toEqual(['authorization_code', 'refresh_token']);
      expect(res.body).not.toHaveProperty('authorization_grant_profiles_supported');
    } finally {
      await idle.close();
    }
  });

  it('names neither without trusted IdPs', async () => {
    const plain = await startIdJagRouter({});
    try {
      const res = await request(plain.app.server).get('/mcp/.well-known/oauth-authorization-server');
      expect(res.body.grant_types_supported).toEqual(['authorization_code', 'refresh_token']);
      expect(res.body).not.toHaveProperty('authorization_grant_profiles_supported');
    } finally {
      await plain.close();
    }
  });
});

describe('options', () => {
  const make = (server: Partial<AuthServerOptions>) => () =>
    mcpRouter({ name: 'x', version: '1', auth: { server: { signIn: () => null, ...server } } });
  const IDP = { issuer: 'https://idp.example', jwksUri: 'https://idp.example/jwks' };

  it.each<[string, Partial<AuthServerOptions>, RegExp]>([
    [
      'a client with the JWT bearer grant and no IdP to trust',
      { clients: [{ clientId: 'p', clientSecret: 's', grants: [JWT_BEARER] }] },
      /'auth\.server\.clients\[0\]\.grants' has '.*jwt-bearer', which needs 'auth\.server\.trustedIdps'/,
    ],
    [
      "a private key in an IdP's jwks",
      {
        trustedIdps: [
          { issuer: 'https://idp.example', jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', d: 'd' }] } },
        ],
      },
      /trustedIdps\[0\]\.jwks' must be a JSON Web Key Set of public keys; it keys\[0\] holds private key material \('d'\)/,
    ],
    ['an empty list', { trustedIdps: [] }, /'auth\.server\.trustedIdps' must be a non-empty array/],
    [
      'no key set',
      { trustedIdps: [{ issuer: 'https://idp.example' }] },
      /exactly one of 'auth\.server\.trustedIdps\[0\]\.jwksUri'/,
    ],
    [
      'an http issuer',
      { trustedIdps: [{ ...IDP, issuer: 'http://idp.example' }] },
      /trustedIdps\[0\]\.issuer' must be an https URL/,
    ],
    [
      'an issuer with a fragment',
      { trustedIdps: [{ ...IDP, issuer: 'https://idp.example/#x' }] },
      /without query or fragment/,
    ],
    [
      'an issuer listed twice',
      { trustedIdps: [IDP, IDP] },
      /trustedIdps\[1\]\.issuer': 'https:\/\/idp\.example' is listed twice/,
    ],
    [
      'an HMAC algorithm',
      { trustedIdps: [{ ...IDP, algorithms: ['HS256'] }] },
      /trustedIdps\[0\]\.algorithms' must be a non-empty array of 'RS256'/,
    ],
    [
      'a lifetime over an hour',
      { trustedIdps: [{ ...IDP, maxLifetimeSec: 7200 }] },
      /maxLifetimeSec' must be at most 3600/,
    ],
    [
      'an unknown key',
      { trustedIdps: [{ ...IDP, audiance: 'x' } as never] },
      /audiance'\. Did you mean 'auth\.server\.trustedIdps\[0\]\.audience'/,
    ],
    [
      'mapIdentity alone',
      { mapIdentity: () => null },
      /'auth\.server\.mapIdentity' maps the users of 'auth\.server\.trustedIdps'/,
    ],
    [
      'mapIdentity not a function',
      { trustedIdps: [IDP], mapIdentity: 'x' as never },
      /'auth\.server\.mapIdentity' must be a function/,
    ],
    [
      'a public client given the grant',
      { trustedIdps: [IDP], clients: [{ clientId: 'p', grants: [JWT_BEARER] }] },
      /'auth\.server\.clients\[0\]\.grants' must be 'urn:ietf:params:oauth:grant-type:jwt-bearer' only for a confidential client/,
    ],
    [
      'an unknown grant',
      { clients: [{ clientId: 'p', clientSecret: 's', grants: ['password' as never] }] },
      /clients\[0\]\.grants' must be a non-empty array of 'authorization_code'/,
    ],
  ])('refuses %s at boot', (_name, server, message) => {
    expect(make(server)).toThrow(McpConfigError);
    expect(make(server)).toThrow(message);
  });

  it('takes a client with the grant and no redirect URIs, and never writes to the options', () => {
    const server = Object.freeze({
      trustedIdps: Object.freeze([Object.freeze({ ...IDP, audience: 'https://as.example' })]),
      clients: Object.freeze([Object.freeze({ ...AGENT, grants: Object.freeze([JWT_BEARER]) })]),
    });
    expect(make(server as never)).not.toThrow();
  });
});
