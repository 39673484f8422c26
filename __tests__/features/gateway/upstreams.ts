// Test upstreams for the gateway's upstream client: this router and the SDK v1 server on ephemeral ports, recording what they saw.

import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, Server } from 'node:http';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { AddressInfo, Socket } from 'node:net';
import express, { type Express, type Request, type Response } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpHandler, McpServer as V2McpServer, McpServer as McpServerV2 } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import * as z from 'zod/v4';
import { ErrorCode, JsonRpcError, mcpRouter, type McpRouter, type McpRouterOptions } from '../../../lib';
import type { UpstreamHandle } from '../../../lib/features/gateway/mount/upstream';
import {
  createUpstreamClient,
  type UpstreamClientOptions,
} from '../../../lib/features/gateway/http-client/streamable-http-client';
import type { UpstreamClient } from '../../../lib/features/gateway/shared/upstream-client';
import { Signal } from '../../helpers/events';
import { until } from '../../helpers/until';
import { CLIENT_INFO } from './client-info';
import { scaled } from '../../helpers/time-scale';

export { CLIENT_INFO };
export const LABEL = 'test-upstream';

/** What an upstream saw: HTTP method, JSON-RPC method and the headers that matter. */
export interface Seen {
  readonly http: string;
  readonly rpc: string | undefined;
  readonly session: string | undefined;
  readonly version: string | undefined;
}

export interface Upstream {
  readonly url: string;
  readonly port: number;
  /** Every request but a marker's (see {@link MARKER_HEADER}), in arrival order. */
  readonly seen: Seen[];
  /** Each request whose response began (its head or first byte written): what its handler had done by then is done. */
  readonly answered: Answered[];
  /** Told at each entry of `seen` and of `answered`: a test waits on it for a request or an answer. */
  readonly recorded: Signal;
  close(): Promise<void>;
}

/** A request an upstream began to answer: its JSON-RPC method (the HTTP method for GET and DELETE) and params. */
export interface Answered {
  readonly method: string;
  readonly params?: unknown;
}

/** Whether `upstream` began to answer a `method` request (whose params `match`, when given). */
export function hasAnswered(
  upstream: Upstream,
  method: string,
  match: (params: unknown) => boolean = () => true,
): boolean {
  return upstream.answered.some((answered) => answered.method === method && match(answered.params));
}

/**
 * A request carrying this header is a test's marker (a second client whose notification proves the first heard nothing
 * by then): the upstream serves it but leaves it out of `seen`, so the first client's requests can still be counted.
 */
export const MARKER_HEADER = 'x-test-marker';

/** Resolves once every client socket this process opened to `port` has closed (the server's FIN has been read). */
export function clientSocketsClosed(port: number): Promise<void> {
  const waits = [...clientSockets].filter(([socket]) => socket.remotePort === port).map(([, closed]) => closed);
  return Promise.all(waits).then(() => undefined);
}

/**
 * Every open client socket and the promise of its close: one listener per socket however often a test waits. The
 * channel is process-wide and outlives this module (jest loads it again for each test file of a worker), so the
 * subscription ends with the file: left subscribed, each later file added one more 'close' listener to every socket
 * and printed MaxListenersExceededWarning.
 */
const clientSockets = new Map<Socket, Promise<void>>();
const recordClientSocket = (message: unknown): void => {
  const { socket } = message as { socket: Socket };
  clientSockets.set(
    socket,
    new Promise((resolve) =>
      socket.once('close', () => {
        clientSockets.delete(socket);
        resolve();
      }),
    ),
  );
};
subscribe('net.client.socket', recordClientSocket);
afterAll(() => unsubscribe('net.client.socket', recordClientSocket));

const open: Upstream[] = [];
const clients: UpstreamClient[] = [];

/** Closes an upstream before the test ends (a restart, an unreachable upstream); afterEach leaves it alone. */
export async function stopUpstream(upstream: Upstream): Promise<void> {
  await upstream.close();
  open.splice(open.indexOf(upstream), 1);
}

/** Closes every client and upstream a test made; call once per test file. */
export function closeAfterEach(): void {
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await Promise.all(open.splice(0).map((upstream) => upstream.close()));
  });
}

/** Serves `app` on 127.0.0.1 (port 0: any free one), recording every request before the app sees it. */
export async function serve(build: (app: Express) => void, port = 0): Promise<Upstream> {
  const seen: Seen[] = [];
  const answered: Answered[] = [];
  const recorded = new Signal();
  const app = express();
  app.use(express.json());
  app.use((req, res, next) => {
    const body: unknown = req.body;
    const rpc =
      typeof body === 'object' && body !== null && typeof (body as { method?: unknown }).method === 'string'
        ? (body as { method: string }).method
        : undefined;
    if (req.get(MARKER_HEADER) === undefined)
      seen.push({
        http: req.method,
        rpc,
        session: req.get('mcp-session-id'),
        version: req.get('mcp-protocol-version'),
      });
    recorded.notify();
    onFirstWrite(res, () => {
      answered.push({ method: rpc ?? req.method, params: (body as { params?: unknown } | undefined)?.params });
      recorded.notify();
    });
    next();
  });
  build(app);
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(port, '127.0.0.1', () => resolve(listening));
  });
  const actual = (server.address() as AddressInfo).port;
  const upstream: Upstream = {
    url: `http://127.0.0.1:${actual}/mcp`,
    port: actual,
    seen,
    answered,
    recorded,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  open.push(upstream);
  return upstream;
}

export function registerTools(mcp: McpRouter): void {
  mcp.tool({
    name: 'add',
    description: 'Adds two numbers',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    handler: ({ a, b }: { a: number; b: number }) => String(a + b),
  });
  mcp.tool({
    name: 'refuse',
    description: 'Always fails with a JSON-RPC error',
    handler: () => {
      throw new JsonRpcError(ErrorCode.InvalidParams, 'Refused: no such account', { account: 'a-17' });
    },
  });
  mcp.tool({
    name: 'count',
    description: 'Reports three progress steps',
    handler: async (_args, ctx) => {
      for (let step = 1; step <= 3; step++) await ctx.progress(step, 3, `step ${step}`);
      return 'counted';
    },
  });
  mcp.tool({
    name: 'hang',
    description: 'Never answers until aborted',
    handler: (_args, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('aborted'))),
  });
}

export function routerUpstream(options: Partial<McpRouterOptions>, port = 0): Promise<Upstream> {
  return serve((app) => {
    const mcp = mcpRouter({
      name: 'upstream',
      version: '1.0.0',
      logger: { error: jest.fn(), warn: jest.fn() },
      ...options,
    });
    registerTools(mcp);
    app.use('/mcp', mcp);
  }, port);
}

/** This router as an upstream with its API, so a test can change tools and resources while a client listens; it also serves `docs://readme`. */
export async function routerUpstreamWithApi(
  options: Partial<McpRouterOptions>,
  port = 0,
): Promise<{ upstream: Upstream; mcp: McpRouter }> {
  const routers: McpRouter[] = [];
  const upstream = await serve((app) => {
    const mcp = mcpRouter({
      name: 'upstream',
      version: '1.0.0',
      logger: { error: jest.fn(), warn: jest.fn() },
      ...options,
    });
    registerTools(mcp);
    mcp.resource({ uri: 'docs://readme', name: 'readme', read: () => '# readme' });
    routers.push(mcp);
    app.use('/mcp', mcp);
  }, port);
  return { upstream, mcp: routers[0]! };
}

/** The SDK v1 server, stateful as its docs show, with the spec's 404 for an unknown session. */
export function sdkUpstream(port = 0): Promise<Upstream> {
  return sdkUpstreamWithServers(() => undefined, port);
}

/** {@link sdkUpstream}, handing each session's `McpServer` to `onServer` once connected (to send notifications and requests). */
export function sdkUpstreamWithServers(onServer: (server: McpServer) => void, port = 0): Promise<Upstream> {
  return serve((app) => {
    const transports = new Map<string, StreamableHTTPServerTransport>();
    const sendError = (res: Response, status: number, message: string): void => {
      res.status(status).json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
    };
    app.all('/mcp', async (req: Request, res: Response) => {
      const sessionId = req.get('mcp-session-id');
      let transport = sessionId === undefined ? undefined : transports.get(sessionId);
      if (sessionId !== undefined && transport === undefined) return sendError(res, 404, 'Session not found');
      if (transport === undefined) {
        if (req.method !== 'POST' || (req.body as { method?: string } | undefined)?.method !== 'initialize')
          return sendError(res, 400, 'Bad Request: No valid session ID provided');
        const server = new McpServer({ name: 'sdk-upstream', version: '1.0.0' });
        server.registerTool(
          'add',
          { description: 'Add', inputSchema: { a: z.number(), b: z.number() } },
          async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
        );
        const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void transports.set(id, created),
        });
        created.onclose = () => {
          if (created.sessionId !== undefined) transports.delete(created.sessionId);
        };
        await server.connect(created);
        onServer(server);
        transport = created;
      }
      await transport.handleRequest(req, res, req.body);
    });
  }, port);
}

/** A client of `upstream`, closed after the test. */
export function clientFor(
  upstream: Pick<Upstream, 'url'>,
  timeoutMs = scaled(5000),
  headers?: () => Record<string, string>,
  roots?: UpstreamClientOptions['roots'],
): UpstreamClient {
  const client = createUpstreamClient({
    url: upstream.url,
    label: LABEL,
    timeoutMs,
    clientInfo: CLIENT_INFO,
    ...(headers === undefined ? {} : { headers }),
    ...(roots === undefined ? {} : { roots }),
  });
  clients.push(client);
  return client;
}

export function toolNames(result: unknown): string[] {
  return (result as { tools: { name: string }[] }).tools.map((tool) => tool.name).sort();
}

export function text(result: unknown): string | undefined {
  return (result as { content: { text?: string }[] }).content[0]?.text;
}

export async function rejection(promise: Promise<unknown>): Promise<JsonRpcError> {
  const error: unknown = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(JsonRpcError);
  return error as JsonRpcError;
}

/**
 * Waits for `condition` within two seconds, then asserts it: looked at on each telling of `told` when given (an
 * event the test has: a listener's call, {@link Upstream.recorded}), else polled (see {@link until}).
 */
export async function waitFor(condition: () => boolean, told?: Signal): Promise<void> {
  if (told === undefined) await until(condition, 'the condition', 2_000);
  else await told.when(condition, 'the condition', 2_000);
  expect(condition()).toBe(true);
}

/** Calls `then` once, when the response begins: its head written or flushed, a first write, or its end. */
function onFirstWrite(res: Response, then: () => void): void {
  const { write, end, flushHeaders, writeHead } = res;
  let first = true;
  const mark = (): void => {
    if (first) then();
    first = false;
  };
  res.write = function (this: Response, ...args: unknown[]) {
    mark();
    return (write as (...a: unknown[]) => boolean).apply(this, args);
  } as Response['write'];
  res.end = function (this: Response, ...args: unknown[]) {
    mark();
    return (end as (...a: unknown[]) => Response).apply(this, args);
  } as Response['end'];
  res.flushHeaders = function (this: Response) {
    mark();
    flushHeaders.call(this);
  };
  res.writeHead = function (this: Response, ...args: unknown[]) {
    mark();
    return (writeHead as (...a: unknown[]) => Response).apply(this, args);
  } as Response['writeHead'];
}

// Upstreams and a gateway for the call, relay and credential tests: each records the headers and _meta it received.

/** One request an upstream received: its JSON-RPC method (undefined for GET and DELETE), headers and `params._meta`. */
export interface Received {
  readonly http: string;
  readonly rpc: string | undefined;
  readonly headers: IncomingHttpHeaders;
  readonly meta: Record<string, unknown> | undefined;
}

/** Middleware recording every request into `received` (mount it before the upstream's MCP handler; the body is parsed by `serve`). */
export function recordRequests(received: Received[]): (req: Request, res: Response, next: () => void) => void {
  return (req, _res, next) => {
    const body = (req.body ?? {}) as { method?: unknown; params?: { _meta?: unknown } };
    const meta =
      typeof body.params?._meta === 'object' && body.params._meta !== null
        ? (body.params._meta as Record<string, unknown>)
        : undefined;
    received.push({
      http: req.method,
      rpc: typeof body.method === 'string' ? body.method : undefined,
      headers: { ...req.headers },
      meta,
    });
    next();
  };
}

/** This router as an upstream with the tools `setup` registers (none of registerTools'), recording into `received`. */
export function routerCallUpstream(
  options: Partial<McpRouterOptions>,
  setup: (mcp: McpRouter) => void,
  received: Received[] = [],
): Promise<Upstream> {
  return serve((app) => {
    const mcp = mcpRouter({
      name: 'router-upstream',
      version: '1.0.0',
      logger: { error: jest.fn(), warn: jest.fn() },
      rateLimit: false,
      ...options,
    });
    setup(mcp);
    app.use('/mcp', recordRequests(received), mcp);
  });
}

/** The SDK v1 `McpServer` (2025, a session per client) with the tools `register` adds before it connects, recording into `received`. */
export function sdkV1CallUpstream(register: (server: McpServer) => void, received: Received[] = []): Promise<Upstream> {
  return serve((app) => {
    const transports = new Map<string, StreamableHTTPServerTransport>();
    app.all('/mcp', recordRequests(received), async (req: Request, res: Response) => {
      const sessionId = req.get('mcp-session-id');
      let transport = sessionId === undefined ? undefined : transports.get(sessionId);
      if (sessionId !== undefined && transport === undefined)
        return void res
          .status(404)
          .json({ jsonrpc: '2.0', error: { code: -32000, message: 'Session not found' }, id: null });
      if (transport === undefined) {
        if (req.method !== 'POST' || (req.body as { method?: string } | undefined)?.method !== 'initialize')
          return void res
            .status(400)
            .json({ jsonrpc: '2.0', error: { code: -32000, message: 'No valid session ID provided' }, id: null });
        const server = new McpServer({ name: 'sdk-v1-upstream', version: '1.0.0' });
        register(server);
        const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void transports.set(id, created),
        });
        await server.connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res, req.body);
    });
  });
}

/** The SDK v2 server (`@modelcontextprotocol/server`, 2026-07-28 stateless, `createMcpHandler`) with the tools `register` adds, recording into `received`. */
export function sdkV2CallUpstream(
  register: (server: V2McpServer) => void,
  received: Received[] = [],
): Promise<Upstream> {
  return serve((app) => {
    const node = toNodeHandler(
      createMcpHandler(() => {
        const server = new V2McpServer({ name: 'sdk-v2-upstream', version: '2.0.0' });
        register(server);
        return server;
      }),
    );
    app.all('/mcp', recordRequests(received), (req: Request, res: Response) => void node(req, res, req.body));
  });
}

/** A gateway: this router with the upstreams `mount` adds, served on an ephemeral port once every upstream has its first lists. */
export async function serveGateway(
  options: Partial<McpRouterOptions>,
  mount: (mcp: McpRouter) => UpstreamHandle[],
): Promise<{ url: string; mcp: McpRouter; handles: UpstreamHandle[] }> {
  const built: { mcp?: McpRouter; handles?: UpstreamHandle[] } = {};
  const server = await serve((app) => {
    const mcp = mcpRouter({
      name: 'gateway',
      version: '1.0.0',
      logger: { error: jest.fn(), warn: jest.fn() },
      rateLimit: false,
      ...options,
    });
    built.handles = mount(mcp);
    built.mcp = mcp;
    app.use('/mcp', mcp);
  });
  const handles = built.handles!;
  gateways.push(built.mcp!);
  await waitFor(() => handles.every((handle) => handle.status().state !== 'connecting'));
  return { url: server.url, mcp: built.mcp!, handles };
}

/** An SDK v2 upstream and what a test changes on it: its tools (read by every per-request server), its listen streams. */
export interface SdkV2Upstream {
  readonly upstream: Upstream;
  /** Tool names it serves now; a change is seen by the next request (the SDK builds a server per request). */
  readonly tools: string[];
  /** The `tools/call` arguments it received, by tool name. */
  readonly calls: { name: string; args: unknown }[];
  /** Publishes notifications/tools/list_changed on its open `subscriptions/listen` streams. */
  toolsChanged(): void;
}

/**
 * The official SDK v2 server (`@modelcontextprotocol/server` 2.x `createMcpHandler`, adapted by
 * `@modelcontextprotocol/node`): 2026-07-28, stateless, `subscriptions/listen` for its list changes; 2025 requests
 * are served statelessly (no GET stream).
 */
export async function sdkV2Upstream(tools: readonly string[] = ['add'], port = 0): Promise<SdkV2Upstream> {
  const state = { tools: [...tools], calls: [] as { name: string; args: unknown }[] };
  const handler = createMcpHandler(
    () => {
      const server = new McpServerV2(
        { name: 'sdk-v2-upstream', version: '2.0.0' },
        { capabilities: { tools: { listChanged: true } } },
      );
      for (const name of state.tools) {
        server.registerTool(
          name,
          { description: `Tool ${name}`, inputSchema: z.object({ a: z.number().optional() }) },
          async (args) => {
            state.calls.push({ name, args });
            return { content: [{ type: 'text', text: `${name} ran` }] };
          },
        );
      }
      return server;
    },
    { keepAliveMs: 0 },
  );
  const node = toNodeHandler(handler);
  const upstream = await serve((app) => {
    app.all('/mcp', (req, res) => void node(req, res, req.body));
  }, port);
  const close = upstream.close;
  const wrapped: Upstream = {
    ...upstream,
    close: async () => {
      await handler.close();
      await close();
    },
  };
  open.splice(open.indexOf(upstream), 1, wrapped);
  return {
    upstream: wrapped,
    tools: state.tools,
    calls: state.calls,
    toolsChanged: () => handler.notify.toolsChanged(),
  };
}

/** A gateway: this router with upstreams, served on an ephemeral port, its logger recording warnings. */
export interface Gateway {
  readonly mcp: McpRouter;
  readonly url: string;
  readonly upstream: Upstream;
  readonly logger: { error: jest.Mock; warn: jest.Mock };
  /** Every warning logged so far, as text (message and context). */
  warnings(): string;
}

const gateways: McpRouter[] = [];
const downstream: { close(): Promise<void> }[] = [];

/** Closes the gateways and downstream clients a test made (their upstreams' sessions are deleted); call once per test file, before closeAfterEach(). */
export function closeGatewaysAfterEach(): void {
  afterEach(async () => {
    await Promise.all(downstream.splice(0).map((client) => client.close().catch(() => undefined)));
    await Promise.all(gateways.splice(0).map((mcp) => mcp.close()));
  });
}

/** A gateway router (`setup` registers local items and upstreams before it serves). */
export async function gateway(
  options: Partial<McpRouterOptions> = {},
  setup: (mcp: McpRouter) => void = () => undefined,
): Promise<Gateway> {
  const logger = { error: jest.fn(), warn: jest.fn() };
  const mcp = mcpRouter({ name: 'gateway', version: '1.0.0', logger, ...options });
  gateways.push(mcp);
  setup(mcp);
  const upstream = await serve((app) => app.use('/mcp', mcp));
  const warnings = (): string =>
    logger.warn.mock.calls
      .map((call: unknown[]) => call.map((part) => (part instanceof Error ? part.message : String(part))).join(' '))
      .join('\n');
  return { mcp, url: upstream.url, upstream, logger, warnings };
}

/** The SDK v1 client in a 2025 session with `url`, closed after the test. */
export async function v1Client(url: string): Promise<Client> {
  const client = new Client({ name: 'downstream-v1', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  downstream.push(client);
  return client;
}

/** The SDK v2 client pinned to 2026-07-28 with `url`, closed after the test. */
export async function v2Client(url: string): Promise<ClientV2> {
  const client = new ClientV2(
    { name: 'downstream-v2', version: '2.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new TransportV2(new URL(url)));
  downstream.push(client);
  return client;
}
