// The doctor's test peers: this router in good and broken setups, small in-process proxies (round robin, buffering, cutting), and a raw server with a bad tools list.

import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo, LookupFunction, Socket } from 'node:net';
import express, { type Express } from 'express';
import { mcpRouter, type McpRouter, type McpRouterOptions, type RequestContext } from '../../lib';
import type { DoctorSettings } from '../../lib/doctor/run';
import type { Finding, Severity } from '../../lib/doctor/finding';
import type { Report } from '../../lib/doctor/run';
import { listenLocally, type Listening } from '../helpers/ports';
import { scaled } from '../helpers/time-scale';

/** Every server a test file started: closed in its afterAll. */
export const started: { close(): Promise<void> }[] = [];

/** Closes everything {@link started} listed. */
export async function closeAll(): Promise<void> {
  await Promise.all(started.splice(0).map((s) => s.close()));
}

/** Resolves every name to 127.0.0.1: a public-looking host name for a server of this machine, /etc/hosts untouched. */
export const toLoopback = ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
  if (options?.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
}) as unknown as LookupFunction;

/** A resolver that knows no name, as DNS for a name that does not exist. */
export const noSuchName = ((host: string, _options: unknown, callback: (error: Error) => void) => {
  callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }));
}) as unknown as LookupFunction;

/**
 * The doctor's settings in tests: a short stream watch (a window that measures, so not stretched: the routers send
 * keep-alives every 100 ms, so a watch of 300 ms or more without one is a warning), and the waits that are deadlines stretched on a slow machine.
 */
export function testSettings(http: Partial<DoctorSettings['http']> = {}, watchMs = 600): DoctorSettings {
  return {
    http: { timeoutMs: scaled(5_000), maxBytes: 4 * 1024 * 1024, ...http },
    stream: { watchMs, headWaitMs: scaled(1_000), keepAliveMs: 300 },
    deadlineMs: scaled(60_000),
  };
}

/** The findings of a report by id (the last one of an id wins). */
export function severities(report: Report): Record<string, Severity> {
  return Object.fromEntries(report.findings.map((f: Finding) => [f.id, f.severity]));
}

/** Serves `app` on 127.0.0.1, closed by {@link closeAll}. */
export async function serve(app: Express | http.RequestListener): Promise<Listening> {
  const listening =
    typeof (app as Express).listen === 'function'
      ? await listenLocally(app as Express)
      : await listenServer(http.createServer(app as http.RequestListener));
  started.push(listening);
  return listening;
}

async function listenServer(server: Server): Promise<Listening> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const listening: Listening = {
    server,
    port: (server.address() as AddressInfo).port,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return listening;
}

/** This router at /mcp, with an `add` tool and a `write` tool the doctor must never call unasked. */
export function routerApp(options: Partial<McpRouterOptions> = {}, write: () => void = () => undefined): Express {
  const mcp: McpRouter = mcpRouter({ name: 'doctor-test', version: '1.0.0', keepAliveMs: 100, ...options });
  mcp.tool({
    name: 'add',
    description: 'Add two numbers',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
    handler: async ({ a, b }: { a?: number; b?: number }) => (a ?? 0) + (b ?? 0),
  });
  mcp.tool({
    name: 'write',
    description: 'Writes something',
    inputSchema: { type: 'object' },
    handler: async () => {
      write();
      return 'written';
    },
  });
  mcp.tool({
    name: 'slow',
    description: 'Reports progress three times over 1.2 s',
    inputSchema: { type: 'object' },
    handler: async (_args: unknown, ctx: RequestContext) => {
      for (let step = 1; step <= 3; step++) {
        await ctx.progress(step, 3);
        await new Promise((resolve) => setTimeout(resolve, 400));
      }
      return 'done';
    },
  });
  const app = express();
  app.use('/mcp', mcp);
  return app;
}

/** The endpoint URL of a server listening on 127.0.0.1 (or by `host`, with {@link toLoopback}). */
export const endpointOf = (listening: Listening, host = '127.0.0.1', scheme = 'http'): URL =>
  new URL(`${scheme}://${host}:${listening.port}/mcp`);

/** The test certificate (self-signed for 127.0.0.1 and localhost) and its key. */
export const TLS = {
  cert: readFileSync(join(__dirname, '../fixtures/tls/cert.pem')),
  key: readFileSync(join(__dirname, '../fixtures/tls/key.pem')),
};

/** Serves `app` over TLS with the test certificate, or another. */
export async function serveTls(
  app: Express,
  tls: { cert: string | Buffer; key: string | Buffer } = TLS,
): Promise<Listening> {
  const listening = await listenServer(https.createServer(tls, app) as unknown as Server);
  started.push(listening);
  return listening;
}

/** How a proxy passes answers on: as they come, whole once they end (buffering), or cut after `cutMs`. */
export type ProxyMode =
  { readonly kind: 'stream' } | { readonly kind: 'buffer' } | { readonly kind: 'cut'; readonly cutMs: number };

/** A reverse proxy in front of `ports`, each request to the next one in turn (round robin, no stickiness). */
export function proxy(ports: readonly number[], mode: ProxyMode = { kind: 'stream' }): Promise<Listening> {
  let next = 0;
  return serve((req: IncomingMessage, res: ServerResponse) => {
    const port = ports[next++ % ports.length] as number;
    const upstream = http.request(
      { host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers, agent: false },
      (answer) => relay(answer, res, mode),
    );
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
}

function relay(answer: IncomingMessage, res: ServerResponse, mode: ProxyMode): void {
  if (mode.kind === 'buffer') {
    // As nginx with proxy_buffering on: nothing, not even the head, until the upstream's answer ends.
    const chunks: Buffer[] = [];
    answer.on('data', (chunk: Buffer) => chunks.push(chunk));
    answer.on('end', () => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      res.end(Buffer.concat(chunks));
    });
    return;
  }
  res.writeHead(answer.statusCode ?? 502, answer.headers);
  answer.pipe(res);
  if (mode.kind === 'cut' && String(answer.headers['content-type']).includes('text/event-stream')) {
    const timer = setTimeout(() => (res.socket as Socket | null)?.destroy(), mode.cutMs);
    res.on('close', () => clearTimeout(timer));
  }
}

/** A big schema: more than 16 KB of properties. */
const bigSchema = {
  type: 'object',
  properties: Object.fromEntries(
    Array.from({ length: 400 }, (_, i) => [`field${i}`, { type: 'string', description: 'x'.repeat(40) }]),
  ),
};

/** A raw MCP server (no SDK, no router) whose tools list breaks the rules: a bad schema, a name twice, a bad name, no description, a big schema. */
export function badToolsApp(): Express {
  const app = express();
  app.use(express.json());
  const tools = [
    { name: 'ok', description: 'Fine', inputSchema: { type: 'object' } },
    { name: 'ok', description: 'Fine again', inputSchema: { type: 'object' } },
    { name: 'has space', description: 'Bad name', inputSchema: { type: 'object' } },
    { name: 'nodesc', inputSchema: { type: 'object' } },
    { name: 'badschema', description: 'Bad', inputSchema: { type: 'object', properties: { a: { type: 'nonsense' } } } },
    { name: 'big', description: 'Big', inputSchema: bigSchema },
  ];
  app.post('/mcp', (req, res) => {
    const { id, method } = req.body as { id?: number; method: string };
    if (id === undefined) return void res.status(202).end();
    const result =
      method === 'initialize'
        ? { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'raw', version: '0' } }
        : method === 'tools/list'
          ? { tools }
          : method === 'ping'
            ? {}
            : undefined;
    if (result === undefined)
      return void res.json({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } });
    res.json({ jsonrpc: '2.0', id, result });
  });
  app.all(
    '/mcp',
    (_req, res) =>
      void res.status(405).json({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Method not allowed' } }),
  );
  return app;
}
