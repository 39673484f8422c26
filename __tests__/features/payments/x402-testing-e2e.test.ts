// A paid tool tried end to end from the package alone: x402Guard + testFacilitator() on a real Express app, paid
// with testPayment() by the official SDK client, as docs/guards-and-payments.md shows it.

import express from 'express';
import { mcpRouter } from '../../../lib';
import { x402Guard, type PaymentRequired, type PaymentRequirements, type SettleResponse } from '../../../lib/x402';
import { testFacilitator, testPayment } from '../../../lib/x402-testing';
import { PRICE } from './price';
import { connectClient, type ConnectedClient } from '../../helpers/connect-client';

/** Calls the paid tool's handler ran. */
let runs = 0;

function paidApp(): express.Express {
  const mcp = mcpRouter({ name: 'paid', version: '1.0.0' });
  mcp.tool({
    name: 'premium_search',
    description: 'Search, 0.01 USDC a call',
    inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    guards: [x402Guard({ facilitator: testFacilitator(), accepts: [PRICE] })],
    handler: ({ q }: { q: string }) => {
      runs += 1;
      return `results for ${q}`;
    },
  });
  const app = express();
  app.use('/mcp', mcp);
  return app;
}

interface ToolResult {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

describe('a paid tool with the shipped test facilitator', () => {
  let connected: ConnectedClient;
  beforeAll(async () => {
    connected = await connectClient(paidApp());
  });
  afterAll(() => connected?.close());
  const call = (meta?: Record<string, unknown>) =>
    connected.client.callTool({
      name: 'premium_search',
      arguments: { q: 'mcp' },
      ...(meta === undefined ? {} : { _meta: meta }),
    }) as Promise<ToolResult>;

  it('asks for payment, runs and settles a testPayment() of the price asked, and refuses the same payment again', async () => {
    const unpaid = await call();
    expect(unpaid.isError).toBe(true);
    const required = unpaid.structuredContent as unknown as PaymentRequired;
    expect(required).toMatchObject({ x402Version: 2, accepts: [PRICE] });

    const payment = testPayment(required.accepts[0] as PaymentRequirements);
    const paid = await call({ 'x402/payment': payment });
    expect(paid.isError).toBeUndefined();
    expect(paid.content).toEqual([{ type: 'text', text: 'results for mcp' }]);
    const settlement = paid._meta?.['x402/payment-response'] as SettleResponse;
    expect(settlement).toEqual({
      success: true,
      payer: (payment.payload.authorization as { from: string }).from,
      transaction: expect.stringMatching(/^0xtest-[0-9a-f]{16}$/),
      network: PRICE.network,
      amount: PRICE.amount,
    });

    const replay = await call({ 'x402/payment': payment });
    expect(replay.isError).toBe(true);
    expect(replay.structuredContent).toMatchObject({ error: 'Payment already used', accepts: [PRICE] });

    // A second testPayment() is a new payment: it pays for a second call.
    const second = await call({ 'x402/payment': testPayment(PRICE) });
    expect(second.isError).toBeUndefined();
    expect((second._meta?.['x402/payment-response'] as SettleResponse).transaction).not.toBe(settlement.transaction);
  });

  it('refuses a payment the test facilitator did not make, and runs nothing for it', async () => {
    const before = runs;
    const forged = testPayment(PRICE);
    forged.payload.signature = `0x${'ab'.repeat(65)}`;
    const refused = await call({ 'x402/payment': forged });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({
      error: expect.stringMatching(/^Payment verification failed: invalid_signature/),
    });
    expect(runs).toBe(before);
  });
});

describe('the test facilitator in production', () => {
  const originalEnv = process.env.NODE_ENV;
  afterEach(() => {
    process.env.NODE_ENV = originalEnv;
  });

  it('stops the app from booting when NODE_ENV=production', () => {
    process.env.NODE_ENV = 'production';
    expect(() => paidApp()).toThrow(/^mcpRouter: testFacilitator\(\) refuses to start with NODE_ENV=production/);
  });
});
