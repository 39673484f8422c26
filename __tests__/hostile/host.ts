// The hostile suites' server: one auth-enabled router with tools and bridged Express routes on a real HTTP server, the
// principals who call it, and the record of every response (for the after-row leak check of table.ts).

import type { Agent, IncomingHttpHeaders, OutgoingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express, type Request, type Response } from 'express';
import { mcpRouter, type AuthInfo, type McpRouter, type McpRouterOptions } from '../../lib';
import type { SessionRecord } from '../../lib/edge/store/session-stores';
import { MCP_ACCEPT, silentLogger } from '../helpers/messages';
import type { SseEvent } from '../helpers/sse';
import { openStream, send, within, type WireResponse } from './wire';

/** Every secret a row may send: none may come back, in any body or header. */
export const TOKENS = {
  alice: 'tok-alice-5f2c9e71d0b3',
  bob: 'tok-bob-a83e06c4f917',
  /** Valid, but without the scope every request needs. */
  carol: 'tok-carol-1d7b4e9a2c60',
  /** Known to nobody. */
  wrong: 'tok-nobody-6e0f3a8b5c21',
} as const;
/** The principals of the auth rows' own router (auth.test.ts): its own tokens and required scope. */
export const AUTH_TOKENS = {
  alice: 'tok-alice-7c1f0e9a4b2d',
  bob: 'tok-bob-3e8d5a6c9f01',
  /** Valid, but without the required scope. */
  carol: 'tok-carol-b4a29d7e1c35',
  /** Valid, but expired a minute ago. */
  dave: 'tok-dave-e2f7c0a85d96',
  /** Known to nobody. */
  wrong: 'tok-nobody-91d3b6f4a27e',
} as const;
export const SECRETS: readonly string[] = [...Object.values(TOKENS), ...Object.values(AUTH_TOKENS)];

/** Who sends a request: a principal's token, or no token at all. */
export type Who = 'alice' | 'bob' | 'carol' | 'anon';

/** The scope every request needs (`auth.requiredScopes`). */
export const REQUIRED_SCOPE = 'mcp';
/** What the bridged `GET /api/orders` answers: only bob may ever see it. */
export const ORDERS_SECRET = 'ALL-ORDERS-7731-confidential';
/** What the scoped `quarterly_report` tool answers: only bob may ever see it. */
export const REPORT_SECRET = 'REPORT-Q3-confidential';

export async function verify(token: string): Promise<AuthInfo | null> {
  if (token === TOKENS.alice) return { subject: 'alice', scopes: [REQUIRED_SCOPE] };
  if (token === TOKENS.bob) return { subject: 'bob', scopes: [REQUIRED_SCOPE, 'orders:read', 'reports:read'] };
  if (token === TOKENS.carol) return { subject: 'carol', scopes: ['other'] };
  return null;
}

/** The plain host's options: stateless and without auth, as the bad-input rows need. */
export const PLAIN_OPTIONS: Partial<McpRouterOptions> = { sessions: false, auth: undefined };
export const MAIN_OPTIONS: Partial<McpRouterOptions> = { sessions: {}, rateLimit: { limit: 10_000, windowMs: 60_000 } };
/** The 2048-character cap on the client capabilities a session keeps (their JSON, known keys only). */
export const MAX_CAPABILITIES_JSON = 2_048;
/** The largest capabilities allowed: `{"experimental":{"pad":"x…"}}` of exactly 2,048 characters. */
export const LARGEST_CAPABILITIES = {
  experimental: { pad: 'x'.repeat(MAX_CAPABILITIES_JSON - JSON.stringify({ experimental: { pad: '' } }).length) },
};

/** What one request of a row got, and who sent it (for the leak check). */
export interface Seen {
  who: Who;
  res: WireResponse;
}
/** Every response of the row being run, from every server the row used (emptied before each row). */
export const seen: Seen[] = [];
/** Every session id any server gave out, and whose it is: no one else may ever see it. */
export const owners = new Map<string, Who>();

/** The hosts started and not closed yet: the table checks their logs, and closes a row's own after it. */
export const open = new Set<Host>();

/** A router with bridged routes and tools on a listening server. */
export class Host {
  /** Records of the sessions created, from `onSessionCreated`. */
  readonly created: SessionRecord[] = [];
  /** Sessions that ended, from `onSessionClosed`. */
  readonly closed: Array<{ id: string; reason: string }> = [];
  /** How often the host's `GET /api/orders` route ran (in the current row). */
  ordersCalls = 0;
  /** The headers of the last request the host app saw (proves a body really was chunked). */
  lastHeaders: IncomingHttpHeaders = {};
  /** The arguments the `keys` tool got last, as its handler saw them. */
  keysArgs: Record<string, unknown> | undefined;

  private constructor(
    readonly mcp: McpRouter,
    readonly logger: ReturnType<typeof silentLogger>,
    private readonly server: Server,
  ) {}

  /**
   * Starts a host with `options` over the main ones (auth on, sessions kept) and the hostile tools, resource and
   * bridged routes (`bare`: none of them); `setup` registers more on its router.
   */
  static async start(
    options: Partial<McpRouterOptions> = {},
    setup?: (mcp: McpRouter) => void,
    kind: 'hostile' | 'bare' = 'hostile',
  ): Promise<Host> {
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
    app.use((req, _res, next) => {
      if (host) host.lastHeaders = { ...req.headers };
      next();
    });
    app.use('/mcp', mcp);
    if (kind === 'hostile') registerHostile(app, mcp, () => host);
    setup?.(mcp);
    const server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    host = new Host(mcp, logger, server);
    open.add(host);
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
      chunks?: ReadonlyArray<string | Buffer>;
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
    if (!open.delete(this)) return;
    await this.mcp.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The hostile tools, resource and bridged routes (one of them scoped, answering a secret only bob may see). */
function registerHostile(app: Express, mcp: McpRouter, host: () => Host | undefined): void {
  const api = express.Router();
  api.get('/users/:id/orders', (req: Request, res: Response) => {
    res.json({ user: req.params.id, orders: [`order-of-${String(req.params.id)}`] });
  });
  api.get('/orders', (_req: Request, res: Response) => {
    const current = host();
    if (current) current.ordersCalls++;
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
    handler: (args: Record<string, unknown>) => {
      const current = host();
      if (current) current.keysArgs = args;
      return { keys: Object.keys(args) };
    },
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
}

/** Headers without the ones set to undefined. */
export function clean(headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([, value]) => value !== undefined));
}

export function auth(who: Who): OutgoingHttpHeaders {
  return who === 'anon' ? {} : { Authorization: `Bearer ${TOKENS[who]}` };
}

export function rpc(method: string, params?: unknown, id: unknown = 1): Record<string, unknown> {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

export function initialize(
  params: Record<string, unknown> = {},
  id: string | number = 'init',
): Record<string, unknown> {
  return rpc(
    'initialize',
    { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'hostile', version: '0.0.1' }, ...params },
    id,
  );
}
