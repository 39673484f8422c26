// End to end with the official SDK v2 client (@modelcontextprotocol/client 2.x): pinned to 2026-07-28, in auto mode, and in its default (2025) mode.

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { mcpRouter, type McpRouterOptions } from '../../lib';

interface Seen {
  method: string;
  header: string | undefined;
  session: string | undefined;
  /** `Mcp-Param-Region`, which the client mirrors from the `route` tool's `region` argument. */
  region: string | undefined;
}

/** A router with a tool of each kind, a resource, a template with a completer, and a prompt; every POST is recorded. */
function serve(options: Partial<McpRouterOptions> = {}): { app: express.Express; seen: Seen[] } {
  const mcp = mcpRouter({ name: 'v2-e2e', version: '1.0.0', instructions: 'Both eras', ...options });
  mcp.tool({
    name: 'add',
    description: 'Add two numbers',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
    handler: ({ a, b }: { a: number; b: number }) => ({ sum: a + b }),
  });
  mcp.tool({
    name: 'count',
    description: 'Counts to three, with progress',
    inputSchema: { type: 'object' },
    handler: async (_args: Record<string, never>, ctx) => {
      for (let step = 1; step <= 3; step++) await ctx.progress(step, 3, `step ${step}`);
      return `counted in era ${ctx.era} (${ctx.protocolVersion})`;
    },
  });
  mcp.tool({
    name: 'route',
    description: 'Routes by region (mirrored into a header)',
    inputSchema: {
      type: 'object',
      properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' },
        hops: { type: 'integer', 'x-mcp-header': 'Hops' },
      },
      required: ['region'],
    },
    handler: ({ region, hops }: { region: string; hops?: number }) => `${region}/${hops ?? 0}`,
  });
  mcp.resource({ uri: 'docs://readme', name: 'readme', mimeType: 'text/markdown', read: () => '# Read me' });
  mcp.resourceTemplate({
    uriTemplate: 'users://{id}/profile',
    name: 'profile',
    read: (uri, { id }: { id: string }) => JSON.stringify({ id }),
    complete: { id: (prefix) => ['ada', 'alan', 'grace'].filter((id) => id.startsWith(prefix)) },
  });
  mcp.prompt({
    name: 'review',
    description: 'Review code',
    arguments: [{ name: 'code', required: true }],
    get: ({ code }) => [{ role: 'user', content: `Review: ${code}` }],
  });
  const seen: Seen[] = [];
  const app = express();
  // The host app parses JSON first (the router reads req.body then), so each POST's method can be recorded.
  app.use(express.json(), (req, _res, next) => {
    if (req.method === 'POST') {
      const body = req.body as { method?: string };
      seen.push({
        method: body.method ?? '(response)',
        header: req.headers['mcp-protocol-version'] as string | undefined,
        session: req.headers['mcp-session-id'] as string | undefined,
        region: req.headers['mcp-param-region'] as string | undefined,
      });
    }
    next();
  });
  app.use('/mcp', mcp);
  return { app, seen };
}

async function connect(
  app: express.Express,
  versionNegotiation?: ConstructorParameters<typeof Client>[1] extends infer O
    ? O extends { versionNegotiation?: infer V }
      ? V
      : never
    : never,
) {
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const { port } = server.address() as AddressInfo;
  const client = new Client({ name: 'v2-client', version: '2.0.0' }, versionNegotiation ? { versionNegotiation } : {});
  const stopServer = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
  } catch (error) {
    await stopServer();
    throw error;
  }
  return {
    client,
    async close() {
      await client.close();
      await stopServer();
    },
  };
}

describe('SDK v2 client pinned to 2026-07-28', () => {
  const { app, seen } = serve();
  let connection: Awaited<ReturnType<typeof connect>>;
  beforeAll(async () => {
    connection = await connect(app, { mode: { pin: '2026-07-28' } });
  });
  afterAll(() => connection?.close());

  it('discovers instead of initializing, and sends no session', () => {
    expect(seen[0]?.method).toBe('server/discover');
    expect(seen.some((request) => request.method === 'initialize')).toBe(false);
    expect(seen.every((request) => request.header === '2026-07-28' && request.session === undefined)).toBe(true);
  });

  it('lists and calls tools, with structured results', async () => {
    const { tools } = await connection.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['add', 'count', 'route']);
    const result = await connection.client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
    expect(result.structuredContent).toEqual({ sum: 42 });
    expect(result.isError).toBeFalsy();
  });

  it("streams progress on the request's own stream, and the handler sees the 2026 era", async () => {
    const progress: number[] = [];
    const result = await connection.client.callTool(
      { name: 'count', arguments: {} },
      { onprogress: ({ progress: value }) => progress.push(value) },
    );
    expect(progress).toEqual([1, 2, 3]);
    expect(result.content).toEqual([{ type: 'text', text: 'counted in era 2026 (2026-07-28)' }]);
  });

  it('reads resources and templates', async () => {
    expect((await connection.client.listResources()).resources.map((resource) => resource.uri)).toEqual([
      'docs://readme',
    ]);
    expect((await connection.client.readResource({ uri: 'docs://readme' })).contents).toEqual([
      { uri: 'docs://readme', mimeType: 'text/markdown', text: '# Read me' },
    ]);
    expect(
      (await connection.client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate),
    ).toEqual(['users://{id}/profile']);
    expect((await connection.client.readResource({ uri: 'users://ada/profile' })).contents).toEqual([
      { uri: 'users://ada/profile', text: '{"id":"ada"}' },
    ]);
  });

  it('gets prompts and completes arguments', async () => {
    const prompt = await connection.client.getPrompt({ name: 'review', arguments: { code: 'x = 1' } });
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Review: x = 1' } }]);
    const completion = await connection.client.complete({
      ref: { type: 'ref/resource', uri: 'users://{id}/profile' },
      argument: { name: 'id', value: 'a' },
    });
    expect(completion.completion.values).toEqual(['ada', 'alan']);
  });

  it('gets an unknown tool as a protocol error', async () => {
    await expect(connection.client.callTool({ name: 'nope', arguments: {} })).rejects.toThrow(/Unknown tool: nope/);
  });

  it('mirrors x-mcp-header arguments into Mcp-Param-* headers, Base64 where needed, and the router accepts them (SEP-2243)', async () => {
    await connection.client.listTools();
    const plain = await connection.client.callTool({ name: 'route', arguments: { region: 'us-west1', hops: 3 } });
    expect(plain.content).toEqual([{ type: 'text', text: 'us-west1/3' }]);
    expect(seen.at(-1)?.region).toBe('us-west1');
    const encoded = await connection.client.callTool({ name: 'route', arguments: { region: 'Zürich' } });
    expect(encoded.content).toEqual([{ type: 'text', text: 'Zürich/0' }]);
    expect(seen.at(-1)?.region).toBe(`=?base64?${Buffer.from('Zürich').toString('base64')}?=`);
  });
});

describe('SDK v2 client in auto mode', () => {
  it('goes modern at once: its probe is answered, no initialize follows', async () => {
    const { app, seen } = serve();
    const connection = await connect(app, { mode: 'auto' });
    try {
      const result = await connection.client.callTool({ name: 'add', arguments: { a: 1, b: 1 } });
      expect(result.structuredContent).toEqual({ sum: 2 });
      expect(seen.map((request) => request.method)).toEqual(['server/discover', 'tools/call']);
    } finally {
      await connection.close();
    }
  });

  it("falls back to a 2025 session on a router that serves only the 2025 era (eras: ['2025'])", async () => {
    const { app, seen } = serve({ eras: ['2025'] });
    const connection = await connect(app, { mode: 'auto' });
    try {
      const result = await connection.client.callTool({ name: 'count', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'counted in era 2025 (2025-11-25)' }]);
      expect(seen.slice(0, 2).map((request) => request.method)).toEqual(['server/discover', 'initialize']);
      expect(seen.at(-1)?.session).toEqual(expect.any(String));
    } finally {
      await connection.close();
    }
  });
});

describe('SDK v2 client in its default mode', () => {
  it('gets a 2025 session as before', async () => {
    const { app, seen } = serve();
    const connection = await connect(app);
    try {
      const result = await connection.client.callTool({ name: 'count', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'counted in era 2025 (2025-11-25)' }]);
      expect(seen[0]?.method).toBe('initialize');
      expect(seen.at(-1)?.session).toEqual(expect.any(String));
    } finally {
      await connection.close();
    }
  });

  it("is refused by a modern-only router (eras: ['2026']) with the revisions it serves", async () => {
    const { app } = serve({ eras: ['2026'] });
    await expect(connect(app)).rejects.toThrow(/2026-07-28/);
  });
});
