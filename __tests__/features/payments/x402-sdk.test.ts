// Paid tools end to end with the official SDK clients: v1 in a 2025 session, v2 pinned to 2026-07-28, v2 in its default mode.

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { mcpRouter, type ToolGuard } from '../../../lib';
import { x402Facilitator, x402Guard, type PaymentPayload, type PaymentRequirements } from '../../../lib/x402';
import { connectClient } from '../../helpers/connect-client';
import { startFacilitator, type FakeFacilitator } from './fake-facilitator';
import { PRICE } from './price';

const TYPED_OUTPUT = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };

/** What either SDK's callTool answers, as far as these tests read it. */
interface ToolResult {
  isError?: boolean;
  content: unknown[];
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}
/** One SDK's callTool, with the `_meta` of the request passed in its params as both SDKs do. */
type CallTool = (params: {
  name: string;
  arguments: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}) => Promise<ToolResult>;

let facilitator: FakeFacilitator;
beforeAll(async () => {
  facilitator = await startFacilitator();
});
afterAll(() => facilitator?.close());
beforeEach(() => {
  facilitator.calls.verify.length = 0;
  facilitator.calls.settle.length = 0;
});

/**
 * A stateful router (2025 sessions and 2026 on one endpoint): `search` paid, `typed` paid with an outputSchema,
 * `free`, and `naive_typed`, whose guard puts a PaymentRequired in structuredContent despite its outputSchema.
 */
function serve(): express.Express {
  const pay = x402Guard({ facilitator: x402Facilitator({ url: facilitator.url }), accepts: [PRICE] });
  const naivePaywall: ToolGuard = async () => ({
    isError: true,
    content: [{ type: 'text', text: 'pay' }],
    structuredContent: { x402Version: 2, accepts: [PRICE] },
  });
  const mcp = mcpRouter({ name: 'paid-e2e', version: '1.0.0' });
  mcp.tool({
    name: 'search',
    description: 'Paid search',
    inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
    guards: [pay],
    handler: ({ q }: { q?: string }, ctx) => ({ hits: [`${q ?? ''}: 1 result`], protocolVersion: ctx.protocolVersion }),
  });
  mcp.tool({
    name: 'typed',
    description: 'Paid, with an outputSchema',
    inputSchema: { type: 'object' },
    outputSchema: TYPED_OUTPUT,
    guards: [pay],
    handler: () => ({ n: 1 }),
  });
  mcp.tool({
    name: 'naive_typed',
    description: 'Control: structuredContent against its schema',
    inputSchema: { type: 'object' },
    outputSchema: TYPED_OUTPUT,
    guards: [naivePaywall],
    handler: () => ({ n: 1 }),
  });
  mcp.tool({ name: 'free', description: 'Free', inputSchema: { type: 'object' }, handler: () => 'free' });
  const app = express();
  app.use('/mcp', mcp);
  return app;
}

let nonces = 0;
/** What an x402 client builds from the requirement it picked; the fake facilitator verifies signature 'ok'. */
function payFor(requirement: PaymentRequirements): PaymentPayload {
  nonces += 1;
  return {
    x402Version: 2,
    accepted: requirement,
    payload: { signature: 'ok', authorization: { from: '0xPayer', nonce: `sdk-${nonces}` } },
  };
}

/** The PaymentRequired of a payment-required result, read from content[0].text as x402 clients do. */
function requiredFrom(result: ToolResult): {
  x402Version: number;
  resource: { url: string };
  accepts: PaymentRequirements[];
} {
  expect(result.isError).toBe(true);
  const first = result.content[0] as { type: string; text: string };
  expect(first.type).toBe('text');
  return JSON.parse(first.text) as { x402Version: number; resource: { url: string }; accepts: PaymentRequirements[] };
}

/** Call unpaid → PaymentRequired; pay accepts[0]; retry with `_meta['x402/payment']` → the result with its settlement. */
async function payAndRetry(
  callTool: CallTool,
  name: string,
  args: Record<string, unknown>,
): Promise<{ unpaid: ToolResult; paid: ToolResult }> {
  const unpaid = await callTool({ name, arguments: args });
  const required = requiredFrom(unpaid);
  expect(required).toMatchObject({ x402Version: 2, resource: { url: `mcp://tool/${name}` }, accepts: [PRICE] });
  const payment = payFor(required.accepts[0] as PaymentRequirements);
  const paid = await callTool({ name, arguments: args, _meta: { 'x402/payment': payment } });
  expect(paid.isError).toBeFalsy();
  expect(paid._meta?.['x402/payment-response']).toEqual({
    success: true,
    payer: '0xPayer',
    transaction: `0xtx-sdk-${nonces}`,
    network: 'eip155:84532',
  });
  expect(facilitator.calls.verify).toEqual([{ x402Version: 2, paymentPayload: payment, paymentRequirements: PRICE }]);
  expect(facilitator.calls.settle).toHaveLength(1);
  return { unpaid, paid };
}

async function listen(app: express.Express): Promise<{ url: URL; stop: () => Promise<void> }> {
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An SDK v2 client on a fresh server: pinned when `pin` is given, else in its default (2025 session) mode. */
async function connectV2(pin?: '2026-07-28'): Promise<{ client: ClientV2; close: () => Promise<void> }> {
  const { url, stop } = await listen(serve());
  const client = new ClientV2(
    { name: 'x402-v2', version: '2.0.0' },
    pin === undefined ? {} : { versionNegotiation: { mode: { pin } } },
  );
  try {
    await client.connect(new TransportV2(url));
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    client,
    close: async () => {
      await client.close();
      await stop();
    },
  };
}

describe('SDK v1 client (@modelcontextprotocol/sdk) in a 2025 session', () => {
  let connected: Awaited<ReturnType<typeof connectClient>>;
  let callTool: CallTool;
  beforeAll(async () => {
    connected = await connectClient(serve());
    callTool = (params) => connected.client.callTool(params) as Promise<ToolResult>;
    // The v1 client checks structuredContent against a tool's outputSchema only once it has listed the tools.
    const { tools } = await connected.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['search', 'typed', 'naive_typed', 'free']);
  });
  afterAll(() => connected?.close());

  it('pays and retries: PaymentRequired in structuredContent and text, then the result with the settlement', async () => {
    const { unpaid, paid } = await payAndRetry(callTool, 'search', { q: 'v1' });
    expect(unpaid.structuredContent).toEqual(requiredFrom(unpaid));
    expect(paid.structuredContent).toEqual({ hits: ['v1: 1 result'], protocolVersion: '2025-11-25' });
  });

  it('a tool with an outputSchema: the envelope carries no structuredContent, so the client accepts it; the paid retry validates', async () => {
    const { unpaid, paid } = await payAndRetry(callTool, 'typed', {});
    expect(unpaid.structuredContent).toBeUndefined();
    expect(paid.structuredContent).toEqual({ n: 1 });
  });

  it('control: the same client rejects an error result whose structuredContent breaks the outputSchema', async () => {
    await expect(callTool({ name: 'naive_typed', arguments: {} })).rejects.toThrow(
      /does not match the tool's output schema/,
    );
  });

  it('free tools are not charged', async () => {
    expect(await callTool({ name: 'free', arguments: {} })).toEqual({ content: [{ type: 'text', text: 'free' }] });
    expect(facilitator.calls.verify).toHaveLength(0);
  });
});

describe.each<[string, '2026-07-28' | undefined, string]>([
  ['pinned to 2026-07-28', '2026-07-28', '2026-07-28'],
  ['in its default mode (a 2025 session)', undefined, '2025-11-25'],
])('SDK v2 client (@modelcontextprotocol/client) %s', (_label, pin, protocolVersion) => {
  let connection: Awaited<ReturnType<typeof connectV2>>;
  let callTool: CallTool;
  beforeAll(async () => {
    connection = await connectV2(pin);
    callTool = (params) => connection.client.callTool(params) as Promise<ToolResult>;
    await connection.client.listTools();
  });
  afterAll(() => connection?.close());

  it(`pays and retries; the tool runs in ${protocolVersion}`, async () => {
    const { unpaid, paid } = await payAndRetry(callTool, 'search', { q: 'v2' });
    expect(unpaid.structuredContent).toEqual(requiredFrom(unpaid));
    expect(paid.structuredContent).toEqual({ hits: ['v2: 1 result'], protocolVersion });
  });

  it('a tool with an outputSchema: envelope without structuredContent, then the validated result', async () => {
    const { unpaid, paid } = await payAndRetry(callTool, 'typed', {});
    expect(unpaid.structuredContent).toBeUndefined();
    expect(paid.structuredContent).toEqual({ n: 1 });
  });

  it('a payment is good for one call: presenting it again gets the envelope, and nothing more is settled', async () => {
    const payment = payFor(PRICE);
    expect(
      (await callTool({ name: 'search', arguments: {}, _meta: { 'x402/payment': payment } }))._meta?.[
        'x402/payment-response'
      ],
    ).toMatchObject({ success: true });
    const replay = await callTool({ name: 'search', arguments: {}, _meta: { 'x402/payment': payment } });
    expect(requiredFrom(replay)).toMatchObject({ error: 'Payment already used', accepts: [PRICE] });
    expect(facilitator.calls.settle).toHaveLength(1);
  });
});
