// Checks the proxy tests make through any proxy setup (behind-proxy.ts), for the nginx and Caddy suites and for other
// tests run behind the proxy: the public URLs a client discovers, a sign-in with the SDK, progress timing.

import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import type { McpRouter, McpRouterOptions } from '../../lib';
import { MCP_ACCEPT, rpc, silentLogger } from '../helpers/messages';
import { MODERN } from '../helpers/modern';
import { MemoryOAuthProvider } from '../helpers/oauth-client';
import { cookieSignIn } from '../helpers/sign-in-server';
import { followSignIn } from '../helpers/sign-in-flow';
import { scaled } from '../helpers/time-scale';
import { startBehindProxy, type BehindProxy, type BehindProxyOptions } from './behind-proxy';

export const REDIRECT = 'http://127.0.0.1:1/callback';
export const INITIALIZE = rpc('initialize', {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'raw', version: '1.0.0' },
});

/** A router signing users in itself (`auth.server`), with a tool that names its caller. */
export const signingIn = (logger = silentLogger()): Partial<McpRouterOptions> => ({
  auth: { server: { signIn: cookieSignIn, scopes: ['mcp'] } },
  logger,
});
export const whoami = (mcp: McpRouter): void => {
  mcp.tool({
    name: 'whoami',
    description: 'The caller',
    handler: (_args, ctx) => ({ subject: ctx.auth?.subject ?? null }),
  });
};

/** Starts a setup for the tests of one describe block (beforeAll), stopped after them (afterAll). */
export function useProxy(options: BehindProxyOptions): () => BehindProxy {
  let proxy: BehindProxy | undefined;
  beforeAll(async () => {
    proxy = await startBehindProxy(options);
  });
  afterAll(() => proxy?.stop());
  return () => {
    if (proxy === undefined) throw new Error('the proxy starts in beforeAll');
    return proxy;
  };
}

/** What a client finds through the proxy: the challenge's resource_metadata, and both metadata documents as served. */
export async function discover(
  proxy: BehindProxy,
  headers: Record<string, string> = {},
): Promise<{ challenge: string; resource: Record<string, unknown>; server: Record<string, unknown> }> {
  const answer = await proxy.fetch(proxy.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: MCP_ACCEPT, ...headers },
    body: JSON.stringify(INITIALIZE),
  });
  expect(answer.status).toBe(401);
  const challenge = /resource_metadata="([^"]+)"/.exec(answer.headers.get('www-authenticate') ?? '')?.[1] ?? '';
  const json = async (path: string): Promise<Record<string, unknown>> => {
    const response = await proxy.fetch(`${proxy.url}${path}`, { headers });
    expect(response.status).toBe(200);
    return (await response.json()) as Record<string, unknown>;
  };
  return {
    challenge,
    resource: await json('/.well-known/oauth-protected-resource'),
    server: await json('/.well-known/oauth-authorization-server'),
  };
}

/** Fails unless every URL the client is given starts with `endpoint` (the MCP endpoint's URL): challenge, documents, endpoints. */
export async function expectUrlsUnder(proxy: BehindProxy, endpoint: string): Promise<void> {
  const { challenge, resource, server } = await discover(proxy);
  expect(challenge).toBe(`${endpoint}/.well-known/oauth-protected-resource`);
  expect(resource).toMatchObject({ resource: endpoint, authorization_servers: [endpoint] });
  expect(server.issuer).toBe(endpoint);
  const urls = Object.entries(server).filter(([, value]) => typeof value === 'string' && /^[a-z]+:\/\//i.test(value));
  expect(urls.map(([name]) => name)).toEqual(
    expect.arrayContaining(['authorization_endpoint', 'token_endpoint', 'registration_endpoint', 'jwks_uri']),
  );
  for (const [name, url] of urls)
    expect([name, url]).toEqual([name, expect.stringMatching(new RegExp(`^${escape(endpoint)}(/|$)`))]);
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The warnings `logger` got, as text (an Error's message, then the message argument). */
export const warnings = (logger: ReturnType<typeof silentLogger>): string[] =>
  logger.warn.mock.calls.map((args: unknown[]) =>
    args.map((arg) => (arg instanceof Error ? arg.message : String(arg))).join(' '),
  );

/** Signs in with the SDK v1 client through the proxy (DCR, the app's login, consent) and returns the signed-in client. */
export async function signInV1(proxy: BehindProxy): Promise<Client> {
  const provider = new MemoryOAuthProvider(REDIRECT);
  const transport = (): StreamableHTTPClientTransport =>
    new StreamableHTTPClientTransport(new URL(proxy.url), { authProvider: provider, fetch: proxy.fetch });
  const first = transport();
  await expect(new Client({ name: 'proxy-v1', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(
    UnauthorizedError,
  );
  const end = await followSignIn((provider.authorizationUrls.at(-1) as URL).href, {
    stopAt: REDIRECT,
    fetch: proxy.fetch,
  });
  expect(end.location.searchParams.get('iss')).toBe(proxy.url);
  await first.finishAuth(end.location.searchParams.get('code') as string);
  const client = new Client({ name: 'proxy-v1', version: '1.0.0' });
  await client.connect(transport());
  return client;
}

export const STEPS = 4;
/** Time between two progress notifications of the paced tool. */
export const GAP_MS = scaled(200);

/** A tool `paced` that reports progress STEPS times, GAP_MS apart, and the times it sent them (of its last call). */
export function pacedTool(): { setup: (mcp: McpRouter) => void; emits: number[] } {
  const emits: number[] = [];
  const setup = (mcp: McpRouter): void => {
    mcp.tool({
      name: 'paced',
      description: `Reports progress ${STEPS} times, ${GAP_MS} ms apart`,
      handler: async (_args, ctx) => {
        emits.length = 0;
        for (let step = 1; step <= STEPS; step++) {
          if (step > 1) await new Promise((resolve) => setTimeout(resolve, GAP_MS));
          emits.push(performance.now());
          await ctx.progress(step, STEPS);
        }
        return 'done';
      },
    });
  };
  return { setup, emits };
}

/** Connects the SDK v1 client through the proxy, without credentials. */
async function connectV1(proxy: BehindProxy): Promise<Client> {
  const client = new Client({ name: 'progress-v1', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(proxy.url), { fetch: proxy.fetch }));
  return client;
}

/**
 * Calls the paced tool with the SDK v1 client (2025) through the proxy, connected by `connect` (e.g. signInV1);
 * when each progress notification arrived.
 */
export async function progressV1(
  proxy: BehindProxy,
  connect: (proxy: BehindProxy) => Promise<Client> = connectV1,
): Promise<{ arrivals: number[]; returned: number }> {
  const client = await connect(proxy);
  const arrivals: number[] = [];
  try {
    await client.callTool({ name: 'paced', arguments: {} }, undefined, {
      onprogress: () => void arrivals.push(performance.now()),
    });
    return { arrivals, returned: performance.now() };
  } finally {
    await client.close();
  }
}

/** The same with the SDK v2 client pinned to 2026-07-28. */
export async function progressV2(proxy: BehindProxy): Promise<{ arrivals: number[]; returned: number }> {
  const client = new ClientV2(
    { name: 'progress-v2', version: '2.0.0' },
    { versionNegotiation: { mode: { pin: MODERN } } },
  );
  await client.connect(new TransportV2(new URL(proxy.url), { fetch: proxy.fetch }));
  const arrivals: number[] = [];
  try {
    await client.callTool(
      { name: 'paced', arguments: {} },
      { onprogress: () => void arrivals.push(performance.now()) },
    );
    return { arrivals, returned: performance.now() };
  } finally {
    await client.close();
  }
}
