// A stdio upstream's asks during a call, relayed end to end: server-everything (over stdio, through the router) asks
// for an elicitation and a sampling; the SDK v1 client (2025, on the call's stream) and the SDK v2 client pinned to
// 2026-07-28 (through input_required rounds) answer, and the upstream's tool result carries the answers.

import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { closeAfterEach, closeGatewaysAfterEach, serveGateway, text } from './upstreams';
import { scaled } from '../../helpers/time-scale';

/** Every text block of a tool result (server-everything answers in several). */
const allText = (result: unknown): string => JSON.stringify((result as { content: unknown }).content);

closeGatewaysAfterEach();
closeAfterEach();
jest.setTimeout(30_000);

const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const CAPABILITIES = { elicitation: { form: {} }, sampling: {} };
const ELICITED = { action: 'accept' as const, content: { name: 'Ada Lovelace', check: true } };
const SAMPLED = {
  role: 'assistant' as const,
  content: { type: 'text' as const, text: 'a relayed completion' },
  model: 'test-model',
};

const clients: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function gateway(): Promise<string> {
  const { url } = await serveGateway({}, (mcp) => [
    mcp.upstream({
      prefix: 'ev',
      command: process.execPath,
      args: [EVERYTHING, 'stdio'],
      listTimeoutMs: scaled(15_000),
    }),
  ]);
  return url;
}

it('a 2025 caller (SDK v1) answers the upstream’s elicitation and sampling on its call’s stream', async () => {
  const url = await gateway();
  const asked: string[] = [];
  const client = new ClientV1({ name: 'v1-asked', version: '1.0.0' }, { capabilities: CAPABILITIES });
  client.setRequestHandler(ElicitRequestSchema, async () => (asked.push('elicitation'), ELICITED));
  client.setRequestHandler(CreateMessageRequestSchema, async () => (asked.push('sampling'), SAMPLED));
  await client.connect(new TransportV1(new URL(url)));
  clients.push(client);
  expect(allText(await client.callTool({ name: 'ev__trigger-elicitation-request', arguments: {} }))).toContain(
    'Ada Lovelace',
  );
  expect(
    allText(await client.callTool({ name: 'ev__trigger-sampling-request', arguments: { prompt: 'hello' } })),
  ).toContain('a relayed completion');
  expect(asked).toEqual(['elicitation', 'sampling']);
});

it('a 2026 caller (SDK v2, pinned) answers them through input_required, and the retry completes', async () => {
  const url = await gateway();
  const asked: string[] = [];
  const client = new ClientV2(
    { name: 'v2-asked', version: '2.0.0' },
    { capabilities: CAPABILITIES, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  client.setRequestHandler('elicitation/create', async () => (asked.push('elicitation'), ELICITED));
  client.setRequestHandler('sampling/createMessage', async () => (asked.push('sampling'), SAMPLED));
  await client.connect(new TransportV2(new URL(url)));
  clients.push(client);
  expect(allText(await client.callTool({ name: 'ev__trigger-elicitation-request', arguments: {} }))).toContain(
    'Ada Lovelace',
  );
  expect(
    allText(await client.callTool({ name: 'ev__trigger-sampling-request', arguments: { prompt: 'hello' } })),
  ).toContain('a relayed completion');
  expect(asked).toEqual(['elicitation', 'sampling']);
});

it('a caller that did not declare elicitation gets the spec’s answer, and the upstream is not left waiting', async () => {
  const url = await gateway();
  const client = new ClientV1({ name: 'v1-mute', version: '1.0.0' });
  await client.connect(new TransportV1(new URL(url)));
  clients.push(client);
  const result = await client
    .callTool({ name: 'ev__trigger-elicitation-request', arguments: {} })
    .then(allText, (err: Error) => err.message);
  expect(result).not.toContain('Ada Lovelace');
  // The process still serves: the next call is answered.
  expect(text(await client.callTool({ name: 'ev__echo', arguments: { message: 'still here' } }))).toBe(
    'Echo: still here',
  );
});
