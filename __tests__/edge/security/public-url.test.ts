// Public URLs in one place: Express's `trust proxy` for scheme and host (X-Forwarded-Host checked like Host), the
// `publicUrl` option over every URL the router names, and the one warning when the URL named is not the one used.

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import request from 'supertest';
import { mcpRouter, type McpRouter, type McpRouterOptions } from '../../../lib';
import { audienceFor } from '../../../lib/features/verifiers/audience';
import { carryPublicUrls, createPublicUrls } from '../../../lib/edge/security/public-url';
import { MCP_ACCEPT, rpc, silentLogger } from '../../helpers/messages';
import { configError } from '../../helpers/errors';

const routers: McpRouter[] = [];
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

/** A logger that keeps what is warned. */
function recordingLogger(): { warned: string[]; logger: McpRouterOptions['logger'] } {
  const warned: string[] = [];
  return {
    warned,
    logger: {
      ...silentLogger(),
      warn: (err: unknown) => warned.push(err instanceof Error ? err.message : String(err)),
    },
  };
}

/** An app with a router at /mcp (its authorization server on, static tokens otherwise) behind `trust proxy` or not. */
async function serve(
  options: Partial<McpRouterOptions>,
  trustProxy: boolean,
): Promise<{ agent: ReturnType<typeof request>; origin: string }> {
  const mcp = mcpRouter({
    name: 'public-url',
    version: '1.0.0',
    logger: silentLogger(),
    auth: { tokens: ['t0ken'] },
    ...options,
  });
  routers.push(mcp);
  const app: Express = express();
  if (trustProxy) app.set('trust proxy', 1);
  app.use('/.well-known/oauth-protected-resource', mcp.authMetadata);
  app.use('/mcp', mcp);
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return { agent: request(server), origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const PROXIED = { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'mcp.example.com' };

/** The URL a 401 challenge names for its metadata. */
async function challengeUrl(agent: ReturnType<typeof request>, headers: Record<string, string>): Promise<string> {
  const res = await agent
    .post('/mcp')
    .set({ Accept: MCP_ACCEPT, ...headers })
    .send(rpc('tools/list', {}, 1));
  expect(res.status).toBe(401);
  return /resource_metadata="([^"]+)"/.exec(res.headers['www-authenticate'] as string)?.[1] ?? '';
}

describe('behind a proxy Express trusts', () => {
  it('names the public scheme and the forwarded host in metadata and challenges', async () => {
    const { agent } = await serve({ allowedHosts: ['mcp.example.com'] }, true);
    expect(await challengeUrl(agent, PROXIED)).toBe('https://mcp.example.com/.well-known/oauth-protected-resource/mcp');
    const own = await agent.get('/mcp/.well-known/oauth-protected-resource').set(PROXIED);
    expect(own.body.resource).toBe('https://mcp.example.com/mcp');
    const root = await agent.get('/.well-known/oauth-protected-resource/mcp').set(PROXIED);
    expect(root.body.resource).toBe('https://mcp.example.com/mcp');
  });

  it("takes the first of several X-Forwarded-Host values, as Express's req.hostname does", async () => {
    const { agent } = await serve({ allowedHosts: ['mcp.example.com'] }, true);
    const res = await agent
      .get('/mcp/.well-known/oauth-protected-resource')
      .set({ 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'mcp.example.com, internal:8080' });
    expect(res.body.resource).toBe('https://mcp.example.com/mcp');
  });

  it("names the router's authorization server by the public URL: issuer and every endpoint", async () => {
    const { agent } = await serve(
      { allowedHosts: ['mcp.example.com'], auth: { server: { signIn: () => ({ subject: 'u' }) } } },
      true,
    );
    const res = await agent.get('/mcp/.well-known/oauth-authorization-server').set(PROXIED);
    expect(res.status).toBe(200);
    expect(res.body.issuer).toBe('https://mcp.example.com/mcp');
    for (const key of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint'])
      expect(res.body[key]).toMatch(/^https:\/\/mcp\.example\.com\/mcp\//);
  });

  it('checks a forwarded host like a Host: 403 outside allowedHosts, 400 when malformed', async () => {
    const { agent } = await serve({ allowedHosts: ['mcp.example.com'] }, true);
    const refused = await agent
      .post('/mcp')
      .set({ Accept: MCP_ACCEPT, 'X-Forwarded-Host': 'evil.example.com', Authorization: 'Bearer t0ken' })
      .send(rpc('tools/list', {}, 1));
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain("X-Forwarded-Host 'evil.example.com' is not allowed");
    const metadata = await agent.get('/mcp/.well-known/oauth-protected-resource').set('X-Forwarded-Host', 'evil.com');
    expect(metadata.status).toBe(403);
    const malformed = await agent
      .get('/.well-known/oauth-protected-resource/mcp')
      .set('X-Forwarded-Host', 'mcp.example.com@evil.com');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.message).toContain('X-Forwarded-Host header must be one host[:port]');
  });

  it.each(['https://evil.test/#', 'javascript', 'ftp', 'http s'])(
    'refuses a forwarded scheme that is not http or https (%s) with 400, where no URL is made from it',
    async (proto) => {
      const { agent } = await serve({ allowedHosts: ['mcp.example.com'] }, true);
      for (const path of ['/mcp/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
        const res = await agent.get(path).set({ 'X-Forwarded-Proto': proto, 'X-Forwarded-Host': 'mcp.example.com' });
        expect(res.status).toBe(400);
        expect(res.body.error.message).toContain('X-Forwarded-Proto header must be http or https');
      }
    },
  );

  it('names a forwarded scheme in lower case, as URLs spell it', async () => {
    const { agent } = await serve({ allowedHosts: ['mcp.example.com'] }, true);
    const res = await agent
      .get('/mcp/.well-known/oauth-protected-resource')
      .set({ 'X-Forwarded-Proto': 'HTTPS', 'X-Forwarded-Host': 'mcp.example.com' });
    expect(res.body.resource).toBe('https://mcp.example.com/mcp');
  });

  it('says documents made from the request vary with Host and the forwarded headers, so caches keep them apart', async () => {
    const { agent } = await serve(
      {
        allowedHosts: ['mcp.example.com'],
        auth: { server: { signIn: () => ({ subject: 'u' }) } },
        name: 'com.example/inventory',
        description: 'Stock levels',
        serverCard: true,
      },
      true,
    );
    for (const path of [
      '/mcp/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
      '/mcp/.well-known/oauth-authorization-server',
      '/mcp/server-card',
    ]) {
      const res = await agent.get(path).set(PROXIED);
      expect([path, res.headers.vary]).toEqual([path, 'Host, X-Forwarded-Host, X-Forwarded-Proto']);
    }
  });

  it('refuses a public forwarded host by default on a loopback server, as it refuses such a Host', async () => {
    const { agent } = await serve({}, true);
    const res = await agent.get('/mcp/.well-known/oauth-protected-resource').set(PROXIED);
    expect(res.status).toBe(403);
  });
});

describe('behind a proxy Express does not trust', () => {
  it('ignores the forwarded host and scheme, and warns once naming trust proxy and publicUrl', async () => {
    const { warned, logger } = recordingLogger();
    const { agent, origin } = await serve({ logger }, false);
    expect(await challengeUrl(agent, PROXIED)).toBe(`${origin}/.well-known/oauth-protected-resource/mcp`);
    const own = await agent.get('/mcp/.well-known/oauth-protected-resource').set(PROXIED);
    expect(own.body.resource).toBe(`${origin}/mcp`);
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain("app.set('trust proxy', 1)");
    expect(warned[0]).toContain("'publicUrl'");
    expect(warned[0]).toContain('https://mcp.example.com');
  });

  it('says nothing without forwarding headers, or when they name the URL used', async () => {
    const { warned, logger } = recordingLogger();
    const { agent, origin } = await serve({ logger }, false);
    await agent.get('/mcp/.well-known/oauth-protected-resource');
    await agent
      .get('/mcp/.well-known/oauth-protected-resource')
      .set({ 'X-Forwarded-Proto': 'http', 'X-Forwarded-Host': new URL(origin).host });
    expect(warned).toEqual([]);
  });
});

describe('publicUrl', () => {
  const publicUrl = 'https://mcp.example.com/tools/mcp';

  it('is what every document and challenge names, whatever the request says', async () => {
    const { agent } = await serve({ publicUrl, auth: { server: { signIn: () => ({ subject: 'u' }) } } }, false);
    expect(await challengeUrl(agent, {})).toBe(
      'https://mcp.example.com/.well-known/oauth-protected-resource/tools/mcp',
    );
    expect((await agent.get('/mcp/.well-known/oauth-protected-resource')).body).toMatchObject({
      resource: publicUrl,
      authorization_servers: [publicUrl],
    });
    expect((await agent.get('/.well-known/oauth-protected-resource/mcp')).body.resource).toBe(publicUrl);
    const server = await agent.get('/mcp/.well-known/oauth-authorization-server');
    expect(server.body.issuer).toBe(publicUrl);
    expect(server.body.token_endpoint).toBe(`${publicUrl}/oauth/token`);
  });

  it('makes documents that do not vary: they name publicUrl whatever the request says', async () => {
    const { agent } = await serve({ publicUrl, auth: { server: { signIn: () => ({ subject: 'u' }) } } }, false);
    expect((await agent.get('/mcp/.well-known/oauth-protected-resource')).headers.vary).toBeUndefined();
    expect((await agent.get('/mcp/.well-known/oauth-authorization-server')).headers.vary).toBeUndefined();
  });

  it('accepts its own host by default on a loopback server (the operator named it), and no other public one', async () => {
    const { agent } = await serve({ publicUrl }, false);
    expect((await agent.get('/mcp/.well-known/oauth-protected-resource').set('Host', 'mcp.example.com')).status).toBe(
      200,
    );
    expect((await agent.get('/mcp/.well-known/oauth-protected-resource').set('Host', 'other.example.com')).status).toBe(
      403,
    );
  });

  it('warns once when a proxy says clients reached another origin', async () => {
    const { warned, logger } = recordingLogger();
    const { agent } = await serve({ publicUrl, logger, allowedHosts: false }, true);
    await agent.get('/mcp/.well-known/oauth-protected-resource').set(PROXIED);
    expect(warned).toEqual([]);
    for (let i = 0; i < 2; i++)
      await agent
        .get('/mcp/.well-known/oauth-protected-resource')
        .set({ 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'api.example.org' });
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain("the option 'publicUrl' names https://mcp.example.com");
  });

  it('is the audience a token verifier expects when none is configured', () => {
    const req = { headers: { host: '127.0.0.1:3000' }, baseUrl: '/mcp', protocol: 'http' } as never;
    expect(audienceFor(undefined, req)).toBe('http://127.0.0.1:3000/mcp');
    carryPublicUrls(req, createPublicUrls({ publicUrl, allowedHosts: undefined, logger: undefined }));
    expect(audienceFor(undefined, req)).toBe(publicUrl);
    expect(audienceFor('https://configured.example.com', req)).toBe('https://configured.example.com');
  });

  it.each([
    ['not a URL', 'mcp.example.com/mcp'],
    ['plain http off loopback', 'http://mcp.example.com/mcp'],
    ['a query', 'https://mcp.example.com/mcp?x=1'],
    ['a fragment', 'https://mcp.example.com/mcp#top'],
    ['userinfo', 'https://user:pass@mcp.example.com/mcp'],
    ['not a string', 42],
  ])('is refused at boot with %s', (_what, value) => {
    expect(configError(() => mcpRouter({ name: 'x', version: '1', publicUrl: value as string })).message).toMatch(
      /option 'publicUrl'/,
    );
  });

  it('loses a trailing slash, and may be plain http on loopback for development', async () => {
    const { agent } = await serve({ publicUrl: 'http://localhost:3000/mcp/' }, false);
    expect((await agent.get('/mcp/.well-known/oauth-protected-resource')).body.resource).toBe(
      'http://localhost:3000/mcp',
    );
  });
});
