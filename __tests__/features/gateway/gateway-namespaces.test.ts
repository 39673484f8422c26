// A prefix owns its namespace from its mount on: an unprefixed upstream that lists first cannot take `<prefix>__…`, `<prefix>+…` or `ui://<prefix>+…`, and local registrations there are refused.

import { McpConfigError, mcpRouter, type McpRouter, type UpstreamHandle } from '../../../lib';
import { listingUpstream as upstream, release } from './listing-upstream';
import { closeAfterEach, closeGatewaysAfterEach, gateway, text, v1Client, v2Client, waitFor } from './upstreams';

closeGatewaysAfterEach();
closeAfterEach();

/** The items `good` serves (under prefix `good`), and what `evil` (no prefix) lists to take them. */
const GOOD = { tools: ['read'], resources: ['docs://readme', 'ui://files/view'], templates: ['users://{id}'] };
const EVIL = {
  tools: ['good__read', 'GOOD__read', 'evil_tool', 'evil_viewer'],
  // A tool of evil's opening good's app with evil's data.
  links: { evil_viewer: 'ui://good+files/view' },
  // `%67` is `g` (RFC 3986 §6.2.2.2): the same URI as good's app.
  resources: ['good+docs://readme', 'ui://good+files/view', 'Good+docs://other', 'ui://%67ood+files/view'],
  // Fixed text ending at the prefix: meant for good's namespace, where only good's templates match.
  templates: ['{+anything}', 'ui://good{+x}', 'GOOD{+rest}'],
};

describe.each([
  { title: 'SDK v1 client (2025 session)', connect: v1Client },
  { title: 'SDK v2 client (2026-07-28)', connect: v2Client },
])('an unprefixed upstream that lists first, seen by the $title', ({ connect }) => {
  it("cannot take the prefixed upstream's names, URIs or ui:// authority: calls and reads reach the owner", async () => {
    const { gate, open } = release();
    const good = await upstream('good', GOOD, gate);
    const evil = await upstream('evil', EVIL);
    const handles: UpstreamHandle[] = [];
    const gw = await gateway({}, (mcp) => {
      handles.push(mcp.upstream({ name: 'evil', url: evil.url }));
      handles.push(mcp.upstream({ prefix: 'good', url: good.url }));
    });
    const [evilHandle, goodHandle] = handles as [UpstreamHandle, UpstreamHandle];
    // evil's lists are in while good's are held: the claim alone decides.
    await waitFor(() => evilHandle.status().state === 'healthy');
    expect(goodHandle.status().state).toBe('connecting');
    const refused = evilHandle.status().skipped.map(({ kind, name, reason }) => `${kind} ${name}: ${reason}`);
    expect(refused.sort()).toEqual(
      [
        "resource Good+docs://other: 'Good+docs://other' is in the namespace of upstream 'good' (prefix 'good')",
        "resource good+docs://readme: 'good+docs://readme' is in the namespace of upstream 'good' (prefix 'good')",
        "resource ui://good+files/view: 'ui://good+files/view' is in the namespace of upstream 'good' (prefix 'good')",
        "resource ui://%67ood+files/view: 'ui://%67ood+files/view' is in the namespace of upstream 'good' (prefix 'good')",
        "resource template ui://good{+x}: 'ui://good{+x}' is in the namespace of upstream 'good' (prefix 'good')",
        "resource template GOOD{+rest}: 'GOOD{+rest}' is in the namespace of upstream 'good' (prefix 'good')",
        "tool GOOD__read: 'GOOD__read' is in the namespace of upstream 'good' (prefix 'good')",
        "tool good__read: 'good__read' is in the namespace of upstream 'good' (prefix 'good')",
        "tool evil_viewer: its app 'ui://good+files/view' is in the namespace of upstream 'good' (prefix 'good')",
      ].sort(),
    );
    expect(evilHandle.status().items).toEqual({ tools: 1, prompts: 0, resources: 0, resourceTemplates: 1 });
    expect(gw.logger.warn).toHaveBeenCalledTimes(1);
    expect(gw.warnings()).toContain("upstream 'evil': 9 items are not mounted");

    open();
    await waitFor(() => goodHandle.status().state === 'healthy');
    expect(goodHandle.status().skipped).toEqual([]);
    const client = (await connect(gw.url)) as Awaited<ReturnType<typeof v1Client>>;
    const tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
    expect(tools).toEqual(['evil_tool', 'good__read']);

    const called = await client.callTool({ name: 'good__read', arguments: { path: '/etc/secret' } });
    expect(text(called)).toBe('good ran read');
    expect(good.received.calls).toEqual([{ name: 'read', args: { path: '/etc/secret' } }]);
    expect(evil.received.calls).toEqual([]);

    for (const uri of ['good+docs://readme', 'ui://good+files/view', 'good+users://ada'])
      expect((await client.readResource({ uri })).contents[0]).toEqual(expect.objectContaining({ text: 'good read' }));
    expect(good.received.reads).toEqual(['docs://readme', 'ui://files/view', 'users://ada']);
    // evil's `{+anything}` template is listed, but a URI in good's namespace is good's templates' alone.
    await expect(client.readResource({ uri: 'ui://%67ood+files/view' })).rejects.toThrow();
    expect(evil.received.reads).toEqual([]);
    await refreshAll(handles);
    expect(gw.logger.warn).toHaveBeenCalledTimes(1);
  });
});

async function refreshAll(handles: readonly UpstreamHandle[]): Promise<void> {
  await Promise.all(handles.map((handle) => handle.refresh()));
}

describe('a prefix mounted after an unprefixed upstream listed in its namespace', () => {
  it("takes its names back: the other's items there are removed and reported, calls reach the owner", async () => {
    const good = await upstream('good', GOOD);
    const evil = await upstream('evil', EVIL);
    const handles: UpstreamHandle[] = [];
    const gw = await gateway({}, (mcp) => handles.push(mcp.upstream({ name: 'evil', url: evil.url })));
    await waitFor(() => handles[0]!.status().state === 'healthy');
    expect(handles[0]!.status().items.tools).toBe(4);
    handles.push(gw.mcp.upstream({ prefix: 'good', url: good.url }));
    await refreshAll(handles);
    expect(handles[0]!.status().items.tools).toBe(1);
    expect(handles[0]!.status().skippedCount).toBe(9);
    const client = await v2Client(gw.url);
    expect(text(await client.callTool({ name: 'good__read', arguments: { path: 'x' } }))).toBe('good ran read');
    expect(evil.received.calls).toEqual([]);
  });
});

function configError(act: () => unknown): McpConfigError {
  let error: unknown;
  try {
    act();
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(McpConfigError);
  return error as McpConfigError;
}

describe("the router's own registrations in a mounted prefix's namespace", () => {
  const url = 'http://127.0.0.1:1/mcp';
  let router: McpRouter;
  beforeEach(() => {
    router = mcpRouter({ name: 'gw', version: '1.0.0', logger: { error: jest.fn(), warn: jest.fn() } });
  });
  afterEach(() => router?.close());

  const local: [string, (mcp: McpRouter) => unknown, string][] = [
    ['tool', (mcp) => mcp.tool({ name: 'good__read', description: 'x', handler: () => 'x' }), "tool 'good__read'"],
    ['tool, other case', (mcp) => mcp.tool({ name: 'Good__x', description: 'x', handler: () => 'x' }), "'Good__x'"],
    ['prompt', (mcp) => mcp.prompt({ name: 'good__p', get: () => [] }), "prompt 'good__p'"],
    [
      'resource',
      (mcp) => mcp.resource({ uri: 'good+docs://x', name: 'x', read: () => 'x' }),
      "resource 'good+docs://x'",
    ],
    [
      'ui:// resource',
      (mcp) => mcp.resource({ uri: 'ui://good+files/v', name: 'x', read: () => 'x' }),
      "resource 'ui://good+files/v'",
    ],
    [
      'resource template',
      (mcp) => mcp.resourceTemplate({ uriTemplate: 'good+x://{id}', name: 'x', read: () => 'x' }),
      "resource template 'good+x://{id}'",
    ],
    [
      'percent-encoded resource',
      (mcp) => mcp.resource({ uri: 'ui://%67ood+files/v', name: 'x', read: () => 'x' }),
      "resource 'ui://%67ood+files/v'",
    ],
    [
      'template whose fixed text ends at the ui:// prefix',
      (mcp) => mcp.resourceTemplate({ uriTemplate: 'ui://good{+x}', name: 'x', read: () => 'x' }),
      "resource template 'ui://good{+x}'",
    ],
    [
      'template whose fixed text ends at the prefix',
      (mcp) => mcp.resourceTemplate({ uriTemplate: 'GOOD{+x}', name: 'x', read: () => 'x' }),
      "resource template 'GOOD{+x}'",
    ],
    // Learned on the first request, yet refused at mcp.route(): its name is known there.
    [
      'route (mcp.route, learned later)',
      (mcp) => mcp.route({ name: 'GOOD__r', description: 'd' }, (_req, res) => void res.json({})),
      "route tool 'GOOD__r'",
    ],
    [
      'route (mcp.route with its path)',
      (mcp) => mcp.route({ name: 'good__q', path: '/q', description: 'd' }, (_req, res) => void res.json({})),
      "'good__q'",
    ],
  ];

  it.each(local)('a %s registered after mounting throws, naming it and the upstream', (_kind, register, item) => {
    router.upstream({ prefix: 'good', url });
    const error = configError(() => register(router));
    expect(error.code).toBe('ERR_MCP_DUPLICATE');
    expect(error.message).toContain(item);
    expect(error.message).toContain("namespace of upstream 'good' (prefix 'good')");
  });

  it.each(local)('a %s registered before mounting makes the mount throw, naming both', (_kind, register, item) => {
    register(router);
    const error = configError(() => router.upstream({ prefix: 'good', url }));
    expect(error.code).toBe('ERR_MCP_DUPLICATE');
    expect(error.message).toContain("upstream 'good' (prefix 'good') cannot be mounted");
    expect(error.message).toContain(item);
    // Nothing of it stays: the prefix and name are free again once the item is gone.
    expect(router.upstream({ prefix: 'other', url }).status().prefix).toBe('other');
  });

  it('names beside the namespace are free: `good-x__read`, `good_read`, `docs://good+x`, `{+any}`, `ui://{x}`…', () => {
    router.upstream({ prefix: 'good', url });
    router.tool({ name: 'good-x__read', description: 'x', handler: () => 'x' });
    router.tool({ name: 'goodx__read', description: 'x', handler: () => 'x' });
    router.tool({ name: 'good_read', description: 'x', handler: () => 'x' });
    router.resource({ uri: 'docs://good+x', name: 'x', read: () => 'x' });
    router.resource({ uri: 'ui://%2567ood+x', name: 'x', read: () => 'x' }); // `%25` is `%`, not unreserved
    for (const uriTemplate of ['{+any}', 'ui://{x}', 'goodness{+x}', 'ui://go{+x}'])
      router.resourceTemplate({ uriTemplate, name: 'x', read: () => 'x' });
    router.upstream({ prefix: 'goo', url });
  });

  it('removing the upstream frees its namespace', async () => {
    const handle = router.upstream({ prefix: 'good', url });
    await handle.remove();
    router.tool({ name: 'good__read', description: 'x', handler: () => 'x' });
  });
});
