// Gateway names end to end: upstream items listed as <prefix>__<name> and <prefix>+<uri>, routed back with their original names and URIs; collisions, options, plain proxy.

import { McpConfigError, mcpRouter, type McpRouter, type McpRouterOptions, type UpstreamOptions } from '../../../lib';
import {
  closeAfterEach,
  closeGatewaysAfterEach,
  gateway,
  sdkUpstream,
  sdkV2Upstream,
  serve,
  v1Client,
  v2Client,
  type Upstream,
  waitFor,
} from './upstreams';

closeGatewaysAfterEach();
closeAfterEach();

/** What the rich upstream received, with the names and URIs it received them under. */
interface Received {
  calls: { name: string; args: unknown }[];
  prompts: { name: string; args: unknown }[];
  reads: string[];
  completions: { variable: string; value: string }[];
}

/**
 * This router as an upstream with one item of each kind: tools (one whose own name holds `__`, one answering with
 * a resource link and an embedded resource), a prompt with a completed argument and an embedded resource, a static
 * resource and a template with a completed variable.
 */
async function richUpstream(
  options: Partial<McpRouterOptions> = {},
  extra: (mcp: McpRouter) => void = () => undefined,
): Promise<{ upstream: Upstream; received: Received }> {
  const received: Received = { calls: [], prompts: [], reads: [], completions: [] };
  const upstream = await serve((app) => {
    const mcp = mcpRouter({
      name: 'rich',
      version: '1.0.0',
      logger: { error: jest.fn(), warn: jest.fn() },
      ...options,
    });
    const record = (name: string) => (args: unknown) => {
      received.calls.push({ name, args });
      return `${name} ran`;
    };
    mcp.tool({
      name: 'echo',
      description: 'Echo',
      inputSchema: { type: 'object', properties: { word: { type: 'string' } } },
      handler: record('echo'),
    });
    mcp.tool({ name: 'get__thing', description: 'A name holding the separator', handler: record('get__thing') });
    mcp.tool({
      name: 'linker',
      description: 'Links and embeds a resource',
      handler: () => ({
        content: [
          { type: 'resource_link', uri: 'docs://readme', name: 'readme' },
          { type: 'resource', resource: { uri: 'users://ada/profile', text: 'ada' } },
        ],
      }),
    });
    mcp.prompt({
      name: 'review',
      description: 'Review',
      arguments: [
        {
          name: 'code',
          required: true,
          complete: (value) => (received.completions.push({ variable: 'code', value }), ['const', 'constant']),
        },
      ],
      get: (args) => {
        received.prompts.push({ name: 'review', args });
        return [
          { role: 'user', content: `Review ${args.code}` },
          { role: 'user', content: { type: 'resource', resource: { uri: 'docs://readme', text: '# readme' } } },
        ];
      },
    });
    mcp.resource({ uri: 'docs://readme', name: 'readme', read: (uri) => (received.reads.push(uri), '# readme') });
    mcp.resourceTemplate({
      uriTemplate: 'users://{id}/profile',
      name: 'profile',
      read: (uri: string, { id }: { id: string }) => (received.reads.push(uri), `profile of ${id}`),
      complete: {
        id: (value) => (
          received.completions.push({ variable: 'id', value }),
          ['ada', 'alan'].filter((id) => id.startsWith(value))
        ),
      },
    });
    extra(mcp);
    app.use('/mcp', mcp);
  });
  return { upstream, received };
}

type Downstream = Awaited<ReturnType<typeof v1Client>> | Awaited<ReturnType<typeof v2Client>>;

/** The calls the tests make, the same for both SDK clients (their method names agree). */
function api(client: Downstream) {
  const any = client as Awaited<ReturnType<typeof v1Client>>;
  return {
    tools: async () => (await any.listTools()).tools.map((tool) => tool.name),
    prompts: async () => (await any.listPrompts()).prompts.map((prompt) => prompt.name),
    resources: async () => (await any.listResources()).resources.map((resource) => resource.uri),
    templates: async () =>
      (await any.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate),
    call: (name: string, args: Record<string, unknown> = {}) =>
      any.callTool({ name, arguments: args }) as Promise<{ content: Record<string, unknown>[]; isError?: boolean }>,
    client: any,
  };
}

describe.each([
  { upstreamEra: '2026', options: {} },
  { upstreamEra: '2025 (sessions)', options: { eras: ['2025'], sessions: {} } },
] as const)('a $upstreamEra upstream (this router) under prefix "up"', ({ options }) => {
  describe.each([
    { title: 'SDK v1 client (2025 session)', connect: v1Client },
    { title: 'SDK v2 client (2026-07-28)', connect: v2Client },
  ])('seen by the $title', ({ connect }) => {
    it('lists every kind under its prefix, beside the local tool', async () => {
      const { upstream } = await richUpstream(options as Partial<McpRouterOptions>);
      const gw = await gateway({}, (mcp) => {
        mcp.tool({ name: 'local', description: 'Local', handler: () => 'here' });
        mcp.upstream({ prefix: 'up', url: upstream.url });
      });
      const down = api(await connect(gw.url));
      expect((await down.tools()).sort()).toEqual(['local', 'up__echo', 'up__get__thing', 'up__linker']);
      expect(await down.prompts()).toEqual(['up__review']);
      expect(await down.resources()).toEqual(['up+docs://readme']);
      expect(await down.templates()).toEqual(['up+users://{id}/profile']);
    });

    it('routes calls, gets, reads and completions with the original names and URIs, and rewrites URIs in what comes back', async () => {
      const { upstream, received } = await richUpstream(options as Partial<McpRouterOptions>);
      const gw = await gateway({}, (mcp) => mcp.upstream({ prefix: 'up', url: upstream.url }));
      const down = api(await connect(gw.url));

      expect((await down.call('up__echo', { word: 'hi' })).content).toEqual([{ type: 'text', text: 'echo ran' }]);
      // A name holding `__` itself: split by the registered prefix, not at the first `__`.
      expect((await down.call('up__get__thing')).content).toEqual([{ type: 'text', text: 'get__thing ran' }]);
      expect(received.calls).toEqual([
        { name: 'echo', args: { word: 'hi' } },
        { name: 'get__thing', args: {} },
      ]);

      const linked = await down.call('up__linker');
      expect(linked.content).toEqual([
        { type: 'resource_link', uri: 'up+docs://readme', name: 'readme' },
        { type: 'resource', resource: { uri: 'up+users://ada/profile', text: 'ada' } },
      ]);

      const prompt = await down.client.getPrompt({ name: 'up__review', arguments: { code: 'x = 1' } });
      expect(received.prompts).toEqual([{ name: 'review', args: { code: 'x = 1' } }]);
      expect(prompt.messages[1]!.content).toEqual({
        type: 'resource',
        resource: { uri: 'up+docs://readme', text: '# readme' },
      });

      const readme = await down.client.readResource({ uri: 'up+docs://readme' });
      const profile = await down.client.readResource({ uri: 'up+users://ada/profile' });
      expect(received.reads).toEqual(['docs://readme', 'users://ada/profile']);
      expect(readme.contents.map((content) => content.uri)).toEqual(['up+docs://readme']);
      expect(profile.contents).toEqual([
        expect.objectContaining({ uri: 'up+users://ada/profile', text: 'profile of ada' }),
      ]);

      const codes = await down.client.complete({
        ref: { type: 'ref/prompt', name: 'up__review' },
        argument: { name: 'code', value: 'con' },
      });
      const ids = await down.client.complete({
        ref: { type: 'ref/resource', uri: 'up+users://{id}/profile' },
        argument: { name: 'id', value: 'a' },
      });
      expect(codes.completion.values).toEqual(['const', 'constant']);
      expect(ids.completion.values).toEqual(['ada', 'alan']);
      expect(received.completions).toEqual([
        { variable: 'code', value: 'con' },
        { variable: 'id', value: 'a' },
      ]);
    });
  });
});

describe('SDK upstreams under a prefix', () => {
  it('an SDK v1 server (2025 session) and an SDK v2 server (2026-07-28): tools listed and called under their prefixes', async () => {
    const v1 = await sdkUpstream();
    const v2 = await sdkV2Upstream(['lookup']);
    const gw = await gateway({}, (mcp) => {
      mcp.upstream({ prefix: 'one', url: v1.url });
      mcp.upstream({ prefix: 'two', url: v2.upstream.url });
    });
    const down = api(await v1Client(gw.url));
    expect((await down.tools()).sort()).toEqual(['one__add', 'two__lookup']);
    expect((await down.call('one__add', { a: 2, b: 3 })).content).toEqual([{ type: 'text', text: '5' }]);
    expect((await down.call('two__lookup', { a: 1 })).content).toEqual([{ type: 'text', text: 'lookup ran' }]);
    expect(v2.calls).toEqual([{ name: 'lookup', args: { a: 1 } }]);
    expect(v1.seen.filter((request) => request.rpc === 'tools/call')).toHaveLength(1);
  });
});

describe('routing by registered prefix', () => {
  it('prefixes "a" and "a-b" each get their own calls', async () => {
    const first = await richUpstream();
    const second = await richUpstream();
    const gw = await gateway({}, (mcp) => {
      mcp.upstream({ prefix: 'a', url: first.upstream.url });
      mcp.upstream({ prefix: 'a-b', url: second.upstream.url });
    });
    const down = api(await v2Client(gw.url));
    expect((await down.tools()).filter((name) => name.endsWith('echo')).sort()).toEqual(['a-b__echo', 'a__echo']);
    await down.call('a-b__echo', { word: 'to a-b' });
    await down.call('a__echo', { word: 'to a' });
    await down.client.readResource({ uri: 'a-b+docs://readme' });
    expect(first.received.calls).toEqual([{ name: 'echo', args: { word: 'to a' } }]);
    expect(second.received.calls).toEqual([{ name: 'echo', args: { word: 'to a-b' } }]);
    expect(first.received.reads).toEqual([]);
    expect(second.received.reads).toEqual(['docs://readme']);
  });
});

describe('tools.include, exclude and rename', () => {
  it('mounts what include keeps and exclude leaves (names and patterns), under renamed names, routed to the original', async () => {
    const { upstream, received } = await richUpstream({}, (mcp) => {
      for (const name of ['list_a', 'list_b', 'list_c']) mcp.tool({ name, description: name, handler: () => name });
    });
    const gw = await gateway({}, (mcp) =>
      mcp.upstream({
        prefix: 'p',
        url: upstream.url,
        tools: { include: ['echo', /^list_/], exclude: ['list_c', /_b$/], rename: { echo: 'say' } },
      }),
    );
    const down = api(await v1Client(gw.url));
    expect((await down.tools()).sort()).toEqual(['p__list_a', 'p__say']);
    await down.call('p__say', { word: 'renamed' });
    expect(received.calls).toEqual([{ name: 'echo', args: { word: 'renamed' } }]);
  });
});

describe('final names', () => {
  const long = 'x'.repeat(63);
  const tooLong = 'y'.repeat(127);

  it('a name above 64 characters is mounted with a warning pointing at tools.rename; one above 128 is skipped and reported', async () => {
    const { upstream } = await richUpstream({}, (mcp) => {
      mcp.tool({ name: long, description: 'long', handler: () => 'long' });
      mcp.tool({ name: tooLong, description: 'too long', handler: () => 'too long' });
    });
    let handle: ReturnType<McpRouter['upstream']> | undefined;
    const gw = await gateway({}, (mcp) => {
      handle = mcp.upstream({ prefix: 'p', url: upstream.url });
    });
    const down = api(await v2Client(gw.url));
    const names = await down.tools();
    expect(names).toContain(`p__${long}`);
    expect(names.some((name) => name.includes(tooLong))).toBe(false);
    expect(gw.warnings()).toMatch(new RegExp(`p__${long}.*66 characters.*tools\\.rename`));
    expect(handle!.status().skipped).toEqual([
      expect.objectContaining({ kind: 'tool', name: tooLong, reason: expect.stringMatching(/1–128/) }),
    ]);
    expect(gw.warnings()).toContain(`tool '${tooLong}' is not mounted`);
  });
});

describe('collisions with local items', () => {
  // A prefix owns its namespace from its mount on (gateway-namespaces.test.ts): a local item in it is refused at once.
  it.each([
    { when: 'before mcp.upstream()', order: 'before' },
    { when: 'after mcp.upstream(), before its lists arrived', order: 'after' },
  ] as const)("a local tool in the prefix's namespace registered $when is refused (ERR_MCP_DUPLICATE)", ({ order }) => {
    const router = mcpRouter({ name: 'gw', version: '1.0.0', logger: { error: jest.fn(), warn: jest.fn() } });
    const local = (): void => void router.tool({ name: 'p__echo', description: 'Local', handler: () => 'local ran' });
    const mount = (): void => void router.upstream({ prefix: 'p', url: 'http://127.0.0.1:1/mcp' });
    if (order === 'before') local();
    else mount();
    const error = configError(order === 'before' ? mount : local);
    expect(error.code).toBe('ERR_MCP_DUPLICATE');
    expect(error.message).toContain("'p__echo'");
    expect(error.message).toContain("upstream 'p' (prefix 'p')");
    return router.close();
  });

  it('a local tool outside every namespace keeps its name; an unprefixed upstream item under it is skipped and reported', async () => {
    const { upstream, received } = await richUpstream();
    let handle: ReturnType<McpRouter['upstream']> | undefined;
    const gw = await gateway({}, (mcp) => {
      mcp.tool({ name: 'echo', description: 'Local', handler: () => 'local ran' });
      handle = mcp.upstream({ name: 'plain', url: upstream.url });
    });
    const down = api(await v1Client(gw.url));
    expect((await down.tools()).filter((name) => name === 'echo')).toHaveLength(1);
    expect((await down.call('echo')).content).toEqual([{ type: 'text', text: 'local ran' }]);
    expect(received.calls).toEqual([]);
    expect(handle!.status().skipped).toEqual([
      expect.objectContaining({ kind: 'tool', name: 'echo', reason: expect.stringContaining("'echo' is taken") }),
    ]);
    expect(handle!.status().items.tools).toBe(2);
    expect(gw.warnings()).toContain("tool 'echo' is not mounted");
  });

  it("a local tool registered after an upstream item took its name takes it, as one registered first: the upstream's is skipped and reported", async () => {
    const { upstream, received } = await richUpstream();
    const gw = await gateway();
    const handle = gw.mcp.upstream({ name: 'plain', url: upstream.url });
    await handle.refresh();
    expect(handle.status().skipped).toEqual([]);
    gw.mcp.tool({ name: 'echo', description: 'Local', handler: () => 'local ran' });
    // The upstream syncs again when its item is displaced, and reports it.
    await waitFor(() => handle.status().skippedCount === 1);
    expect(handle.status().skipped).toEqual([
      { kind: 'tool', name: 'echo', reason: "'echo' is taken by the router's own tool" },
    ]);
    expect(handle.status().items.tools).toBe(2);
    const down = api(await v1Client(gw.url));
    expect((await down.tools()).filter((name) => name === 'echo')).toHaveLength(1);
    expect((await down.call('echo')).content).toEqual([{ type: 'text', text: 'local ran' }]);
    expect(received.calls).toEqual([]);
    expect(gw.warnings()).toContain("tool 'echo' is not mounted: 'echo' is taken by the router's own tool");
  });
});

function configError(mount: () => unknown): McpConfigError {
  let error: unknown;
  try {
    mount();
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(McpConfigError);
  return error as McpConfigError;
}

describe('mcp.upstream() options, checked when it is called', () => {
  const url = 'http://127.0.0.1:1/mcp';
  const mcp = (): McpRouter =>
    mcpRouter({ name: 'gw', version: '1.0.0', logger: { error: jest.fn(), warn: jest.fn() } });

  it('a second upstream with the same prefix (any case) or the same name is refused', () => {
    const router = mcp();
    router.upstream({ prefix: 'fs', url });
    expect(configError(() => router.upstream({ prefix: 'fs', name: 'other', url })).code).toBe('ERR_MCP_DUPLICATE');
    expect(configError(() => router.upstream({ prefix: 'FS', name: 'other', url })).message).toContain("prefix 'FS'");
    expect(configError(() => router.upstream({ prefix: 'gh', name: 'fs', url })).message).toContain("named 'fs'");
    return router.close();
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    [
      'an unknown key',
      { prefix: 'fs', url, prefx: 'x' },
      /^mcpRouter: upstream 'fs': unknown option 'prefx'\. Did you mean 'prefix'\?$/,
    ],
    ['a prefix with _', { prefix: 'a_b', url }, /option 'prefix' must be a letter/],
    ['a prefix with .', { prefix: 'a.b', url }, /option 'prefix' must be a letter/],
    [
      'forwardHeaders: Authorization',
      { prefix: 'fs', url, forwardHeaders: ['x-request-id', 'Authorization'] },
      /upstream 'fs': option 'forwardHeaders' must be free of the caller's credentials .*, got "authorization"/,
    ],
    [
      'forwardHeaders: cookie',
      { prefix: 'fs', url, forwardHeaders: ['cookie'] },
      /upstream 'fs': option 'forwardHeaders' must be free of the caller's credentials .*, got "cookie"/,
    ],
    ['no name without a prefix', { url }, /option 'name' must be .*required without a prefix/],
    [
      'an unknown tools key',
      { prefix: 'fs', url, tools: { inclde: [] } },
      /^mcpRouter: upstream 'fs': unknown option 'tools\.inclde'\. Did you mean 'tools\.include'\?$/,
    ],
    [
      'a URL that is not http(s)',
      { prefix: 'fs', url: 'ftp://host/mcp' },
      /upstream 'fs': option 'url' must be an http\(s\) URL/,
    ],
    [
      'roots not an array',
      { prefix: 'fs', url, roots: 'file:///srv' },
      /upstream 'fs': option 'roots' must be an array/,
    ],
    [
      'a root that is not file://',
      { prefix: 'fs', url, roots: [{ uri: 'file:///srv' }, { uri: 'https://host/srv' }] },
      /upstream 'fs': option 'roots\[1\]\.uri' must be a file:\/\/ URL/,
    ],
    ['a root that is no URL', { prefix: 'fs', url, roots: [{ uri: '/srv' }] }, /roots\[0\]\.uri' must be a file:/],
    [
      'an unknown root key',
      { prefix: 'fs', url, roots: [{ uri: 'file:///srv', nmae: 'x' }] },
      /^mcpRouter: upstream 'fs': unknown option 'roots\[0\]\.nmae'\. Did you mean 'roots\[0\]\.name'\?$/,
    ],
    [
      'a root name not a string',
      { prefix: 'fs', url, roots: [{ uri: 'file:///srv', name: 1 }] },
      /upstream 'fs': option 'roots\[0\]\.name' must be a string/,
    ],
  ])('%s is refused, naming the option', (_title, options, message) => {
    const router = mcp();
    const error = configError(() => router.upstream(options as unknown as UpstreamOptions));
    expect(error.message).toMatch(message);
    return router.close();
  });
});

describe('plain proxy (no prefix)', () => {
  it('lists and routes every kind under its own names and URIs', async () => {
    const { upstream, received } = await richUpstream();
    const gw = await gateway({}, (mcp) => mcp.upstream({ name: 'rich', url: upstream.url }));
    const down = api(await v2Client(gw.url));
    expect((await down.tools()).sort()).toEqual(['echo', 'get__thing', 'linker']);
    expect(await down.prompts()).toEqual(['review']);
    expect(await down.resources()).toEqual(['docs://readme']);
    expect(await down.templates()).toEqual(['users://{id}/profile']);
    const linked = await down.call('linker');
    expect(linked.content.map((block) => block.uri ?? (block.resource as { uri: string }).uri)).toEqual([
      'docs://readme',
      'users://ada/profile',
    ]);
    await down.call('echo', { word: 'plain' });
    const profile = await down.client.readResource({ uri: 'users://alan/profile' });
    expect(profile.contents[0]!.uri).toBe('users://alan/profile');
    expect(received.calls).toEqual([{ name: 'echo', args: { word: 'plain' } }]);
    expect(received.reads).toEqual(['users://alan/profile']);
  });
});
