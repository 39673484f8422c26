// Bearer auth over HTTP: RFC 9728 metadata, RFC 6750 challenges, the three sources of principals, per-item scopes and
// canAccess (denied looks unknown), ctx.auth in handlers, and the configuration errors thrown at boot.

import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import request from 'supertest';
import { mcpRouter, type AuthInfo, type McpRouter, type McpRouterOptions, type RequestContext } from '../../../lib';
import { MCP_ACCEPT, rpc, silentLogger } from '../../helpers/messages';
import { configError } from '../../helpers/errors';

const AUTH_SERVER = 'https://auth.example.com';

/** Routers made by a test, closed after it. */
const routers: McpRouter[] = [];
/** Servers started by a test, closed after it. */
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(routers.splice(0).map((mcp) => mcp.close()));
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    }),
  );
});

/** A stateless router with a quiet logger (kept for closing). */
function router(options: Partial<McpRouterOptions>): McpRouter {
  const mcp = mcpRouter({ name: 'auth-test', version: '1.0.0', sessions: false, logger: silentLogger(), ...options });
  routers.push(mcp);
  return mcp;
}

/** Listens on 127.0.0.1:0; resolves with the origin the router will see (`http://127.0.0.1:<port>`) and a client. */
async function listen(app: Express): Promise<{ origin: string; agent: ReturnType<typeof request> }> {
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, agent: request(server) };
}

/** The app most tests use: metadata at the well-known root, MCP at `path`. */
function appWith(mcp: McpRouter, path = '/mcp'): Express {
  const app = express();
  app.use('/.well-known/oauth-protected-resource', mcp.authMetadata);
  app.use(path, mcp);
  return app;
}

/** POSTs one JSON-RPC request on 2025-11-25 (stateless), with a bearer token when given. */
function call(
  target: Express | ReturnType<typeof request>,
  token: string | undefined,
  method: string,
  params?: Record<string, unknown>,
  path = '/mcp',
): request.Test {
  const agent = typeof target === 'function' ? request(target) : target;
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: MCP_ACCEPT,
    'MCP-Protocol-Version': '2025-11-25',
  };
  if (token !== undefined) headers.Authorization = `Bearer ${token}`;
  return agent
    .post(path)
    .set(headers)
    .send(JSON.stringify(rpc(method, params, 'r1')));
}

const INIT_PARAMS = {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'auth-test', version: '0.0.1' },
};

describe('protected-resource metadata (RFC 9728)', () => {
  const resourceMetadata = {
    authorizationServers: [AUTH_SERVER],
    scopesSupported: ['mcp:read', 'mcp:write'],
    resourceName: 'Inventory MCP',
    resourceDocumentation: 'https://docs.example.com/mcp',
  };

  it('serves the document for the mount path, without a token, readable from any origin', async () => {
    const { origin, agent } = await listen(appWith(router({ auth: { tokens: ['secret-token'], resourceMetadata } })));
    const res = await agent.get('/.well-known/oauth-protected-resource/mcp').set('Origin', 'https://evil.example.com');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.body).toEqual({
      resource: `${origin}/mcp`,
      authorization_servers: [AUTH_SERVER],
      bearer_methods_supported: ['header'],
      scopes_supported: ['mcp:read', 'mcp:write'],
      resource_name: 'Inventory MCP',
      resource_documentation: 'https://docs.example.com/mcp',
    });
  });

  it('derives the resource from the URL suffix: none → the origin, /api/mcp → <origin>/api/mcp', async () => {
    const { origin, agent } = await listen(
      appWith(router({ auth: { tokens: ['t'], resourceMetadata: { authorizationServers: [AUTH_SERVER] } } })),
    );
    const root = await agent.get('/.well-known/oauth-protected-resource');
    expect(root.status).toBe(200);
    // Only the fields configured, plus the three always there.
    expect(root.body).toEqual({
      resource: origin,
      authorization_servers: [AUTH_SERVER],
      bearer_methods_supported: ['header'],
    });
    expect((await agent.get('/.well-known/oauth-protected-resource/api/mcp')).body.resource).toBe(`${origin}/api/mcp`);
  });

  it('uses a configured resource as is', async () => {
    const { agent } = await listen(
      appWith(
        router({
          auth: {
            tokens: ['t'],
            resourceMetadata: { resource: 'https://mcp.example.com/mcp', authorizationServers: [AUTH_SERVER] },
          },
        }),
      ),
    );
    expect((await agent.get('/.well-known/oauth-protected-resource/mcp')).body.resource).toBe(
      'https://mcp.example.com/mcp',
    );
  });

  it('answers a CORS preflight 204, and HEAD 200', async () => {
    const { agent } = await listen(appWith(router({ auth: { tokens: ['t'], resourceMetadata } })));
    const preflight = await agent.options('/.well-known/oauth-protected-resource/mcp').set({
      Origin: 'https://app.example.com',
      'Access-Control-Request-Method': 'GET',
      'Access-Control-Request-Headers': 'mcp-protocol-version',
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(preflight.headers['access-control-allow-methods']).toBe('GET, OPTIONS');
    expect(preflight.headers['access-control-allow-headers']).toBe(
      'Content-Type, Accept, Authorization, DPoP, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID, Mcp-Method, Mcp-Name',
    );
    expect(preflight.text ?? '').toBe('');
    const head = await agent.head('/.well-known/oauth-protected-resource/mcp');
    expect(head.status).toBe(200);
    expect(head.headers['access-control-allow-origin']).toBe('*');
  });

  it('with static tokens and no authorization server: a document saying a bearer token goes in the header', async () => {
    const { origin, agent } = await listen(appWith(router({ auth: { tokens: ['t'] } })));
    const res = await agent.get('/.well-known/oauth-protected-resource/mcp');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ resource: `${origin}/mcp`, bearer_methods_supported: ['header'] });
  });

  it('is 404 (a JSON-RPC body) with no auth at all', async () => {
    const res = await request(appWith(router({}))).get('/.well-known/oauth-protected-resource/mcp');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: "Not Found: this MCP router takes no bearer tokens (option 'auth')" },
    });
  });

  it('round trip: the URL named in the 401 serves metadata whose resource is the endpoint the client called', async () => {
    const { origin, agent } = await listen(appWith(router({ auth: { tokens: ['t'], resourceMetadata } }), '/api/mcp'));
    const denied = await call(agent, undefined, 'initialize', INIT_PARAMS, '/api/mcp');
    expect(denied.status).toBe(401);
    const url = /resource_metadata="([^"]+)"/.exec(denied.headers['www-authenticate'] as string)?.[1];
    expect(url).toBe(`${origin}/.well-known/oauth-protected-resource/api/mcp`);
    const document = await agent.get(new URL(url as string).pathname);
    expect(document.status).toBe(200);
    expect(document.body.resource).toBe(`${origin}/api/mcp`);
  });
});

describe('challenges (RFC 6750 WWW-Authenticate)', () => {
  const DOC = { authorizationServers: [AUTH_SERVER] };

  it.each<[string, Partial<McpRouterOptions['auth']>, string, string]>([
    ['no scopes', {}, '/mcp', 'Bearer resource_metadata="{origin}/.well-known/oauth-protected-resource/mcp"'],
    [
      'requiredScopes',
      { requiredScopes: ['mcp:read', 'mcp:write'] },
      '/mcp',
      'Bearer resource_metadata="{origin}/.well-known/oauth-protected-resource/mcp", scope="mcp:read mcp:write"',
    ],
    [
      'only scopesSupported in the metadata',
      { resourceMetadata: { ...DOC, scopesSupported: ['a', 'b'] } },
      '/mcp',
      'Bearer resource_metadata="{origin}/.well-known/oauth-protected-resource/mcp", scope="a b"',
    ],
    [
      'requiredScopes over scopesSupported',
      { requiredScopes: ['a'], resourceMetadata: { ...DOC, scopesSupported: ['a', 'b'] } },
      '/mcp',
      'Bearer resource_metadata="{origin}/.well-known/oauth-protected-resource/mcp", scope="a"',
    ],
    [
      'a fixed resourceMetadataUrl',
      { resourceMetadataUrl: 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp' },
      '/mcp',
      'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"',
    ],
    [
      'mounted at /api/mcp',
      {},
      '/api/mcp',
      'Bearer resource_metadata="{origin}/.well-known/oauth-protected-resource/api/mcp"',
    ],
  ])('without a token, with %s', async (_label, auth, path, expected) => {
    const { origin, agent } = await listen(appWith(router({ auth: { tokens: ['secret-token'], ...auth } }), path));
    const res = await call(agent, undefined, 'initialize', INIT_PARAMS, path);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(expected.replace('{origin}', origin));
    expect(res.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32000,
        message:
          'Unauthorized: this server takes a pre-shared bearer token (no OAuth sign-in): get one from its operator and send Authorization: Bearer <token>',
      },
    });
  });

  it('with verify (tokens from an authorization server), a 401 says only to send a token', async () => {
    const { agent } = await listen(appWith(router({ auth: { verify: () => null, resourceMetadata: DOC } })));
    const res = await call(agent, undefined, 'initialize', INIT_PARAMS);
    expect(res.body.error).toEqual({ code: -32000, message: 'Unauthorized: send Authorization: Bearer <token>' });
  });

  it('with only the one mount line, names the URL the router serves itself, under the full mount path of nested routers (/api + /v1/mcp)', async () => {
    const mcp = router({ auth: { tokens: ['secret-token'] } });
    const api = express.Router();
    api.use('/v1/mcp', mcp);
    const app = express();
    app.use('/api', api);
    const { origin, agent } = await listen(app);
    const res = await call(agent, undefined, 'initialize', INIT_PARAMS, '/api/v1/mcp');
    expect(res.headers['www-authenticate']).toBe(
      `Bearer resource_metadata="${origin}/api/v1/mcp/.well-known/oauth-protected-resource"`,
    );
    // The named URL answers the document as JSON, unauthenticated, from any origin; it names the endpoint.
    const document = await agent
      .get('/api/v1/mcp/.well-known/oauth-protected-resource')
      .set('Origin', 'https://evil.example.com');
    expect(document.status).toBe(200);
    expect(document.headers['access-control-allow-origin']).toBe('*');
    expect(document.body).toEqual({ resource: `${origin}/api/v1/mcp`, bearer_methods_supported: ['header'] });
    // Other methods get a JSON 405, never the host's HTML 404.
    const posted = await agent.post('/api/v1/mcp/.well-known/oauth-protected-resource').send('{}');
    expect(posted.status).toBe(405);
    expect(posted.headers.allow).toBe('GET, HEAD, OPTIONS');
    expect(posted.body.error.code).toBe(-32000);
  });

  it('names the root URL once the app mounts mcp.authMetadata there, even after a first challenge', async () => {
    const mcp = router({ auth: { tokens: ['secret-token'], resourceMetadata: DOC } });
    const app = express();
    app.use('/mcp', mcp);
    const { origin, agent } = await listen(app);
    const before = await call(agent, undefined, 'initialize', INIT_PARAMS);
    expect(before.headers['www-authenticate']).toBe(
      `Bearer resource_metadata="${origin}/mcp/.well-known/oauth-protected-resource"`,
    );
    expect((await agent.get('/mcp/.well-known/oauth-protected-resource')).body).toEqual({
      resource: `${origin}/mcp`,
      authorization_servers: [AUTH_SERVER],
      bearer_methods_supported: ['header'],
    });
    app.use('/.well-known/oauth-protected-resource', mcp.authMetadata);
    const after = await call(agent, undefined, 'initialize', INIT_PARAMS);
    expect(after.headers['www-authenticate']).toBe(
      `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it('a bad token: invalid_token with its description, and the scope', async () => {
    const { origin, agent } = await listen(
      appWith(router({ auth: { tokens: ['secret-token'], requiredScopes: ['x'] } })),
    );
    const res = await call(agent, 'not-the-token', 'initialize', INIT_PARAMS);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(
      `Bearer error="invalid_token", error_description="The access token is not valid", resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp", scope="x"`,
    );
    expect(res.body.error).toEqual({
      code: -32000,
      message:
        'Unauthorized: the access token is not valid; this server takes a pre-shared bearer token (no OAuth sign-in): get one from its operator and send Authorization: Bearer <token>',
    });
  });
});

describe('sources of the principal', () => {
  /** A tool returning what the handler sees as ctx.auth. */
  const whoami = (mcp: McpRouter): void => {
    mcp.tool({ name: 'whoami', description: 'Who is calling', handler: (_args, ctx) => ({ auth: ctx.auth ?? null }) });
  };

  describe('fromRequest (the host app authenticates)', () => {
    type WithAuth = IncomingMessage & { auth?: AuthInfo };

    function hostApp(extra: Partial<NonNullable<McpRouterOptions['auth']>> = {}): Express {
      const mcp = router({ auth: { fromRequest: (req) => (req as WithAuth).auth, ...extra } });
      whoami(mcp);
      const app = express();
      // The host's own middleware (a cookie session, an API gateway's header, …).
      app.use((req, _res, next) => {
        const user = req.headers['x-user'];
        if (typeof user === 'string')
          (req as WithAuth).auth =
            user === 'nameless'
              ? ({ scopes: [] } as unknown as AuthInfo)
              : { subject: user, scopes: ['mcp'], extra: { via: 'cookie' } };
        next();
      });
      app.use('/mcp', mcp);
      return app;
    }

    it('passes what the host middleware set on the request to the handler as ctx.auth', async () => {
      const res = await call(hostApp(), undefined, 'tools/call', { name: 'whoami' }).set('X-User', 'u-42');
      expect(res.status).toBe(200);
      expect(res.body.result.structuredContent).toEqual({
        auth: { subject: 'u-42', scopes: ['mcp'], extra: { via: 'cookie' } },
      });
    });

    it.each([
      ['nothing set', {}],
      ['a principal without a subject', { 'X-User': 'nameless' }],
    ])('401 without an error code for %s', async (_label, headers) => {
      const res = await call(hostApp(), undefined, 'tools/call', { name: 'whoami' }).set(headers);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(
        /^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/mcp\/\.well-known\/oauth-protected-resource"$/,
      );
    });

    it('checks requiredScopes against what the host set (403 insufficient_scope)', async () => {
      const res = await call(hostApp({ requiredScopes: ['admin'] }), undefined, 'tools/call', { name: 'whoami' }).set(
        'X-User',
        'u-42',
      );
      expect(res.status).toBe(403);
      expect(res.headers['www-authenticate']).toMatch(
        /^Bearer error="insufficient_scope", error_description="[^"]+", resource_metadata="[^"]+", scope="admin"$/,
      );
    });
  });

  describe('verify (JWT, introspection, …)', () => {
    it('receives the token and the request, and its principal reaches ctx.auth whole', async () => {
      const principal: AuthInfo = {
        subject: 'user-7',
        scopes: ['mcp', 'extra'],
        expiresAt: Math.floor(Date.now() / 1000) + 600,
        extra: { tenant: 'acme' },
      };
      const verify = jest.fn(async (_token: string, _req: IncomingMessage) => principal);
      const mcp = router({ auth: { verify } });
      whoami(mcp);
      const res = await call(appWith(mcp), 'jwt.abc.def', 'tools/call', { name: 'whoami' });
      expect(res.status).toBe(200);
      expect(res.body.result.structuredContent).toEqual({ auth: principal });
      expect(verify).toHaveBeenCalledTimes(1);
      const [token, req] = verify.mock.calls[0] as [string, IncomingMessage];
      expect(token).toBe('jwt.abc.def');
      expect(req.headers.authorization).toBe('Bearer jwt.abc.def');
      expect(req.method).toBe('POST');
    });

    it.each<[string, AuthInfo | null | undefined]>([
      ['null', null],
      ['undefined', undefined],
      ['a principal without a subject', { scopes: [] } as unknown as AuthInfo],
    ])('a verify returning %s → 401 invalid_token', async (_label, outcome) => {
      const res = await call(
        appWith(router({ auth: { verify: () => outcome } })),
        'some-token',
        'initialize',
        INIT_PARAMS,
      );
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(
        /^Bearer error="invalid_token", error_description="The access token is not valid", resource_metadata=/,
      );
    });

    it.each([
      ['verify that rejects', { verify: async () => Promise.reject(new Error('introspection endpoint down')) }],
      [
        'verify that throws at once',
        {
          verify: (): never => {
            throw new Error('introspection endpoint down');
          },
        },
      ],
      [
        'fromRequest that throws',
        {
          fromRequest: (): never => {
            throw new Error('introspection endpoint down');
          },
        },
      ],
    ])('a %s → 500 -32603, reported to the logger', async (_label, auth) => {
      const logger = silentLogger();
      const mcp = router({ logger, auth });
      const res = await call(appWith(mcp), 'some-token', 'initialize', INIT_PARAMS);
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal error' } });
      expect(logger.error).toHaveBeenCalledWith(
        expect.objectContaining({ message: 'introspection endpoint down' }),
        'mcpRouter: request failed',
      );
    });
  });

  describe('static tokens', () => {
    it('stand for their subject (token-<index> by default, never the token) and scopes', async () => {
      const mcp = router({
        auth: {
          tokens: ['first-secret', { token: 'second-secret', subject: 'ci', scopes: ['deploy'] }, 'third-secret'],
        },
      });
      whoami(mcp);
      const app = appWith(mcp);
      const seen = async (token: string) =>
        (await call(app, token, 'tools/call', { name: 'whoami' })).body.result.structuredContent.auth;
      expect(await seen('first-secret')).toEqual({ subject: 'token-0', scopes: [] });
      expect(await seen('second-secret')).toEqual({ subject: 'ci', scopes: ['deploy'] });
      expect(await seen('third-secret')).toEqual({ subject: 'token-2', scopes: [] });
      expect((await call(app, 'first-secre', 'tools/call', { name: 'whoami' })).status).toBe(401);
      expect((await call(app, 'first-secrets', 'tools/call', { name: 'whoami' })).status).toBe(401);
    });
  });
});

describe('per-item scopes and canAccess', () => {
  const TOKENS: Record<string, { token: string; subject: string; scopes: string[] }> = {
    reader: { token: 'reader-token', subject: 'reader', scopes: ['read'] },
    admin: { token: 'admin-token', subject: 'admin', scopes: ['read', 'admin'] },
    alice: { token: 'alice-token', subject: 'alice', scopes: ['read'] },
  };
  /** canAccess: alice only (async, as a database lookup would be). */
  const aliceOnly = jest.fn(async (ctx: RequestContext) => ctx.auth?.subject === 'alice');
  const handlers = {
    tool: jest.fn(() => 'ran'),
    read: jest.fn(() => 'content'),
    get: jest.fn(() => 'prompt text'),
    complete: jest.fn((prefix: string) => ['1', '2'].filter((v) => v.startsWith(prefix))),
  };
  let app: Express;

  beforeEach(() => {
    jest.clearAllMocks();
    const mcp = router({ auth: { tokens: Object.values(TOKENS) } });
    mcp.tool({ name: 'open_tool', description: 'Anyone', handler: handlers.tool });
    mcp.tool({ name: 'admin_tool', description: 'Admins', scopes: ['admin'], handler: handlers.tool });
    mcp.tool({ name: 'alice_tool', description: 'Alice', canAccess: aliceOnly, handler: handlers.tool });
    mcp.resource({ uri: 'docs://open', name: 'open', read: handlers.read });
    mcp.resource({ uri: 'docs://admin', name: 'admin', scopes: ['admin'], read: handlers.read });
    mcp.resource({ uri: 'docs://alice', name: 'alice', canAccess: aliceOnly, read: handlers.read });
    mcp.resourceTemplate({
      uriTemplate: 'open://{id}',
      name: 'open-t',
      read: handlers.read,
      complete: { id: handlers.complete },
    });
    mcp.resourceTemplate({
      uriTemplate: 'admin://{id}',
      name: 'admin-t',
      scopes: ['admin'],
      read: handlers.read,
      complete: { id: handlers.complete },
    });
    mcp.resourceTemplate({
      uriTemplate: 'alice://{id}',
      name: 'alice-t',
      canAccess: aliceOnly,
      read: handlers.read,
      complete: { id: handlers.complete },
    });
    const args = [{ name: 'id', complete: handlers.complete }];
    mcp.prompt({ name: 'open_prompt', arguments: args, get: handlers.get });
    mcp.prompt({ name: 'admin_prompt', scopes: ['admin'], arguments: args, get: handlers.get });
    mcp.prompt({ name: 'alice_prompt', canAccess: aliceOnly, arguments: args, get: handlers.get });
    app = appWith(mcp);
  });

  const rpcResult = async (who: string, method: string, params?: Record<string, unknown>) => {
    const res = await call(app, TOKENS[who]?.token, method, params);
    expect(res.status).toBe(200);
    return res.body as { result?: Record<string, unknown>; error?: Record<string, unknown> };
  };

  it.each([
    ['reader', 'open'],
    ['admin', 'open admin'],
    ['alice', 'open alice'],
  ])('%s sees only the items it may use in every list (%s)', async (who, visible) => {
    const kinds = visible.split(' ');
    const names = async (method: string, key: string, field: string) =>
      ((await rpcResult(who, method)).result?.[key] as Array<Record<string, string>>).map((item) => item[field]);
    expect(await names('tools/list', 'tools', 'name')).toEqual(kinds.map((k) => `${k}_tool`));
    expect(await names('resources/list', 'resources', 'uri')).toEqual(kinds.map((k) => `docs://${k}`));
    expect(await names('resources/templates/list', 'resourceTemplates', 'uriTemplate')).toEqual(
      kinds.map((k) => `${k}://{id}`),
    );
    expect(await names('prompts/list', 'prompts', 'name')).toEqual(kinds.map((k) => `${k}_prompt`));
  });

  /** Each use of an item, and what the same use of an item that does not exist answers. */
  const USES: Array<[string, (kind: string) => [string, Record<string, unknown>]]> = [
    ['tools/call', (kind) => ['tools/call', { name: `${kind}_tool` }]],
    ['resources/read (resource)', (kind) => ['resources/read', { uri: `docs://${kind}` }]],
    ['resources/read (template)', (kind) => ['resources/read', { uri: `${kind}://7` }]],
    ['prompts/get', (kind) => ['prompts/get', { name: `${kind}_prompt`, arguments: { id: '1' } }]],
    [
      'completion/complete (ref/prompt)',
      (kind) => [
        'completion/complete',
        { ref: { type: 'ref/prompt', name: `${kind}_prompt` }, argument: { name: 'id', value: '' } },
      ],
    ],
    [
      'completion/complete (ref/resource)',
      (kind) => [
        'completion/complete',
        { ref: { type: 'ref/resource', uri: `${kind}://{id}` }, argument: { name: 'id', value: '' } },
      ],
    ],
  ];

  it.each(
    USES.flatMap(
      ([label, use]): Array<[string, string, string, (kind: string) => [string, Record<string, unknown>]]> => [
        [label, 'reader', 'admin', use],
        [label, 'reader', 'alice', use],
        [label, 'admin', 'alice', use],
      ],
    ),
  )(
    '%s: %s using a %s item gets exactly the error of an unknown item, and no handler runs',
    async (_label, who, kind, use) => {
      const denied = await rpcResult(who, ...use(kind));
      const unknown = await rpcResult(who, ...use('nope'));
      expect(denied.result).toBeUndefined();
      expect(denied.error).toEqual(JSON.parse(JSON.stringify(unknown.error).replaceAll('nope', kind)));
      expect(Object.values(handlers).every((handler) => handler.mock.calls.length === 0)).toBe(true);
    },
  );

  it.each([
    ['tools/call', 'Unknown tool: admin_tool', -32602],
    ['resources/read (resource)', 'Resource not found', -32002],
    ['resources/read (template)', 'Resource not found', -32002],
    ['prompts/get', 'Unknown prompt: admin_prompt', -32602],
    ['completion/complete (ref/prompt)', 'Unknown prompt: admin_prompt', -32602],
    ['completion/complete (ref/resource)', 'Unknown resource template: admin://{id}', -32602],
  ])('%s of a denied item: %s (%d)', async (label, message, code) => {
    const use = USES.find(([name]) => name === label)?.[1] as (kind: string) => [string, Record<string, unknown>];
    const { error } = await rpcResult('reader', ...use('admin'));
    expect(error).toMatchObject({ code, message });
  });

  it.each([
    ['admin', 'admin'],
    ['alice', 'alice'],
    ['admin', 'open'],
  ])('%s may use its %s items', async (who, kind) => {
    for (const [, use] of USES) {
      const { result, error } = await rpcResult(who, ...use(kind));
      expect(error).toBeUndefined();
      expect(result).toBeDefined();
    }
    expect(handlers.tool).toHaveBeenCalledTimes(1);
    expect(handlers.read).toHaveBeenCalledTimes(2);
    expect(handlers.get).toHaveBeenCalledTimes(1);
    expect(handlers.complete).toHaveBeenCalledTimes(2);
  });

  it('canAccess gets the request context, with ctx.auth', async () => {
    await rpcResult('alice', 'tools/call', { name: 'alice_tool' });
    expect(aliceOnly).toHaveBeenCalledWith(
      expect.objectContaining({ auth: { subject: 'alice', scopes: ['read'] }, requestId: 'r1' }),
    );
    expect(handlers.tool).toHaveBeenCalledWith(
      {},
      expect.objectContaining({ auth: { subject: 'alice', scopes: ['read'] } }),
    );
  });

  it('without auth configured, items with scopes are hidden from everyone', async () => {
    const open = router({});
    open.tool({ name: 'public', description: 'p', handler: () => 'p' });
    open.tool({ name: 'scoped', description: 's', scopes: ['admin'], handler: () => 's' });
    const res = await call(appWith(open), undefined, 'tools/list');
    expect(res.body.result.tools.map((tool: { name: string }) => tool.name)).toEqual(['public']);
    expect((await call(appWith(open), undefined, 'tools/call', { name: 'scoped' })).body.error).toEqual({
      code: -32602,
      message: 'Unknown tool: scoped',
    });
  });
});

describe('configuration errors at boot', () => {
  const verify = () => null;

  it.each<[string, Partial<McpRouterOptions>, string, RegExp]>([
    [
      'auth not an object',
      { auth: 'token' as never },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'auth' must be \{ tokens \}, \{ verify \}, \{ fromRequest \} or \{ server \}, got "token"$/,
    ],
    [
      'auth with no source',
      { auth: {} },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'auth' needs exactly one of 'tokens', 'verify', 'fromRequest' or 'server' \(got none\)$/,
    ],
    ['auth with only scopes', { auth: { requiredScopes: ['a'] } }, 'ERR_MCP_INVALID_OPTION', /\(got none\)$/],
    [
      'auth with two sources',
      { auth: { tokens: ['t'], verify } },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'auth' needs exactly one of .* \(got tokens, verify\)$/,
    ],
    [
      'auth with three sources',
      { auth: { tokens: ['t'], verify, fromRequest: verify } },
      'ERR_MCP_INVALID_OPTION',
      /\(got tokens, verify, fromRequest\)$/,
    ],
    [
      'empty tokens',
      { auth: { tokens: [] } },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'auth\.tokens' must be a non-empty array, got \[\]$/,
    ],
    [
      'tokens not an array',
      { auth: { tokens: 'secret' as never } },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'auth\.tokens' must be a non-empty array, got "string"$/,
    ],
    [
      'an empty token',
      { auth: { tokens: ['ok', ''] } },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'auth\.tokens\[1\]' must be a non-empty string or \{ token, subject\?, scopes\? \}$/,
    ],
    [
      'a token listed twice',
      { auth: { tokens: ['a', 'b', { token: 'a', subject: 'admin' }] } },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'auth\.tokens\[2\]' repeats the token of 'auth\.tokens\[0\]'$/,
    ],
    [
      'a token entry without token',
      { auth: { tokens: [{ subject: 'x' } as never] } },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'auth\.tokens\[0\]'/,
    ],
    [
      'verify not a function',
      { auth: { verify: 'jwt' as never } },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'auth\.verify' must be a function, got "jwt"$/,
    ],
    [
      'fromRequest not a function',
      { auth: { fromRequest: {} as never } },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'auth\.fromRequest' must be a function, got \{\}$/,
    ],
    [
      'requiredScopes not strings',
      { auth: { tokens: ['t'], requiredScopes: [1 as never] } },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'auth\.requiredScopes' must be an array of scope names, got \[1\]$/,
    ],
    [
      'requiredScopes a string',
      { auth: { tokens: ['t'], requiredScopes: 'read' as never } },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'auth\.requiredScopes' must be an array of scope names, got "read"$/,
    ],
    [
      'resourceMetadata without authorizationServers',
      { auth: { tokens: ['t'], resourceMetadata: {} as never } },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'auth\.resourceMetadata\.authorizationServers' must be a non-empty array of URLs, got undefined$/,
    ],
    [
      'resourceMetadata with no authorization server',
      { auth: { tokens: ['t'], resourceMetadata: { authorizationServers: [] } } },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'auth\.resourceMetadata\.authorizationServers' must be a non-empty array of URLs, got \[\]$/,
    ],
    [
      'resourceMetadataUrl not a string',
      { auth: { tokens: ['t'], resourceMetadataUrl: 1 as never } },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'auth\.resourceMetadataUrl' must be a URL, got 1$/,
    ],
    [
      'an unknown auth key',
      { auth: { tokens: ['t'], scopes: ['a'] } as never },
      'ERR_MCP_UNKNOWN_OPTION',
      /^mcpRouter: unknown option 'auth\.scopes'\.$/,
    ],
    [
      'an origins entry that is not an origin',
      { origins: ['app.example.com'] },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'origins' has "app\.example\.com", which is not an origin like 'https:\/\/app\.example\.com'$/,
    ],
    [
      "an origins entry 'null'",
      { origins: ['null'] },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'origins' has "null", which is not an origin/,
    ],
    [
      'origins not a list',
      { origins: 'https://app.example.com' as never },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'origins' must be '\*', an array of origins, or a function, got "https:\/\/app\.example\.com"$/,
    ],
    [
      'cors.origin set',
      { cors: { origin: 'https://app.example.com' } },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'cors\.origin' is not used: set 'origins'/,
    ],
    [
      "origins '*' with cors.credentials",
      { origins: '*', cors: { credentials: true } },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: options 'origins: "\*"' and 'cors\.credentials: true' cannot go together/,
    ],
    [
      'allowedHosts with an empty name',
      { allowedHosts: [''] },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'allowedHosts' must be an array of host names, or false, got \[""\]$/,
    ],
    [
      "rateLimit 'x'",
      { rateLimit: 'x' as never },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'rateLimit' must be express-rate-limit options or false, got "x"$/,
    ],
    [
      'maxBatchLength 0',
      { maxBatchLength: 0 },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'maxBatchLength' must be a positive integer, got 0$/,
    ],
    [
      'maxBatchLength 1.5',
      { maxBatchLength: 1.5 },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'maxBatchLength' must be a positive integer, got 1\.5$/,
    ],
  ])('%s', (_label, options, code, message) => {
    const err = configError(() => mcpRouter({ name: 'bad', version: '1.0.0', sessions: false, ...options }));
    expect(err.code).toBe(code);
    expect(err.message).toMatch(/^mcpRouter: /);
    expect(err.message).toMatch(message);
  });

  it.each<[string, Partial<McpRouterOptions>]>([
    ['origins * without credentials', { origins: '*' }],
    ['a list of origins with credentials', { origins: ['https://app.example.com'], cors: { credentials: true } }],
    ['cors false', { cors: false }],
    ['rateLimit false', { rateLimit: false }],
    ['maxBatchLength 1', { maxBatchLength: 1 }],
    ['an origins predicate', { origins: (origin: string) => origin.endsWith('.example.com') }],
  ])('accepts %s', (_label, options) => {
    expect(() => router(options)).not.toThrow();
  });

  it('a valid configuration (default rate limit, auth) boots without printing anything', () => {
    const printed = (['error', 'warn', 'log', 'info'] as const).map((method) =>
      jest.spyOn(console, method).mockImplementation(() => undefined),
    );
    try {
      router({ auth: { tokens: ['t'] } });
      router({});
      for (const spy of printed) expect(spy.mock.calls).toEqual([]);
    } finally {
      for (const spy of printed) spy.mockRestore();
    }
  });

  it('a token is never part of a configuration error message', () => {
    const err = configError(() =>
      mcpRouter({ name: 'bad', version: '1.0.0', sessions: false, auth: { tokens: ['super-secret-value'], verify } }),
    );
    expect(err.message).not.toContain('super-secret-value');
  });
});
