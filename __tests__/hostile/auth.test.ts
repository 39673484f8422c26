// Hostile requests: auth — where the token is (header, query, body, twice), and the challenge each answer carries; then
// the auth rows' own router (other principals, scope mcp:use): schemes, expiry, scope, stolen sessions, Origin and
// Host, CORS, the rate limit by principal, and the exact WWW-Authenticate (or its absence) of every answer.

import { createHash } from 'node:crypto';
import type { OutgoingHttpHeaders } from 'node:http';
import type { AuthInfo, McpRouter, McpRouterOptions } from '../../lib';
import { AUTH_TOKENS, Host, initialize, rpc, TOKENS } from './host';
import { challenge, deep, expectChallenge, useFakeClock } from './requests';
import { hostileTable, type Row } from './table';
import type { WireResponse } from './wire';

const ROWS: Array<[string, Row]> = [
  // ---- where the token is ----
  [
    'no token: 401 with the challenge',
    {
      run: (s) => s.main.post('anon', initialize()),
      status: 401,
      type: 'json',
      error: { code: -32000, id: null },
      also: expectChallenge(),
    },
  ],
  [
    'an unknown token: 401 invalid_token',
    {
      run: (s) => s.main.post('anon', initialize(), { headers: { Authorization: `Bearer ${TOKENS.wrong}` } }),
      status: 401,
      type: 'json',
      error: { code: -32000, id: null },
      also: expectChallenge('invalid_token'),
    },
  ],
  [
    'a token without the required scope: 403 insufficient_scope',
    {
      run: (s) => s.main.post('carol', initialize()),
      status: 403,
      type: 'json',
      error: { code: -32000, id: null },
      also: expectChallenge('insufficient_scope'),
    },
  ],
  [
    'the token in the query string (?access_token=): 400 invalid_request',
    {
      run: (s) => s.main.post('anon', initialize(), { path: `/mcp?access_token=${TOKENS.alice}` }),
      status: 400,
      type: 'json',
      error: { code: -32000, id: null },
      also: expectChallenge('invalid_request'),
    },
  ],
  [
    'the token in the query string and the header: 400 invalid_request',
    {
      run: (s) => s.main.post('alice', initialize(), { path: `/mcp?a=1&access_token=${TOKENS.alice}` }),
      status: 400,
      type: 'json',
      error: { code: -32000, id: null },
      also: expectChallenge('invalid_request'),
    },
  ],
  [
    'lowercase "bearer": served',
    {
      run: (s) =>
        s.main.post('alice', rpc('ping', undefined, 'lc'), {
          session: s.alice,
          headers: { Authorization: `bearer ${TOKENS.alice}` },
        }),
      status: 200,
      type: 'json',
      result: { id: 'lc' },
    },
  ],
  // RFC 6750 §3.1: a request that "repeats the same parameter" or "uses more than one method" is invalid_request (400).
  [
    'two Authorization headers (alice, then bob): 400 invalid_request, served as neither',
    {
      run: (s) =>
        s.main.post('alice', rpc('tools/list', undefined, 'two'), {
          session: s.alice,
          headers: { Authorization: [`Bearer ${TOKENS.alice}`, `Bearer ${TOKENS.bob}`] },
        }),
      status: 400,
      type: 'json',
      error: { code: -32000, id: null },
      also: expectChallenge('invalid_request'),
    },
  ],
  [
    'the token in a cookie only: 401, no error code',
    {
      run: (s) =>
        s.main.post('anon', initialize(), {
          headers: { Cookie: `access_token=${TOKENS.alice}; token=${TOKENS.alice}` },
        }),
      status: 401,
      type: 'json',
      error: { code: -32000, id: null },
      also: expectChallenge(),
    },
  ],
  [
    'the Basic scheme: 401, no error code',
    {
      run: (s) =>
        s.main.post('anon', initialize(), {
          headers: { Authorization: `Basic ${Buffer.from(`alice:${TOKENS.alice}`).toString('base64')}` },
        }),
      status: 401,
      type: 'json',
      error: { code: -32000, id: null },
      also: expectChallenge(),
    },
  ],
  [
    'an empty bearer token: 401 invalid_token',
    {
      run: (s) => s.main.post('anon', initialize(), { headers: { Authorization: 'Bearer ' } }),
      status: 401,
      type: 'json',
      error: { code: -32000, id: null },
      also: expectChallenge('invalid_token'),
    },
  ],
];

// ---- the auth rows' own router: other principals, scope mcp:use, stateless, only `echo` and a `slow` tool ----

const AUTH_SCOPE = 'mcp:use';

/** The verifier: the principal of a known token (dave's expired), null for anything else. */
async function verifyAuthRow(token: string): Promise<AuthInfo | null> {
  const now = Math.floor(Date.now() / 1000);
  if (token === AUTH_TOKENS.alice) return { subject: 'alice', scopes: [AUTH_SCOPE], expiresAt: now + 3600 };
  if (token === AUTH_TOKENS.bob) return { subject: 'bob', scopes: [AUTH_SCOPE] };
  if (token === AUTH_TOKENS.carol) return { subject: 'carol', scopes: ['other'] };
  if (token === AUTH_TOKENS.dave) return { subject: 'dave', scopes: [AUTH_SCOPE], expiresAt: now - 60 };
  return null;
}

/** The auth rows' router on a host of the table (bare: only `echo` and `slow`), as the rows send to it. */
class AuthHarness {
  constructor(readonly host: Host) {}

  static async start(options: Partial<McpRouterOptions>): Promise<AuthHarness> {
    const auth = { verify: verifyAuthRow, requiredScopes: [AUTH_SCOPE] };
    const host = await Host.start({ sessions: false, auth, ...options }, registerAuthTools, 'bare');
    return new AuthHarness(host);
  }

  /** POSTs a JSON-RPC body (object → JSON; string → as is) to `path` with the MCP headers plus `headers`. */
  post(body: unknown, headers: OutgoingHttpHeaders = {}, path = '/mcp'): Promise<WireResponse> {
    return this.host.post('anon', body, { headers, path });
  }

  /** A CORS preflight of a POST carrying every MCP header. */
  preflight(origin: string): Promise<WireResponse> {
    return this.host.send('anon', {
      method: 'OPTIONS',
      headers: {
        Origin: origin,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type, mcp-session-id, mcp-protocol-version',
      },
    });
  }
}

function registerAuthTools(mcp: McpRouter): void {
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
}

/** A parsed JSON body, to read what a row checks. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const bodyOf = (res: WireResponse): any => res.json;

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
const METADATA = `resource_metadata="${ORIGIN}/mcp/.well-known/oauth-protected-resource", scope="${AUTH_SCOPE}"`;
const CHALLENGE = {
  /** RFC 6750 §3.1: no credentials (or an unsupported scheme) → no error code. */
  missing: `Bearer ${METADATA}`,
  invalid: `Bearer error="invalid_token", error_description="The access token is not valid", ${METADATA}`,
  expired: `Bearer error="invalid_token", error_description="The access token expired", ${METADATA}`,
  query: `Bearer error="invalid_request", error_description="Send the access token in the Authorization header, not the query string", ${METADATA}`,
  scope: `Bearer error="insufficient_scope", error_description="The access token lacks a required scope", ${METADATA}`,
};
const ALLOWED_HEADERS =
  'Content-Type,Accept,Authorization,DPoP,Mcp-Session-Id,MCP-Protocol-Version,Last-Event-ID,Mcp-Method,Mcp-Name';
const EXPOSED_HEADERS = 'Mcp-Session-Id,WWW-Authenticate,DPoP-Nonce,Retry-After,RateLimit,RateLimit-Policy';

const okInit = (res: WireResponse, id: string | number = 'init-1'): void => {
  expect(res.status).toBe(200);
  expect(res.json).toMatchObject({ jsonrpc: '2.0', id, result: { protocolVersion: '2025-11-25' } });
};

interface AuthRow {
  /** Options over the base (verify + requiredScopes, stateless, default origins, hosts and rate limit). */
  options?: Partial<McpRouterOptions>;
  /** Fake timers (all but nextTick, setImmediate and queueMicrotask) from before the router is built. */
  fakeTimers?: boolean;
  /** Sends the row's requests; resolves with the response under test. */
  run: (h: AuthHarness) => Promise<WireResponse>;
  status: number;
  /** The exact WWW-Authenticate, with {origin} for the server's origin; undefined: the header must be absent. */
  challenge: string | undefined;
  /** The body: a JSON-RPC error's code and the id, a result's id, or 'empty'. */
  body: { code: number; id: string | number | null } | { result: true; id: string | number } | 'empty';
  /** More checks of the row's responses. */
  also?: (res: WireResponse) => void;
}

/**
 * The table row of an auth row: its own router (on a fake clock when it says), the exact status, WWW-Authenticate
 * (or its absence) and JSON-RPC body; the table checks no token leaked, in any response or log.
 */
function authRow([name, row]: [string, AuthRow]): [string, Row] {
  let harness: AuthHarness | undefined;
  const { body } = row;
  return [
    name,
    {
      run: async () => {
        if (row.fakeTimers) useFakeClock();
        harness = await AuthHarness.start(row.options ?? {});
        return row.run(harness);
      },
      status: row.status,
      type: body === 'empty' ? 'none' : 'json',
      ...(body === 'empty' ? {} : 'result' in body ? { result: { id: body.id } } : { error: body }),
      also: (res) => {
        const host = (harness as AuthHarness).host;
        expect(res.headers['www-authenticate']).toBe(row.challenge?.replaceAll(ORIGIN, host.origin));
        if (body !== 'empty' && !('result' in body))
          expect(res.json).toEqual({
            jsonrpc: '2.0',
            id: body.id,
            error: { code: body.code, message: expect.any(String) },
          });
        row.also?.(res);
        expect(host.logger.error).not.toHaveBeenCalled();
      },
    },
  ];
}

const AUTH_ROWS: Array<[string, AuthRow]> = [
  [
    'a valid token (control)',
    {
      run: (h) => h.post(INIT(), bearer(AUTH_TOKENS.alice)),
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
      run: (h) => h.post(INIT(), bearer(AUTH_TOKENS.wrong)),
      status: 401,
      challenge: CHALLENGE.invalid,
      body: { code: -32000, id: null },
    },
  ],
  [
    'the token in the query string (?access_token=)',
    {
      run: (h) => h.post(INIT(), {}, `/mcp?access_token=${AUTH_TOKENS.alice}`),
      status: 400,
      challenge: CHALLENGE.query,
      body: { code: -32000, id: null },
    },
  ],
  [
    'the token in the query string, even with a valid header too',
    {
      run: (h) => h.post(INIT(), bearer(AUTH_TOKENS.alice), `/mcp?x=1&access_token=${AUTH_TOKENS.alice}`),
      status: 400,
      challenge: CHALLENGE.query,
      body: { code: -32000, id: null },
    },
  ],
  // RFC 7235 §2.1 / RFC 9110 §11.1: the auth scheme is case-insensitive; 1*SP separates it from the credentials.
  [
    '"bearer" lower case, two spaces',
    {
      run: (h) => h.post(INIT(), { Authorization: `bearer  ${AUTH_TOKENS.alice}` }),
      status: 200,
      challenge: undefined,
      body: { result: true, id: 'init-1' },
    },
  ],
  [
    '"BEARER" upper case',
    {
      run: (h) => h.post(INIT(), { Authorization: `BEARER ${AUTH_TOKENS.alice}` }),
      status: 200,
      challenge: undefined,
      body: { result: true, id: 'init-1' },
    },
  ],
  // The grammar has 1*SP; a tab is accepted too (whitespace, harmless leniency).
  [
    '"Bearer" then a tab',
    {
      run: (h) => h.post(INIT(), { Authorization: `Bearer\t${AUTH_TOKENS.alice}` }),
      status: 200,
      challenge: undefined,
      body: { result: true, id: 'init-1' },
    },
  ],
  // RFC 6750 §3.1: a client that "attempted using an unsupported authentication method" gets a challenge with no error code.
  [
    'the Basic scheme',
    {
      run: (h) =>
        h.post(INIT(), { Authorization: `Basic ${Buffer.from(`alice:${AUTH_TOKENS.alice}`).toString('base64')}` }),
      status: 401,
      challenge: CHALLENGE.missing,
      body: { code: -32000, id: null },
    },
  ],
  [
    'an expired token (verify: expiresAt in the past)',
    {
      run: (h) => h.post(INIT(), bearer(AUTH_TOKENS.dave)),
      status: 401,
      challenge: CHALLENGE.expired,
      body: { code: -32000, id: null },
    },
  ],
  [
    'a token without the required scope',
    {
      run: (h) => h.post(INIT(), bearer(AUTH_TOKENS.carol)),
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
        const init = await h.post(INIT(), bearer(AUTH_TOKENS.alice));
        okInit(init);
        const sessionId = init.headers['mcp-session-id'] as string;
        expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
        const headers = { 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': '2025-11-25' };
        expect(
          bodyOf(await h.post(rpc('tools/list', undefined, 'own'), { ...bearer(AUTH_TOKENS.alice), ...headers })),
        ).toMatchObject({ id: 'own', result: { tools: [{ name: 'echo' }, { name: 'slow' }] } });
        const stolen = await h.post(rpc('tools/list', undefined, 'stolen'), { ...bearer(AUTH_TOKENS.bob), ...headers });
        // The session is still alice's afterwards.
        expect(
          (await h.post(rpc('tools/list', undefined, 'own-again'), { ...bearer(AUTH_TOKENS.alice), ...headers }))
            .status,
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
        const init = await h.post(INIT(), bearer(AUTH_TOKENS.alice));
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
      run: (h) => h.post(INIT(), { ...bearer(AUTH_TOKENS.alice), Origin: 'https://evil.example.com' }),
      status: 403,
      challenge: undefined,
      body: { code: -32000, id: null },
    },
  ],
  [
    'an evil Host (DNS rebinding, with a valid token)',
    {
      run: (h) => h.post(INIT(), { ...bearer(AUTH_TOKENS.alice), Host: 'evil.example.com' }),
      status: 403,
      challenge: undefined,
      body: { code: -32000, id: null },
    },
  ],
  [
    'Origin: null (sandboxed page, with a valid token)',
    {
      run: (h) => h.post(INIT(), { ...bearer(AUTH_TOKENS.alice), Origin: 'null' }),
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
        const first = await h.post(INIT('rl-1'), bearer(AUTH_TOKENS.alice));
        okInit(first, 'rl-1');
        expect(first.headers.ratelimit).toBe('"2-in-1min"; r=1; t=60');
        expect(first.headers['ratelimit-policy']).toBe(policy('principal:alice'));
        expect(first.headers['x-ratelimit-limit']).toBeUndefined();
        const second = await h.post(INIT('rl-2'), bearer(AUTH_TOKENS.alice));
        okInit(second, 'rl-2');
        expect(second.headers.ratelimit).toBe('"2-in-1min"; r=0; t=60');
        jest.advanceTimersByTime(1_000);
        const refused = await h.post(INIT('rl-3'), bearer(AUTH_TOKENS.alice));
        expect(refused.headers['retry-after']).toBe('59');
        expect(refused.headers.ratelimit).toBe('"2-in-1min"; r=0; t=59');
        expect(refused.headers['ratelimit-policy']).toBe(policy('principal:alice'));
        expect(refused.headers['content-type']).toMatch(/^application\/json/);
        expect(bodyOf(refused).error.message).toMatch(/^Too Many Requests/);
        // Keyed by principal: bob, from the same IP, has his own window.
        okInit(await h.post(INIT('bob-1'), bearer(AUTH_TOKENS.bob)), 'bob-1');
        // After the window, alice is served again.
        jest.advanceTimersByTime(59_000);
        const after = await h.post(INIT('rl-4'), bearer(AUTH_TOKENS.alice));
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
      run: (h) => h.post({ ...INIT(), pad: 'x'.repeat(4 * 1024 * 1024) }, bearer(AUTH_TOKENS.alice)),
      status: 413,
      challenge: undefined,
      body: { code: -32000, id: null },
    },
  ],
  [
    'JSON nested 200 levels deep',
    {
      run: (h) => h.post(deep(200), bearer(AUTH_TOKENS.alice)),
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
          bearer(AUTH_TOKENS.alice),
        ),
      status: 400,
      challenge: undefined,
      body: { code: -32600, id: null },
      also: (res) => expect(bodyOf(res).error.message).toMatch(/at most 100 messages/),
    },
  ],
  [
    'a slow handler past its timeout (timeoutMs: 50)',
    {
      run: (h) =>
        h.post(rpc('tools/call', { name: 'slow', arguments: {} }, 'slow-1'), {
          ...bearer(AUTH_TOKENS.alice),
          'MCP-Protocol-Version': '2025-11-25',
        }),
      status: 200,
      challenge: undefined,
      body: { result: true, id: 'slow-1' },
      also: (res) =>
        expect(bodyOf(res).result).toEqual({
          content: [{ type: 'text', text: "Tool 'slow' timed out after 50 ms" }],
          isError: true,
        }),
    },
  ],
];

hostileTable('hostile requests: auth (issue 13)', [...ROWS, ...AUTH_ROWS.map(authRow)], 34);
