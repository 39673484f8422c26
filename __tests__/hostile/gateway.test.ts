// A hostile upstream (issue 29 §9): what one upstream may contribute is capped per item and per upstream, the skipped
// report and the warnings stay bounded, and serving the router's lists never costs more than the caps.

import { McpConfigError, mcpRouter, type McpRouter, type UpstreamOptions } from '../../lib';
import type { UpstreamHandle } from '../../lib/features/gateway/mount/upstream';
import { MCP_ACCEPT, rpc } from '../helpers/messages';
import { envelope, MODERN } from '../helpers/modern';
import {
  closeAfterEach,
  closeGatewaysAfterEach,
  gateway,
  serve,
  type Gateway,
  type Upstream,
} from '../features/gateway/upstreams';

closeGatewaysAfterEach();
closeAfterEach();

// Megabytes cross a loopback socket several times per test: generous, for a machine shared with other test runs.
jest.setTimeout(30_000);

type Entry = Record<string, unknown>;
/** Each list of the upstream, page by page. */
type Pages = Partial<Record<'tools' | 'prompts' | 'resources' | 'resourceTemplates', Entry[][]>>;

const LIST_FIELD: Readonly<Record<string, keyof Pages>> = {
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
};
const KB = 1024;
const MB = 1024 * KB;

/**
 * A tiny malicious upstream: a 2025 server without sessions (no `server/discover`) answering its lists page by page
 * as given, each page under the gateway's 4 MB message cap.
 */
function hostileUpstream(pages: Pages): Promise<Upstream> {
  return serve((app) => {
    app.post('/mcp', (req, res) => {
      const { id, method, params } = req.body as { id?: number; method: string; params?: { cursor?: string } };
      if (id === undefined) return void res.status(202).end();
      const reply = (result: unknown): void => void res.json({ jsonrpc: '2.0', id, result });
      if (method === 'initialize')
        return reply({
          protocolVersion: '2025-06-18',
          capabilities: { tools: {}, prompts: {}, resources: {} },
          serverInfo: { name: 'evil', version: '1' },
        });
      const field = LIST_FIELD[method];
      if (field === undefined)
        return void res.json({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } });
      const list = pages[field] ?? [[]];
      const page = Number(params?.cursor ?? 0);
      reply({ [field]: list[page] ?? [], ...(page + 1 < list.length ? { nextCursor: String(page + 1) } : {}) });
    });
  });
}

/** `count` tools named `${name}_<i>`, each `bytes` of description. */
function tools(name: string, count: number, bytes: number): Entry[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `${name}_${i}`,
    description: 'd'.repeat(bytes),
    inputSchema: { type: 'object' },
  }));
}

/** A gateway mounting `upstream` under prefix `evil`, once its first lists are in. */
async function mount(
  upstream: Upstream,
  extra: Record<string, unknown> = {},
): Promise<{ gw: Gateway; handle: UpstreamHandle }> {
  let handle: UpstreamHandle | undefined;
  const gw = await gateway({ rateLimit: false }, (mcp: McpRouter) => {
    handle = mcp.upstream({ prefix: 'evil', url: upstream.url, ...extra });
  });
  await handle!.refresh();
  return { gw, handle: handle! };
}

/** Every page of one of the router's lists (2026, stateless): the bytes of all its responses and the entries. */
async function listAll(url: string, method: string, field: string): Promise<{ bytes: number; entries: Entry[] }> {
  let bytes = 0;
  const entries: Entry[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: MCP_ACCEPT,
        'MCP-Protocol-Version': MODERN,
        'Mcp-Method': method,
      },
      body: JSON.stringify(rpc(method, { ...(cursor === undefined ? {} : { cursor }), _meta: envelope() })),
    });
    const text = await res.text();
    bytes += Buffer.byteLength(text);
    const { result } = JSON.parse(text) as { result: Record<string, unknown> };
    entries.push(...(result[field] as Entry[]));
    cursor = result.nextCursor as string | undefined;
    if (cursor === undefined) break;
  }
  return { bytes, entries };
}

describe('items over their caps are skipped, not mounted', () => {
  it('tools of 3.5 MB descriptions (each page under the message cap) are not mounted: tools/list stays small', async () => {
    const evil = tools('huge', 6, 3.5 * MB).map((tool) => [tool]);
    const { gw, handle } = await mount(
      await hostileUpstream({
        tools: [[{ name: 'fine', description: 'A fine tool', inputSchema: { type: 'object' } }], ...evil],
      }),
    );
    const { bytes, entries } = await listAll(gw.url, 'tools/list', 'tools');
    expect(entries.map((tool) => tool.name)).toEqual(['evil__fine']);
    expect(bytes).toBeLessThan(4 * KB);
    const status = handle.status();
    expect(status.items.tools).toBe(1);
    expect(status.skippedCount).toBe(6);
    expect(status.skipped).toHaveLength(6);
    expect(status.skipped[0]).toEqual({
      kind: 'tool',
      name: 'huge_0',
      reason: expect.stringMatching(/description is 3670016 bytes, over limits\.maxDescriptionBytes \(8192\)/),
    });
  });

  it.each([
    [
      'an inputSchema over maxSchemaBytes',
      { name: 't', description: 'x', inputSchema: { type: 'object', description: 's'.repeat(70 * KB) } },
      /inputSchema is \d+ bytes, over limits\.maxSchemaBytes \(65536\)/,
    ],
    [
      'an outputSchema over maxSchemaBytes',
      {
        name: 't',
        description: 'x',
        inputSchema: { type: 'object' },
        outputSchema: { type: 'object', title: 's'.repeat(70 * KB) },
      },
      /outputSchema is \d+ bytes, over limits\.maxSchemaBytes/,
    ],
    [
      'a _meta that makes the item over maxItemBytes',
      { name: 't', description: 'x', inputSchema: { type: 'object' }, _meta: { junk: 'j'.repeat(300 * KB) } },
      /is \d+ bytes of JSON, over limits\.maxItemBytes \(262144\)/,
    ],
    [
      'a title of 1 MB',
      { name: 't', title: 'T'.repeat(MB), inputSchema: { type: 'object' } },
      /over limits\.maxItemBytes/,
    ],
  ])('a tool with %s', async (_what, tool, reason) => {
    const { gw, handle } = await mount(await hostileUpstream({ tools: [[tool]] }));
    expect((await listAll(gw.url, 'tools/list', 'tools')).entries).toEqual([]);
    expect(handle.status().skipped).toEqual([{ kind: 'tool', name: 't', reason: expect.stringMatching(reason) }]);
    expect(gw.warnings()).toMatch(/tool 't' is not mounted/);
  });

  it('prompts, resources and templates are capped too: prompt argument descriptions, resource names and annotations', async () => {
    const { gw, handle } = await mount(
      await hostileUpstream({
        prompts: [
          [
            { name: 'p', arguments: [{ name: 'a', description: 'a'.repeat(9 * KB) }] },
            { name: 'ok', description: 'fine' },
          ],
        ],
        resources: [
          [
            { uri: 'evil://r', name: 'n'.repeat(300 * KB) },
            { uri: 'evil://ok', name: 'ok' },
          ],
        ],
        resourceTemplates: [
          [{ uriTemplate: 'evil://{x}', name: 'tpl', annotations: { audience: ['a'.repeat(300 * KB)] } }],
        ],
      }),
    );
    expect((await listAll(gw.url, 'prompts/list', 'prompts')).entries.map((prompt) => prompt.name)).toEqual([
      'evil__ok',
    ]);
    expect((await listAll(gw.url, 'resources/list', 'resources')).entries.map((resource) => resource.uri)).toEqual([
      'evil+evil://ok',
    ]);
    expect((await listAll(gw.url, 'resources/templates/list', 'resourceTemplates')).entries).toEqual([]);
    expect(
      handle
        .status()
        .skipped.map(({ kind, name, reason }) => `${kind} ${name}: ${reason.replace(/ is \d+ bytes.*/, '')}`),
    ).toEqual(["prompt p: argument 'a' description", 'resource evil://r: it', 'resource template evil://{x}: it']);
  });

  it('the caps are set per upstream: limits', async () => {
    const upstream = await hostileUpstream({ tools: [tools('long', 2, 20 * KB)] });
    const { gw, handle } = await mount(upstream, { limits: { maxDescriptionBytes: 32 * KB } });
    expect((await listAll(gw.url, 'tools/list', 'tools')).entries).toHaveLength(2);
    expect(handle.status().skipped).toEqual([]);
    const strict = await mount(upstream, { name: 'strict', prefix: 'strict', limits: { maxItemBytes: KB } });
    expect(strict.handle.status().skipped.map((skipped) => skipped.reason)).toEqual([
      expect.stringMatching(/maxDescriptionBytes \(8192\)/),
      expect.stringMatching(/maxDescriptionBytes \(8192\)/),
    ]);
  });
});

describe('what one upstream lists in all is capped: maxListBytes', () => {
  it('lists over 2 MB in all are cut at 2 MB, with one warning per sync; the router serves at most that', async () => {
    // 4 pages of 100 tools of ~7.5 KB (each under every item cap): 3 MB of tools, then prompts that no longer fit.
    const pages = [0, 1, 2, 3].map((page) => tools(`p${page}`, 100, 7.5 * KB));
    const { gw, handle } = await mount(
      await hostileUpstream({ tools: pages, prompts: [[{ name: 'late', description: 'after the cut' }]] }),
    );
    const listed = await listAll(gw.url, 'tools/list', 'tools');
    expect(listed.bytes).toBeLessThan(2 * MB + 64 * KB);
    expect(listed.entries.length).toBeGreaterThan(250);
    expect(listed.entries.length).toBeLessThan(280);
    expect((await listAll(gw.url, 'prompts/list', 'prompts')).entries).toEqual([]);
    const status = handle.status();
    expect(status.listsCut).toBe(true);
    expect(status.skipped).toEqual([]);
    const cuts = gw.logger.warn.mock.calls.filter((call: unknown[]) =>
      String((call[0] as Error).message).includes('maxListBytes'),
    );
    expect(cuts).toHaveLength(1);
    await handle.refresh();
    // The same cut at the next sync is not told again.
    expect(
      gw.logger.warn.mock.calls.filter((call: unknown[]) =>
        String((call[0] as Error).message).includes('maxListBytes'),
      ),
    ).toHaveLength(1);
  });

  it('a smaller maxListBytes cuts sooner', async () => {
    const { gw, handle } = await mount(await hostileUpstream({ tools: [tools('t', 50, KB)] }), {
      limits: { maxListBytes: 10 * KB },
    });
    const listed = await listAll(gw.url, 'tools/list', 'tools');
    expect(listed.entries.length).toBeGreaterThan(5);
    expect(listed.entries.length).toBeLessThan(10);
    expect(handle.status().listsCut).toBe(true);
  });
});

describe('the skipped report and the warnings stay bounded', () => {
  it('3,000 invalid items: status().skipped keeps the first 100 and counts them all; one warning, not 3,000', async () => {
    const invalid = [0, 1, 2].map((page) =>
      Array.from({ length: 1000 }, (_, i) => ({ name: `bad name ${page}-${i}`, inputSchema: { type: 'object' } })),
    );
    const { gw, handle } = await mount(await hostileUpstream({ tools: invalid }));
    const status = handle.status();
    expect(status.skippedCount).toBe(3000);
    expect(status.skipped).toHaveLength(100);
    expect(gw.logger.warn).toHaveBeenCalledTimes(1);
    expect(gw.warnings()).toMatch(
      /3000 items are not mounted .*: tool 'bad name 0-0' is not mounted: .*; and 2995 more$/,
    );
  });

  it('a name of 1 MB is reported cut short', async () => {
    const { handle } = await mount(
      await hostileUpstream({ tools: [[{ name: 'n'.repeat(MB), inputSchema: { type: 'object' } }]] }),
    );
    const [skipped] = handle.status().skipped;
    expect(skipped?.name.length).toBeLessThanOrEqual(130);
    expect(skipped?.reason.length).toBeLessThanOrEqual(300);
  });
});

describe('limits are checked at mcp.upstream()', () => {
  function configError(limits: unknown): McpConfigError {
    let error: unknown;
    try {
      mcpRouter({ name: 'g', version: '1' }).upstream({
        prefix: 'p',
        url: 'http://127.0.0.1:1/mcp',
        limits,
      } as UpstreamOptions);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(McpConfigError);
    return error as McpConfigError;
  }

  it.each([
    [
      { maxDescriptionByte: 1 },
      'ERR_MCP_UNKNOWN_OPTION',
      /upstream 'p': unknown option 'limits\.maxDescriptionByte'\. Did you mean 'limits\.maxDescriptionBytes'\?/,
    ],
    [{ maxSchemaBytes: -1 }, 'ERR_MCP_INVALID_OPTION', /upstream 'p': option 'limits\.maxSchemaBytes' must be/],
    [{ maxItemBytes: '64k' }, 'ERR_MCP_INVALID_OPTION', /upstream 'p': option 'limits\.maxItemBytes' must be/],
    [{ maxListBytes: 1.5 }, 'ERR_MCP_INVALID_OPTION', /upstream 'p': option 'limits\.maxListBytes' must be/],
    ['big', 'ERR_MCP_INVALID_OPTION', /upstream 'p': option 'limits' must be/],
  ])('%j → %s', (limits, code, message) => {
    const error = configError(limits);
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
  });
});
