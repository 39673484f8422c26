// One handler, both eras, end to end: the fixture's asking tools completed by the SDK v2 client (2026 input_required
// retries) and by the SDK v1 client (2025 session, real server→client requests), each through its own handlers.

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { mcpRouter } from '../../lib';
import { addInputRequiredFixtures } from '../../demo/everything-input';

const CAPABILITIES = { elicitation: {}, sampling: {}, roots: {} };
const ROOTS = [{ uri: 'file:///work/project', name: 'project' }];

/** What each client's handlers were asked, by method. */
interface Asked {
  methods: string[];
}

/** The fixture's router (sessions on, for the 2025 client) with every POST's protocol version recorded. */
async function listen(): Promise<{ url: URL; versions: (string | undefined)[]; stop(): Promise<void> }> {
  const mcp = mcpRouter({ name: 'ask-e2e', version: '1.0.0', logger: { error: jest.fn(), warn: jest.fn() } });
  addInputRequiredFixtures(mcp);
  const versions: (string | undefined)[] = [];
  const app = express();
  app.use((req, _res, next) => {
    if (req.method === 'POST') versions.push(req.headers['mcp-protocol-version'] as string | undefined);
    next();
  });
  app.use('/mcp', mcp);
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    versions,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Fills the one property the form asks for: a colour, else a name. */
const answerElicitation = (asked: Asked, params: { requestedSchema?: { properties?: Record<string, unknown> } }) => {
  asked.methods.push('elicitation/create');
  const property = Object.keys(params.requestedSchema?.properties ?? {})[0] ?? 'name';
  return { action: 'accept' as const, content: { [property]: property === 'color' ? 'teal' : 'Ada' } };
};
const answerSampling = (asked: Asked) => {
  asked.methods.push('sampling/createMessage');
  return { role: 'assistant' as const, content: { type: 'text' as const, text: 'Paris' }, model: 'test-model' };
};
const answerRoots = (asked: Asked) => {
  asked.methods.push('roots/list');
  return { roots: ROOTS };
};

/** The text of a tool result. */
function textOf(result: object): string {
  return (result as { content: { text: string }[] }).content.map((block) => block.text).join('');
}

const EXPECTED: [string, string, string[]][] = [
  ['test_input_required_result_elicitation', 'Hello, Ada!', ['elicitation/create']],
  ['test_input_required_result_sampling', 'LLM response: Paris', ['sampling/createMessage']],
  ['test_input_required_result_list_roots', 'Client roots: file:///work/project', ['roots/list']],
  ['test_input_required_result_multi_round', 'Ada likes teal', ['elicitation/create', 'elicitation/create']],
];

describe('SDK v2 client pinned to 2026-07-28: input_required retries through its own handlers', () => {
  let server: Awaited<ReturnType<typeof listen>>;
  let client: ClientV2;
  const asked: Asked = { methods: [] };

  beforeAll(async () => {
    server = await listen();
    client = new ClientV2(
      { name: 'v2-asker', version: '2.0.0' },
      { capabilities: CAPABILITIES, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    client.setRequestHandler('elicitation/create', async (request) =>
      answerElicitation(asked, request.params as never),
    );
    client.setRequestHandler('sampling/createMessage', async () => answerSampling(asked));
    client.setRequestHandler('roots/list', async () => answerRoots(asked));
    await client.connect(new TransportV2(server.url));
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
  });
  beforeEach(() => {
    asked.methods = [];
  });

  it.each(EXPECTED)('completes %s', async (name, text, methods) => {
    const result = await client.callTool({ name, arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe(text);
    expect(asked.methods).toEqual(methods);
  });

  it('completes the asking prompt (prompts/get answers input_required too)', async () => {
    const prompt = await client.getPrompt({ name: 'test_input_required_result_prompt' });
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Use this context: Ada' } }]);
  });

  it('never left 2026: every POST of the retries named 2026-07-28 (no session, no 2025 fallback)', () => {
    expect(server.versions.length).toBeGreaterThan(0);
    expect(server.versions.every((version) => version === '2026-07-28')).toBe(true);
  });
});

describe('SDK v1 client in a 2025 session: the same handlers send real server→client requests', () => {
  let server: Awaited<ReturnType<typeof listen>>;
  let client: ClientV1;
  const asked: Asked = { methods: [] };

  beforeAll(async () => {
    server = await listen();
    client = new ClientV1({ name: 'v1-asker', version: '1.0.0' }, { capabilities: CAPABILITIES });
    client.setRequestHandler(ElicitRequestSchema, async (request) => answerElicitation(asked, request.params as never));
    client.setRequestHandler(CreateMessageRequestSchema, async () => answerSampling(asked));
    client.setRequestHandler(ListRootsRequestSchema, async () => answerRoots(asked));
    await client.connect(new TransportV1(server.url));
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
  });
  beforeEach(() => {
    asked.methods = [];
  });

  it('is a 2025 session', () => {
    expect(client.getServerVersion()?.name).toBe('ask-e2e');
    expect(server.versions.some((version) => version?.startsWith('2026'))).toBe(false);
  });

  it.each(EXPECTED)('completes %s', async (name, text, methods) => {
    const result = await client.callTool({ name, arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe(text);
    expect(asked.methods).toEqual(methods);
  });
});
