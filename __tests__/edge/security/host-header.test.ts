// A malformed or repeated Host is 400 before any route: the MCP endpoint, the metadata at the mount path and at the
// app's root, and the authorization server's endpoints, so no URL a response names can come from one.

import express from 'express';
import { mcpRouter, type McpRouter, type McpRouterOptions } from '../../../lib';
import { silentLogger } from '../../helpers/messages';
import { listenLocally, type Listening } from '../../helpers/ports';
import { RawConnection, type RawResponse } from '../../helpers/raw-connection';
import { cookieSignIn } from '../../helpers/sign-in-server';
import { MALFORMED_HOSTS, WELL_FORMED_HOSTS } from '../../helpers/host-spellings';

/** The routes a Host reaches, each with the answer a well-formed Host gets (auth on: the endpoint needs a token). */
const ROUTES: ReadonlyArray<{
  name: string;
  lines: string[];
  body?: string;
  passes: (res: RawResponse, host: string) => void;
}> = [
  {
    name: 'POST /mcp (the MCP endpoint)',
    lines: [
      'POST /mcp HTTP/1.1',
      'Content-Type: application/json',
      'Accept: application/json, text/event-stream',
      `Content-Length: ${'{"jsonrpc":"2.0","id":1,"method":"ping"}'.length}`,
    ],
    body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    passes: (res, host) => {
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toContain(`resource_metadata="http://${host}/`);
    },
  },
  {
    name: 'GET /mcp (the MCP endpoint)',
    lines: ['GET /mcp HTTP/1.1', 'Accept: text/event-stream'],
    passes: (res) => expect(res.status).toBe(401),
  },
  {
    name: 'GET /mcp/.well-known/oauth-protected-resource (the router’s own metadata)',
    lines: ['GET /mcp/.well-known/oauth-protected-resource HTTP/1.1'],
    passes: (res, host) => {
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body)).toMatchObject({ resource: `http://${host}/mcp` });
    },
  },
  {
    name: 'GET /mcp/.well-known/oauth-authorization-server (the issuer’s metadata)',
    lines: ['GET /mcp/.well-known/oauth-authorization-server HTTP/1.1'],
    passes: (res, host) => {
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body)).toMatchObject({ issuer: `http://${host}/mcp` });
    },
  },
  {
    name: 'GET /.well-known/oauth-protected-resource/mcp (mcp.authMetadata at the app’s root)',
    lines: ['GET /.well-known/oauth-protected-resource/mcp HTTP/1.1'],
    passes: (res, host) => {
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body)).toMatchObject({ resource: `http://${host}/mcp` });
    },
  },
  {
    name: 'GET /.well-known/oauth-authorization-server/mcp (mcp.authServerMetadata at the app’s root)',
    lines: ['GET /.well-known/oauth-authorization-server/mcp HTTP/1.1'],
    passes: (res, host) => {
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body)).toMatchObject({ issuer: `http://${host}/mcp` });
    },
  },
  {
    name: 'GET /mcp/oauth/authorize (the authorization endpoint)',
    lines: ['GET /mcp/oauth/authorize?client_id=nobody HTTP/1.1'],
    passes: (res) => expect(res.status).toBe(400),
  },
];

let mcp: McpRouter;
let app: Listening;

/** A router with `auth.server`, its root metadata mounted, and no rate limit (the tables send hundreds of requests). */
async function start(options: Partial<McpRouterOptions>): Promise<void> {
  mcp = mcpRouter({
    name: 'hosts',
    version: '1.0.0',
    logger: silentLogger(),
    rateLimit: false,
    auth: { server: { signIn: cookieSignIn, rateLimit: false } },
    ...options,
  });
  const host = express();
  host.use('/.well-known/oauth-protected-resource', mcp.authMetadata);
  host.use('/.well-known/oauth-authorization-server', mcp.authServerMetadata);
  host.use('/mcp', mcp);
  app = await listenLocally(host);
}

async function exchange(lines: readonly string[], body = ''): Promise<RawResponse> {
  const connection = new RawConnection(app.port);
  try {
    return await connection.exchangeLines(lines, body, 10_000);
  } finally {
    connection.close();
  }
}

function expectBadHost(res: RawResponse): void {
  expect(res.status).toBe(400);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers['cache-control']).toBeUndefined();
  expect(JSON.parse(res.body)).toEqual({
    jsonrpc: '2.0',
    id: null,
    error: { code: -32000, message: expect.stringMatching(/^Bad Request: the Host header must be one host\[:port\]/) },
  });
  expect(res.body).not.toMatch(/evil/);
}

afterEach(async () => {
  await mcp?.close();
  await app?.close();
});

// allowedHosts: false, as behind a proxy that forwards Host: only the syntax stands between a Host and the URLs.
describe.each(ROUTES)('$name, allowedHosts: false', ({ lines, body, passes }) => {
  beforeEach(() => start({ allowedHosts: false }));

  it.each(MALFORMED_HOSTS.map((host) => [JSON.stringify(host), host]))('Host %s → 400', async (_name, host) => {
    expectBadHost(await exchange([...lines, `Host: ${host}`], body));
  });

  it.each(WELL_FORMED_HOSTS)('Host %s passes', async (host) => {
    passes(await exchange([...lines, `Host: ${host}`], body), host);
  });

  it('two Host lines → 400, whichever comes first', async () => {
    expectBadHost(await exchange([...lines, 'Host: 127.0.0.1', 'Host: evil.example'], body));
    expectBadHost(await exchange([...lines, 'Host: evil.example', 'host: 127.0.0.1'], body));
  });
});

describe('the default allowedHosts (a loopback server)', () => {
  beforeEach(() => start({}));

  it.each([['127.0.0.1:45333@evil.example'], ['localhost@evil.example'], ['127.0.0.1:80/evil.example']])(
    'Host %s, whose first part is loopback, → 400 on every route',
    async (host) => {
      for (const route of ROUTES) expectBadHost(await exchange([...route.lines, `Host: ${host}`], route.body));
    },
  );

  it('a loopback Host passes; a well-formed public one is still 403 on the endpoint', async () => {
    const [post] = ROUTES;
    const route = post as (typeof ROUTES)[number];
    route.passes(await exchange([...route.lines, `Host: 127.0.0.1:${app.port}`], route.body), `127.0.0.1:${app.port}`);
    const res = await exchange([...route.lines, 'Host: evil.example'], route.body);
    expect(res.status).toBe(403);
  });

  it('an HTTP/1.0 request without Host is not refused for its Host syntax (403: not a loopback Host)', async () => {
    const res = await exchange(['GET /mcp HTTP/1.0', 'Accept: text/event-stream']);
    expect(res.status).toBe(403);
  });
});

// Every document names the Host's origin: each takes the allowedHosts decision, at the mount path and at the root.
const METADATA_ROUTES = ROUTES.filter((route) => route.name.includes('.well-known'));

describe.each(METADATA_ROUTES)('$name, allowedHosts: [mcp.example.com]', ({ lines, passes }) => {
  beforeEach(() => start({ allowedHosts: ['mcp.example.com'] }));

  it('a foreign Host → 403 JSON, never a document naming it', async () => {
    const res = await exchange([...lines, 'Host: evil.example']);
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBeUndefined();
    expect(JSON.parse(res.body)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: "Forbidden: Host 'evil.example' is not allowed (option 'allowedHosts')" },
    });
  });

  it('the allowed Host → 200', async () => {
    passes(await exchange([...lines, 'Host: mcp.example.com']), 'mcp.example.com');
  });
});

describe.each(METADATA_ROUTES)('$name, the default allowedHosts (a loopback server)', ({ lines, passes }) => {
  beforeEach(() => start({}));

  it('a public Host → 403; a loopback one → 200', async () => {
    expect((await exchange([...lines, 'Host: evil.example'])).status).toBe(403);
    passes(await exchange([...lines, `Host: localhost:${app.port}`]), `localhost:${app.port}`);
  });
});
