// The proxy tests' setup, reusable by any test: router apps on 127.0.0.1 behind nginx (or Caddy) with TLS termination,
// run with docs/deployment.md's configuration (or a variant of nginx's), reached as https://mcp.proxy.test:<port>/mcp by a fetch
// that trusts the test CA.
//
//   const proxy = await startBehindProxy({ router: { auth: { tokens: ['t'] } }, nginx: { buffering: 'on' } });
//   afterAll(() => proxy?.stop());
//   const client = new Client(…); await client.connect(new StreamableHTTPClientTransport(new URL(proxy.url), { fetch: proxy.fetch }));

import { mkdtempSync, rmSync } from 'node:fs';
import type { LookupFunction } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express, { type Express } from 'express';
import { mcpRouter, type McpRouter, type McpRouterOptions } from '../../lib';
import { silentLogger } from '../helpers/messages';
import { listenLocally, type Listening } from '../helpers/ports';
import { startCaddy } from './caddy';
import { startNginx, type NginxVariant, type RunningProxy } from './nginx';
import { lookupWith, makeCertificates, PUBLIC_HOST, trustingFetch, type TestCertificates } from './tls';

export { PUBLIC_HOST } from './tls';
export type { NginxVariant, RunningProxy } from './nginx';

/** What to run behind nginx. */
export interface BehindProxyOptions {
  /** Which proxy runs in front, with its documented configuration. Defaults to `'nginx'`. */
  readonly proxy?: 'nginx' | 'caddy';
  /** How nginx departs from the documented configuration (nginx only). Defaults to `{}`: as documented. */
  readonly nginx?: NginxVariant;
  /** `app.set('trust proxy', 1)` as the docs say, or not. Defaults to `true`. */
  readonly trustProxy?: boolean;
  /**
   * The router's options (per instance when a function), over `{ name: 'behind-proxy', version: '1.0.0',
   * allowedHosts: [PUBLIC_HOST], logger: silentLogger() }`.
   */
  readonly router?: Partial<McpRouterOptions> | ((instance: number) => Partial<McpRouterOptions>);
  /** Registers tools and the like on each instance's router. */
  readonly setup?: (mcp: McpRouter, instance: number) => void;
  /** Called with each instance's app before the router is mounted (middleware of the host app). */
  readonly app?: (app: Express, instance: number) => void;
  /** How many app instances nginx balances over (round robin, no stickiness). Defaults to `1`. */
  readonly instances?: number;
  /** The proxy's port, when the router's options must name the public URL before it starts. Defaults to a free one. */
  readonly port?: number;
}

/** One app instance behind the proxy. */
export interface ProxiedInstance {
  readonly mcp: McpRouter;
  readonly port: number;
  /** `http://127.0.0.1:<port>/mcp`: the endpoint as the app itself sees it. */
  readonly internalUrl: string;
}

/** The setup, running. */
export interface BehindProxy {
  /** `https://mcp.proxy.test:<port>/mcp`: the MCP endpoint's public URL. */
  readonly url: string;
  /** `https://mcp.proxy.test:<port>`. */
  readonly origin: string;
  /** `mcp.proxy.test:<port>`, as clients send it in Host. */
  readonly host: string;
  /** A fetch that trusts the test CA and resolves the public host to 127.0.0.1 (give it to the SDK clients). */
  readonly fetch: typeof fetch;
  /** The test CA (PEM) and its file, for other clients (a child process: NODE_EXTRA_CA_CERTS). */
  readonly ca: string;
  readonly caPath: string;
  /** Resolves the public host to 127.0.0.1 for node:net / node:tls / node:https connections. */
  readonly lookup: LookupFunction;
  readonly certificates: TestCertificates;
  readonly instances: readonly ProxiedInstance[];
  /** The proxy in front: which, its port, the configuration it runs, its log. */
  readonly front: RunningProxy;
  /** Stops the proxy, closes the routers and apps, and removes the temporary directory. */
  stop(): Promise<void>;
}

/** Runs `steps` in reverse, every one even when another throws; throws the first failure after. */
async function unwind(steps: Array<() => Promise<void> | void>): Promise<void> {
  let failure: unknown;
  for (let step = steps.pop(); step !== undefined; step = steps.pop()) {
    try {
      await step();
    } catch (error) {
      failure ??= error;
    }
  }
  if (failure !== undefined) throw failure;
}

async function startInstance(
  options: BehindProxyOptions,
  instance: number,
  cleanups: Array<() => Promise<void> | void>,
): Promise<ProxiedInstance> {
  const given = typeof options.router === 'function' ? options.router(instance) : options.router;
  const mcp = mcpRouter({
    name: 'behind-proxy',
    version: '1.0.0',
    allowedHosts: [PUBLIC_HOST],
    logger: silentLogger(),
    ...given,
  });
  // The router first, then its server (docs/deployment.md: open streams keep a server from closing).
  let listening: Listening | undefined;
  cleanups.push(async () => {
    await mcp.close();
    await listening?.close();
  });
  options.setup?.(mcp, instance);
  const app = express();
  if (options.trustProxy ?? true) app.set('trust proxy', 1);
  options.app?.(app, instance);
  app.use('/mcp', mcp);
  listening = await listenLocally(app);
  // Longer than nginx keeps an idle upstream connection (60 s), as docs/deployment.md says.
  listening.server.keepAliveTimeout = 75_000;
  return { mcp, port: listening.port, internalUrl: `http://127.0.0.1:${listening.port}/mcp` };
}

/**
 * Starts `options.instances` router apps on 127.0.0.1 and nginx (or Caddy) in front of them with TLS for
 * {@link PUBLIC_HOST} (a CA and certificate made for the run), configured as docs/deployment.md shows, nginx's
 * changed by `options.nginx`.
 * Whatever was started is stopped again when a later step fails.
 *
 * @example
 * ```ts
 * let proxy: BehindProxy | undefined;
 * beforeAll(async () => { proxy = await startBehindProxy({ setup: (mcp) => mcp.tool(…) }); });
 * afterAll(() => proxy?.stop());
 * ```
 */
export async function startBehindProxy(options: BehindProxyOptions = {}): Promise<BehindProxy> {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-proxy-'));
  const cleanups: Array<() => Promise<void> | void> = [() => rmSync(dir, { recursive: true, force: true })];
  try {
    const certificates = await makeCertificates(dir);
    const client = trustingFetch(certificates.ca);
    cleanups.push(() => client.close());
    const instances: ProxiedInstance[] = [];
    for (let instance = 0; instance < (options.instances ?? 1); instance++)
      instances.push(await startInstance(options, instance, cleanups));
    const upstreams = instances.map(({ port }) => port);
    if (options.proxy === 'caddy' && options.nginx !== undefined)
      throw new Error('startBehindProxy: nginx variants apply to nginx only');
    const front =
      options.proxy === 'caddy'
        ? await startCaddy(dir, { port: options.port ?? 0, upstreams, certificates })
        : await startNginx(dir, { port: options.port ?? 0, upstreams, certificates, variant: options.nginx });
    cleanups.push(() => front.stop());
    const host = `${PUBLIC_HOST}:${front.port}`;
    return {
      url: `https://${host}/mcp`,
      origin: `https://${host}`,
      host,
      fetch: client.fetch,
      ca: certificates.ca,
      caPath: certificates.caPath,
      lookup: lookupWith({ [PUBLIC_HOST]: '127.0.0.1' }),
      certificates,
      instances,
      front,
      stop: () => unwind(cleanups),
    };
  } catch (error) {
    await unwind(cleanups).catch(() => undefined);
    throw error;
  }
}
