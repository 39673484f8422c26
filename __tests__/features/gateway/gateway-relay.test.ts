// Asks relayed through the gateway: a 2025 upstream's elicitation and sampling requests, a 2026 upstream's input_required, to callers of both eras.

import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  CreateMessageResultSchema,
  ElicitRequestSchema,
  ElicitResultSchema,
  type ElicitRequest,
} from '@modelcontextprotocol/sdk/types.js';
import {
  closeAfterEach,
  closeGatewaysAfterEach,
  routerCallUpstream,
  sdkV1CallUpstream,
  serveGateway,
  waitFor,
  type Upstream,
} from './upstreams';
import { Signal } from '../../helpers/events';

/** Told as each run of an asking upstream tool ends. */
const runEnded = new Signal();

closeGatewaysAfterEach();
closeAfterEach();

const SCHEMA = { type: 'object' as const, properties: { seats: { type: 'integer' as const } }, required: ['seats'] };
const ACCEPTED = { action: 'accept', content: { seats: 2 } };
const SAMPLED = { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model' };
const BOOKED = { content: [{ type: 'text', text: 'booked 2 seats in Paris' }] };

const clients: V1Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

/** How often an upstream's `book` tool started, and how often a run ended (answered, failed or aborted; counted by the SDK v1 upstream). */
interface Runs {
  started: number;
  ended: number;
}

/** SDK v1 McpServer (2025): `book` asks the caller (elicitation/create, then sampling/createMessage) on the call's stream. */
function sdkV1Asking(runs: Runs): Promise<Upstream> {
  return sdkV1CallUpstream((server) => {
    server.registerTool('book', { description: 'Books seats after asking' }, async (extra) => {
      runs.started++;
      try {
        const answer = await extra.sendRequest(
          { method: 'elicitation/create', params: { message: 'How many seats?', requestedSchema: SCHEMA } },
          ElicitResultSchema,
        );
        const said = await extra.sendRequest(
          {
            method: 'sampling/createMessage',
            params: { messages: [{ role: 'user', content: { type: 'text', text: 'Which city?' } }], maxTokens: 5 },
          },
          CreateMessageResultSchema,
        );
        return {
          content: [
            {
              type: 'text',
              text: `booked ${String(answer.content?.seats)} seats in ${said.content.type === 'text' ? said.content.text : '?'}`,
            },
          ],
        };
      } finally {
        runs.ended++;
        runEnded.notify();
      }
    });
  });
}

/** This router (2026): `book` asks with ctx.elicit and ctx.sample, which a 2026 upstream answers with input_required. */
function routerAsking(runs: Runs): Promise<Upstream> {
  return routerCallUpstream({}, (mcp) => {
    mcp.tool({
      name: 'book',
      description: 'Books seats after asking',
      handler: async (_args, ctx) => {
        runs.started++;
        const answer = await ctx.elicit({ message: 'How many seats?', requestedSchema: SCHEMA });
        const said = await ctx.sample({
          messages: [{ role: 'user', content: { type: 'text', text: 'Which city?' } }],
          maxTokens: 5,
        });
        return `booked ${String((answer.content as { seats?: number } | undefined)?.seats)} seats in ${(said.content as { text?: string }).text ?? '?'}`;
      },
    });
  });
}

const UPSTREAMS = [
  { kind: '2025 upstream (SDK v1 McpServer: requests on the call stream)', era: '2025', start: sdkV1Asking },
  { kind: '2026 upstream (this router: input_required)', era: '2026', start: routerAsking },
] as const;

/** The SDK v1 client (2025) with elicitation and sampling handlers, recording what it was asked. */
async function askedClient(url: string, asked: string[]): Promise<V1Client> {
  const client = new V1Client(
    { name: 'v1-caller', version: '1.0.0' },
    { capabilities: { elicitation: {}, sampling: {} } },
  );
  client.setRequestHandler(ElicitRequestSchema, async (request: ElicitRequest) => {
    asked.push(`elicit: ${request.params.message}`);
    return ACCEPTED;
  });
  client.setRequestHandler(CreateMessageRequestSchema, async () => {
    asked.push('sample');
    return SAMPLED;
  });
  await client.connect(new V1Transport(new URL(url)));
  clients.push(client);
  return client;
}

/** A 2026 tools/call POST with the envelope; `capabilities` are the caller's clientCapabilities. */
async function rawModernCall(
  url: string,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown>,
): Promise<{ status: number; body: { result?: Record<string, unknown>; error?: unknown } }> {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': capabilities,
  };
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': 'tools/call',
      'Mcp-Name': String(params.name),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { ...params, _meta: meta } }),
  });
  return { status: res.status, body: (await res.json()) as { result?: Record<string, unknown>; error?: unknown } };
}

/** {@link rawModernCall}, expecting a result. */
async function modernCall(
  url: string,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const { status, body } = await rawModernCall(url, params, capabilities);
  expect({ status, error: body.error }).toEqual({ status: 200, error: undefined });
  return body.result!;
}

describe.each(UPSTREAMS)('$kind', ({ era, start }) => {
  it('asks a 2025 caller (SDK v1 client with elicitation and sampling handlers) and the tool completes with its answers', async () => {
    const runs = { started: 0, ended: 0 };
    const upstream = await start(runs);
    const gateway = await serveGateway({}, (mcp) => [mcp.upstream({ prefix: 'trip', url: upstream.url })]);
    expect(gateway.handles[0]!.status().era).toBe(era);
    const asked: string[] = [];
    const client = await askedClient(gateway.url, asked);
    const result = await client.callTool({ name: 'trip__book', arguments: {} });
    expect(result).toEqual(BOOKED);
    expect(asked).toEqual(['elicit: How many seats?', 'sample']);
    // A 2025 upstream asks on the call's own stream: one run. A 2026 upstream ends each round with input_required,
    // and the gateway retries with the answers: its handler runs once per round (MCP 2026-07-28 MRTR).
    expect(runs.started).toBe(era === '2025' ? 1 : 3);
  });

  it("asks a 2026 caller through input_required, with the upstream's questions; the retry with inputResponses and requestState completes", async () => {
    const runs = { started: 0, ended: 0 };
    const upstream = await start(runs);
    const gateway = await serveGateway({}, (mcp) => [mcp.upstream({ prefix: 'trip', url: upstream.url })]);
    const capabilities = { elicitation: {}, sampling: {} };
    let result = await modernCall(gateway.url, { name: 'trip__book', arguments: {} }, capabilities);
    const answers: Record<string, unknown> = {};
    // Each round asks what the upstream asks next (the elicitation, then the sampling); the caller answers all so far.
    for (let round = 0; result.resultType === 'input_required' && round < 4; round++) {
      const requests = result.inputRequests as Record<string, { method: string; params: Record<string, unknown> }>;
      expect(Object.keys(requests)).toHaveLength(1);
      const [[key, request]] = Object.entries(requests) as [
        [string, { method: string; params: Record<string, unknown> }],
      ];
      expect(typeof result.requestState).toBe('string');
      if (round === 0)
        expect(request).toEqual({
          method: 'elicitation/create',
          params: { message: 'How many seats?', requestedSchema: SCHEMA },
        });
      else expect(request).toMatchObject({ method: 'sampling/createMessage', params: { maxTokens: 5 } });
      answers[key] = request.method === 'elicitation/create' ? ACCEPTED : SAMPLED;
      result = await modernCall(
        gateway.url,
        { name: 'trip__book', arguments: {}, inputResponses: answers, requestState: result.requestState },
        capabilities,
      );
    }
    expect(result).toMatchObject({ resultType: 'complete', ...BOOKED });
    // The gateway keeps nothing between the caller's rounds: each retry calls the upstream again from the start
    // (a 2025 upstream's tool runs again and asks again; the gateway answers what the caller already answered).
    // A 2026 upstream runs once more per answer inside each retry too: 1 + 2 + 3 runs over the caller's three rounds.
    expect(runs.started).toBe(era === '2025' ? 3 : 6);
    if (era === '2025') {
      // The runs left waiting for an answer the caller gives only on its retry end (the gateway answers the upstream's
      // pending ask with an error once it returned input_required): none is left waiting for its own time limit.
      await waitFor(() => runs.ended === 3, runEnded);
    }
  });

  it('gives a 2025 caller without the elicitation capability a clear error result at once', async () => {
    const upstream = await start({ started: 0, ended: 0 });
    const gateway = await serveGateway({}, (mcp) => [mcp.upstream({ prefix: 'trip', url: upstream.url })]);
    const client = new V1Client({ name: 'plain', version: '1.0.0' });
    await client.connect(new V1Transport(new URL(gateway.url)));
    clients.push(client);
    const started = Date.now();
    const result = await client.callTool({ name: 'trip__book', arguments: {} });
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: expect.stringMatching(/did not declare the 'elicitation' capability/) }],
    });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('gives a 2026 caller without the elicitation capability a clear answer at once', async () => {
    const upstream = await start({ started: 0, ended: 0 });
    const gateway = await serveGateway({}, (mcp) => [mcp.upstream({ prefix: 'trip', url: upstream.url })]);
    const started = Date.now();
    const res = await rawModernCall(gateway.url, { name: 'trip__book', arguments: {} }, {});
    if (era === '2025') {
      // The 2025 upstream got the gateway's refusal of its ask, and its tool failed with it: an isError result.
      expect(res.status).toBe(200);
      expect(res.body.result).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: expect.stringMatching(/did not declare the 'elicitation' capability/) }],
      });
    } else {
      // The gateway itself asks on the 2026 upstream's behalf: MCP 2026-07-28 M3, -32021 naming the capability, HTTP 400.
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        code: -32021,
        message: expect.stringMatching(/did not declare the 'elicitation' capability/),
        data: { requiredCapabilities: { elicitation: {} } },
      });
    }
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
