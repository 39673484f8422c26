// Gateway lists end to end: the merged list paginated by us, an upstream's paginated list fetched whole, upstream list_changed → ours (once per refresh, both eras), refresh(), remove().

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';
import { mcpRouter, type McpRouter, type McpRouterOptions } from '../../../lib';
import { MCP_ACCEPT, rpc } from '../../helpers/messages';
import { envelope, MODERN } from '../../helpers/modern';
import { messageOf, SseReader, type SseEvent } from '../../helpers/sse';
import {
  closeAfterEach,
  closeGatewaysAfterEach,
  gateway,
  hasAnswered,
  routerUpstream,
  routerUpstreamWithApi,
  sdkUpstreamWithServers,
  sdkV2Upstream,
  serve,
  type Upstream,
  v1Client,
  waitFor,
} from './upstreams';
import { Signal } from '../../helpers/events';
import { scaled } from '../../helpers/time-scale';

closeGatewaysAfterEach();
closeAfterEach();

const TOOLS_CHANGED = 'notifications/tools/list_changed';
const readers: SseReader[] = [];
afterEach(async () => {
  await Promise.all(readers.splice(0).map((reader) => reader.cancel()));
});

/** Every tool name of the gateway, page by page, as the SDK v1 client sees them. */
async function allPages(client: Awaited<ReturnType<typeof v1Client>>): Promise<{ names: string[]; pages: number }> {
  const names: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    names.push(...page.tools.map((tool) => tool.name));
    cursor = page.nextCursor;
    pages++;
  } while (cursor !== undefined && pages < 50);
  return { names, pages };
}

/** A 2025 downstream session counting the tools/list_changed it hears on its GET stream (open once this resolves). */
async function listening2025(
  url: string,
  gateway: Pick<Upstream, 'seen' | 'recorded'>,
): Promise<{ client: Awaited<ReturnType<typeof v1Client>>; heard: () => number; told: Signal }> {
  const client = await v1Client(url);
  let heard = 0;
  const told = new Signal();
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    heard++;
    told.notify();
  });
  await waitFor(() => gateway.seen.some((request) => request.http === 'GET'), gateway.recorded);
  return { client, heard: () => heard, told };
}

/** A 2026 downstream `subscriptions/listen` stream on the gateway, counting its tools/list_changed (acknowledged once this resolves). */
async function listening2026(url: string): Promise<{ heard: () => number; told: Signal }> {
  const body = rpc('subscriptions/listen', { notifications: { toolsListChanged: true }, _meta: envelope() }, 'sub-1');
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: MCP_ACCEPT,
      'MCP-Protocol-Version': MODERN,
      'Mcp-Method': 'subscriptions/listen',
    },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  const reader = new SseReader(res.body as ReadableStream<Uint8Array>);
  readers.push(reader);
  const ack = messageOf((await reader.next()) as SseEvent);
  expect(ack).toEqual(expect.objectContaining({ method: 'notifications/subscriptions/acknowledged' }));
  let heard = 0;
  const told = new Signal();
  void (async () => {
    for (let event = await reader.next(); event !== undefined; event = await reader.next().catch(() => undefined)) {
      if (messageOf(event)?.method === TOOLS_CHANGED) heard++;
      told.notify();
    }
  })();
  return { heard: () => heard, told };
}

/**
 * Waits until `count()` reaches 1, then checks it was one notification, not one per item: makes `another` change and
 * waits for its notification; a second one for the first change would have come before it, so the count must be 2.
 */
async function exactlyOne(count: () => number, told: Signal, another: () => void): Promise<void> {
  await waitFor(() => count() >= 1, told);
  another();
  await waitFor(() => count() >= 2, told);
  expect(count()).toBe(2);
}

describe('pagination', () => {
  it('pages the merged list (local + two upstreams, one paginating its own list) with every item exactly once, in the same order each time', async () => {
    const first = await routerUpstream({});
    const second = await routerUpstream({ pageSize: 2 });
    const gw = await gateway({ pageSize: 2 }, (mcp) => {
      for (const name of ['l1', 'l2', 'l3']) mcp.tool({ name, description: name, handler: () => name });
      mcp.upstream({ prefix: 'a', url: first.url });
      mcp.upstream({ prefix: 'b', url: second.url });
    });
    const client = await v1Client(gw.url);
    const once = await allPages(client);
    const upstreamTools = ['add', 'count', 'hang', 'refuse'];
    const expected = [
      'l1',
      'l2',
      'l3',
      ...upstreamTools.map((name) => `a__${name}`),
      ...upstreamTools.map((name) => `b__${name}`),
    ];
    expect([...once.names].sort()).toEqual(expected.sort());
    expect(new Set(once.names).size).toBe(once.names.length);
    expect(once.pages).toBe(Math.ceil(expected.length / 2));
    expect((await allPages(client)).names).toEqual(once.names);
    // Local items first; each upstream's items in the upstream's own order (across its pages, for the second).
    expect(once.names.slice(0, 3)).toEqual(['l1', 'l2', 'l3']);
    const upstreamOrder = ['add', 'refuse', 'count', 'hang'];
    for (const prefix of ['a', 'b'])
      expect(once.names.filter((name) => name.startsWith(`${prefix}__`))).toEqual(
        upstreamOrder.map((name) => `${prefix}__${name}`),
      );
    // The upstream answered its own list in pages of two: the gateway read them all.
    expect(second.seen.filter((request) => request.rpc === 'tools/list').length).toBeGreaterThanOrEqual(2);
  });
});

describe('merge order', () => {
  it("is the router's own items, then the upstreams in mount order, whichever answers first and whenever local items are registered", async () => {
    const slow = await serve((app) => {
      app.use((req, _res, next) => {
        if ((req.body as { method?: string } | undefined)?.method === 'tools/list') setTimeout(next, 400).unref();
        else next();
      });
      const mcp = mcpRouter({ name: 'slow', version: '1.0.0', logger: { error: jest.fn(), warn: jest.fn() } });
      mcp.tool({ name: 'first', description: 'first', handler: () => 'first' });
      app.use('/mcp', mcp);
    });
    const fast = await routerUpstream({});
    const gw = await gateway({}, (mcp) => {
      mcp.upstream({ prefix: 'a', url: slow.url, listTimeoutMs: scaled(3000) });
      mcp.upstream({ prefix: 'b', url: fast.url });
    });
    const client = await v1Client(gw.url);
    // Registered after both upstreams' lists are in: still listed first.
    gw.mcp.tool({ name: 'late_local', description: 'late', handler: () => 'late' });
    const names = (await allPages(client)).names;
    expect(names[0]).toBe('late_local');
    expect(names[1]).toBe('a__first');
    expect(names.slice(2).every((name) => name.startsWith('b__'))).toBe(true);
  });
});

describe('upstream list_changed → downstream list_changed', () => {
  it('a 2025 downstream session hears one on its GET stream when an SDK v1 upstream (2025 session) adds a tool after connect', async () => {
    const servers: McpServer[] = [];
    const upstream = await sdkUpstreamWithServers((server) => servers.push(server));
    const gw = await gateway({}, (mcp) => mcp.upstream({ prefix: 'v1', url: upstream.url }));
    const down = await listening2025(gw.url, gw.upstream);
    // The gateway listens on the upstream session's GET stream.
    await waitFor(() => upstream.seen.some((request) => request.http === 'GET'), upstream.recorded);
    servers[0]!.registerTool('late', { description: 'Late', inputSchema: { x: z.string() } }, async () => ({
      content: [],
    }));
    await waitFor(() => down.heard() >= 1, down.told);
    expect((await down.client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['v1__add', 'v1__late']);
    await exactlyOne(down.heard, down.told, () =>
      servers[0]!.registerTool('marker', { description: 'Marker' }, async () => ({ content: [] })),
    );
  });

  it.each([
    { title: 'this router (2025 session, GET stream)', options: { eras: ['2025'], sessions: {} } },
    { title: 'this router (2026, subscriptions/listen)', options: {} },
  ] as const)(
    'a 2025 downstream session hears exactly one when $title adds three tools at once',
    async ({ options }) => {
      const { upstream, mcp: upstreamMcp } = await routerUpstreamWithApi(options as Partial<McpRouterOptions>);
      const gw = await gateway({}, (mcp) => mcp.upstream({ prefix: 'r', url: upstream.url }));
      const down = await listening2025(gw.url, gw.upstream);
      await waitFor(
        () => upstream.seen.some((request) => request.http === 'GET' || request.rpc === 'subscriptions/listen'),
        upstream.recorded,
      );
      for (const name of ['n1', 'n2', 'n3']) upstreamMcp.tool({ name, description: name, handler: () => name });
      await exactlyOne(down.heard, down.told, () =>
        upstreamMcp.tool({ name: 'marker', description: 'marker', handler: () => '' }),
      );
      expect((await down.client.listTools()).tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(['r__n1', 'r__n2', 'r__n3']),
      );
    },
  );

  it('a 2026 downstream subscriptions/listen stream hears exactly one when an SDK v2 upstream (2026) changes its tools', async () => {
    const v2 = await sdkV2Upstream(['one']);
    const gw = await gateway({}, (mcp) => mcp.upstream({ prefix: 'v2', url: v2.upstream.url }));
    const down = await listening2026(gw.url);
    // The upstream keeps the listen stream before it answers its head.
    await waitFor(() => hasAnswered(v2.upstream, 'subscriptions/listen'), v2.upstream.recorded);
    v2.tools.push('two', 'three');
    v2.toolsChanged();
    await waitFor(() => down.heard() >= 1, down.told);
    const client = await v1Client(gw.url);
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual([
      'v2__one',
      'v2__three',
      'v2__two',
    ]);
    await exactlyOne(down.heard, down.told, () => {
      v2.tools.push('marker');
      v2.toolsChanged();
    });
  });

  it('a 2026 downstream subscriptions/listen stream hears exactly one when this router (2026) adds three tools', async () => {
    const { upstream, mcp: upstreamMcp } = await routerUpstreamWithApi({});
    const gw = await gateway({}, (mcp) => mcp.upstream({ prefix: 'r', url: upstream.url }));
    const down = await listening2026(gw.url);
    await waitFor(() => hasAnswered(upstream, 'subscriptions/listen'), upstream.recorded);
    for (const name of ['n1', 'n2', 'n3']) upstreamMcp.tool({ name, description: name, handler: () => name });
    await exactlyOne(down.heard, down.told, () =>
      upstreamMcp.tool({ name: 'marker', description: 'marker', handler: () => '' }),
    );
  });
});

describe('refresh() and remove()', () => {
  it('refresh() picks up the changes of an upstream that does not announce them', async () => {
    const { upstream, mcp: upstreamMcp } = await routerUpstreamWithApi({ sessions: false, listen: false });
    let handle: ReturnType<McpRouter['upstream']> | undefined;
    const gw = await gateway({}, (mcp) => {
      handle = mcp.upstream({ prefix: 'q', url: upstream.url });
    });
    const client = await v1Client(gw.url);
    const names = async (): Promise<string[]> => (await client.listTools()).tools.map((tool) => tool.name);
    expect(await names()).not.toContain('q__quiet');
    upstreamMcp.tool({ name: 'quiet', description: 'Added without a notification', handler: () => 'quiet' });
    // A stream would have been opened when the lists arrived, before this call goes through the gateway.
    await client.callTool({ name: 'q__add', arguments: { a: 1, b: 2 } });
    // No listChanged declared: the gateway opened no stream and has not seen the change yet.
    expect(upstream.seen.some((request) => request.rpc === 'subscriptions/listen' || request.http === 'GET')).toBe(
      false,
    );
    expect(await names()).not.toContain('q__quiet');
    const status = await handle!.refresh();
    expect(status.state).toBe('healthy');
    expect(status.items.tools).toBe(5);
    expect(await names()).toContain('q__quiet');
  });

  it.each([
    { title: 'an SDK v1 upstream (2025 session): its session is DELETEd', era: '2025' },
    { title: 'this router (2026)', era: '2026' },
  ] as const)('remove() takes every item of $title off, and the downstream hears list_changed', async ({ era }) => {
    const upstream =
      era === '2025' ? await sdkUpstreamWithServers(() => undefined) : (await routerUpstreamWithApi({})).upstream;
    let handle: ReturnType<McpRouter['upstream']> | undefined;
    const gw = await gateway({}, (mcp) => {
      mcp.tool({ name: 'local', description: 'Local', handler: () => 'local' });
      handle = mcp.upstream({ prefix: 'gone', url: upstream.url });
    });
    const down = await listening2025(gw.url, gw.upstream);
    expect((await down.client.listTools()).tools.some((tool) => tool.name.startsWith('gone__'))).toBe(true);
    await handle!.remove();
    expect((await down.client.listTools()).tools.map((tool) => tool.name)).toEqual(['local']);
    expect(handle!.status().state).toBe('removed');
    await waitFor(() => down.heard() >= 1, down.told);
    if (era === '2025') {
      const session = upstream.seen.find((request) => request.session !== undefined)?.session;
      expect(session).toBeDefined();
      expect(upstream.seen.filter((request) => request.http === 'DELETE').map((request) => request.session)).toEqual([
        session,
      ]);
    }
  });
});
