// Non-object results through the official SDK client: sent as { result: value }, under the wrapped outputSchema it validates.

import express from 'express';
import { mcpRouter } from '../../lib';
import { connectClient, type ConnectedClient } from '../helpers/connect-client';
import { silentLogger } from '../helpers/messages';

describe('arrays and scalars as structuredContent, end to end with the SDK client', () => {
  let connected: ConnectedClient;

  beforeAll(async () => {
    const mcp = mcpRouter({ name: 'structured', version: '1.0.0', logger: silentLogger() });
    mcp.tool({
      name: 'ids',
      description: 'Some ids',
      outputSchema: { type: 'array', items: { type: 'integer' } },
      handler: () => [1, 2, 3],
    });
    mcp.tool({ name: 'count', description: 'A count, no schema', handler: () => 42 });
    mcp.tool({
      name: 'bad_ids',
      description: 'Breaks its schema',
      outputSchema: { type: 'array', items: { type: 'integer' } },
      handler: () => ['x'],
    });
    mcp.tool({ name: 'hello', description: 'A string, no schema', handler: () => 'hi' });
    mcp.tool({
      name: 'hello_typed',
      description: 'A string under a string schema',
      outputSchema: { type: 'string' },
      handler: () => 'hi',
    });
    const app = express();
    app.use('/mcp', mcp);
    const api = express.Router();
    api.get(
      '/tags',
      mcp.route({ description: 'All tags', output: { type: 'array', items: { type: 'string' } } }, (_req, res) =>
        res.json(['a', 'b']),
      ),
    );
    api.get(
      '/total',
      mcp.route({ description: 'The total, no schema' }, (_req, res) => res.json(7)),
    );
    api.get(
      '/motd',
      mcp.route({ description: 'Text, no schema' }, (_req, res) => res.send('hello')),
    );
    api.get(
      '/motd_typed',
      mcp.route({ description: 'Text under a string schema', output: { type: 'string' } }, (_req, res) =>
        res.send('hello'),
      ),
    );
    app.use('/api', api);
    connected = await connectClient(app);
  });

  afterAll(() => connected?.close());

  it('lists a non-object outputSchema wrapped, as an object schema with the declared one under result', async () => {
    const { tools } = await connected.client.listTools();
    const wrapped = (items: Record<string, unknown>) => ({
      type: 'object',
      properties: { result: { type: 'array', items } },
      required: ['result'],
    });
    expect(tools.find((tool) => tool.name === 'ids')?.outputSchema).toEqual(wrapped({ type: 'integer' }));
    expect(tools.find((tool) => tool.name === 'get_api_tags')?.outputSchema).toEqual(wrapped({ type: 'string' }));
  });

  it.each([
    ['ids', { result: [1, 2, 3] }, '[1,2,3]'],
    ['count', { result: 42 }, '42'],
    ['get_api_tags', { result: ['a', 'b'] }, '["a","b"]'],
    ['get_api_total', { result: 7 }, '7'],
    ['hello_typed', { result: 'hi' }, 'hi'],
    ['get_api_motd_typed', { result: 'hello' }, 'hello'],
  ])(
    '%s: the SDK client accepts { result } (it checks structuredContent against outputSchema)',
    async (name, structured, text) => {
      const result = await connected.client.callTool({ name, arguments: {} });
      expect(result).toEqual({ content: [{ type: 'text', text }], structuredContent: structured });
    },
  );

  it.each([
    ['hello', 'hi'],
    ['get_api_motd', 'hello'],
  ])('%s: a string with no schema stays text only', async (name, text) => {
    expect(await connected.client.callTool({ name, arguments: {} })).toEqual({ content: [{ type: 'text', text }] });
  });

  it('gives isError for a value that breaks the declared schema', async () => {
    const result = await connected.client.callTool({ name: 'bad_ids', arguments: {} });
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: expect.stringContaining('must be integer') }],
    });
  });
});
