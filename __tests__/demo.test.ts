// The demo store works from the official SDK client, as a newcomer would use it.

import { createDemoApp } from '../demo/server';
import { connectClient, type ConnectedClient } from './helpers/connect-client';

describe('the demo store', () => {
  let connected: ConnectedClient;
  beforeAll(async () => {
    connected = await connectClient(createDemoApp());
  });
  afterAll(() => connected.close());

  it('lists its tools, resources, templates and prompts', async () => {
    const { client } = connected;
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['add', 'search_products', 'restock']);
    expect((await client.listResources()).resources.map((resource) => resource.uri)).toEqual(['store://catalog']);
    expect((await client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate)).toEqual(['product://{id}']);
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['recommend']);
  });

  it('adds, searches and explains a bad product id to the model', async () => {
    const { client } = connected;
    expect((await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } })).structuredContent).toEqual({ sum: 42 });
    expect((await client.callTool({ name: 'search_products', arguments: { query: 'grind' } })).content).toEqual([
      { type: 'resource_link', uri: 'product://p2', name: 'Grinder', mimeType: 'application/json' },
    ]);
    const restock = await client.callTool({ name: 'restock', arguments: { id: 'p9', units: 1 } });
    expect(restock).toEqual({ content: [{ type: 'text', text: "No product with id 'p9'. Use search_products to find ids." }], isError: true });
  });

  it('reads a product through its template and completes product ids', async () => {
    const { client } = connected;
    const read = await client.readResource({ uri: 'product://p1' });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ id: 'p1', name: 'Espresso beans' });
    const completion = await client.complete({ ref: { type: 'ref/resource', uri: 'product://{id}' }, argument: { name: 'id', value: 'p' } });
    expect(completion.completion.values).toEqual(['p1', 'p2', 'p3']);
  });

  it('builds the recommend prompt', async () => {
    const prompt = await connected.client.getPrompt({ name: 'recommend', arguments: { budget: '100', style: 'espresso' } });
    expect(prompt.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Recommend coffee gear from store://catalog for a budget of 100 euros and espresso brewing.' } },
    ]);
  });
});
