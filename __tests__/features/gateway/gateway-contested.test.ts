// A name (or URI, or template) listed by two upstreams outside every prefix is the one mounted first's, whichever lists first; the router's own items come before both.

import type { UpstreamHandle } from '../../../lib';
import { envelope, MODERN } from '../../helpers/modern';
import { listingUpstream, release } from './listing-upstream';
import { closeAfterEach, closeGatewaysAfterEach, gateway, text, v1Client, v2Client, waitFor } from './upstreams';

closeGatewaysAfterEach();
closeAfterEach();

/** Both list `shared_*`, `res://shared` and `tpl://{id}`; `second` also lists `tpl://{+path}`, which matches `tpl://…` too. */
const FIRST = {
  tools: ['shared_tool', 'first_tool'],
  prompts: ['shared_prompt'],
  resources: ['res://shared'],
  templates: ['tpl://{id}'],
};
const SECOND = {
  tools: ['shared_tool', 'second_tool'],
  prompts: ['shared_prompt'],
  resources: ['res://shared'],
  templates: ['tpl://{+path}', 'tpl://{id}'],
};

const TAKEN = [
  "prompt shared_prompt: 'shared_prompt' is taken by upstream 'first'",
  "resource res://shared: 'res://shared' is taken by upstream 'first'",
  "resource template tpl://{id}: 'tpl://{id}' is taken by upstream 'first'",
  "tool shared_tool: 'shared_tool' is taken by upstream 'first'",
];

function reasons(handle: UpstreamHandle): string[] {
  return handle
    .status()
    .skipped.map(({ kind, name, reason }) => `${kind} ${name}: ${reason}`)
    .sort();
}

describe.each([
  { order: 'the one mounted first lists first', late: 'second', connect: v1Client },
  { order: 'the one mounted later lists first', late: 'first', connect: v2Client },
] as const)('two unprefixed upstreams listing the same names, when $order', ({ late, connect }) => {
  it('give every contested name to the one mounted first: lists, calls, gets and reads reach it', async () => {
    const { gate, open } = release();
    const first = await listingUpstream('first', FIRST, late === 'first' ? gate : undefined);
    const second = await listingUpstream('second', SECOND, late === 'second' ? gate : undefined);
    const handles: UpstreamHandle[] = [];
    const gw = await gateway({}, (mcp) => {
      handles.push(mcp.upstream({ name: 'first', url: first.url }));
      handles.push(mcp.upstream({ name: 'second', url: second.url }));
    });
    const [firstHandle, secondHandle] = handles as [UpstreamHandle, UpstreamHandle];
    // The one that lists early has answered its four lists; the other's are held. Mounted later, its items would be
    // held back too (see below).
    const early = late === 'first' ? second : first;
    await waitFor(() => early.listed() === 4, early.answeredList);
    expect((late === 'first' ? firstHandle : secondHandle).status().state).toBe('connecting');

    open();
    await waitFor(() => handles.every((handle) => handle.status().state === 'healthy'));
    // Taking a name back makes the one that held it sync again, which reports it.
    await waitFor(() => secondHandle.status().skippedCount === TAKEN.length);
    expect(reasons(secondHandle)).toEqual(TAKEN);
    expect(firstHandle.status().skipped).toEqual([]);
    expect(firstHandle.status().items).toEqual({ tools: 2, prompts: 1, resources: 1, resourceTemplates: 1 });
    expect(secondHandle.status().items).toEqual({ tools: 1, prompts: 0, resources: 0, resourceTemplates: 1 });
    expect(gw.logger.warn).toHaveBeenCalledTimes(1);
    expect(gw.warnings()).toContain("upstream 'second': 4 items are not mounted");

    const client = (await connect(gw.url)) as Awaited<ReturnType<typeof v1Client>>;
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
      'shared_tool',
      'first_tool',
      'second_tool',
    ]);
    expect(text(await client.callTool({ name: 'shared_tool', arguments: { path: 'x' } }))).toBe(
      'first ran shared_tool',
    );
    const prompt = await client.getPrompt({ name: 'shared_prompt' });
    expect(prompt.messages[0]!.content).toEqual({ type: 'text', text: 'first prompt shared_prompt' });
    // `tpl://x` matches second's `tpl://{+path}` too: templates are tried in mount order, not arrival order.
    for (const uri of ['res://shared', 'tpl://x'])
      expect((await client.readResource({ uri })).contents[0]).toEqual(expect.objectContaining({ text: 'first read' }));
    expect(first.received).toEqual({
      calls: [{ name: 'shared_tool', args: { path: 'x' } }],
      gets: ['shared_prompt'],
      reads: ['res://shared', 'tpl://x'],
    });
    expect(second.received).toEqual({ calls: [], gets: [], reads: [] });

    await Promise.all(handles.map((handle) => handle.refresh()));
    expect(reasons(secondHandle)).toEqual(TAKEN);
    expect(gw.logger.warn).toHaveBeenCalledTimes(1);

    // Once the owner no longer has the name, the other takes it on its next sync.
    await firstHandle.remove();
    await secondHandle.refresh();
    expect(secondHandle.status().skipped).toEqual([]);
    expect(text(await client.callTool({ name: 'shared_tool', arguments: {} }))).toBe('second ran shared_tool');
  });
});

/** A 2026-07-28 tools/call straight to the gateway: no handshake, which would wait for the first lists. */
async function modernCall(url: string, name: string): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name, arguments: {}, _meta: envelope() },
    }),
  });
  return ((await response.json()) as { result: unknown }).result;
}

describe('while the upstream mounted first has not listed', () => {
  it('the one mounted later has its items held back: a contested name never means its item, even for a while', async () => {
    const { gate, open } = release();
    const first = await listingUpstream('first', FIRST, gate);
    const second = await listingUpstream('second', SECOND);
    const handles: UpstreamHandle[] = [];
    const gw = await gateway({}, (mcp) => {
      handles.push(mcp.upstream({ name: 'first', url: first.url }));
      handles.push(mcp.upstream({ name: 'second', url: second.url }));
    });
    const [firstHandle, secondHandle] = handles as [UpstreamHandle, UpstreamHandle];
    await waitFor(() => second.listed() === 4, second.answeredList);
    // A round trip through the gateway's server: the lists that came before it are read.
    await fetch(new URL('/elsewhere', gw.url));
    expect(secondHandle.status()).toMatchObject({
      state: 'connecting',
      items: { tools: 0, prompts: 0, resources: 0, resourceTemplates: 0 },
    });
    // Not found yet, the call waits for the first lists (bounded by listTimeoutMs), as one asked before any came.
    const during = modernCall(gw.url, 'shared_tool');
    await fetch(new URL('/elsewhere', gw.url));
    open();
    expect(text(await during)).toBe('first ran shared_tool');
    expect(second.received.calls).toEqual([]);
    await waitFor(() => secondHandle.status().state === 'healthy');
    expect(firstHandle.status().skipped).toEqual([]);
    expect(reasons(secondHandle)).toEqual(TAKEN);
    expect(text(await modernCall(gw.url, 'second_tool'))).toBe('second ran second_tool');
  });

  it('a prefixed upstream mounted later does not wait for it', async () => {
    const { gate, open } = release();
    const first = await listingUpstream('first', FIRST, gate);
    const second = await listingUpstream('second', SECOND);
    const handles: UpstreamHandle[] = [];
    await gateway({}, (mcp) => {
      handles.push(mcp.upstream({ name: 'first', url: first.url }));
      handles.push(mcp.upstream({ prefix: 'second', url: second.url }));
    });
    await waitFor(() => handles[1]!.status().state === 'healthy');
    expect(handles[1]!.status().items.tools).toBe(2);
    expect(handles[0]!.status().state).toBe('connecting');
    open();
    await waitFor(() => handles[0]!.status().state === 'healthy');
  });
});
