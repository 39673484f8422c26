// The demo: a small legacy store API (products, orders, customers; in-memory data, its own routers and an
// API-key middleware) that gained MCP in a handful of lines. Start it with `npm run demo`.
//
//   PORT (3000), HOST (127.0.0.1), MCP_TOKEN (random at each start), API_KEY (demo-api-key),
//   AUTH (token: clients send MCP_TOKEN; oauth: the router is also the OAuth authorization server, and users sign in
//   with a user name on the demo's /login page: demo/sign-in.ts; enterprise: oauth, and the router also takes ID-JAGs
//   from a small built-in enterprise IdP at /idp: demo/enterprise-idp.ts, demo/enterprise-client.ts),
//   ALLOWED_ORIGINS (comma-separated browser origins allowed besides localhost ones),
//   SANDBOX_PORT (free port: where the MCP Apps sandbox proxy listens, demo/apps/sandbox.ts),
//   REDIS_URL (none: in-memory; set, the MCP state lives in Redis, so several demo instances can sit behind one
//   round-robin proxy, demo/proxy.ts: README › Several instances on Redis)
//
// It also starts a second MCP server, "notes" (demo/upstream.ts), on an ephemeral port, and mounts it as a gateway
// upstream: its items appear as notes__add_note, notes+notes://all… beside the store's own. And it mounts a third,
// "roaster" (demo/stdio-upstream.ts), a local program the router runs as a child process and speaks MCP with over its
// stdin and stdout: roaster__roast_schedule, roaster__plan_tasting (which asks the user through the gateway)….

import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import express from 'express';
import { mcpRouter, type McpRouter, type UpstreamHandle } from '../lib';
import { testPayment } from '../lib/x402-testing';
import { redisStore } from '../lib/redis';
import { connectionHelp, enterpriseConnectionHelp, oauthConnectionHelp } from './connect';
import { createDemoIdp, DEMO_AGENT, DEMO_IDP_ISSUER, type DemoIdp } from './enterprise-idp';
import { requireApiKey } from './store/api-key';
import { CustomersController } from './store/customers';
import { createStore } from './store/data';
import { createDemoLogin, registerWhoami } from './sign-in';
import { ordersRouter } from './store/orders';
import { productsRouter } from './store/products';
import { registerStoreMcp } from './store-mcp';
import { startNotesUpstream } from './upstream';
import { lazyBundle } from './apps/bundle';
import { registerOrderApp } from './apps/order-app';
import { orderFormRouter } from './apps/order-form';
import { startSandbox } from './apps/sandbox';

/**
 * How MCP clients authenticate: a static bearer token, or OAuth sign-in through the demo's login page (and, with
 * `enterprise`, ID-JAGs from the demo's enterprise IdP).
 */
export type DemoAuth =
  { token: string; oauth?: false; enterprise?: undefined } | { oauth: true; token?: undefined; enterprise?: DemoIdp };

export type DemoOptions = DemoAuth & {
  /** The legacy API's `x-api-key`. Defaults to `demo-api-key`. */
  apiKey?: string;
  /** Browser origins allowed besides localhost ones (the playground served from elsewhere, say). */
  allowedOrigins?: string[];
  /** The MCP endpoint of the notes server (demo/upstream.ts), mounted under the prefix `notes`; none without it. */
  notesUrl?: string;
  /** Redis for the router's shared state (sessions, events, tasks…); in-memory without it. */
  redisUrl?: string;
  /**
   * Mount the roaster server (demo/stdio-upstream.ts) as a stdio upstream under the prefix `roaster`: a child
   * process the router starts at once and ends on `mcp.close()`. Defaults to `false`.
   */
  roaster?: boolean;
  /**
   * The MCP Apps sandbox page (demo/apps/sandbox.ts), on an origin other than the demo's: the playground renders
   * apps through it. Without it the playground shows an app's tool results but not the app.
   */
  sandboxUrl?: string;
  /** The MCP endpoint's public URL, when the demo is reached through a tunnel or proxy (the router's `publicUrl`). */
  publicUrl?: string;
};

/** The scopes of the demo's tokens: store:write lets a client place and cancel orders. */
const SCOPES = ['store:read', 'store:write'];

/** The demo app, its MCP router (to close it) and the upstreams' handles when they are mounted. */
export interface Demo {
  readonly app: express.Express;
  readonly mcp: McpRouter;
  readonly notes: UpstreamHandle | undefined;
  readonly roaster: UpstreamHandle | undefined;
}

/** AUTH=enterprise: the router trusts the demo IdP's ID-JAGs, redeemed by the pre-registered demo agent. */
function enterpriseSignIn(idp: DemoIdp) {
  return {
    trustedIdps: [{ issuer: DEMO_IDP_ISSUER, jwks: idp.jwks }],
    clients: [
      {
        clientId: DEMO_AGENT.clientId,
        clientSecret: DEMO_AGENT.routerSecret,
        grants: ['urn:ietf:params:oauth:grant-type:jwt-bearer' as const],
      },
    ],
  };
}

/** The roaster server's source, run by this Node with tsx's loader (given by path, so any working directory works). */
export const ROASTER_SCRIPT = path.join(__dirname, 'stdio-upstream.ts');
/**
 * How the router starts the roaster: this Node, tsx's loader, the script. One process (tsx's CLI would start a
 * second Node under it), so the router's SIGTERM reaches the server itself.
 */
export const ROASTER_COMMAND = {
  command: process.execPath,
  args: ['--import', pathToFileURL(require.resolve('tsx')).href, ROASTER_SCRIPT],
} as const;

/** The demo's skills (order-handling, restocking): found from this file, so any working directory works. */
export const SKILLS_DIR = path.join(__dirname, 'skills');

const LOCAL_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Builds the demo app: the legacy REST API under /api, MCP at /mcp, the playground at /playground.
 *
 * @example
 * ```ts
 * createDemoApp({ token: 'secret' }).listen(3000);
 * ```
 */
export function createDemoApp(options: DemoOptions): express.Express {
  return createDemo(options).app;
}

/** {@link createDemoApp}, with the router and the upstream's handle for a clean shutdown. */
export function createDemo({
  token,
  oauth,
  enterprise,
  apiKey = 'demo-api-key',
  allowedOrigins = [],
  notesUrl,
  redisUrl,
  roaster = false,
  sandboxUrl,
  publicUrl,
}: DemoOptions): Demo {
  const store = createStore();
  // AUTH=oauth: users sign in on the demo's own login page; the router issues and checks the tokens.
  const login = oauth ? createDemoLogin('/mcp/oauth/authorize', SCOPES) : undefined;

  // --- MCP: the lines the store added -------------------------------------------------------------
  const mcp = mcpRouter({
    name: 'demo-store',
    version: '1.0.0',
    title: 'Demo coffee store',
    instructions:
      'A coffee-gear store. list_products and product://{id} show the catalog; place_order needs a customer id (list_customers). ' +
      'audit_inventory reports progress. The skills order-handling and restocking (skills/list) say how to use these tools. premium_stock_forecast is paid with x402 (this demo takes a test payment: no real money).' +
      (notesUrl === undefined
        ? ''
        : " Tools and prompts named notes__… and resources notes+notes://… are a notes server's, mounted through the gateway.") +
      (roaster
        ? " Tools named roaster__… and resources roaster+roaster://… are the roastery's (a local program, mounted over stdio); roaster__plan_tasting asks the user two questions."
        : ''),
    auth: login
      ? { server: { signIn: login.signIn, scopes: SCOPES, ...(enterprise && enterpriseSignIn(enterprise)) } }
      : { tokens: [{ token: token as string, subject: 'demo-user', scopes: SCOPES }] },
    // CORS and the Origin check: pages on localhost (the playground) and any origin listed.
    origins: (origin) => allowedOrigins.includes(origin) || LOCAL_HOSTNAMES.has(new URL(origin).hostname),
    rateLimit: { limit: 600, windowMs: 60_000 },
    // Through a tunnel (a hosted client reaching this machine): the URL sign-in metadata names, and a Host accepted.
    ...(publicUrl === undefined ? {} : { publicUrl }),
    // Several instances: everything they must share in Redis (REDIS_URL), so any instance serves any request.
    ...(redisUrl === undefined ? {} : { store: redisStore({ url: redisUrl }) }),
  });
  registerStoreMcp(mcp, store);
  if (login) registerWhoami(mcp);
  // An MCP App: the order form page (GET /apps/order-form) as the UI of the order_form tool.
  registerOrderApp(mcp, store);
  const customers = new CustomersController(store);
  mcp.register(customers);
  // Agent Skills (SEP-2640): the store's know-how for agents, a folder of SKILL.md files served as skill:// resources.
  mcp.skills(SKILLS_DIR);
  // The gateway: another MCP server's items beside the store's, namespaced, behind the same token and limits.
  const notes =
    notesUrl === undefined
      ? undefined
      : mcp.upstream({ prefix: 'notes', url: notesUrl, forwardHeaders: ['x-request-id'] });
  // A local program as an upstream: the router runs it, speaks MCP over its stdin/stdout, restarts it if it crashes.
  // Its first lists get longer than the 5 s default: tsx compiles the program before it can answer, which takes
  // seconds on a busy machine.
  const roasterHandle = roaster
    ? mcp.upstream({ prefix: 'roaster', ...ROASTER_COMMAND, listTimeoutMs: 20_000 })
    : undefined;
  // ------------------------------------------------------------------------------------------------

  const app = express();
  app.use('/mcp', mcp);
  if (enterprise) app.use('/idp', enterprise.routes);
  if (login) {
    app.use(login.routes);
    // The metadata at the root too, where clients look first (RFC 9728 §3.1, RFC 8414 §3.1); /mcp serves it already.
    app.use('/.well-known/oauth-protected-resource', mcp.authMetadata);
    app.use(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'], mcp.authServerMetadata);
  }
  // The playground's "pay with a test payment" button: testPayment() of the price the tool asked (the playground
  // sends one of its `accepts`), made by the package, which the paid tool's testFacilitator() accepts.
  app.post('/playground/test-payment', express.json(), (req, res) => {
    try {
      res.json(testPayment(req.body));
    } catch (err) {
      res.status(400).json({ error: (err as Error).message });
    }
  });
  // The playground as an MCP Apps host: ext-apps' AppBridge bundled for the browser (in memory, on first use), and
  // where its sandbox proxy lives.
  const appBridge = lazyBundle('app-bridge-entry.js');
  app.get('/playground/app-bridge.js', async (_req, res, next) => {
    try {
      res.type('text/javascript').send(await appBridge());
    } catch (error) {
      next(error);
    }
  });
  app.get('/playground/host.json', (_req, res) => res.json({ sandboxUrl: sandboxUrl ?? null }));
  app.use('/playground', express.static(path.join(__dirname, 'playground')));
  app.use(orderFormRouter(store));
  app.get('/', (_req, res) => res.redirect('/playground/'));

  // The legacy API, as it was (products.ts wraps three of its routes with mcp.route).
  const api = express.Router();
  api.use(express.json(), requireApiKey(apiKey));
  api.use('/products', productsRouter(store, mcp));
  api.use('/orders', ordersRouter(store));
  api.use('/customers', customers.routes());
  api.use((_req, res) => res.status(404).json({ error: 'Not found' }));
  app.use('/api', api);

  // The orders routes, declared as tools without touching their code: dispatched through the whole app.
  const orderLines = {
    type: 'array',
    minItems: 1,
    items: {
      type: 'object',
      properties: { productId: { type: 'string' }, quantity: { type: 'integer', minimum: 1 } },
      required: ['productId', 'quantity'],
    },
  };
  mcp.exposeRoutes(app, [
    {
      method: 'GET',
      path: '/api/orders',
      name: 'list_orders',
      description: 'List orders, optionally by status or customer',
      input: {
        query: {
          type: 'object',
          properties: { status: { enum: ['placed', 'shipped', 'cancelled'] }, customerId: { type: 'string' } },
        },
      },
    },
    { method: 'GET', path: '/api/orders/:id', name: 'get_order', description: 'Fetch an order by id' },
    {
      method: 'POST',
      path: '/api/orders',
      name: 'place_order',
      description: 'Place an order for a customer; takes the units from stock',
      input: {
        body: {
          type: 'object',
          properties: { customerId: { type: 'string' }, lines: orderLines },
          required: ['customerId', 'lines'],
        },
      },
      scopes: ['store:write'],
      rateLimit: { limit: 20, windowMs: 60_000 },
    },
    {
      method: 'POST',
      path: '/api/orders/:id/cancel',
      name: 'cancel_order',
      description: 'Cancel a placed order and put its units back in stock',
      annotations: { destructiveHint: true },
      scopes: ['store:write'],
    },
  ]);
  // Last: an error from any route (a body that is not JSON, one over express.json()'s limit) is a JSON answer with
  // its status, as the rest of the API answers, never Express's HTML error page.
  app.use((err: unknown, _req: express.Request, res: express.Response, next: express.NextFunction) => {
    if (res.headersSent) return next(err);
    const status = (err as { status?: unknown }).status;
    const known = typeof status === 'number' && status >= 400 && status < 500;
    res.status(known ? status : 500).json({ error: known ? (err as Error).message : 'Internal error' });
  });
  return { app, mcp, notes, roaster: roasterHandle };
}

/** Starts the notes upstream, then the demo (which starts the roaster) on `port`; prints the banner once listening, and stops cleanly on SIGINT/SIGTERM. */
async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 3000);
  const host = process.env.HOST ?? '127.0.0.1';
  const token = process.env.MCP_TOKEN ?? `demo-${randomBytes(12).toString('base64url')}`;
  const mode = process.env.AUTH || 'token';
  if (mode !== 'token' && mode !== 'oauth' && mode !== 'enterprise')
    throw new Error(
      `AUTH=${mode}: use AUTH=token (the default: a static bearer token), AUTH=oauth (sign-in) or AUTH=enterprise (sign-in and ID-JAGs)`,
    );
  const auth: DemoAuth =
    mode === 'token' ? { token } : { oauth: true, ...(mode === 'enterprise' && { enterprise: await createDemoIdp() }) };
  const apiKey = process.env.API_KEY ?? 'demo-api-key';
  const allowedOrigins = (process.env.ALLOWED_ORIGINS ?? '').split(',').filter(Boolean);
  // The upstream listens first, so the gateway's first list fetch finds it (it would retry otherwise).
  const upstream = await startNotesUpstream();
  // The playground renders MCP Apps through a page on another origin: a second listener, on SANDBOX_PORT.
  const sandbox = await startSandbox(host, Number(process.env.SANDBOX_PORT ?? 0));
  const { app, mcp, notes, roaster } = createDemo({
    ...auth,
    apiKey,
    allowedOrigins,
    notesUrl: upstream.url,
    redisUrl: process.env.REDIS_URL || undefined,
    publicUrl: process.env.PUBLIC_URL || undefined,
    roaster: true,
    sandboxUrl: sandbox.url,
  });
  const fail = (error: NodeJS.ErrnoException): never => {
    console.error(
      error.code === 'EADDRINUSE' ? `Port ${port} is in use: start with PORT=${port + 1} npm run demo` : error.message,
    );
    process.exit(1);
  };
  // http.createServer, not app.listen: Express 5's app.listen also calls its callback with the error when listening
  // fails, which printed the banner and the token before the EADDRINUSE hint. Here the callback means listening.
  const server = createServer(app);
  server.on('error', fail);
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    // The router first (it ends the notes session with a DELETE, and the roaster process with SIGTERM), then the
    // notes server, then our own server.
    const done = Promise.allSettled([mcp.close()])
      .then(() => Promise.allSettled([upstream.close(), sandbox.close()]))
      .then(() => {
        server.closeAllConnections();
        return new Promise<void>((resolve) => server.close(() => resolve()));
      });
    void done.finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 3_000).unref(); // a stuck connection never keeps Ctrl-C from working
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // Their first lists, so the banner can tell what they mounted: both at once (the roaster has been starting since
  // it was mounted), so the start waits for the slower of the two, not their sum.
  const [notesStatus, roasterStatus] = await Promise.all([notes?.refresh(), roaster?.refresh()]);
  try {
    server.listen(port, host, () => {
      // The bound port, so PORT=0 prints the one the system picked.
      const origin = `http://${host.includes(':') ? `[${host}]` : host}:${(server.address() as AddressInfo).port}`;
      const upstreams = [
        ...(notesStatus ? [{ where: `at ${upstream.url}`, status: notesStatus }] : []),
        ...(roasterStatus
          ? [{ where: `over stdio, ${path.relative(process.cwd(), ROASTER_SCRIPT)}`, status: roasterStatus }]
          : []),
      ];
      console.log(
        auth.oauth
          ? (auth.enterprise ? enterpriseConnectionHelp : oauthConnectionHelp)({ origin, apiKey, upstreams })
          : connectionHelp({ origin, token, apiKey, upstreams }),
      );
      console.log(`MCP Apps: the playground renders the order form app through the sandbox at ${sandbox.url}`);
    });
  } catch (error) {
    fail(error as NodeJS.ErrnoException); // a PORT that is not a port number throws here, before any 'error' event
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
