// The demo's stdio upstream: the roaster server (demo/stdio-upstream.ts) run by the router as a child process and
// mounted under the prefix `roaster`, as clients of both eras see it; plan_tasting's question relayed to the caller.

import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { createDemo, type Demo } from '../demo/server';
import { ROASTS } from '../demo/stdio-upstream';
import { listenLocally, type Listening } from './helpers/ports';
import { STORE_RESOURCE_URIS } from './helpers/demo-lists';

jest.setTimeout(30_000);

const token = 'demo-roaster-token';
const headers = { Authorization: `Bearer ${token}` };
const QUESTION = 'Plan a tasting: how many guests, and which brewing method?';
/** The plan for four guests brewing filter: the light and medium roasts of the week, 15 g a cup. */
const FILTER_FOR_FOUR = {
  planned: true,
  guests: 4,
  method: 'filter',
  coffees: ['Ethiopia Guji', 'Colombia Huila', 'Kenya Nyeri'],
  gramsOfEach: 60,
};

let demo: Demo;
let app: Listening;
let url: URL;
const clients: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  demo = createDemo({ token, roaster: true });
  app = await listenLocally(demo.app);
  url = new URL(`http://127.0.0.1:${app.port}/mcp`);
  // The process was started when mounted; its first lists arrive soon after.
  await demo.roaster!.refresh();
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

afterAll(async () => {
  await demo?.mcp.close();
  await app?.close();
});

/** The SDK v1 client (2025 session) with the bearer token; answers elicitations with `answer` when given, declaring the capability only then. */
async function v1Client(
  answer?: (
    message: string,
    schema: unknown,
  ) => { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, string | number> },
): Promise<ClientV1> {
  const client = new ClientV1(
    { name: 'demo-v1', version: '1.0.0' },
    answer ? { capabilities: { elicitation: {} } } : {},
  );
  if (answer)
    client.setRequestHandler(ElicitRequestSchema, async (request) =>
      answer(request.params.message, 'requestedSchema' in request.params ? request.params.requestedSchema : undefined),
    );
  await client.connect(new TransportV1(url, { requestInit: { headers } }));
  clients.push(client);
  return client;
}

describe('the demo with its roaster upstream over stdio', () => {
  it("lists the roaster's tools and resource after the store's, and status() shows a healthy 2025 stdio upstream", async () => {
    const client = await v1Client();
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    expect(tools.slice(0, 1)).toEqual(['audit_inventory']);
    expect(tools.slice(-2)).toEqual(['roaster__roast_schedule', 'roaster__plan_tasting']);
    expect((await client.listResources()).resources.map((resource) => resource.uri)).toEqual([
      ...STORE_RESOURCE_URIS,
      'roaster+roaster://green-stock',
    ]);
    expect(demo.roaster!.status()).toMatchObject({
      name: 'roaster',
      prefix: 'roaster',
      state: 'healthy',
      era: '2025',
      error: undefined,
      items: { tools: 2, prompts: 0, resources: 1, resourceTemplates: 0 },
    });
    const stock = await client.readResource({ uri: 'roaster+roaster://green-stock' });
    expect(JSON.parse((stock.contents[0] as { text: string }).text)).toMatchObject({ 'Kenya Nyeri': 18 });
  });

  it('calls roaster__roast_schedule through the demo, with and without its filter', async () => {
    const client = await v1Client();
    const all = await client.callTool({ name: 'roaster__roast_schedule', arguments: {} });
    expect(all.structuredContent).toEqual({ roasts: ROASTS, totalKg: 43 });
    const espresso = await client.callTool({ name: 'roaster__roast_schedule', arguments: { coffee: 'Espresso' } });
    expect(espresso.structuredContent).toEqual({ roasts: [ROASTS[0], ROASTS[3]], totalKg: 24 });
  });

  it('plan_tasting asks a 2025 caller (SDK v1 client) on its call, and plans with the answer', async () => {
    const asked: unknown[] = [];
    const client = await v1Client((message, schema) => {
      asked.push({ message, schema });
      return { action: 'accept', content: { guests: 4, method: 'filter' } };
    });
    const result = await client.callTool({ name: 'roaster__plan_tasting', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual(FILTER_FOR_FOUR);
    expect(asked).toEqual([
      {
        message: QUESTION,
        schema: expect.objectContaining({
          required: ['guests', 'method'],
          properties: expect.objectContaining({
            method: expect.objectContaining({ enum: ['espresso', 'filter', 'french press'] }),
          }),
        }),
      },
    ]);
  });

  it('plan_tasting takes no for an answer, and tells a caller that cannot be asked why it failed', async () => {
    const declining = await v1Client(() => ({ action: 'decline' }));
    expect((await declining.callTool({ name: 'roaster__plan_tasting', arguments: {} })).structuredContent).toEqual({
      planned: false,
      reason: 'You chose decline: no tasting planned.',
    });
    // No elicitation capability (as the playground): the gateway refuses the roaster's ask at once, and the tool says so.
    const plain = await v1Client();
    const refused = await plain.callTool({ name: 'roaster__plan_tasting', arguments: {} });
    expect(refused).toMatchObject({
      isError: true,
      content: [
        {
          type: 'text',
          text: expect.stringMatching(
            /^plan_tasting needs to ask you two questions, and your client cannot answer them \(.*did not declare the 'elicitation' capability/,
          ),
        },
      ],
    });
  });

  it('plan_tasting asks a 2026 caller (SDK v2 client) through input_required, and its retry with the answer completes', async () => {
    const asked: string[] = [];
    /** Every tools/call the client sent and the result it got back, as JSON. */
    const exchanges: { sent: Record<string, unknown>; got: Record<string, unknown> }[] = [];
    const recording = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const response = await fetch(input, init);
      const sent =
        typeof init?.body === 'string'
          ? (JSON.parse(init.body) as { method?: string; params: Record<string, unknown> })
          : undefined;
      if (
        sent?.method === 'tools/call' &&
        (response.headers.get('content-type') ?? '').startsWith('application/json')
      ) {
        exchanges.push({
          sent: sent.params,
          got: ((await response.clone().json()) as { result: Record<string, unknown> }).result,
        });
      }
      return response;
    };
    const client = new ClientV2(
      { name: 'demo-v2', version: '2.0.0' },
      { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { guests: 2, method: 'espresso' } };
    });
    await client.connect(new TransportV2(url, { requestInit: { headers }, fetch: recording }));
    clients.push(client);

    const result = await client.callTool({ name: 'roaster__plan_tasting', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      planned: true,
      guests: 2,
      method: 'espresso',
      coffees: ['House espresso blend', 'Colombia Huila'],
      gramsOfEach: 36,
    });
    expect(asked).toEqual([QUESTION]);
    // Two POSTs: the call, answered input_required with the roaster's question; the retry with the answer, complete.
    expect(exchanges).toHaveLength(2);
    const [first, retry] = exchanges as [(typeof exchanges)[number], (typeof exchanges)[number]];
    expect(first.got).toMatchObject({ resultType: 'input_required', inputRequests: expect.any(Object) });
    const [[key, request]] = Object.entries(first.got.inputRequests as Record<string, unknown>) as [[string, unknown]];
    expect(request).toMatchObject({ method: 'elicitation/create', params: { message: QUESTION } });
    expect(retry.sent.inputResponses).toEqual({
      [key]: { action: 'accept', content: { guests: 2, method: 'espresso' } },
    });
    expect(retry.got).toMatchObject({ resultType: 'complete' });
  });
});
