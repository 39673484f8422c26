// MCP Apps through the gateway (SEP-1865): an upstream's ui:// app under ui://<prefix>+…, its tools linked to it, its app-only tools hidden from clients without the extension, both eras.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import express from 'express';
import { mcpRouter, type McpRouterOptions } from '../../../lib';
import { namingFor } from '../../../lib/features/gateway/mount/prefixed-names';
import { modern } from '../../helpers/modern';
import { closeAfterEach, closeGatewaysAfterEach, gateway, serve, v1Client, v2Client, type Upstream } from './upstreams';

closeGatewaysAfterEach();
closeAfterEach();

const UI = 'io.modelcontextprotocol/ui';
const MIME = 'text/html;profile=mcp-app';
const UI_CAPS = { extensions: { [UI]: { mimeTypes: [MIME] } } };
const HTML = '<!doctype html><title>Viewer</title><p>Files</p>';
const CSP = { resourceDomains: ['https://cdn.example.com'] };
/** The upstream's app, and what the gateway shows it as under prefix "fs". */
const UPSTREAM_URI = 'ui://files/viewer';
const DOWNSTREAM_URI = 'ui://fs+files/viewer';

/** What the upstream was asked: its tool calls and resource reads, by its own names and URIs. */
interface Received {
  calls: string[];
  reads: string[];
}

/**
 * This router as an upstream named "files": an app, a tool for model and app, an app-only tool, and tools whose
 * `_meta` carries links the gateway cannot use (written raw, as any upstream may send them).
 */
async function appsUpstream(
  options: Partial<McpRouterOptions> = {},
  /** Holds the upstream's tools/list answers back until it settles (a gateway whose first lists are late). */
  listsHeldUntil?: Promise<void>,
): Promise<{ upstream: Upstream; received: Received }> {
  const received: Received = { calls: [], reads: [] };
  const record = (name: string) => () => (received.calls.push(name), `${name} ran`);
  const upstream = await serve((app) => {
    const mcp = mcpRouter({
      name: 'files',
      version: '1.0.0',
      logger: { error: jest.fn(), warn: jest.fn() },
      ...options,
    });
    mcp.app({ name: 'viewer', title: 'Viewer', html: HTML, csp: CSP });
    mcp.tool({ name: 'show', description: 'Show the files', ui: 'viewer', handler: record('show') });
    mcp.tool({
      name: 'refresh_view',
      description: 'Refresh what the viewer shows',
      ui: { app: 'viewer', visibility: ['app'] },
      handler: record('refresh_view'),
    });
    mcp.tool({
      name: 'odd_uri',
      description: 'App-only, but its resourceUri is not ui://',
      _meta: { ui: { resourceUri: 'https://files.example.com/view', visibility: ['app'] } },
      handler: record('odd_uri'),
    });
    mcp.tool({
      name: 'odd_visibility',
      description: 'A ui:// link with a visibility nobody defines',
      _meta: { ui: { resourceUri: UPSTREAM_URI, visibility: ['nobody'] } },
      handler: record('odd_visibility'),
    });
    mcp.tool({
      name: 'odd_ui',
      description: 'ui is not an object',
      _meta: { ui: 'viewer' },
      handler: record('odd_ui'),
    });
    mcp.tool({
      name: 'legacy',
      description: 'Only the flat key of older servers',
      _meta: { 'ui/resourceUri': UPSTREAM_URI },
      handler: record('legacy'),
    });
    app.use('/mcp', (req, _res, next) => {
      const body = req.body as { method?: string; params?: { uri?: string } } | undefined;
      if (body?.method === 'resources/read' && typeof body.params?.uri === 'string')
        received.reads.push(body.params.uri);
      if (body?.method === 'tools/list' && listsHeldUntil) void listsHeldUntil.then(() => next());
      else next();
    });
    app.use('/mcp', mcp);
  });
  return { upstream, received };
}

type Tool = { name: string; _meta?: Record<string, unknown> };
interface Downstream {
  listTools(): Promise<{ tools: Tool[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  listResources(): Promise<{ resources: Array<Record<string, unknown>> }>;
  readResource(params: { uri: string }): Promise<{ contents: Array<Record<string, unknown>> }>;
  getServerCapabilities(): { extensions?: Record<string, unknown> } | undefined;
  close(): Promise<void>;
}

const hosts: Downstream[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close().catch(() => undefined)));
});

/** A host: the SDK v1 client in a 2025 session, the extension declared in initialize. */
async function v1Host(url: string): Promise<Downstream> {
  const client = new Client({ name: 'host-v1', version: '1.0.0' }, { capabilities: UI_CAPS } as ConstructorParameters<
    typeof Client
  >[1]);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  hosts.push(client as unknown as Downstream);
  return client as unknown as Downstream;
}

/** A host: the SDK v2 client pinned to 2026-07-28, the extension in each request's `_meta`. */
async function v2Host(url: string): Promise<Downstream> {
  const client = new ClientV2({ name: 'host-v2', version: '2.0.0' }, {
    versionNegotiation: { mode: { pin: '2026-07-28' } },
    capabilities: UI_CAPS,
  } as ConstructorParameters<typeof ClientV2>[1]);
  await client.connect(new TransportV2(new URL(url)));
  hosts.push(client as unknown as Downstream);
  return client as unknown as Downstream;
}

const byName = (tools: Tool[]): Record<string, Tool> => Object.fromEntries(tools.map((tool) => [tool.name, tool]));

describe('naming', () => {
  it('keeps the ui:// scheme, the prefix joining the authority, and maps it back; other schemes as before', () => {
    const naming = namingFor('fs');
    expect(naming.uri('ui://files/viewer')).toBe('ui://fs+files/viewer');
    expect(naming.uri('ui://{app}/view')).toBe('ui://fs+{app}/view');
    expect(naming.uri('file:///etc/motd')).toBe('fs+file:///etc/motd');
    expect(naming.originalUri('ui://fs+files/viewer')).toBe('ui://files/viewer');
    expect(naming.originalUri('fs+file:///etc/motd')).toBe('file:///etc/motd');
    // Another upstream's, or a local app's: not this one's.
    expect(naming.originalUri('ui://fsx+files/viewer')).toBeUndefined();
    expect(naming.originalUri('ui://files/viewer')).toBeUndefined();
    expect(namingFor('ui').originalUri('ui+file:///x')).toBe('file:///x');
    expect(namingFor(undefined).uri('ui://files/viewer')).toBe('ui://files/viewer');
  });
});

describe.each([
  { upstreamEra: '2026', options: {} },
  { upstreamEra: '2025 (sessions)', options: { eras: ['2025'], sessions: {} } },
] as const)('a $upstreamEra upstream with an app, under prefix "fs"', ({ options }) => {
  const mount = async () => {
    const { upstream, received } = await appsUpstream(options as Partial<McpRouterOptions>);
    const gw = await gateway({}, (mcp) => mcp.upstream({ prefix: 'fs', url: upstream.url }));
    return { gw, received };
  };

  it.each([
    { title: 'SDK v1 host (2025 session)', connect: v1Host },
    { title: 'SDK v2 host (2026-07-28)', connect: v2Host },
  ])('a $title sees the app under its ui:// URI, reads it, and calls the app-only tool', async ({ connect }) => {
    const { gw, received } = await mount();
    const host = await connect(gw.url);
    expect(host.getServerCapabilities()?.extensions).toEqual({ [UI]: {} });

    const { resources } = await host.listResources();
    expect(resources).toEqual([
      { uri: DOWNSTREAM_URI, name: 'viewer', title: 'Viewer', mimeType: MIME, _meta: { ui: { csp: CSP } } },
    ]);
    const read = await host.readResource({ uri: DOWNSTREAM_URI });
    expect(read.contents).toEqual([{ uri: DOWNSTREAM_URI, mimeType: MIME, text: HTML, _meta: { ui: { csp: CSP } } }]);
    expect(received.reads).toEqual([UPSTREAM_URI]);

    const tools = byName((await host.listTools()).tools);
    expect(tools.fs__show!._meta).toEqual({ ui: { resourceUri: DOWNSTREAM_URI }, 'ui/resourceUri': DOWNSTREAM_URI });
    expect(tools.fs__refresh_view!._meta).toEqual({
      ui: { resourceUri: DOWNSTREAM_URI, visibility: ['app'] },
      'ui/resourceUri': DOWNSTREAM_URI,
    });
    const result = (await host.callTool({ name: 'fs__refresh_view', arguments: {} })) as { content: unknown };
    expect(result.content).toEqual([{ type: 'text', text: 'refresh_view ran' }]);
    expect(received.calls).toEqual(['refresh_view']);
  });

  it.each([
    { title: 'SDK v1 client (2025 session)', connect: v1Client },
    { title: 'SDK v2 client (2026-07-28)', connect: v2Client },
  ])('a $title without the extension neither lists nor calls the app-only tool', async ({ connect }) => {
    const { gw, received } = await mount();
    // The gateway has it (a host sees it): hidden from this client by the gateway, not by the upstream.
    const seenByHost = (await (await v2Host(gw.url)).listTools()).tools.map((tool) => tool.name);
    expect(seenByHost).toContain('fs__refresh_view');
    const client = (await connect(gw.url)) as unknown as Downstream;
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names.sort()).toEqual(['fs__legacy', 'fs__odd_ui', 'fs__odd_uri', 'fs__odd_visibility', 'fs__show']);
    await expect(client.callTool({ name: 'fs__refresh_view', arguments: {} })).rejects.toThrow(
      /Unknown tool: fs__refresh_view/,
    );
    await client.callTool({ name: 'fs__show', arguments: {} });
    expect(received.calls).toEqual(['show']);
  });

  it('passes links it cannot use on as sent, and counts them visible to the model', async () => {
    const { gw, received } = await mount();
    const tools = byName((await (await v2Client(gw.url)).listTools()).tools as Tool[]);
    expect(tools.fs__odd_uri!._meta).toEqual({
      ui: { resourceUri: 'https://files.example.com/view', visibility: ['app'] },
    });
    expect(tools.fs__odd_visibility!._meta).toEqual({ ui: { resourceUri: DOWNSTREAM_URI, visibility: ['nobody'] } });
    expect(tools.fs__odd_ui!._meta).toEqual({ ui: 'viewer' });
    expect(tools.fs__legacy!._meta).toEqual({ 'ui/resourceUri': DOWNSTREAM_URI });
    const client = await v1Client(gw.url);
    await client.callTool({ name: 'fs__odd_uri', arguments: {} });
    expect(received.calls).toEqual(['odd_uri']);
  });
});

describe('the extension, declared', () => {
  it('by a gateway whose upstream serves apps, and not by one whose upstream does not', async () => {
    const { upstream } = await appsUpstream();
    const plain = await serve((app) => {
      const mcp = mcpRouter({ name: 'plain', version: '1.0.0' });
      mcp.tool({ name: 'echo', description: 'Echo', handler: () => 'echo' });
      app.use('/mcp', mcp);
    });
    const withApps = await gateway({}, (mcp) => mcp.upstream({ prefix: 'fs', url: upstream.url }));
    const without = await gateway({}, (mcp) => mcp.upstream({ prefix: 'p', url: plain.url }));
    expect((await v1Client(withApps.url)).getServerCapabilities()?.extensions).toEqual({ [UI]: {} });
    expect((await v1Client(without.url)).getServerCapabilities()?.extensions).toBeUndefined();
  });
});

describe('a plain proxy (no prefix)', () => {
  it('shows the app and its links under the upstream URI, and still hides the app-only tool', async () => {
    const { upstream, received } = await appsUpstream();
    const gw = await gateway({}, (mcp) => mcp.upstream({ name: 'files', url: upstream.url }));
    const host = await v2Host(gw.url);
    expect((await host.listResources()).resources.map((resource) => resource.uri)).toEqual([UPSTREAM_URI]);
    expect((await host.readResource({ uri: UPSTREAM_URI })).contents[0]).toMatchObject({
      uri: UPSTREAM_URI,
      text: HTML,
    });
    expect(byName((await host.listTools()).tools).show!._meta).toEqual({
      ui: { resourceUri: UPSTREAM_URI },
      'ui/resourceUri': UPSTREAM_URI,
    });
    const model = await v2Client(gw.url);
    expect((await model.listTools()).tools.map((tool) => tool.name)).not.toContain('refresh_view');
    await expect(model.callTool({ name: 'refresh_view', arguments: {} })).rejects.toThrow(/Unknown tool/);
    expect(received.calls).toEqual([]);
  });
});

describe("requests that arrive before the upstream's first lists", () => {
  /** A gateway whose upstream holds its tools back until a request has reached the gateway. */
  async function lateLists() {
    let release: () => void = () => undefined;
    const { upstream, received } = await appsUpstream({}, new Promise<void>((resolve) => (release = resolve)));
    const mcp = mcpRouter({ name: 'gateway', version: '1.0.0', logger: { error: jest.fn(), warn: jest.fn() } });
    mcp.upstream({ prefix: 'fs', url: upstream.url });
    const app = express().use('/mcp', (_req, _res, next) => (release(), next()), mcp);
    return { app, mcp, received };
  }

  // A 2026 request needs no initialize: each is the gateway's first, and finds the lists pending.
  it('a tools/call waits for them, then refuses the app-only tool to a client without the extension', async () => {
    const { app, mcp, received } = await lateLists();
    try {
      const res = await modern(app, 'tools/call', { name: 'fs__refresh_view', arguments: {} });
      expect(res.body.error).toMatchObject({ code: -32602, message: 'Unknown tool: fs__refresh_view' });
      expect(received.calls).toEqual([]);
    } finally {
      await mcp.close();
    }
  });

  it('a tools/list waits for them, and leaves the app-only tool out for a client without the extension', async () => {
    const { app, mcp } = await lateLists();
    try {
      const res = await modern(app, 'tools/list');
      const names = (res.body.result.tools as Array<{ name: string }>).map((tool) => tool.name);
      expect(names).toContain('fs__show');
      expect(names).not.toContain('fs__refresh_view');
    } finally {
      await mcp.close();
    }
  });
});
