// Paid tools in a JSON-RPC batch of a 2025-03-26 session (the last revision with batches): each call is charged on its own.

import type { Express } from 'express';
import { x402Facilitator, x402Guard, type PaymentPayload, type PaymentRequirements } from '../../../lib/x402';
import { createApp, post, rpc } from '../../helpers/create-app';
import { startFacilitator, type FakeFacilitator } from './fake-facilitator';
import { PRICE } from './price';

type Response = { jsonrpc: '2.0'; id: string | number; result?: Record<string, unknown>; error?: unknown };

let facilitator: FakeFacilitator;
let app: Express;
let session: Record<string, string>;
beforeAll(async () => {
  facilitator = await startFacilitator();
});
afterAll(() => facilitator?.close());

beforeEach(async () => {
  facilitator.calls.verify.length = 0;
  facilitator.calls.settle.length = 0;
  const pay = x402Guard({ facilitator: x402Facilitator({ url: facilitator.url }), accepts: [PRICE] });
  app = createApp({ sessions: {}, rateLimit: false }, (mcp) => {
    mcp.tool({
      name: 'search',
      description: 'Paid search',
      inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
      guards: [pay],
      handler: ({ q }: { q?: string }) => ({ hits: [`${q ?? ''}: 1 result`] }),
    });
    mcp.tool({ name: 'free', description: 'Free', inputSchema: { type: 'object' }, handler: () => 'free' });
  });
  const init = await post(
    app,
    rpc('initialize', {
      protocolVersion: '2025-03-26',
      capabilities: {},
      clientInfo: { name: 'batcher', version: '1' },
    }),
  );
  expect(init.status).toBe(200);
  expect((init.body as Response).result?.protocolVersion).toBe('2025-03-26');
  session = { 'Mcp-Session-Id': init.headers['mcp-session-id'] as string, 'MCP-Protocol-Version': '2025-03-26' };
  expect((await post(app, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status).toBe(202);
});

const payment = (nonce: string): PaymentPayload => ({
  x402Version: 2,
  accepted: PRICE,
  payload: { signature: 'ok', authorization: { from: '0xPayer', nonce } },
});
const searchCall = (id: string, meta?: Record<string, unknown>): Record<string, unknown> =>
  rpc('tools/call', { name: 'search', arguments: { q: id }, ...(meta === undefined ? {} : { _meta: meta }) }, id);

/** POSTs a batch in the session; HTTP 200 and one response per request, by id. */
async function batch(requests: Array<Record<string, unknown>>): Promise<Map<string | number, Response>> {
  const res = await post(app, requests, session);
  expect(res.status).toBe(200);
  const body = JSON.parse(res.text) as Response[];
  expect(Array.isArray(body)).toBe(true);
  expect(body).toHaveLength(requests.length);
  return new Map(body.map((response) => [response.id, response]));
}

/** The 2025-03-26 envelope: no structuredContent in that revision, so the PaymentRequired travels as the JSON text. */
const envelope = (error?: string): Record<string, unknown> => ({
  content: [
    {
      type: 'text',
      text: JSON.stringify({
        x402Version: 2,
        ...(error === undefined ? {} : { error }),
        resource: { url: 'mcp://tool/search', description: 'Paid search', mimeType: 'application/json' },
        accepts: [PRICE],
      }),
    },
  ],
  isError: true,
});

it('a batch of a free call, an unpaid call and a paid call: the free result, the envelope, and the settled result', async () => {
  const responses = await batch([
    rpc('tools/call', { name: 'free', arguments: {} }, 'free'),
    searchCall('unpaid'),
    searchCall('paid', { 'x402/payment': payment('batch-1') }),
  ]);
  expect(responses.get('free')).toEqual({
    jsonrpc: '2.0',
    id: 'free',
    result: { content: [{ type: 'text', text: 'free' }] },
  });
  expect(responses.get('unpaid')).toEqual({ jsonrpc: '2.0', id: 'unpaid', result: envelope() });
  expect(responses.get('paid')).toEqual({
    jsonrpc: '2.0',
    id: 'paid',
    result: {
      content: [{ type: 'text', text: JSON.stringify({ hits: ['paid: 1 result'] }) }],
      _meta: {
        'x402/payment-response': {
          success: true,
          payer: '0xPayer',
          transaction: '0xtx-batch-1',
          network: 'eip155:84532',
        },
      },
    },
  });
  expect(facilitator.calls.verify).toHaveLength(1);
  expect(facilitator.calls.settle).toHaveLength(1);
});

it('one payment sent twice in a batch pays for one call only: the other gets the envelope with the reason', async () => {
  const twice = payment('batch-2');
  const responses = await batch([
    searchCall('a', { 'x402/payment': twice }),
    searchCall('b', { 'x402/payment': twice }),
  ]);
  const results = [responses.get('a')?.result, responses.get('b')?.result];
  const settled = results.filter((result) => result?.isError === undefined);
  const refused = results.filter((result) => result?.isError === true);
  expect(settled).toHaveLength(1);
  expect(settled[0]?._meta).toEqual({
    'x402/payment-response': { success: true, payer: '0xPayer', transaction: '0xtx-batch-2', network: 'eip155:84532' },
  });
  expect(refused).toHaveLength(1);
  expect([envelope('Payment already in use by another call'), envelope('Payment already used')]).toContainEqual(
    refused[0],
  );
  expect(facilitator.calls.settle).toHaveLength(1);
});
