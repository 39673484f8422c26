// An app whose router checks tokens with a given `auth.verify`, on 127.0.0.1, with a `whoami` tool answering ctx.auth; closed after each test.

import express from 'express';
import type { IncomingMessage } from 'node:http';
import request from 'supertest';
import { mcpRouter, type McpRouter } from '../../lib';
import type { AuthInfo } from '../../lib/core/registry/request-context';
import { MCP_ACCEPT, rpc, silentLogger } from './messages';
import { listenLocally, type Listening } from './ports';

/** A served verifier: the app's origin, and a `whoami` call carrying a token. */
export interface VerifyApp {
  readonly origin: string;
  call(token: string): request.Test;
}

/** Registers the afterEach that closes what `serve` started; returns `serve`. */
export function useVerifyApps(): (
  verify: (token: string, req: IncomingMessage) => Promise<AuthInfo | null>,
) => Promise<VerifyApp> {
  const routers: McpRouter[] = [];
  const listening: Listening[] = [];
  afterEach(async () => {
    jest.restoreAllMocks();
    await Promise.all(routers.splice(0).map((mcp) => mcp.close()));
    await Promise.all(listening.splice(0).map((app) => app.close()));
  });
  return async (verify) => {
    const mcp = mcpRouter({
      name: 'verify-test',
      version: '1.0.0',
      sessions: false,
      logger: silentLogger(),
      auth: { verify },
    });
    mcp.tool({ name: 'whoami', description: 'Who is calling', handler: (_args, ctx) => ({ auth: ctx.auth ?? null }) });
    routers.push(mcp);
    const server = await listenLocally(express().use('/mcp', mcp));
    listening.push(server);
    const origin = `http://127.0.0.1:${server.port}`;
    const call = (token: string): request.Test =>
      request(origin)
        .post('/mcp')
        .set({
          'Content-Type': 'application/json',
          Accept: MCP_ACCEPT,
          'MCP-Protocol-Version': '2025-11-25',
          Authorization: `Bearer ${token}`,
        })
        .send(JSON.stringify(rpc('tools/call', { name: 'whoami' })));
    return { origin, call };
  };
}
