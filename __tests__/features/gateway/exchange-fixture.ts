// What the token-exchange tests share: an upstream (this router) that only takes tokens for its own audience, and a gateway whose upstreams are called as the caller.

import express from 'express';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import {
  jwtVerifier,
  mcpRouter,
  tokenExchange,
  type AuthInfo,
  type McpLogger,
  type McpRouter,
  type McpRouterOptions,
  type TokenExchangeOptions,
} from '../../../lib';
import { listenLocally, type Listening } from '../../helpers/ports';
import { GATEWAY_AUDIENCE, GATEWAY_CLIENT, type ExchangeIdp } from '../../helpers/exchange-idp';

/** The audience of the upstream: the only one it accepts. */
export const UPSTREAM_AUDIENCE = 'https://upstream.test/mcp';

/** What `whoami` answers: who the upstream saw, and the token it was sent. */
export interface Seen {
  readonly subject: string;
  readonly token: string;
}

export interface TestUpstream {
  readonly url: string;
  /** Every bearer token the upstream was sent, in order (refused ones included). */
  readonly tokens: string[];
  /** Tokens it answers 401 from now on (revoked). */
  readonly revoked: Set<string>;
  /** Subjects whose every token it answers 401. */
  readonly refusedSubjects: Set<string>;
  close(): Promise<void>;
}

/** This router as the upstream, for `eras`, taking only tokens of the IdP for {@link UPSTREAM_AUDIENCE}; its tool `whoami` tells who called. */
export async function startUpstream(idp: ExchangeIdp, eras: McpRouterOptions['eras']): Promise<TestUpstream> {
  const tokens: string[] = [];
  const revoked = new Set<string>();
  const refusedSubjects = new Set<string>();
  const verify = jwtVerifier({ issuer: idp.issuer, jwksUri: idp.jwksUri, audience: UPSTREAM_AUDIENCE });
  const mcp = mcpRouter({
    name: 'upstream',
    version: '1.0.0',
    eras,
    logger: { error: jest.fn(), warn: jest.fn() },
    auth: {
      verify: async (token, req): Promise<AuthInfo | undefined> => {
        tokens.push(token);
        if (revoked.has(token)) return undefined;
        const auth = await verify(token, req);
        return auth && !refusedSubjects.has(auth.subject) ? auth : undefined;
      },
    },
  });
  mcp.tool({
    name: 'whoami',
    description: 'Who called',
    handler: (_args, ctx) =>
      JSON.stringify({ subject: ctx.auth?.subject, token: String(ctx.headers.authorization).slice(7) }),
  });
  mcp.resource({ uri: 'docs://readme', name: 'readme', read: () => '# readme' });
  const app = express();
  app.use('/mcp', mcp);
  const listening: Listening = await listenLocally(app);
  return {
    url: `http://127.0.0.1:${listening.port}/mcp`,
    tokens,
    revoked,
    refusedSubjects,
    close: async () => {
      await mcp.close();
      await listening.close();
    },
  };
}

export interface TestGateway {
  readonly url: string;
  readonly mcp: McpRouter;
  readonly logger: { error: jest.Mock; warn: jest.Mock };
  close(): Promise<void>;
}

/**
 * The gateway: callers authenticate with IdP tokens for {@link GATEWAY_AUDIENCE}; each upstream in `upstreams` is
 * mounted under its prefix and called as the caller, its lists fetched with a token of the gateway's own.
 */
export async function startGateway(
  idp: ExchangeIdp,
  upstreams: Record<string, string>,
  exchange: Partial<TokenExchangeOptions> = {},
  options: Partial<McpRouterOptions> = {},
): Promise<TestGateway> {
  const logger = { error: jest.fn(), warn: jest.fn() };
  const mcp = mcpRouter({
    name: 'gateway',
    version: '1.0.0',
    logger: logger as McpLogger,
    auth: { verify: jwtVerifier({ issuer: idp.issuer, jwksUri: idp.jwksUri, audience: GATEWAY_AUDIENCE }) },
    ...options,
  });
  const auth = tokenExchange({
    tokenEndpoint: idp.tokenEndpoint,
    audience: UPSTREAM_AUDIENCE,
    clientAuth: GATEWAY_CLIENT,
    ...exchange,
  });
  const lister = await idp.mint('gateway-lister', UPSTREAM_AUDIENCE);
  for (const [prefix, url] of Object.entries(upstreams))
    mcp.upstream({ prefix, url, auth, headers: { authorization: `Bearer ${lister}` }, listTimeoutMs: 5_000 });
  const app = express();
  app.use('/mcp', mcp);
  const listening = await listenLocally(app);
  return {
    url: `http://127.0.0.1:${listening.port}/mcp`,
    mcp,
    logger,
    close: async () => {
      await mcp.close();
      await listening.close();
    },
  };
}

/** A caller of the gateway: the SDK v1 client (2025) or the v2 client pinned to 2026-07-28, with its bearer token. */
export interface Caller {
  readonly token: string;
  call(name: string): Promise<{ isError?: boolean; content: Array<{ type: string; text?: string }> }>;
  /** Reads a resource: its contents' first text. */
  read(uri: string): Promise<string | undefined>;
  close(): Promise<void>;
}

export async function connectCaller(url: string, token: string, era: '2025' | '2026'): Promise<Caller> {
  const requestInit = { headers: { Authorization: `Bearer ${token}` } };
  if (era === '2025') {
    const client = new V1Client({ name: 'caller', version: '1.0.0' });
    await client.connect(new V1Transport(new URL(url), { requestInit }));
    return {
      token,
      call: (name) => client.callTool({ name, arguments: {} }) as ReturnType<Caller['call']>,
      read: async (uri) => ((await client.readResource({ uri })).contents[0] as { text?: string }).text,
      close: () => client.close(),
    };
  }
  const client = new V2Client(
    { name: 'caller', version: '2.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new V2Transport(new URL(url), { requestInit }));
  return {
    token,
    call: (name) => client.callTool({ name, arguments: {} }) as unknown as ReturnType<Caller['call']>,
    read: async (uri) => ((await client.readResource({ uri })).contents[0] as { text?: string }).text,
    close: () => client.close(),
  };
}

/** What `whoami` said, and the audience of the token it was sent. */
export function seen(result: Awaited<ReturnType<Caller['call']>>): Seen & { readonly audience: unknown } {
  const parsed = JSON.parse(result.content[0]?.text ?? '{}') as Seen;
  return { ...parsed, audience: decodeJwt(parsed.token).aud };
}
