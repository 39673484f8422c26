// Hostile requests (issue 13), as one table against one auth-enabled, session-keeping router on a real HTTP server,
// with bridged Express routes: each row's exact status, content type and JSON-RPC code or result; after every row,
// nothing leaked (no stack, no path, no token, no other principal's session or data), Object.prototype is untouched,
// and alice is still served.

import type { Agent, OutgoingHttpHeaders, Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import express, { type Request, type Response } from 'express';
import { mcpRouter, type AuthInfo, type McpRouter, type McpRouterOptions } from '../../lib';
import type { SessionRecord } from '../../lib/sessions/stores';
import { MCP_ACCEPT, silentLogger } from '../helpers/messages';
import { isPriming, messagesOf, type SseEvent } from '../helpers/sse';
import { expectPrototypeClean, openStream, prototypeSnapshot, send, within, type WireResponse } from './wire';

// Some rows send dozens of requests (33 subscriptions, a 4 MB body): generous, for a machine shared with other test runs.
jest.setTimeout(30_000);

/** Every secret a row may send: none may come back, in any body or header. */
const TOKENS = {
  alice: 'tok-alice-5f2c9e71d0b3',
  bob: 'tok-bob-a83e06c4f917',
  /** Valid, but without the scope every request needs. */
  carol: 'tok-carol-1d7b4e9a2c60',
  /** Known to nobody. */
  wrong: 'tok-nobody-6e0f3a8b5c21',
} as const;
const SECRETS: readonly string[] = Object.values(TOKENS);

/** Who sends a request: a principal's token, or no token at all. */
type Who = 'alice' | 'bob' | 'carol' | 'anon';

/** The scope every request needs (`auth.requiredScopes`). */
const REQUIRED_SCOPE = 'mcp';
/** What the bridged `GET /api/orders` answers: only bob may ever see it. */
const ORDERS_SECRET = 'ALL-ORDERS-7731-confidential';
/** What the scoped `quarterly_report` tool answers: only bob may ever see it. */
const REPORT_SECRET = 'REPORT-Q3-confidential';

async function verify(token: string): Promise<AuthInfo | null> {
  if (token === TOKENS.alice) return { subject: 'alice', scopes: [REQUIRED_SCOPE] };
  if (token === TOKENS.bob) return { subject: 'bob', scopes: [REQUIRED_SCOPE, 'orders:read', 'reports:read'] };
  if (token === TOKENS.carol) return { subject: 'carol', scopes: ['other'] };
  return null;
}

const MAIN_OPTIONS: Partial<McpRouterOptions> = { sessions: {}, rateLimit: { limit: 10_000, windowMs: 60_000 } };
/** The 2048-character cap on the client capabilities a session keeps (their JSON, known keys only). */
const MAX_CAPABILITIES_JSON = 2_048;
/** The largest capabilities allowed: `{"experimental":{"pad":"x…"}}` of exactly 2,048 characters. */
const LARGEST_CAPABILITIES = {
  experimental: { pad: 'x'.repeat(MAX_CAPABILITIES_JSON - JSON.stringify({ experimental: { pad: '' } }).length) },
};

/** What one request of a row got, and who sent it (for the leak check). */
interface Seen {
  who: Who;
  res: WireResponse;
}
/** Every response of the row being run, from every server the row used. */
let seen: Seen[] = [];
/** Every session id any server gave out, and whose it is: no one else may ever see it. */
const owners = new Map<string, Who>();

/** A router with bridged routes and tools on a listening server. */
class Host {
  /** Records of the sessions created, from `onSessionCreated`. */
  readonly created: SessionRecord[] = [];
  /** Sessions that ended, from `onSessionClosed`. */
  readonly closed: Array<{ id: string; reason: string }> = [];
  /** How often the host's `GET /api/orders` route ran (in the current row). */
  ordersCalls = 0;

  private constructor(
    readonly mcp: McpRouter,
    readonly logger: ReturnType<typeof silentLogger>,
    private readonly server: Server,
  ) {}

  static async start(options: Partial<McpRouterOptions> = {}): Promise<Host> {
    let host: Host | undefined;
    const sessions =
      options.sessions === false
        ? false
        : {
            ...(options.sessions ?? {}),
            onSessionCreated: (record: SessionRecord) => host?.created.push(record),
            onSessionClosed: (id: string, reason: string) => host?.closed.push({ id, reason }),
          };
    const logger = silentLogger();
    const mcp = mcpRouter({
      name: 'hostile',
      version: '1.0.0',
      logger,
      auth: { verify, requiredScopes: [REQUIRED_SCOPE] },
      ...options,
      sessions,
    });
    const app = express();
    app.use('/mcp', mcp);
    const api = express.Router();
    api.get('/users/:id/orders', (req: Request, res: Response) => {
      res.json({ user: req.params.id, orders: [`order-of-${String(req.params.id)}`] });
    });
    api.get('/orders', (_req: Request, res: Response) => {
      if (host) host.ordersCalls++;
      res.json({ orders: [ORDERS_SECRET] });
    });
    app.use('/api', api);
    mcp.exposeRoutes(app, [
      { method: 'GET', path: '/api/users/:id/orders', name: 'user_orders', description: 'The orders of one user' },
      {
        method: 'GET',
        path: '/api/orders',
        name: 'all_orders',
        description: 'Every order of every user',
        scopes: ['orders:read'],
      },
    ]);
    mcp.tool({
      name: 'echo',
      description: 'Echo text',
      inputSchema: {
        type: 'object',
        properties: { text: { type: 'string' }, times: { type: 'integer', minimum: 1 } },
        required: ['text'],
      },
      handler: ({ text, times }: { text: string; times?: number }) => text.repeat(times ?? 1),
    });
    mcp.tool({
      name: 'keys',
      description: 'Names the arguments it got',
      inputSchema: { type: 'object' },
      handler: (args: Record<string, unknown>) => ({ keys: Object.keys(args) }),
    });
    mcp.tool({
      name: 'quarterly_report',
      description: 'The quarterly report',
      scopes: ['reports:read'],
      handler: () => REPORT_SECRET,
    });
    mcp.tool({
      name: 'progress',
      description: 'Reports progress once, then answers',
      handler: async (_args, ctx) => {
        await ctx.progress(1, 2, `progress of ${ctx.auth?.subject ?? 'nobody'}`);
        return `done for ${ctx.auth?.subject ?? 'nobody'}`;
      },
    });
    mcp.resource({ uri: 'docs://readme', name: 'readme', read: () => '# Readme' });
    const server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    host = new Host(mcp, logger, server);
    return host;
  }

  /** `http://127.0.0.1:<port>` */
  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Sends `req` (to `/mcp` unless a path is given) as `who`, records the response. */
  async send(
    who: Who,
    req: {
      method?: string;
      path?: string;
      headers?: OutgoingHttpHeaders;
      body?: string | Buffer;
      timeoutMs?: number;
      agent?: Agent;
    },
  ): Promise<WireResponse> {
    const res = await send(this.origin, { ...req, path: req.path ?? '/mcp', headers: clean(req.headers ?? {}) });
    seen.push({ who, res });
    const session = res.headers['mcp-session-id'];
    if (typeof session === 'string' && !owners.has(session)) owners.set(session, who);
    return res;
  }

  /**
   * POSTs `body` as `who` with the MCP headers, `session` (its id, and MCP-Protocol-Version 2025-11-25 unless
   * `version` says otherwise) and `headers` over them (undefined removes a header).
   */
  post(
    who: Who,
    body: unknown,
    opts: { session?: string; version?: string; headers?: OutgoingHttpHeaders; path?: string } = {},
  ): Promise<WireResponse> {
    const headers: OutgoingHttpHeaders = { 'Content-Type': 'application/json', Accept: MCP_ACCEPT, ...auth(who) };
    if (opts.session !== undefined) {
      headers['Mcp-Session-Id'] = opts.session;
      headers['MCP-Protocol-Version'] = opts.version ?? '2025-11-25';
    }
    const text = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
    return this.send(who, { path: opts.path, headers: { ...headers, ...opts.headers }, body: text });
  }

  /** Starts a session of `who` (initialize, then notifications/initialized) and returns its id. */
  async session(who: Who, version = '2025-11-25'): Promise<string> {
    const init = await this.post(who, initialize({ protocolVersion: version }));
    expect(init.status).toBe(200);
    const id = init.headers['mcp-session-id'];
    if (typeof id !== 'string') throw new Error(`no session: ${init.status} ${init.text}`);
    expect(
      (await this.post(who, { jsonrpc: '2.0', method: 'notifications/initialized' }, { session: id, version })).status,
    ).toBe(202);
    return id;
  }

  /** `tools/call` of `name` in `session`; the response. */
  call(who: Who, session: string, name: string, args: unknown, id: string | number = 'call'): Promise<WireResponse> {
    return this.post(who, rpc('tools/call', { name, arguments: args }, id), { session });
  }

  /** Opens the GET stream of `session` as `who`, reads `count` events (each within 2 s), hangs up; an error body is read whole. */
  async stream(
    who: Who,
    session: string,
    headers: OutgoingHttpHeaders = {},
    count = 1,
    agent?: Agent,
  ): Promise<{ res: WireResponse; events: SseEvent[] }> {
    const stream = await openStream(this.origin, {
      method: 'GET',
      path: '/mcp',
      headers: clean({
        Accept: 'text/event-stream',
        ...auth(who),
        'Mcp-Session-Id': session,
        'MCP-Protocol-Version': '2025-11-25',
        ...headers,
      }),
      agent,
    });
    const res: WireResponse = { status: stream.status, headers: stream.headers, text: '', json: undefined };
    const events: SseEvent[] = [];
    try {
      if (String(stream.headers['content-type']).startsWith('text/event-stream')) {
        const reader = stream.events();
        for (let i = 0; i < count; i++) {
          const event = await within(reader.next(), 2_000, `event ${i + 1} of the GET stream`);
          if (event === undefined) break;
          events.push(event);
        }
        res.text = events.map((event) => `id: ${event.id ?? ''}\ndata: ${event.data}`).join('\n\n');
      } else {
        res.text = await within(stream.text(), 2_000, 'the body of the GET answer');
        res.json = JSON.parse(res.text) as unknown;
      }
    } finally {
      stream.close();
    }
    seen.push({ who, res });
    return { res, events };
  }

  async close(): Promise<void> {
    await this.mcp.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Headers without the ones set to undefined. */
function clean(headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([, value]) => value !== undefined));
}

function auth(who: Who): OutgoingHttpHeaders {
  return who === 'anon' ? {} : { Authorization: `Bearer ${TOKENS[who]}` };
}

function rpc(method: string, params?: unknown, id: unknown = 1): Record<string, unknown> {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

function initialize(params: Record<string, unknown> = {}, id: string | number = 'init'): Record<string, unknown> {
  return rpc(
    'initialize',
    { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'hostile', version: '0.0.1' }, ...params },
    id,
  );
}

/** The error of a JSON-RPC error body. */
function errorOf(res: WireResponse): { code: number; message: string; data?: unknown } {
  return (res.json as { error: { code: number; message: string } }).error;
}

/** The result of a JSON-RPC success body. */
function resultOf(res: WireResponse): Record<string, unknown> {
  return (res.json as { result: Record<string, unknown> }).result;
}

/** The text of a tool result's single text block. */
function textOf(result: Record<string, unknown>): string {
  const content = result.content as Array<{ type: string; text?: string }>;
  return content.map((block) => block.text ?? '').join('\n');
}

/**
 * Sends HEAD on a raw keep-alive connection and, once its headers arrive, a ping on the same connection: a HEAD
 * response that never ends holds the connection (HTTP/1.1 answers in order), and the ping is never answered.
 */
async function headThenPing(
  host: Host,
  session: string,
): Promise<{ status: number; after: 'answered' | 'closed' | 'stuck' }> {
  const { port } = new URL(host.origin);
  const socket = connect(Number(port), '127.0.0.1');
  const common = `Host: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKENS.alice}\r\nMcp-Session-Id: ${session}\r\nMCP-Protocol-Version: 2025-11-25\r\n`;
  const ping = JSON.stringify(rpc('ping', undefined, 'after-head'));
  let received = '';
  let closed = false;
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1');
  });
  socket.on('close', () => {
    closed = true;
  });
  socket.write(`HEAD /mcp HTTP/1.1\r\n${common}Accept: text/event-stream\r\n\r\n`);
  try {
    await within(
      whenSocket(socket, () => received.includes('\r\n\r\n') || closed),
      2_000,
      'the HEAD response headers',
    );
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0);
    const headers = Object.fromEntries(
      received
        .slice(0, received.indexOf('\r\n\r\n'))
        .split('\r\n')
        .slice(1)
        .map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    );
    seen.push({ who: 'alice', res: { status, headers, text: '', json: undefined } });
    if (!closed)
      socket.write(
        `POST /mcp HTTP/1.1\r\n${common}Accept: ${MCP_ACCEPT}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(ping)}\r\n\r\n${ping}`,
      );
    const after = await within(
      whenSocket(socket, () => (received.match(/HTTP\/1\.1 \d{3}/g) ?? []).length >= 2 || closed),
      2_000,
      'the next request on the HEAD connection',
    )
      .then(() =>
        (received.match(/HTTP\/1\.1 \d{3}/g) ?? []).length >= 2 ? ('answered' as const) : ('closed' as const),
      )
      .catch(() => 'stuck' as const);
    return { status, after };
  } finally {
    socket.destroy();
  }
}

/** Resolves once `done()` is true, checked on each of the socket's events (after the listeners that record them). */
function whenSocket(socket: Socket, done: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = (): void => {
      if (!done()) return;
      socket.off('data', check).off('close', check);
      resolve();
    };
    socket.on('data', check).on('close', check);
    check();
  });
}

/** The whole suite's state: the main host, and the sessions every row may use. */
interface Suite {
  main: Host;
  /** alice's session on 2025-11-25: the after-row check uses it. */
  alice: string;
  /** bob's session on 2025-11-25. */
  bob: string;
  /** alice's session on 2025-03-26, which may send batches. */
  aliceOld: string;
  /** Ids of bob's SSE events (a progress reply in his session), and what they carried. */
  bobEvents: SseEvent[];
}

/** Fake timers (the rate-limit window), real ticks: HTTP still flows. */
function useFakeClock(): void {
  jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
}

/** alice's answer to `body`, sent right after a ping used up her limit of one request a second. */
async function overTheLimit(body: unknown): Promise<WireResponse> {
  useFakeClock();
  const host = await Host.start({ sessions: false, rateLimit: { limit: 1, windowMs: 1_000 } });
  try {
    expect((await host.post('alice', rpc('ping', undefined, 'first'))).status).toBe(200);
    return await host.post('alice', body);
  } finally {
    await host.close();
    jest.useRealTimers();
  }
}

interface Row {
  /** Sends the row's request(s); resolves with the response under test. */
  run: (s: Suite) => Promise<WireResponse>;
  status: number;
  /** The response's Content-Type: JSON, an event stream, or no body at all. */
  type: 'json' | 'sse' | 'none';
  /** A JSON-RPC error: its code, and the id it must carry (or one of the ids it may carry). */
  error?: { code: number; id: string | number | null | ReadonlyArray<string | number | null> };
  /** A JSON-RPC success: its id, and more checks of its result. */
  result?: { id: string | number; check?: (result: Record<string, unknown>) => void };
  /** More checks of the response, and of the servers afterwards. */
  also?: (res: WireResponse, s: Suite) => void | Promise<void>;
}

/** The challenge prefix: RFC 6750 + RFC 9728 (the metadata URL carries the test server's port). */
const challenge = (error?: string): RegExp =>
  new RegExp(
    `^Bearer ${error === undefined ? '' : `error="${error}", error_description="[^"]+", `}resource_metadata="http://127\\.0\\.0\\.1:\\d+/mcp/\\.well-known/oauth-protected-resource", scope="${REQUIRED_SCOPE}"$`,
  );

const expectChallenge =
  (error?: string) =>
  (res: WireResponse): void => {
    expect(res.headers['www-authenticate']).toMatch(challenge(error));
  };

/** A bridged call must be refused before any route runs ("HTTP 404 …" would mean a route ran), in a text naming `id`. */
const refusedId = (result: Record<string, unknown>): void => {
  expect(result.isError).toBe(true);
  expect(textOf(result)).not.toMatch(/^HTTP /);
  expect(textOf(result)).toMatch(/\bargument ['"`]?id\b/i);
};

/**
 * Values of `id` that are, or decode to, a dot segment (or are empty): refused, since URLs remove dot segments and
 * `/api/users/../orders` is `/api/orders`, another route.
 */
const REFUSED_IDS = ['..', '.', '%2e%2e', '%2E%2e', '..%2f', '.%2e', '%2e.', '%2e', '%252e%252e', 'a/../b', ''];
/** Values of `id` the route must see exactly as sent: encoded into one path segment, never reinterpreted. */
const LITERALS = ['a/b', '?x', '#x', '100%', 'é', '%41', 'a b+c', '...'];

/** `depth` nested objects in params. */
const deep = (depth: number): string =>
  `{"jsonrpc":"2.0","id":"deep","method":"tools/list","params":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;

const ROWS: Array<[string, Row]> = [
  // ---- controls ----
  [
    'control: alice initializes',
    {
      run: (s) => s.main.post('alice', initialize()),
      status: 200,
      type: 'json',
      result: { id: 'init' },
      also: (res) => expect(res.headers['mcp-session-id']).toMatch(/^[0-9a-f-]{36}$/),
    },
  ],
  [
    'control: bob calls the scoped tools he holds the scopes of',
    {
      run: async (s) => {
        const orders = await s.main.call('bob', s.bob, 'all_orders', {}, 'orders');
        expect(resultOf(orders).structuredContent).toEqual({ orders: [ORDERS_SECRET] });
        return s.main.call('bob', s.bob, 'quarterly_report', {}, 'report');
      },
      status: 200,
      type: 'json',
      result: { id: 'report', check: (result) => expect(textOf(result)).toBe(REPORT_SECRET) },
    },
  ],

  // ---- 1. bridged path parameters: dot segments refused, everything else literal ----
  ...REFUSED_IDS.map((id): [string, Row] => [
    `bridged user_orders with id ${JSON.stringify(id)}: refused, naming the argument; /api/orders never runs`,
    {
      run: (s) => s.main.call('alice', s.alice, 'user_orders', { id }, 'dots'),
      status: 200,
      type: 'json',
      result: { id: 'dots', check: refusedId },
      also: (_res, s) => expect(s.main.ordersCalls).toBe(0),
    },
  ]),
  ...LITERALS.map((id): [string, Row] => [
    `bridged user_orders with id ${JSON.stringify(id)}: the route sees the literal value`,
    {
      run: (s) => s.main.call('alice', s.alice, 'user_orders', { id }, 'literal'),
      status: 200,
      type: 'json',
      result: {
        id: 'literal',
        check: (result) =>
          expect(result).toEqual({
            content: [expect.any(Object)],
            structuredContent: { user: id, orders: [`order-of-${id}`] },
          }),
      },
      also: (_res, s) => expect(s.main.ordersCalls).toBe(0),
    },
  ]),

  // ---- 2. what a session keeps of its client is bounded ----
  [
    'initialize with unknown top-level capabilities: succeeds, and they are dropped',
    {
      run: (s) =>
        s.main.post(
          'alice',
          initialize(
            {
              capabilities: {
                roots: { listChanged: true },
                bogus: { a: 1 },
                huge: { pad: 'u'.repeat(10_000) },
                notAnObject: 'x',
              },
            },
            'caps-unknown',
          ),
        ),
      status: 200,
      type: 'json',
      result: { id: 'caps-unknown' },
      also: (res, s) => {
        const id = res.headers['mcp-session-id'];
        const kept = s.main.created.find((record) => record.id === id)?.clientCapabilities ?? {};
        expect(Object.keys(kept)).toEqual(['roots']);
        expect(kept.roots).toEqual({ listChanged: true });
      },
    },
  ],
  [
    'initialize with capabilities of 2,049 characters of JSON: -32602, no session created',
    {
      run: (s) => {
        const capabilities = { experimental: { pad: `${LARGEST_CAPABILITIES.experimental.pad}x` } };
        expect(JSON.stringify(capabilities)).toHaveLength(MAX_CAPABILITIES_JSON + 1);
        return s.main.post('alice', initialize({ capabilities }, 'caps-big'));
      },
      status: 200,
      type: 'json',
      error: { code: -32602, id: 'caps-big' },
      also: (res, s) => {
        expect(res.headers['mcp-session-id']).toBeUndefined();
        expect(
          s.main.created.some((record) => JSON.stringify(record.clientCapabilities).length > MAX_CAPABILITIES_JSON),
        ).toBe(false);
      },
    },
  ],
  [
    'initialize with 50 KB of sampling capabilities: -32602, no session created',
    {
      run: (s) =>
        s.main.post(
          'alice',
          initialize(
            {
              capabilities: {
                sampling: { context: {}, tools: {}, pad: Array.from({ length: 5_000 }, (_, i) => `k${i}`) },
              },
            },
            'caps-sampling',
          ),
        ),
      status: 200,
      type: 'json',
      error: { code: -32602, id: 'caps-sampling' },
      also: (res) => expect(res.headers['mcp-session-id']).toBeUndefined(),
    },
  ],
  [
    'initialize with a clientInfo.name of 513 characters: -32602, no session created',
    {
      run: (s) =>
        s.main.post('alice', initialize({ clientInfo: { name: 'n'.repeat(513), version: '1' } }, 'info-long')),
      status: 200,
      type: 'json',
      error: { code: -32602, id: 'info-long' },
      also: (res) => expect(res.headers['mcp-session-id']).toBeUndefined(),
    },
  ],
  [
    'initialize with a clientInfo.version of 100,000 characters: -32602',
    {
      run: (s) =>
        s.main.post('alice', initialize({ clientInfo: { name: 'x', version: 'v'.repeat(100_000) } }, 'info-version')),
      status: 200,
      type: 'json',
      error: { code: -32602, id: 'info-version' },
      also: (res) => expect(res.headers['mcp-session-id']).toBeUndefined(),
    },
  ],
  [
    'initialize with a clientInfo.name of exactly 512 characters: accepted',
    {
      run: (s) => s.main.post('alice', initialize({ clientInfo: { name: 'n'.repeat(512), version: '1' } }, 'info-512')),
      status: 200,
      type: 'json',
      result: { id: 'info-512' },
    },
  ],
  [
    'resources/subscribe to a URI of 1,025 characters: -32602',
    {
      run: async (s) => {
        const session = await s.main.session('alice');
        expect(
          (
            await s.main.post(
              'alice',
              rpc('resources/subscribe', { uri: `docs://${'u'.repeat(1_024 - 7)}` }, 'sub-1024'),
              { session },
            )
          ).json,
        ).toMatchObject({ result: {} });
        return s.main.post(
          'alice',
          rpc('resources/subscribe', { uri: `docs://${'u'.repeat(1_025 - 7)}` }, 'sub-long'),
          { session },
        );
      },
      status: 200,
      type: 'json',
      error: { code: -32602, id: 'sub-long' },
    },
  ],
  [
    'the 33rd distinct subscription of one session: -32602 (sessions.maxSubscriptions defaults to 32)',
    {
      run: async (s) => {
        const session = await s.main.session('alice');
        for (let i = 1; i <= 32; i++) {
          const res = await s.main.post('alice', rpc('resources/subscribe', { uri: `docs://topic/${i}` }, `sub-${i}`), {
            session,
          });
          expect(res.json).toEqual({ jsonrpc: '2.0', id: `sub-${i}`, result: {} });
        }
        // Subscribing again to one held already is no new subscription.
        expect(
          (await s.main.post('alice', rpc('resources/subscribe', { uri: 'docs://topic/1' }, 'again'), { session }))
            .json,
        ).toMatchObject({ result: {} });
        return s.main.post('alice', rpc('resources/subscribe', { uri: 'docs://topic/33' }, 'sub-33'), { session });
      },
      status: 200,
      type: 'json',
      error: { code: -32602, id: 'sub-33' },
    },
  ],
  [
    "sessions.maxPerPrincipal: 3: a principal's 4th initialize evicts its least recently active session; other principals' are untouched",
    {
      run: async () => {
        const host = await Host.start({ ...MAIN_OPTIONS, sessions: { maxPerPrincipal: 3 } });
        try {
          const [a1, a2, a3] = [await host.session('alice'), await host.session('alice'), await host.session('alice')];
          const b1 = await host.session('bob');
          // a1 becomes more recently active than a2: a2 is now alice's least recently active session.
          expect((await host.post('alice', rpc('ping', undefined, 'touch'), { session: a1 })).status).toBe(200);
          const a4 = await host.session('alice');
          const gone = await host.post('alice', rpc('ping', undefined, 'evicted'), { session: a2 });
          for (const [who, session] of [
            ['alice', a1],
            ['alice', a3],
            ['alice', a4],
            ['bob', b1],
          ] as const) {
            expect((await host.post(who, rpc('ping', undefined, 'alive'), { session })).json).toEqual({
              jsonrpc: '2.0',
              id: 'alive',
              result: {},
            });
          }
          expect(host.closed).toEqual([{ id: a2, reason: 'evicted' }]);
          return gone;
        } finally {
          await host.close();
        }
      },
      status: 404,
      type: 'json',
      error: { code: -32000, id: null },
    },
  ],

  // ---- 3. the largest capabilities allowed do not slow a session down ----
  [
    'after initialize with the largest capabilities allowed (2,048 characters), the session is served normally',
    {
      run: async (s) => {
        expect(JSON.stringify(LARGEST_CAPABILITIES)).toHaveLength(MAX_CAPABILITIES_JSON);
        const init = await s.main.post('alice', initialize({ capabilities: LARGEST_CAPABILITIES }, 'caps-max'));
        expect(init.json).toMatchObject({ id: 'caps-max', result: { protocolVersion: '2025-11-25' } });
        const session = init.headers['mcp-session-id'] as string;
        let last: WireResponse | undefined;
        for (let i = 0; i < 20; i++) {
          last = await s.main.send('alice', {
            headers: {
              'Content-Type': 'application/json',
              Accept: MCP_ACCEPT,
              ...auth('alice'),
              'Mcp-Session-Id': session,
              'MCP-Protocol-Version': '2025-11-25',
            },
            body: JSON.stringify(rpc('tools/list', undefined, `list-${i}`)),
            timeoutMs: 1_000,
          });
          expect(last.status).toBe(200);
        }
        return last as WireResponse;
      },
      status: 200,
      type: 'json',
      result: {
        id: 'list-19',
        check: (result) =>
          expect(result.tools).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'user_orders' })])),
      },
    },
  ],

  // ---- 4. HEAD ----
  [
    'HEAD on the endpoint with a valid session: 200 and the response ends at once; a GET after it gets its stream (not 409)',
    {
      run: async (s) => {
        const session = await s.main.session('alice');
        const head = await headThenPing(s.main, session);
        expect(head.status).toBe(200);
        // The HEAD response ended: the same connection went on to answer the next request (or the server closed it).
        expect(head.after).toMatch(/^(answered|closed)$/);
        return (await s.main.stream('alice', session)).res;
      },
      status: 200,
      type: 'sse',
    },
  ],

  // ---- 5. the rate limit (its own router, limit 3 per second, on a fake clock) ----
  [
    'over the rate limit: 429, -32000 with the request id, Retry-After; other principals keep their own budget; served again after the window',
    {
      run: async () => {
        useFakeClock();
        const host = await Host.start({ sessions: false, rateLimit: { limit: 3, windowMs: 1_000 } });
        try {
          for (let i = 1; i <= 3; i++)
            expect((await host.post('alice', rpc('ping', undefined, `ok-${i}`))).status).toBe(200);
          const refused = await host.post('alice', rpc('ping', undefined, 'burst-4'));
          expect((await host.post('bob', rpc('ping', undefined, 'bob-1'))).status).toBe(200);
          jest.advanceTimersByTime(1_000);
          expect((await host.post('alice', rpc('ping', undefined, 'after'))).json).toEqual({
            jsonrpc: '2.0',
            id: 'after',
            result: {},
          });
          return refused;
        } finally {
          await host.close();
          jest.useRealTimers();
        }
      },
      status: 429,
      type: 'json',
      error: { code: -32000, id: 'burst-4' },
      also: (res) => {
        expect(res.headers['retry-after']).toMatch(/^\d+$/);
        expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(1);
      },
    },
  ],
  [
    'a 2 MB body over the rate limit: 429 too, with its id',
    {
      run: () => overTheLimit(rpc('tools/list', { pad: 'p'.repeat(2 * 1024 * 1024) }, 'big')),
      status: 429,
      type: 'json',
      error: { code: -32000, id: ['big', null] },
      also: (res) => expect(res.headers['retry-after']).toMatch(/^\d+$/),
    },
  ],
  [
    'a 3 MB body over the rate limit with its id after the padding: 429, with its id or null',
    {
      run: () =>
        overTheLimit(
          `{"jsonrpc":"2.0","method":"tools/list","params":{"pad":"${'p'.repeat(3 * 1024 * 1024)}"},"id":"late"}`,
        ),
      status: 429,
      type: 'json',
      error: { code: -32000, id: ['late', null] },
      also: (res) => expect(res.headers['retry-after']).toMatch(/^\d+$/),
    },
  ],
  [
    'a burst of 10 at once over a limit of 3: 3 served, 7 refused with 429, then served again after the window',
    {
      run: async () => {
        useFakeClock();
        const host = await Host.start({ sessions: false, rateLimit: { limit: 3, windowMs: 1_000 } });
        try {
          const burst = await Promise.all(
            Array.from({ length: 10 }, (_, i) => host.post('alice', rpc('ping', undefined, i))),
          );
          expect(burst.map((res) => res.status).sort()).toEqual([200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
          for (const res of burst.filter((r) => r.status === 429)) expect(errorOf(res).code).toBe(-32000);
          jest.advanceTimersByTime(1_000);
          return await host.post('alice', rpc('ping', undefined, 'recovered'));
        } finally {
          await host.close();
          jest.useRealTimers();
        }
      },
      status: 200,
      type: 'json',
      result: { id: 'recovered' },
    },
  ],

  // ---- 6. initialize inside a batch ----
  [
    'initialize inside a batch, without Mcp-Session-Id: 400, -32600',
    {
      run: (s) => s.main.post('alice', [initialize(), rpc('ping', undefined, 2)]),
      status: 400,
      type: 'json',
      error: { code: -32600, id: null },
      also: (res) => expect(res.headers['mcp-session-id']).toBeUndefined(),
    },
  ],
  [
    'initialize inside a batch, in a 2025-03-26 session (which may batch): 400, -32600',
    {
      run: (s) =>
        s.main.post('alice', [rpc('ping', undefined, 1), initialize({ protocolVersion: '2025-03-26' })], {
          session: s.aliceOld,
          version: '2025-03-26',
        }),
      status: 400,
      type: 'json',
      error: { code: -32600, id: null },
    },
  ],
  [
    'initialize inside a batch, in a 2025-11-25 session: 400, -32600',
    {
      run: (s) => s.main.post('alice', [initialize()], { session: s.alice }),
      status: 400,
      type: 'json',
      error: { code: -32600, id: null },
    },
  ],

  // ---- bodies ----
  [
    'malformed JSON: 400, -32700',
    {
      run: (s) => s.main.post('alice', '{"jsonrpc":"2.0","id":1,', { session: s.alice }),
      status: 400,
      type: 'json',
      error: { code: -32700, id: null },
    },
  ],
  [
    'an empty body: 400, -32700',
    {
      run: (s) => s.main.post('alice', '', { session: s.alice }),
      status: 400,
      type: 'json',
      error: { code: -32700, id: null },
    },
  ],
  [
    'bytes that are not UTF-8: 400, -32700',
    {
      run: (s) =>
        s.main.post(
          'alice',
          Buffer.concat([
            Buffer.from('{"jsonrpc":"2.0","id":1,"method":"'),
            Buffer.from([0xff, 0xfe, 0xc3]),
            Buffer.from('"}'),
          ]),
          { session: s.alice },
        ),
      status: 400,
      type: 'json',
      error: { code: -32700, id: null },
    },
  ],
  [
    'Content-Type: text/plain: 415, -32000',
    {
      run: (s) => s.main.post('alice', rpc('ping'), { session: s.alice, headers: { 'Content-Type': 'text/plain' } }),
      status: 415,
      type: 'json',
      error: { code: -32000, id: null },
    },
  ],
  [
    'no Content-Type: 415, -32000',
    {
      run: (s) => s.main.post('alice', rpc('ping'), { session: s.alice, headers: { 'Content-Type': undefined } }),
      status: 415,
      type: 'json',
      error: { code: -32000, id: null },
    },
  ],
  [
    'Content-Type: application/json; charset=latin1: 415, -32000',
    {
      run: (s) =>
        s.main.post('alice', rpc('ping'), {
          session: s.alice,
          headers: { 'Content-Type': 'application/json; charset=latin1' },
        }),
      status: 415,
      type: 'json',
      error: { code: -32000, id: null },
    },
  ],
  [
    'Accept: text/html (neither JSON nor SSE): 406, -32000',
    {
      run: (s) => s.main.post('alice', rpc('ping'), { session: s.alice, headers: { Accept: 'text/html' } }),
      status: 406,
      type: 'json',
      error: { code: -32000, id: null },
    },
  ],
  // RFC 9110 §12.5.1: no Accept means any type is acceptable; the router answers JSON (README: Accept is read leniently).
  [
    'no Accept header: answered as JSON',
    {
      run: (s) =>
        s.main.post('alice', rpc('ping', undefined, 'no-accept'), { session: s.alice, headers: { Accept: undefined } }),
      status: 200,
      type: 'json',
      result: { id: 'no-accept' },
    },
  ],
  [
    'a body over bodyLimit (4 MB): 413, -32000, Connection: close',
    {
      run: (s) => s.main.post('alice', { ...rpc('ping'), pad: 'x'.repeat(4 * 1024 * 1024) }, { session: s.alice }),
      status: 413,
      type: 'json',
      error: { code: -32000, id: null },
      also: (res) => expect(res.headers.connection).toBe('close'),
    },
  ],
  [
    'JSON nested 129 levels deep: 400, -32700',
    {
      run: (s) => s.main.post('alice', deep(128), { session: s.alice }),
      status: 400,
      type: 'json',
      error: { code: -32700, id: null },
    },
  ],
  [
    'JSON nested 100,000 levels deep: 400, -32700',
    {
      run: (s) => s.main.post('alice', `${'['.repeat(100_000)}${']'.repeat(100_000)}`, { session: s.alice }),
      status: 400,
      type: 'json',
      error: { code: -32700, id: null },
    },
  ],
  [
    'JSON nested 127 levels deep: served',
    {
      run: (s) => s.main.post('alice', deep(126), { session: s.alice }),
      status: 200,
      type: 'json',
      result: { id: 'deep' },
    },
  ],

  // ---- batches ----
  [
    'a batch of 101 messages (maxBatchLength 100) in a 2025-03-26 session: 400, -32600',
    {
      run: (s) =>
        s.main.post(
          'alice',
          Array.from({ length: 101 }, (_, i) => rpc('ping', undefined, i)),
          { session: s.aliceOld, version: '2025-03-26' },
        ),
      status: 400,
      type: 'json',
      error: { code: -32600, id: null },
    },
  ],
  [
    'an empty batch in a 2025-03-26 session: 400, -32600',
    {
      run: (s) => s.main.post('alice', [], { session: s.aliceOld, version: '2025-03-26' }),
      status: 400,
      type: 'json',
      error: { code: -32600, id: null },
    },
  ],
  [
    'a batch of 100 in a 2025-03-26 session (control): 100 answers',
    {
      run: (s) =>
        s.main.post(
          'alice',
          Array.from({ length: 100 }, (_, i) => rpc('ping', undefined, i)),
          { session: s.aliceOld, version: '2025-03-26' },
        ),
      status: 200,
      type: 'json',
      also: (res) =>
        expect(res.json).toEqual(Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: i, result: {} }))),
    },
  ],
  [
    'a batch in a 2025-11-25 session: 400, -32600',
    {
      run: (s) => s.main.post('alice', [rpc('ping', undefined, 1), rpc('ping', undefined, 2)], { session: s.alice }),
      status: 400,
      type: 'json',
      error: { code: -32600, id: null },
    },
  ],
  [
    'a batch in a 2025-11-25 session that claims MCP-Protocol-Version 2025-03-26: 400, -32600 (the session governs)',
    {
      run: (s) => s.main.post('alice', [rpc('ping', undefined, 1)], { session: s.alice, version: '2025-03-26' }),
      status: 400,
      type: 'json',
      error: { code: -32600, id: null },
    },
  ],

  // ---- odd ids ----
  [
    'id null: 400, -32600, id null',
    {
      run: (s) => s.main.post('alice', rpc('ping', undefined, null), { session: s.alice }),
      status: 400,
      type: 'json',
      error: { code: -32600, id: null },
    },
  ],
  [
    'id an object: 400, -32600, id null',
    {
      run: (s) => s.main.post('alice', rpc('ping', undefined, { $gt: '' }), { session: s.alice }),
      status: 400,
      type: 'json',
      error: { code: -32600, id: null },
    },
  ],
  [
    'id an array: 400, -32600, id null',
    {
      run: (s) => s.main.post('alice', rpc('ping', undefined, [1, 2]), { session: s.alice }),
      status: 400,
      type: 'json',
      error: { code: -32600, id: null },
    },
  ],
  [
    'id a boolean: 400, -32600, id null',
    {
      run: (s) => s.main.post('alice', rpc('ping', undefined, true), { session: s.alice }),
      status: 400,
      type: 'json',
      error: { code: -32600, id: null },
    },
  ],
  [
    'id 1e400 (not finite once parsed): 400, -32600, id null',
    {
      run: (s) => s.main.post('alice', '{"jsonrpc":"2.0","id":1e400,"method":"ping"}', { session: s.alice }),
      status: 400,
      type: 'json',
      error: { code: -32600, id: null },
    },
  ],
  [
    'id a float: echoed',
    {
      run: (s) => s.main.post('alice', rpc('ping', undefined, 1.5), { session: s.alice }),
      status: 200,
      type: 'json',
      result: { id: 1.5 },
    },
  ],
  [
    'id negative: echoed',
    {
      run: (s) => s.main.post('alice', rpc('ping', undefined, -7), { session: s.alice }),
      status: 200,
      type: 'json',
      result: { id: -7 },
    },
  ],
  [
    'id a 100,000-character string: echoed',
    {
      run: (s) => s.main.post('alice', rpc('ping', undefined, 'i'.repeat(100_000)), { session: s.alice }),
      status: 200,
      type: 'json',
      result: { id: 'i'.repeat(100_000) },
    },
  ],
  [
    'id an empty string: echoed',
    {
      run: (s) => s.main.post('alice', rpc('ping', undefined, ''), { session: s.alice }),
      status: 200,
      type: 'json',
      result: { id: '' },
    },
  ],

  // ---- prototype pollution ----
  [
    '__proto__ at the top level of the body',
    {
      run: (s) =>
        s.main.post(
          'alice',
          '{"jsonrpc":"2.0","id":"p1","method":"ping","__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}',
          { session: s.alice },
        ),
      status: 200,
      type: 'json',
      result: { id: 'p1' },
    },
  ],
  [
    '__proto__ in params',
    {
      run: (s) =>
        s.main.post(
          'alice',
          '{"jsonrpc":"2.0","id":"p2","method":"tools/list","params":{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"isAdmin":true}}}}',
          { session: s.alice },
        ),
      status: 200,
      type: 'json',
      result: { id: 'p2' },
    },
  ],
  [
    '__proto__ in tool arguments: kept as data, never a prototype',
    {
      run: (s) =>
        s.main.post(
          'alice',
          '{"jsonrpc":"2.0","id":"p3","method":"tools/call","params":{"name":"keys","arguments":{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"prototype":{"x":1}}}}',
          { session: s.alice },
        ),
      status: 200,
      type: 'json',
      result: {
        id: 'p3',
        check: (result) =>
          expect(result.structuredContent).toEqual({ keys: ['__proto__', 'constructor', 'prototype'] }),
      },
    },
  ],
  [
    '__proto__ in _meta',
    {
      run: (s) =>
        s.main.post(
          'alice',
          '{"jsonrpc":"2.0","id":"p4","method":"tools/call","params":{"name":"echo","arguments":{"text":"t"},"_meta":{"__proto__":{"polluted":"yes"},"progressToken":{"__proto__":{"isAdmin":true}}}}}',
          { session: s.alice },
        ),
      status: 200,
      type: 'json',
      result: { id: 'p4' },
    },
  ],
  [
    '__proto__ in initialize capabilities and clientInfo: the session keeps none of it',
    {
      run: (s) =>
        s.main.post(
          'alice',
          '{"jsonrpc":"2.0","id":"p5","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"__proto__":{"polluted":"yes"},"roots":{"__proto__":{"polluted":"yes"}}},"clientInfo":{"name":"x","version":"1","__proto__":{"isAdmin":true}}}}',
        ),
      status: 200,
      type: 'json',
      result: { id: 'p5' },
      also: (res, s) => {
        const record = s.main.created.find((created) => created.id === res.headers['mcp-session-id']);
        expect(record?.clientInfo).toEqual({ name: 'x', version: '1' });
        expect(Object.keys(record?.clientCapabilities ?? {})).toEqual(['roots']);
      },
    },
  ],

  // ---- sessions across principals ----
  [
    "bob presenting alice's Mcp-Session-Id: 404, and nothing of her session comes back",
    {
      run: (s) => s.main.post('bob', rpc('tools/list', undefined, 'steal'), { session: s.alice }),
      status: 404,
      type: 'json',
      error: { code: -32000, id: null },
    },
  ],
  [
    "bob's GET stream on alice's session: 404",
    {
      run: async (s) => (await s.main.stream('bob', s.alice)).res,
      status: 404,
      type: 'json',
      error: { code: -32000, id: null },
    },
  ],
  [
    "bob's DELETE of alice's session: 404, and her session survives",
    {
      run: (s) =>
        s.main.send('bob', {
          method: 'DELETE',
          headers: { ...auth('bob'), 'Mcp-Session-Id': s.alice, 'MCP-Protocol-Version': '2025-11-25' },
        }),
      status: 404,
      type: 'json',
      error: { code: -32000, id: null },
      also: (_res, s) => expect(s.main.closed.map((closed) => closed.id)).not.toContain(s.alice),
    },
  ],
  [
    'a made-up Mcp-Session-Id: 404',
    {
      run: (s) => s.main.post('alice', rpc('ping'), { session: '00000000-0000-4000-8000-000000000000' }),
      status: 404,
      type: 'json',
      error: { code: -32000, id: null },
    },
  ],
  [
    'no Mcp-Session-Id on tools/list: 400, -32000',
    {
      run: (s) => s.main.post('alice', rpc('tools/list')),
      status: 400,
      type: 'json',
      error: { code: -32000, id: null },
    },
  ],
  [
    'initialize on an initialized session: 400, -32600',
    {
      run: (s) => s.main.post('alice', initialize(), { session: s.alice }),
      status: 400,
      type: 'json',
      error: { code: -32600, id: null },
    },
  ],
  [
    'GET with a forged Last-Event-ID: a fresh stream (priming event), nothing replayed',
    {
      run: async (s) => {
        const session = await s.main.session('alice');
        const { res, events } = await s.main.stream('alice', session, { 'Last-Event-ID': 'AAAAAAAAAAAAAAAAAA.1' });
        expect(events).toHaveLength(1);
        expect(isPriming(events[0] as SseEvent)).toBe(true);
        return res;
      },
      status: 200,
      type: 'sse',
    },
  ],
  [
    "GET with bob's Last-Event-ID on alice's session: a fresh stream, none of bob's events",
    {
      run: async (s) => {
        const session = await s.main.session('alice');
        const bobIds = s.bobEvents.map((event) => event.id as string);
        expect(bobIds.length).toBeGreaterThan(1);
        const { res, events } = await s.main.stream('alice', session, { 'Last-Event-ID': bobIds[0] }, 1);
        expect(events).toHaveLength(1);
        expect(isPriming(events[0] as SseEvent)).toBe(true);
        expect(bobIds).not.toContain(events[0]?.id);
        return res;
      },
      status: 200,
      type: 'sse',
      also: (res) => expect(res.text).not.toMatch(/progress of bob|done for bob/),
    },
  ],
  [
    'control: bob resumes his own stream with its first Last-Event-ID and gets the rest of it',
    {
      run: async (s) => {
        const ids = s.bobEvents.map((event) => event.id as string);
        const { res, events } = await s.main.stream('bob', s.bob, { 'Last-Event-ID': ids[0] }, ids.length - 1);
        expect(messagesOf(events)).toEqual(messagesOf(s.bobEvents.slice(1)));
        return res;
      },
      status: 200,
      type: 'sse',
    },
  ],
  [
    'a forged client response (an id the server never sent): 202, and nothing happens',
    {
      run: (s) =>
        s.main.post(
          'alice',
          { jsonrpc: '2.0', id: 424242, result: { role: 'assistant', content: { type: 'text', text: 'forged' } } },
          { session: s.alice },
        ),
      status: 202,
      type: 'none',
    },
  ],
  [
    'a forged client error response: 202, and nothing happens',
    {
      run: (s) =>
        s.main.post(
          'alice',
          { jsonrpc: '2.0', id: 'srv-9', error: { code: -32603, message: 'forged' } },
          { session: s.alice },
        ),
      status: 202,
      type: 'none',
    },
  ],
  [
    'notifications/cancelled for a request that does not exist: 202',
    {
      run: (s) =>
        s.main.post(
          'alice',
          { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'nope', reason: 'x' } },
          { session: s.alice },
        ),
      status: 202,
      type: 'none',
    },
  ],

  // ---- Origin and Host (DNS rebinding) ----
  [
    'a non-loopback Host on the loopback interface: 403',
    {
      run: (s) => s.main.post('alice', rpc('ping'), { session: s.alice, headers: { Host: 'evil.example.com' } }),
      status: 403,
      type: 'json',
      error: { code: -32000, id: null },
    },
  ],
  [
    'a non-loopback Host with a loopback-looking prefix: 403',
    {
      run: (s) =>
        s.main.post('alice', rpc('ping'), { session: s.alice, headers: { Host: '127.0.0.1.evil.example.com' } }),
      status: 403,
      type: 'json',
      error: { code: -32000, id: null },
    },
  ],
  [
    'a hostile Origin: 403',
    {
      run: (s) =>
        s.main.post('alice', rpc('ping'), { session: s.alice, headers: { Origin: 'https://evil.example.com' } }),
      status: 403,
      type: 'json',
      error: { code: -32000, id: null },
    },
  ],
  [
    'Origin: null: 403',
    {
      run: (s) => s.main.post('alice', rpc('ping'), { session: s.alice, headers: { Origin: 'null' } }),
      status: 403,
      type: 'json',
      error: { code: -32000, id: null },
    },
  ],
  [
    'a localhost Origin (control): served, with CORS headers',
    {
      run: (s) =>
        s.main.post('alice', rpc('ping', undefined, 'cors'), {
          session: s.alice,
          headers: { Origin: 'http://localhost:5173' },
        }),
      status: 200,
      type: 'json',
      result: { id: 'cors' },
      also: (res) => expect(res.headers['access-control-allow-origin']).toBe('http://localhost:5173'),
    },
  ],

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

  // ---- methods and tools ----
  [
    'an unknown method: -32601',
    {
      run: (s) => s.main.post('alice', rpc('tools/destroy', {}, 'm'), { session: s.alice }),
      status: 200,
      type: 'json',
      error: { code: -32601, id: 'm' },
    },
  ],
  [
    'a method named like an Object.prototype member: -32601',
    {
      run: (s) => s.main.post('alice', rpc('hasOwnProperty', {}, 'h'), { session: s.alice }),
      status: 200,
      type: 'json',
      error: { code: -32601, id: 'h' },
    },
  ],
  [
    'an unknown tool: -32602',
    {
      run: (s) => s.main.call('alice', s.alice, 'no_such_tool', {}, 'u'),
      status: 200,
      type: 'json',
      error: { code: -32602, id: 'u' },
    },
  ],
  [
    'a scoped bridged tool alice lacks the scope of: -32602, exactly like an unknown tool; /api/orders never runs',
    {
      run: (s) => s.main.call('alice', s.alice, 'all_orders', {}, 'scoped'),
      status: 200,
      type: 'json',
      error: { code: -32602, id: 'scoped' },
      also: (_res, s) => expect(s.main.ordersCalls).toBe(0),
    },
  ],
  [
    'a scoped tool alice lacks the scope of: -32602',
    {
      run: (s) => s.main.call('alice', s.alice, 'quarterly_report', {}, 'report'),
      status: 200,
      type: 'json',
      error: { code: -32602, id: 'report' },
    },
  ],
  [
    'tools/call with arguments of the wrong types: an isError result naming them',
    {
      run: (s) => s.main.call('alice', s.alice, 'echo', { text: 42, times: 'many' }, 'types'),
      status: 200,
      type: 'json',
      result: {
        id: 'types',
        check: (result) => {
          expect(result.isError).toBe(true);
          expect(textOf(result)).toMatch(/text|times/);
        },
      },
    },
  ],
  [
    'tools/call with arguments that are not an object: -32602',
    {
      run: (s) => s.main.call('alice', s.alice, 'echo', ['a'], 'arr'),
      status: 200,
      type: 'json',
      error: { code: -32602, id: 'arr' },
    },
  ],
  [
    'tools/call without a name: -32602',
    {
      run: (s) => s.main.post('alice', rpc('tools/call', { arguments: {} }, 'noname'), { session: s.alice }),
      status: 200,
      type: 'json',
      error: { code: -32602, id: 'noname' },
    },
  ],
  [
    'bridged user_orders without its id: an isError result',
    {
      run: (s) => s.main.call('alice', s.alice, 'user_orders', {}, 'noid'),
      status: 200,
      type: 'json',
      result: { id: 'noid', check: (result) => expect(result.isError).toBe(true) },
    },
  ],
  [
    'an unsupported MCP-Protocol-Version: 400, -32000',
    {
      run: (s) => s.main.post('alice', rpc('ping'), { session: s.alice, version: '1999-01-01' }),
      status: 400,
      type: 'json',
      error: { code: -32000, id: null },
    },
  ],
  [
    'PUT on the endpoint: 405 with Allow',
    {
      run: (s) => s.main.send('alice', { method: 'PUT', headers: auth('alice'), body: '{}' }),
      status: 405,
      type: 'json',
      error: { code: -32000, id: null },
      also: (res) => expect(res.headers.allow).toMatch(/POST/),
    },
  ],
];

describe('hostile requests against one server (issue 13)', () => {
  let suite: Suite;
  let main: Host | undefined;
  let before: string[];

  beforeAll(async () => {
    before = prototypeSnapshot();
    main = await Host.start(MAIN_OPTIONS);
    const alice = await main.session('alice');
    const bob = await main.session('bob');
    const aliceOld = await main.session('alice', '2025-03-26');
    // bob's own SSE events: a progress reply (priming, progress, result), recorded for resumption.
    const stream = await openStream(main.origin, {
      method: 'POST',
      path: '/mcp',
      headers: {
        'Content-Type': 'application/json',
        Accept: MCP_ACCEPT,
        ...auth('bob'),
        'Mcp-Session-Id': bob,
        'MCP-Protocol-Version': '2025-11-25',
      },
      body: JSON.stringify(
        rpc('tools/call', { name: 'progress', arguments: {}, _meta: { progressToken: 'bob-token' } }, 'bob-progress'),
      ),
    });
    const bobEvents = await within(stream.events().rest(), 5_000, "bob's progress reply");
    expect(messagesOf(bobEvents).map((message) => message.method ?? 'result')).toEqual([
      'notifications/progress',
      'result',
    ]);
    suite = { main, alice, bob, aliceOld, bobEvents };
  });

  afterAll(async () => {
    await main?.close();
  });

  beforeEach(() => {
    seen = [];
    if (main) main.ordersCalls = 0;
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  it('has at least 60 rows', () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(60);
  });

  it.each(ROWS)('%s', async (_name, row) => {
    const s = suite;
    const res = await row.run(s);

    expect(res.status).toBe(row.status);
    const type = String(res.headers['content-type'] ?? '');
    if (row.type === 'json') expect(type).toMatch(/^application\/json(;|$)/);
    else if (row.type === 'sse') expect(type).toMatch(/^text\/event-stream(;|$)/);
    else expect(res.text).toBe('');
    if (row.error) {
      const ids = Array.isArray(row.error.id) ? row.error.id : [row.error.id];
      const { id, ...rest } = res.json as Record<string, unknown>;
      expect(ids).toContain(id);
      expect(rest).toEqual({
        jsonrpc: '2.0',
        error: expect.objectContaining({ code: row.error.code, message: expect.any(String) }),
      });
    }
    if (row.result) {
      expect(res.json).toEqual({ jsonrpc: '2.0', id: row.result.id, result: expect.any(Object) });
      row.result.check?.(resultOf(res));
    }
    await row.also?.(res, s);

    // Nothing leaked, in any response of the row: no stack, no file path, no token, no other principal's session or data.
    expect(seen.length).toBeGreaterThan(0);
    for (const { who, res: response } of seen) {
      const text = `${JSON.stringify(response.headers)}\n${response.text}`;
      // A stack line, raw or JSON-escaped, or any file:line:column.
      expect(text).not.toMatch(/(?:\n|\\n)\s+at \S|\.(?:[cm]?js|ts):\d+:\d+/);
      for (const path of ['/work/', 'node_modules', process.cwd(), __dirname]) expect(text).not.toContain(path);
      for (const secret of SECRETS) expect(text).not.toContain(secret);
      if (who !== 'bob') {
        expect(text).not.toContain(ORDERS_SECRET);
        expect(text).not.toContain(REPORT_SECRET);
        expect(text).not.toMatch(/progress of bob|done for bob/);
      }
      for (const [session, owner] of owners) if (owner !== who) expect(text).not.toContain(session);
    }
    expect(s.main.logger.error).not.toHaveBeenCalled();

    // Object.prototype is untouched, and alice is still served.
    expectPrototypeClean(before);
    const list = await send(s.main.origin, {
      path: '/mcp',
      headers: {
        'Content-Type': 'application/json',
        Accept: MCP_ACCEPT,
        ...auth('alice'),
        'Mcp-Session-Id': s.alice,
        'MCP-Protocol-Version': '2025-11-25',
      },
      body: JSON.stringify(rpc('tools/list', undefined, 'after')),
    });
    expect(list.status).toBe(200);
    const names = ((list.json as { result: { tools: Array<{ name: string }> } }).result.tools ?? []).map(
      (tool) => tool.name,
    );
    expect(names).toEqual(['user_orders', 'echo', 'keys', 'progress']);
  });
});
