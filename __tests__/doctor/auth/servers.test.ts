// checkAuth against real servers on 127.0.0.1: this router (static tokens, auth.server, a wrong resource, no auth) and the SDK v1 server's auth.

import express from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import {
  mcpAuthMetadataRouter,
  getOAuthProtectedResourceMetadataUrl,
} from '@modelcontextprotocol/sdk/server/auth/router.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { mcpRouter, type McpRouter, type McpRouterOptions } from '../../../lib';
import { checkAuth } from '../../../lib/doctor/auth';
import type { Finding } from '../../../lib/doctor/finding';
import type { HttpSettings } from '../../../lib/doctor/http';
import { freePort, listenLocally, type Listening } from '../../helpers/ports';
import { startSignInServer, type SignInServer } from '../../helpers/sign-in-server';

const HTTP: HttpSettings = { timeoutMs: 5_000, maxBytes: 1_000_000 };

const run = (url: string, token?: string): Promise<Finding[]> =>
  checkAuth({ target: { url: new URL(url), calls: [], ...(token === undefined ? {} : { token }) }, http: HTTP });

const severities = (findings: Finding[]): Record<string, string> =>
  Object.fromEntries([...findings].reverse().map((finding) => [finding.id, finding.severity]));
const only = (findings: Finding[], id: string): Finding => findings.find((finding) => finding.id === id) as Finding;
const problems = (findings: Finding[]): Finding[] =>
  findings.filter((finding) => finding.severity === 'warn' || finding.severity === 'fail');

/** A router on a fresh app at /mcp, its options made once the port is known; closed with its listener. */
async function startRouter(
  options: (port: number) => McpRouterOptions,
  mount: (app: express.Express, mcp: McpRouter) => void = (app, mcp) => app.use('/mcp', mcp),
): Promise<{ port: number; close(): Promise<void> }> {
  const app = express();
  const listening = await listenLocally(app);
  let mcp: McpRouter;
  try {
    mcp = mcpRouter(options(listening.port));
  } catch (error) {
    await listening.close();
    throw error;
  }
  mcp.tool({
    name: 'whoami',
    description: 'The caller',
    handler: (_args, ctx) => ({ subject: ctx.auth?.subject ?? null }),
  });
  mount(app, mcp);
  return {
    port: listening.port,
    close: async () => {
      await mcp.close();
      await listening.close();
    },
  };
}

describe('checkAuth against this router', () => {
  const opened: { close(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const server of opened) await server.close();
  });

  it('finds no problem with auth.server, and notes the forms only the one mount line does not serve', async () => {
    const server: SignInServer = await startSignInServer();
    opened.push(server);
    const findings = await run(server.issuer);
    expect(problems(findings)).toEqual([]);
    expect(severities(findings)).toMatchObject({
      'auth.challenge': 'ok',
      'auth.challenge-2026': 'ok',
      'auth.challenge-url': 'ok',
      'auth.prm': 'ok',
      'auth.prm-well-known': 'info',
      'auth.prm-resource': 'ok',
      'auth.prm-authorization-servers': 'ok',
      'auth.as-discovery': 'ok',
      'auth.as-well-known': 'info',
      'auth.as-issuer': 'ok',
      'auth.as-pkce': 'ok',
      'auth.as-registration': 'ok',
      'auth.as-iss-parameter': 'ok',
    });
    expect(only(findings, 'auth.prm-well-known').fix).toContain('mcp.authMetadata');
  });

  it('finds the metadata at every well-known form once the root routes are mounted', async () => {
    const server = await startRouter(
      () => ({ name: 'rooted', version: '1.0.0', auth: { server: { signIn: () => ({ subject: 'alice' }) } } }),
      (app, mcp) => {
        app.use('/.well-known/oauth-protected-resource', mcp.authMetadata);
        app.use(
          ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'],
          mcp.authServerMetadata,
        );
        app.use('/mcp', mcp);
      },
    );
    opened.push(server);
    const findings = await run(`http://127.0.0.1:${server.port}/mcp`);
    expect(problems(findings)).toEqual([]);
    expect(only(findings, 'auth.challenge-url').summary).toContain('/.well-known/oauth-protected-resource/mcp');
    expect(only(findings, 'auth.prm-well-known').severity).toBe('ok');
    expect(only(findings, 'auth.as-discovery').summary).toMatch(/try 1 of 3/);
    expect(findings.some((finding) => finding.id === 'auth.as-well-known')).toBe(false);
  });

  it('with static tokens: no OAuth sign-in; the token accepted, refused, or short of the scope the challenge names', async () => {
    const server = await startRouter(() => ({
      name: 'tokens',
      version: '1.0.0',
      auth: {
        tokens: [
          { token: 'token-with-scope', subject: 'ops', scopes: ['stock:read'] },
          { token: 'token-without-scope', subject: 'guest', scopes: [] },
        ],
        requiredScopes: ['stock:read'],
      },
    }));
    opened.push(server);
    const url = `http://127.0.0.1:${server.port}/mcp`;
    const accepted = await run(url, 'token-with-scope');
    expect(severities(accepted)).toMatchObject({
      'auth.challenge': 'ok',
      'auth.challenge-scope': 'ok',
      'auth.prm-authorization-servers': 'info',
      'auth.as-fallback': 'info',
      'auth.token': 'ok',
    });
    expect(problems(accepted)).toEqual([]);
    const short = await run(url, 'token-without-scope');
    expect(only(short, 'auth.token')).toMatchObject({
      severity: 'fail',
      summary: expect.stringContaining('`stock:read`'),
    });
    const refused = await run(url, 'not-a-token-of-this-server');
    expect(only(refused, 'auth.token')).toMatchObject({
      severity: 'fail',
      summary: expect.stringMatching(/401 invalid_token/),
    });
    for (const [findings, token] of [
      [accepted, 'token-with-scope'],
      [short, 'token-without-scope'],
      [refused, 'not-a-token-of-this-server'],
    ] as const)
      expect(JSON.stringify(findings)).not.toContain(token);
  });

  it('fails a resource that names another origin than the one the client used, saying both', async () => {
    const server = await startRouter((port) => ({
      name: 'proxied',
      version: '1.0.0',
      auth: {
        server: { signIn: () => ({ subject: 'alice' }) },
        resourceMetadata: {
          resource: `http://127.0.0.1:${port}/mcp`,
          authorizationServers: [`http://127.0.0.1:${port}/mcp`],
        },
      },
    }));
    opened.push(server);
    const findings = await run(`http://localhost:${server.port}/mcp`);
    const resource = only(findings, 'auth.prm-resource');
    expect(resource.severity).toBe('fail');
    expect(resource.summary).toContain(
      `names \`resource\` http://127.0.0.1:${server.port}/mcp, but the client used http://localhost:${server.port}/mcp`,
    );
    expect(resource.fix).toMatch(/publicUrl/);
  });

  it('a resource set to another host: the fix names the option that sets it', async () => {
    const server = await startRouter(() => ({
      name: 'configured',
      version: '1.0.0',
      auth: {
        tokens: [{ token: 't', subject: 's' }],
        resourceMetadata: { resource: 'https://wrong.test/mcp', authorizationServers: ['https://as.test'] },
      },
    }));
    opened.push(server);
    const resource = only(await run(`http://127.0.0.1:${server.port}/mcp`), 'auth.prm-resource');
    expect(resource).toMatchObject({ severity: 'fail', summary: expect.stringMatching(/another host/) });
    expect(resource.fix).toMatch(/^This router: `auth\.resourceMetadata\.resource` names it/);
  });

  it('metadata that cannot be read: the fallback finding says so, not that no sign-in is offered', async () => {
    const app = express();
    app.post('/mcp', (req, res) => {
      const metadata = `http://127.0.0.1:${req.socket.localPort}/missing-metadata`;
      res.status(401).set('www-authenticate', `Bearer resource_metadata="${metadata}"`).json({});
    });
    const listening = await listenLocally(app);
    opened.push(listening);
    const findings = await run(`http://127.0.0.1:${listening.port}/mcp`);
    expect(only(findings, 'auth.prm').severity).toBe('fail');
    const fallback = only(findings, 'auth.as-fallback');
    expect(fallback.summary).toMatch(/the protected-resource metadata could not be read/);
    expect(fallback.summary).not.toMatch(/no OAuth sign-in offered/);
  });

  it('reports an open router as info and checks nothing more', async () => {
    const server = await startRouter(() => ({ name: 'open', version: '1.0.0' }));
    opened.push(server);
    const findings = await run(`http://127.0.0.1:${server.port}/mcp`);
    expect(findings.map(({ id, severity }) => ({ id, severity }))).toEqual([{ id: 'auth.open', severity: 'info' }]);
  });

  it('reports an endpoint nothing listens on without throwing', async () => {
    const findings = await run(`http://127.0.0.1:${await freePort()}/mcp`);
    expect(severities(findings)).toEqual({ 'auth.challenge': 'info', 'auth.challenge-2026': 'info' });
    expect(only(findings, 'auth.challenge').summary).toMatch(/no answer/);
  });
});

describe('checkAuth against the SDK v1 server with requireBearerAuth and mcpAuthMetadataRouter', () => {
  let listening: Listening | undefined;
  let base = '';

  beforeAll(async () => {
    const app = express();
    listening = await listenLocally(app);
    base = `http://127.0.0.1:${listening.port}`;
    const endpoint = new URL(`${base}/mcp`);
    app.use(
      mcpAuthMetadataRouter({
        resourceServerUrl: endpoint,
        oauthMetadata: {
          issuer: `${base}/`,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          registration_endpoint: `${base}/register`,
          response_types_supported: ['code'],
          code_challenge_methods_supported: ['S256'],
          grant_types_supported: ['authorization_code', 'refresh_token'],
          token_endpoint_auth_methods_supported: ['none'],
        },
      }),
    );
    const verifier = {
      verifyAccessToken: async (token: string) => {
        if (token !== 'sdk-token') throw new InvalidTokenError('unknown token');
        return { token, clientId: 'doctor', scopes: [], expiresAt: Math.floor(Date.now() / 1000) + 3600 };
      },
    };
    const bearer = requireBearerAuth({ verifier, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(endpoint) });
    app.post('/mcp', bearer, express.json(), async (req, res) => {
      const server = new McpServer({ name: 'sdk-v1', version: '1.0.0' });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => void server.close());
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    });
  });

  afterAll(async () => {
    await listening?.close();
  });

  it('finds its discovery sound and accepts its token', async () => {
    const findings = await run(`${base}/mcp`, 'sdk-token');
    expect(severities(findings)).toMatchObject({
      'auth.challenge': 'ok',
      'auth.challenge-url': 'ok',
      'auth.prm': 'ok',
      'auth.prm-resource': 'ok',
      'auth.as-discovery': 'ok',
      'auth.as-pkce': 'ok',
      'auth.as-registration': 'ok',
      'auth.token': 'ok',
    });
    expect(only(findings, 'auth.challenge').detail).toMatch(/resource_metadata=/);
    // It names no scope in the challenge and no `iss` support: both only noted.
    expect(severities(findings)).toMatchObject({ 'auth.challenge-scope': 'info', 'auth.as-iss-parameter': 'info' });
    expect(problems(findings)).toEqual([]);
  });
});
