// The demo's gateway: the notes server (demo/upstream.ts) mounted under the prefix `notes`, as a client sees it.
// `npm run demo` starting it and the roaster (demo/stdio-upstream.ts) as child processes: demo-process.test.ts.

import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectionHelp } from '../demo/connect';
import { createDemo, type Demo } from '../demo/server';
import { startNotesUpstream, type NotesUpstream } from '../demo/upstream';
import { connectClient, type ConnectedClient } from './helpers/connect-client';
import { Signal } from './helpers/events';
import { STORE_RESOURCE_URIS } from './helpers/demo-lists';

const token = 'demo-upstream-token';
const bearer = { Authorization: `Bearer ${token}` };

describe('the demo with its notes upstream', () => {
  let upstream: NotesUpstream;
  let demo: Demo;
  let connected: ConnectedClient;
  beforeAll(async () => {
    upstream = await startNotesUpstream();
    demo = createDemo({ token, notesUrl: upstream.url });
    connected = await connectClient(demo.app, '/mcp', bearer);
  });
  afterAll(async () => {
    await connected?.close();
    await demo?.mcp.close();
    await upstream?.close();
  });

  it('lists the notes items namespaced, after the store items, and says so in status()', async () => {
    const { client } = connected;
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    // Local items first, in their own order; the upstream's after them, in its order.
    expect(tools).toEqual([
      ...[
        'audit_inventory',
        'premium_stock_forecast',
        'order_form',
        'list_customers',
        'get_customer',
        'list_orders',
        'get_order',
        'place_order',
        'cancel_order',
        'list_products',
        'get_product',
        'restock_product',
      ],
      ...['notes__add_note', 'notes__search_notes', 'notes__reindex_notes'],
    ]);
    expect((await client.listResources()).resources.map((resource) => resource.uri)).toEqual([
      ...STORE_RESOURCE_URIS,
      'notes+notes://all',
    ]);
    expect((await client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate)).toEqual([
      'product://{id}',
      'customer://{id}',
      'skill://{+path}', // every other file of a skill
      'notes+notes://note/{id}',
    ]);
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual([
      'recommend',
      'follow_up_email',
      'notes__summarize_notes',
    ]);
    expect(demo.notes?.status()).toMatchObject({
      name: 'notes',
      prefix: 'notes',
      state: 'healthy',
      error: undefined,
      items: { tools: 3, prompts: 1, resources: 1, resourceTemplates: 1 },
      skipped: [],
    });
  });

  it('calls an upstream tool with its progress and log lines relayed', async () => {
    const logs: unknown[] = [];
    connected.client.setNotificationHandler(
      LoggingMessageNotificationSchema,
      ({ params }) => void logs.push(params.data),
    );
    const progress: Array<{ progress: number; total?: number }> = [];
    const result = await connected.client.callTool(
      { name: 'notes__reindex_notes', arguments: { delayMs: 0 } },
      undefined,
      {
        onprogress: ({ progress: done, total }) => progress.push({ progress: done, total }),
      },
    );
    expect(result.structuredContent).toEqual({ indexed: 2 });
    expect(progress).toEqual([
      { progress: 1, total: 2 },
      { progress: 2, total: 2 },
    ]);
    expect(logs).toContain('Reindexing 2 notes');
  });

  it('adds a note upstream, then reads it through the namespaced template, completes its id and gets the prompt', async () => {
    const { client } = connected;
    const added = await client.callTool({
      name: 'notes__add_note',
      arguments: { title: 'Window', text: 'Decorate for the autumn roast.', tags: ['shop'] },
    });
    expect(added.structuredContent).toEqual({
      id: 'n3',
      title: 'Window',
      text: 'Decorate for the autumn roast.',
      tags: ['shop'],
    });
    const read = await client.readResource({ uri: 'notes+notes://note/n3' });
    expect(read.contents[0]?.uri).toBe('notes+notes://note/n3');
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ id: 'n3', title: 'Window' });
    const all = await client.readResource({ uri: 'notes+notes://all' });
    expect(JSON.parse((all.contents[0] as { text: string }).text)).toHaveLength(3);
    // The upstream's own message, in the caller's era's form: a 2026 upstream's -32602 is -32002 for this 2025 client, about its own URI.
    await expect(client.readResource({ uri: 'notes+notes://note/n9' })).rejects.toMatchObject({
      code: -32002,
      message: expect.stringContaining("No note 'n9'."),
      data: { uri: 'notes+notes://note/n9' },
    });
    const ids = await client.complete({
      ref: { type: 'ref/resource', uri: 'notes+notes://note/{id}' },
      argument: { name: 'id', value: 'n' },
    });
    expect(ids.completion.values).toEqual(['n1', 'n2', 'n3']);
    const prompt = await client.getPrompt({ name: 'notes__summarize_notes', arguments: { tag: 'stock' } });
    expect(prompt.messages[0]?.content).toEqual({
      type: 'text',
      text: "Summarize the notes in notes://all tagged 'stock' as a short to-do list.",
    });
  });

  it('names the upstream in the start-up message', () => {
    const help = connectionHelp({
      origin: 'http://127.0.0.1:3000',
      token: 't',
      apiKey: 'k',
      upstreams: [{ where: `at ${upstream.url}`, status: demo.notes!.status() }],
    });
    expect(help).toContain(
      `  Upstream       notes at ${upstream.url} (healthy: 3 tools, 1 prompt, 1 resource, 1 template as notes__<name> and notes+<uri>)\n`,
    );
  });
});

describe('the demo when its upstream is down', () => {
  it('still serves the store, and status() says why the notes are missing', async () => {
    const gone = await startNotesUpstream();
    await gone.close();
    // The demo logs to the console (the router's default logger): the warning is expected, so it is captured and checked.
    const warnings: string[] = [];
    const warned = new Signal();
    const warn = jest.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => {
      warnings.push(args.map(String).join(' '));
      warned.notify();
    });
    const demo = createDemo({ token, notesUrl: gone.url });
    const connected = await connectClient(demo.app, '/mcp', bearer);
    try {
      const tools = (await connected.client.listTools()).tools.map((tool) => tool.name);
      expect(tools).toContain('audit_inventory');
      expect(tools.some((name) => name.startsWith('notes__'))).toBe(false);
      expect(demo.notes?.status()).toMatchObject({ state: 'down', error: 'Upstream "notes" could not be reached' });
      await warned.when(() => warnings.length > 0, 'the upstream warning');
      expect(warnings[0]).toMatch(/upstream 'notes' lists could not be fetched; retrying in/);
    } finally {
      await connected.close();
      await demo?.mcp.close();
      warn.mockRestore();
    }
  });
});
