// End to end with the official @modelcontextprotocol/sdk client over Streamable HTTP.

import express from 'express';
import {
  audioContent,
  embeddedResource,
  imageContent,
  mcpRouter,
  resourceLink,
  type McpRouter,
  type McpRouterOptions,
} from '../../lib';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectClient, type ConnectedClient } from '../helpers/connect-client';

const PNG_BYTES = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function buildRouter(options: Partial<McpRouterOptions> = {}): McpRouter {
  const mcp = mcpRouter({
    name: 'e2e',
    version: '2.0.0',
    title: 'E2E server',
    instructions: 'Use add for sums.',
    pageSize: 2,
    ...options,
  });
  mcp.tool({
    name: 'add',
    title: 'Add',
    description: 'Add two numbers',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
    annotations: { readOnlyHint: true },
    handler: ({ a, b }: { a: number; b: number }) => ({ sum: a + b }),
  });
  mcp.tool({
    name: 'echo',
    description: 'Echo text',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    handler: ({ text }: { text: string }) => text,
  });
  mcp.tool({
    name: 'fail',
    description: 'Always fails',
    handler: () => {
      throw new Error('the warehouse is closed');
    },
  });
  mcp.tool({
    name: 'media',
    description: 'Returns every kind of content',
    handler: () => ({
      content: [
        imageContent(PNG_BYTES, 'image/png'),
        audioContent('UklGRg==', 'audio/wav'),
        embeddedResource({ uri: 'docs://readme', mimeType: 'text/markdown', text: '# Readme' }),
        resourceLink({ uri: 'users://7/profile', name: 'profile of user 7' }),
      ],
    }),
  });
  mcp.resource({ uri: 'docs://readme', name: 'readme', mimeType: 'text/markdown', read: () => '# Readme' });
  mcp.resource({ uri: 'files://logo.png', name: 'logo', mimeType: 'image/png', read: () => PNG_BYTES });
  mcp.resourceTemplate({
    uriTemplate: 'users://{id}/profile',
    name: 'profile',
    mimeType: 'application/json',
    read: (_uri, { id }) => JSON.stringify({ id, name: `user ${id}` }),
    complete: { id: (prefix) => ['1', '12', '2'].filter((id) => id.startsWith(prefix)) },
  });
  mcp.prompt({
    name: 'review',
    description: 'Review code',
    arguments: [
      { name: 'code', required: true },
      { name: 'language', complete: (prefix) => ['go', 'typescript'].filter((l) => l.startsWith(prefix)) },
    ],
    get: ({ code, language }) => [{ role: 'user', content: `Review this ${language ?? 'code'}: ${code}` }],
  });
  return mcp;
}

describe('the official SDK client', () => {
  let connected: ConnectedClient;

  beforeAll(async () => {
    const app = express();
    app.use('/mcp', buildRouter());
    connected = await connectClient(app);
  });
  afterAll(() => connected?.close());

  it('initializes on the newest revision and sees server info, instructions and capabilities', () => {
    const { client } = connected;
    expect(client.getServerVersion()).toEqual({ name: 'e2e', version: '2.0.0', title: 'E2E server' });
    expect(client.getInstructions()).toBe('Use add for sums.');
    expect(client.getServerCapabilities()).toEqual({
      logging: {},
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
    });
  });

  it('lists tools page by page with schemas verbatim', async () => {
    const first = await connected.client.listTools();
    expect(first.tools.map((tool) => tool.name)).toEqual(['add', 'echo']);
    expect(first.tools[0]).toEqual({
      name: 'add',
      title: 'Add',
      description: 'Add two numbers',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
      outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
      annotations: { readOnlyHint: true },
    });
    const second = await connected.client.listTools({ cursor: first.nextCursor });
    expect(second.tools.map((tool) => tool.name)).toEqual(['fail', 'media']);
    expect(second.nextCursor).toBeUndefined();
  });

  it('calls a tool and gets structured content plus its JSON text', async () => {
    const result = await connected.client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
    expect(result).toEqual({ content: [{ type: 'text', text: '{"sum":42}' }], structuredContent: { sum: 42 } });
  });

  it('reports invalid arguments as an isError result a model can act on', async () => {
    const result = await connected.client.callTool({ name: 'add', arguments: { a: 2 } });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([
      { type: 'text', text: "Invalid arguments for tool 'add': (root): must have required property 'b'" },
    ]);
  });

  it('reports a throwing handler as an isError result with its message', async () => {
    const result = await connected.client.callTool({ name: 'fail', arguments: {} });
    expect(result).toEqual({ content: [{ type: 'text', text: 'the warehouse is closed' }], isError: true });
  });

  it('carries every content type', async () => {
    const result = await connected.client.callTool({ name: 'media', arguments: {} });
    expect(result.content).toEqual([
      { type: 'image', data: PNG_BYTES.toString('base64'), mimeType: 'image/png' },
      { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
      { type: 'resource', resource: { uri: 'docs://readme', mimeType: 'text/markdown', text: '# Readme' } },
      { type: 'resource_link', uri: 'users://7/profile', name: 'profile of user 7' },
    ]);
  });

  it('rejects an unknown tool with a JSON-RPC error', async () => {
    await expect(connected.client.callTool({ name: 'nope', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown tool: nope'),
    });
  });

  it('lists and reads resources, binary ones as base64', async () => {
    const { resources } = await connected.client.listResources();
    expect(resources).toEqual([
      { uri: 'docs://readme', name: 'readme', mimeType: 'text/markdown' },
      { uri: 'files://logo.png', name: 'logo', mimeType: 'image/png' },
    ]);
    expect(await connected.client.readResource({ uri: 'docs://readme' })).toEqual({
      contents: [{ uri: 'docs://readme', mimeType: 'text/markdown', text: '# Readme' }],
    });
    expect(await connected.client.readResource({ uri: 'files://logo.png' })).toEqual({
      contents: [{ uri: 'files://logo.png', mimeType: 'image/png', blob: PNG_BYTES.toString('base64') }],
    });
  });

  it('lists templates and reads a resource through one', async () => {
    const { resourceTemplates } = await connected.client.listResourceTemplates();
    expect(resourceTemplates).toEqual([
      { uriTemplate: 'users://{id}/profile', name: 'profile', mimeType: 'application/json' },
    ]);
    const read = await connected.client.readResource({ uri: 'users://12/profile' });
    expect(read.contents).toEqual([
      { uri: 'users://12/profile', mimeType: 'application/json', text: '{"id":"12","name":"user 12"}' },
    ]);
  });

  it('answers an unknown resource with -32002', async () => {
    await expect(connected.client.readResource({ uri: 'docs://missing' })).rejects.toMatchObject({ code: -32002 });
  });

  it('lists and gets prompts, and refuses a missing required argument', async () => {
    const { prompts } = await connected.client.listPrompts();
    expect(prompts).toEqual([
      {
        name: 'review',
        description: 'Review code',
        arguments: [{ name: 'code', required: true }, { name: 'language' }],
      },
    ]);
    const prompt = await connected.client.getPrompt({ name: 'review', arguments: { code: 'x = 1', language: 'go' } });
    expect(prompt).toEqual({
      description: 'Review code',
      messages: [{ role: 'user', content: { type: 'text', text: 'Review this go: x = 1' } }],
    });
    await expect(connected.client.getPrompt({ name: 'review', arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });

  it('completes prompt arguments and template variables', async () => {
    const forPrompt = await connected.client.complete({
      ref: { type: 'ref/prompt', name: 'review' },
      argument: { name: 'language', value: 'ty' },
    });
    expect(forPrompt.completion).toEqual({ values: ['typescript'] });
    const forTemplate = await connected.client.complete({
      ref: { type: 'ref/resource', uri: 'users://{id}/profile' },
      argument: { name: 'id', value: '1' },
    });
    expect(forTemplate.completion).toEqual({ values: ['1', '12'] });
  });

  it('accepts logging/setLevel and ping', async () => {
    await expect(connected.client.setLoggingLevel('warning')).resolves.toEqual({});
    await expect(connected.client.ping()).resolves.toEqual({});
  });
});

describe('the SDK client of a stateless server on an older revision', () => {
  it('gets results shaped for 2025-03-26: no structuredContent, no titles', async () => {
    const app = express();
    // Without sessions each request's MCP-Protocol-Version header says which revision it speaks.
    app.use('/mcp', buildRouter({ sessions: false }));
    const { client, transport, close } = await connectClient(app);
    try {
      // Every request after initialize now carries MCP-Protocol-Version: 2025-03-26.
      transport.setProtocolVersion('2025-03-26');
      const { tools } = await client.listTools();
      expect(tools[0]).toEqual({
        name: 'add',
        description: 'Add two numbers',
        inputSchema: {
          type: 'object',
          properties: { a: { type: 'number' }, b: { type: 'number' } },
          required: ['a', 'b'],
        },
        annotations: { readOnlyHint: true },
      });
      const result = await client.request(
        { method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 } } },
        CallToolResultSchema,
      );
      expect(result).toEqual({ content: [{ type: 'text', text: '{"sum":3}' }] });
      // Before 2025-11-25, invalid arguments are a protocol error.
      await expect(
        client.request({ method: 'tools/call', params: { name: 'add', arguments: { a: 1 } } }, CallToolResultSchema),
      ).rejects.toMatchObject({ code: -32602 });
    } finally {
      await close();
    }
  });
});
