// Hostile suite, authentication: hostile requests against an auth-enabled router on a real express() app, as one
// table: the exact status, the exact WWW-Authenticate (or its absence) and the body's JSON-RPC code and id, and in
// every row no token leaks anywhere.

import { createHash } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import express from 'express';
import request from 'supertest';
import { mcpRouter, type AuthInfo, type McpRouter, type McpRouterOptions } from '../../lib';
import { MCP_ACCEPT, rpc } from '../helpers/messages';

/** Every secret a row may send: none of them may come back, in a body, a header or a log line. */
const TOKENS = {
  alice: 'tok-alice-7c1f0e9a4b2d',
  bob: 'tok-bob-3e8d5a6c9f01',
  /** Valid, but without the required scope. */
  carol: 'tok-carol-b4a29d7e1c35',
  /** Valid, but expired a minute ago. */
  dave: 'tok-dave-e2f7c0a85d96',
  /** Known to nobody. */
  wrong: 'tok-nobody-91d3b6f4a27e',
} as const;
const SECRETS: readonly string[] = Object.values(TOKENS);

const REQUIRED_SCOPE = 'mcp:use';

/** The verifier: the principal of a known token (dave's expired), null for anything else. */
async function verify(token: string): Promise<AuthInfo | null> {
  const now = Math.floor(Date.now() / 1000);
  if (token === TOKENS.alice) return { subject: 'alice', scopes: [REQUIRED_SCOPE], expiresAt: now + 3600 };
  if (token === TOKENS.bob) return { subject: 'bob', scopes: [REQUIRED_SCOPE] };
  if (token === TOKENS.carol) return { subject: 'carol', scopes: ['other'] };
  if (token === TOKENS.dave) return { subject: 'dave', scopes: [REQUIRED_SCOPE], expiresAt: now - 60 };
  return null;
}

const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });
const INIT = (id: string | number = 'init-1') =>
  rpc(
    'initialize',
    { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'hostile', version: '0.0.1' } },
    id,
  );

/** The placeholder for `http://127.0.0.1:<port>` in the expected challenges below. */
const ORIGIN = '{origin}';
// The app mounts only the router, so the challenge names the metadata the router serves at its own path.
const METADATA = `resource_metadata="${ORIGIN}/mcp/.well-known/oauth-protected-resource", scope="${REQUIRED_SCOPE}"`;
const CHALLENGE = {
  /** RFC 6750 §3.1: no credentials (or an unsupported scheme) → no error code. */
  missing: `Bearer ${METADATA}`,
  invalid: `Bearer error="invalid_token", error_description="The access token is not valid", ${METADATA}`,
  expired: `Bearer error="invalid_token", error_description="The access token expired", ${METADATA}`,
  query: `Bearer error="invalid_request", error_description="Send the access token in the Authorization header, not the query string", ${METADATA}`,
  scope: `Bearer error="insufficient_scope", error_description="The access token lacks a required scope", ${METADATA}`,
};
const ALLOWED_HEADERS =
  'Content-Type,Accept,Authorization,Mcp-Session-Id,MCP-Protocol-Version,Last-Event-ID,Mcp-Method,Mcp-Name';
const EXPOSED_HEADERS = 'Mcp-Session-Id,WWW-Authenticate,Retry-After,RateLimit,RateLimit-Policy';

/** One router on a listening server, recording every response a row gets. */
class Harness {
  readonly responses: request.Response[] = [];

  private constructor(
    readonly mcp: McpRouter,
    readonly logger: { error: jest.Mock; warn: jest.Mock },
    private readonly server: Server,
  ) {}

  static async start(options: Partial<McpRouterOptions>): Promise<Harness> {
    const logger = { error: jest.fn(), warn: jest.fn() };
    const mcp = mcpRouter({
      name: 'hostile',
      version: '1.0.0',
      sessions: false,
      logger,
      auth: { verify, requiredScopes: [REQUIRED_SCOPE] },
      ...options,
    });
    mcp.tool({
      name: 'echo',
      description: 'Echo text',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      handler: ({ text }) => text ?? '',
    });
    mcp.tool({
      name: 'slow',
      description: 'Never finishes on its own: stops when its signal aborts',
      timeoutMs: 50,
      handler: (_args, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('stopped'))),
    });
    const app = express();
    app.use('/mcp', mcp);
    const server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    return new Harness(mcp, logger, server);
  }

  /** `http://127.0.0.1:<port>`: what the router derives the metadata URL from. */
  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Sends a request built on the server and records its response. */
  async send(build: (agent: ReturnType<typeof request>) => request.Test): Promise<request.Response> {
    const res = await build(request(this.server));
    this.responses.push(res);
    return res;
  }

  /** POSTs a JSON-RPC body (object → JSON; string → as is) to `path` with the MCP headers plus `headers`. */
  post(body: unknown, headers: Record<string, string> = {}, path = '/mcp'): Promise<request.Response> {
    return this.send((agent) =>
      agent
        .post(path)
        .set({ 'Content-Type': 'application/json', Accept: MCP_ACCEPT, ...headers })
        .send(typeof body === 'string' ? body : JSON.stringify(body)),
    );
  }

  /** A CORS preflight of a POST carrying every MCP header. */
  preflight(origin: string): Promise<request.Response> {
    return this.send((agent) =>
      agent.options('/mcp').set({
        Origin: origin,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type, mcp-session-id, mcp-protocol-version',
      }),
    );
  }

  async close(): Promise<void> {
    await this.mcp.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

interface Row {
  /** Options over the base (verify + requiredScopes, stateless, default origins, hosts and rate limit). */
  options?: Partial<McpRouterOptions>;
  /** Fake timers (all but nextTick, setImmediate and queueMicrotask) from before the router is built. */
  fakeTimers?: boolean;
  /** Sends the row's requests; resolves with the response under test. */
  run: (h: Harness) => Promise<request.Response>;
  status: number;
  /** The exact WWW-Authenticate, with {origin} for the server's origin; undefined: the header must be absent. */
  challenge: string | undefined;
  /** The body: a JSON-RPC error's code and the id, a result's id, or 'empty'. */
  body: { code: number; id: string | number | null } | { result: true; id: string | number } | 'empty';
  /** More checks of the row's responses. */
  also?: (res: request.Response, h: Harness) => void;
}

const okInit = (res: request.Response, id: string | number = 'init-1'): void => {
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ jsonrpc: '2.0', id, result: { protocolVersion: '2025-11-25' } });
};

/** A JSON-RPC message nesting `depth` objects in its params. */
const deep = (depth: number): string =>
  `{"jsonrpc":"2.0","id":"deep","method":"tools/list","params":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;

const ROWS: Array<[string, Row]> = [
  [
    'a valid token (control)',
    {
      run: (h) => h.post(INIT(), bearer(TOKENS.alice)),
      status: 200,
      challenge: undefined,
      body: { result: true, id: 'init-1' },
    },
  ],
  [
    'no Authorization header',
    { run: (h) => h.post(INIT(), {}), status: 401, challenge: CHALLENGE.missing, body: { code: -32000, id: null } },
  ],
  [
    'an unknown token',
    {
      run: (h) => h.post(INIT(), bearer(TOKENS.wrong)),
      status: 401,
      challenge: CHALLENGE.invalid,
      body: { code: -32000, id: null },
    },
  ],
  [
    'the token in the query string (?access_token=)',
    {
      run: (h) => h.post(INIT(), {}, `/mcp?access_token=${TOKENS.alice}`),
      status: 400,
      challenge: CHALLENGE.query,
      body: { code: -32000, id: null },
    },
  ],
  [
    'the token in the query string, even with a valid header too',
    {
      run: (h) => h.post(INIT(), bearer(TOKENS.alice), `/mcp?x=1&access_token=${TOKENS.alice}`),
      status: 400,
      challenge: CHALLENGE.query,
      body: { code: -32000, id: null },
    },
  ],
  // RFC 7235 §2.1 / RFC 9110 §11.1: the auth scheme is case-insensitive; 1*SP separates it from the credentials.
  [
    '"bearer" lower case, two spaces',
    {
      run: (h) => h.post(INIT(), { Authorization: `bearer  ${TOKENS.alice}` }),
      status: 200,
      challenge: undefined,
      body: { result: true, id: 'init-1' },
    },
  ],
  [
    '"BEARER" upper case',
    {
      run: (h) => h.post(INIT(), { Authorization: `BEARER ${TOKENS.alice}` }),
      status: 200,
      challenge: undefined,
      body: { result: true, id: 'init-1' },
    },
  ],
  // The grammar has 1*SP; a tab is accepted too (whitespace, harmless leniency).
  [
    '"Bearer" then a tab',
    {
      run: (h) => h.post(INIT(), { Authorization: `Bearer\t${TOKENS.alice}` }),
      status: 200,
      challenge: undefined,
      body: { result: true, id: 'init-1' },
    },
  ],
  // RFC 6750 §3.1: a client that "attempted using an unsupported authentication method" gets a challenge with no error code.
  [
    'the Basic scheme',
    {
      run: (h) => h.post(INIT(), { Authorization: `Basic ${Buffer.from(`alice:${TOKENS.alice}`).toString('base64')}` }),
      status: 401,
      challenge: CHALLENGE.missing,
      body: { code: -32000, id: null },
    },
  ],
  [
    'an expired token (verify: expiresAt in the past)',
    {
      run: (h) => h.post(INIT(), bearer(TOKENS.dave)),
      status: 401,
      challenge: CHALLENGE.expired,
      body: { code: -32000, id: null },
    },
  ],
  [
    'a token without the required scope',
    {
      run: (h) => h.post(INIT(), bearer(TOKENS.carol)),
      status: 403,
      challenge: CHALLENGE.scope,
      body: { code: -32000, id: null },
    },
  ],
  [
    "another principal's stolen Mcp-Session-Id",
    {
      options: { sessions: {} },
      run: async (h) => {
        const init = await h.post(INIT(), bearer(TOKENS.alice));
        okInit(init);
        const sessionId = init.headers['mcp-session-id'] as string;
        expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
        const headers = { 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': '2025-11-25' };
        expect(
          (await h.post(rpc('tools/list', undefined, 'own'), { ...bearer(TOKENS.alice), ...headers })).body,
        ).toMatchObject({ id: 'own', result: { tools: [{ name: 'echo' }, { name: 'slow' }] } });
        const stolen = await h.post(rpc('tools/list', undefined, 'stolen'), { ...bearer(TOKENS.bob), ...headers });
        // The session is still alice's afterwards.
        expect(
          (await h.post(rpc('tools/list', undefined, 'own-again'), { ...bearer(TOKENS.alice), ...headers })).status,
        ).toBe(200);
        return stolen;
      },
      status: 404,
      challenge: undefined,
      body: { code: -32000, id: null },
    },
  ],
  [
    'a stolen Mcp-Session-Id without any token',
    {
      options: { sessions: {} },
      run: async (h) => {
        const init = await h.post(INIT(), bearer(TOKENS.alice));
        return h.post(rpc('tools/list', undefined, 'stolen'), {
          'Mcp-Session-Id': init.headers['mcp-session-id'] as string,
          'MCP-Protocol-Version': '2025-11-25',
        });
      },
      status: 401,
      challenge: CHALLENGE.missing,
      body: { code: -32000, id: null },
    },
  ],
  [
    'an evil Origin (with a valid token)',
    {
      run: (h) => h.post(INIT(), { ...bearer(TOKENS.alice), Origin: 'https://evil.example.com' }),
      status: 403,
      challenge: undefined,
      body: { code: -32000, id: null },
    },
  ],
  [
    'an evil Host (DNS rebinding, with a valid token)',
    {
      run: (h) => h.post(INIT(), { ...bearer(TOKENS.alice), Host: 'evil.example.com' }),
      status: 403,
      challenge: undefined,
      body: { code: -32000, id: null },
    },
  ],
  [
    'Origin: null (sandboxed page, with a valid token)',
    {
      run: (h) => h.post(INIT(), { ...bearer(TOKENS.alice), Origin: 'null' }),
      status: 403,
      challenge: undefined,
      body: { code: -32000, id: null },
    },
  ],
  [
    'an allowed Origin without a token: the challenge is readable cross-origin',
    {
      run: (h) => h.post(INIT(), { Origin: 'http://localhost:5173' }),
      status: 401,
      challenge: CHALLENGE.missing,
      body: { code: -32000, id: null },
      also: (res) => {
        expect(res.headers['access-control-allow-origin']).toBe('http://localhost:5173');
        expect(res.headers['access-control-expose-headers']).toBe(EXPOSED_HEADERS);
      },
    },
  ],
  [
    'a preflight from an allowed Origin (no token needed)',
    {
      run: (h) => h.preflight('http://localhost:5173'),
      status: 204,
      challenge: undefined,
      body: 'empty',
      also: (res) => {
        expect(res.headers['access-control-allow-origin']).toBe('http://localhost:5173');
        expect(res.headers['access-control-allow-methods']).toBe('GET,POST,DELETE,OPTIONS');
        expect(res.headers['access-control-allow-headers']).toBe(ALLOWED_HEADERS);
        expect(res.headers['access-control-max-age']).toBe('600');
        expect(res.headers.vary).toMatch(/\bOrigin\b/);
      },
    },
  ],
  [
    'a preflight from a forbidden Origin',
    {
      run: (h) => h.preflight('https://evil.example.com'),
      status: 403,
      challenge: undefined,
      body: { code: -32000, id: null },
      also: (res) => {
        expect(res.headers['access-control-allow-origin']).toBeUndefined();
        expect(res.headers['access-control-allow-headers']).toBeUndefined();
      },
    },
  ],
  [
    'the third request in a window of 2 (preflights free; keyed by principal; the window resets)',
    {
      options: { rateLimit: { limit: 2, windowMs: 60_000 } },
      fakeTimers: true,
      run: async (h) => {
        const policy = (key: string) =>
          `"2-in-1min"; q=2; w=60; pk=:${Buffer.from(createHash('sha256').update(key).digest('hex').slice(0, 12)).toString('base64')}:`;
        // Preflights do not count.
        for (let i = 0; i < 3; i++) expect((await h.preflight('http://localhost:5173')).status).toBe(204);
        const first = await h.post(INIT('rl-1'), bearer(TOKENS.alice));
        okInit(first, 'rl-1');
        expect(first.headers.ratelimit).toBe('"2-in-1min"; r=1; t=60');
        expect(first.headers['ratelimit-policy']).toBe(policy('principal:alice'));
        expect(first.headers['x-ratelimit-limit']).toBeUndefined();
        const second = await h.post(INIT('rl-2'), bearer(TOKENS.alice));
        okInit(second, 'rl-2');
        expect(second.headers.ratelimit).toBe('"2-in-1min"; r=0; t=60');
        jest.advanceTimersByTime(1_000);
        const refused = await h.post(INIT('rl-3'), bearer(TOKENS.alice));
        expect(refused.headers['retry-after']).toBe('59');
        expect(refused.headers.ratelimit).toBe('"2-in-1min"; r=0; t=59');
        expect(refused.headers['ratelimit-policy']).toBe(policy('principal:alice'));
        expect(refused.headers['content-type']).toMatch(/^application\/json/);
        expect(refused.body.error.message).toMatch(/^Too Many Requests/);
        // Keyed by principal: bob, from the same IP, has his own window.
        okInit(await h.post(INIT('bob-1'), bearer(TOKENS.bob)), 'bob-1');
        // After the window, alice is served again.
        jest.advanceTimersByTime(59_000);
        const after = await h.post(INIT('rl-4'), bearer(TOKENS.alice));
        okInit(after, 'rl-4');
        expect(after.headers.ratelimit).toBe('"2-in-1min"; r=1; t=60');
        return refused;
      },
      status: 429,
      challenge: undefined,
      body: { code: -32000, id: 'rl-3' },
    },
  ],
  [
    'a body over the default bodyLimit (4 MB)',
    {
      run: (h) => h.post({ ...INIT(), pad: 'x'.repeat(4 * 1024 * 1024) }, bearer(TOKENS.alice)),
      status: 413,
      challenge: undefined,
      body: { code: -32000, id: null },
    },
  ],
  [
    'JSON nested 200 levels deep',
    {
      run: (h) => h.post(deep(200), bearer(TOKENS.alice)),
      status: 400,
      challenge: undefined,
      body: { code: -32700, id: null },
    },
  ],
  [
    'a batch of 101 messages (no MCP-Protocol-Version, stateless)',
    {
      run: (h) =>
        h.post(
          Array.from({ length: 101 }, (_, i) => rpc('tools/list', undefined, i)),
          bearer(TOKENS.alice),
        ),
      status: 400,
      challenge: undefined,
      body: { code: -32600, id: null },
      also: (res) => expect(res.body.error.message).toMatch(/at most 100 messages/),
    },
  ],
  [
    'a slow handler past its timeout (timeoutMs: 50)',
    {
      run: (h) =>
        h.post(rpc('tools/call', { name: 'slow', arguments: {} }, 'slow-1'), {
          ...bearer(TOKENS.alice),
          'MCP-Protocol-Version': '2025-11-25',
        }),
      status: 200,
      challenge: undefined,
      body: { result: true, id: 'slow-1' },
      also: (res) =>
        expect(res.body.result).toEqual({
          content: [{ type: 'text', text: "Tool 'slow' timed out after 50 ms" }],
          isError: true,
        }),
    },
  ],
];

describe('hostile requests', () => {
  let harness: Harness | undefined;
  let consoleSpies: jest.SpyInstance[] = [];

  beforeEach(() => {
    // Nothing may print a token either; and nothing should print at all.
    consoleSpies = (['error', 'warn', 'log', 'info', 'debug'] as const).map((method) =>
      jest.spyOn(console, method).mockImplementation(() => undefined),
    );
  });
  afterEach(async () => {
    jest.useRealTimers();
    await harness?.close();
    harness = undefined;
    for (const spy of consoleSpies) spy.mockRestore();
  });

  it.each(ROWS)('%s', async (_label, row) => {
    if (row.fakeTimers) jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    harness = await Harness.start(row.options ?? {});
    const h = harness;
    const res = await row.run(h);

    expect(res.status).toBe(row.status);
    const challenge = row.challenge?.replaceAll(ORIGIN, h.origin);
    expect(res.headers['www-authenticate']).toBe(challenge);
    if (row.body === 'empty') {
      expect(res.text ?? '').toBe('');
    } else {
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      if ('result' in row.body)
        expect(res.body).toEqual({ jsonrpc: '2.0', id: row.body.id, result: expect.any(Object) });
      else
        expect(res.body).toEqual({
          jsonrpc: '2.0',
          id: row.body.id,
          error: { code: row.body.code, message: expect.any(String) },
        });
    }
    row.also?.(res, h);

    // No token, in any response of the row (headers or body), in the router's logger, or on the console.
    expect(h.responses.length).toBeGreaterThan(0);
    for (const response of h.responses) {
      const seen = `${JSON.stringify(response.headers)}\n${response.text ?? ''}`;
      for (const secret of SECRETS) expect(seen).not.toContain(secret);
    }
    const logged = inspect(
      [h.logger.error.mock.calls, h.logger.warn.mock.calls, consoleSpies.map((spy) => spy.mock.calls)],
      { depth: 20 },
    );
    for (const secret of SECRETS) expect(logged).not.toContain(secret);
    expect(h.logger.error).not.toHaveBeenCalled();
  });
});
