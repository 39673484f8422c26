// Paid tools never run unpaid (issue 29): free variants of one signed payment, one payment at several guards, tools
// or a gateway at once, a hanging or cancelled verification; against a facilitator that settles a nonce once.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { type McpRouter } from '../../lib';
import { x402Facilitator, x402Guard, type PaymentPayload, type PaymentRequirements } from '../../lib/x402';
import { createApp, MCP_ACCEPT, post, rpc } from '../helpers/create-app';
import {
  closeAfterEach,
  closeGatewaysAfterEach,
  routerCallUpstream,
  serveGateway,
  type Received,
} from '../features/gateway/upstreams';
import { useFacilitator, type FakeFacilitator } from '../features/payments/fake-facilitator';
import { scaled } from '../helpers/time-scale';

closeGatewaysAfterEach();
closeAfterEach();

const V = { 'MCP-Protocol-Version': '2025-11-25' };
const PAY_TO = '0x209693Bc6afc0C5328bA36FaF03C514EF312287C';
const PRICE: PaymentRequirements = {
  scheme: 'exact',
  network: 'eip155:84532',
  amount: '10000',
  asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  payTo: PAY_TO,
  maxTimeoutSeconds: 60,
  extra: { name: 'USDC', version: '2' },
};

let counter = 0;
/** An EIP-3009 payment as a wallet signs it (scheme_exact_evm.md): a fresh 32-byte nonce each time. */
function signed(): PaymentPayload {
  counter += 1;
  return {
    x402Version: 2,
    resource: { url: 'mcp://tool/search', description: 'Paid search', mimeType: 'application/json' },
    accepted: PRICE,
    payload: {
      signature: 'ok',
      authorization: {
        from: '0x857b06519E91e3A54538791bDbb0E22373e36b66',
        to: PAY_TO,
        value: '10000',
        validAfter: '1740672089',
        validBefore: '1740672154',
        nonce: `0x${counter.toString(16).padStart(4, '0')}f3746613c2d920b5fdabc0856f2aeb2d4f88ee6037b8cc5d04a71a4462f1`,
      },
    },
  };
}

const base64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64');

/** One call's payment: in `_meta["x402/payment"]` (object or base64), or in a header. */
interface Carrier {
  readonly meta?: Record<string, unknown>;
  readonly headers?: Record<string, string>;
}

/**
 * What a hostile payer can send for free with one signed authorization: nothing a signature or the facilitator
 * checks changes (the fake facilitator treats every one as the same payment, as a chain would).
 */
function freeVariants(paid: PaymentPayload): Array<[string, Carrier]> {
  const authorization = paid.payload.authorization as Record<string, string>;
  const reordered = Object.fromEntries(Object.entries(authorization).reverse());
  return [
    ['as signed', { meta: { 'x402/payment': paid } }],
    [
      'another accepted.extra',
      {
        meta: {
          'x402/payment': {
            ...paid,
            accepted: { ...paid.accepted, extra: { name: 'USDC', version: '2', note: 'again' } },
          },
        },
      },
    ],
    [
      'another accepted.maxTimeoutSeconds',
      { meta: { 'x402/payment': { ...paid, accepted: { ...paid.accepted, maxTimeoutSeconds: 600 } } } },
    ],
    [
      'keys reordered, hex in other cases',
      {
        meta: {
          'x402/payment': {
            payload: {
              authorization: {
                ...reordered,
                from: authorization.from!.toUpperCase().replace('0X', '0x'),
                nonce: authorization.nonce!.toUpperCase().replace('0X', '0x'),
              },
              signature: 'ok',
            },
            accepted: { ...paid.accepted, payTo: PAY_TO.toLowerCase() },
            x402Version: 2,
          },
        },
      },
    ],
    [
      'unknown fields, another resource and extensions',
      {
        meta: {
          'x402/payment': {
            ...paid,
            resource: { url: 'mcp://tool/other' },
            extensions: { x: 1 },
            payload: { ...paid.payload, memo: 'x' },
          },
        },
      },
    ],
    [
      'base64 of a variant, under x402.payment',
      { meta: { 'x402.payment': base64({ ...paid, accepted: { ...paid.accepted, extra: {} } }) } },
    ],
    [
      'in the PAYMENT-SIGNATURE header',
      { headers: { 'PAYMENT-SIGNATURE': base64({ ...paid, accepted: { ...paid.accepted, extra: { v: 3 } } }) } },
    ],
  ];
}

type Result = { isError?: boolean; content: Array<{ type: string; text: string }>; _meta?: Record<string, unknown> };

/** 'paid', or the `error` of the payment-required result. */
function outcome(result: Result): string {
  if (result.isError !== true) return result._meta?.['x402/payment-response'] === undefined ? 'unpaid result' : 'paid';
  return String((JSON.parse(result.content[0]?.text ?? '{}') as { error?: unknown }).error);
}

async function callTool(target: Express, name: string, carrier: Carrier): Promise<Result> {
  const res = await post(
    target,
    rpc('tools/call', { name, arguments: {}, ...(carrier.meta === undefined ? {} : { _meta: carrier.meta }) }),
    { ...V, ...carrier.headers },
  );
  expect(res.status).toBe(200);
  return (res.body as { result: Result }).result;
}

/**
 * Sends every call at once while the facilitator holds its verifications, waits until each is either refused or
 * being verified, then lets the facilitator answer: a guard that lets two through has both at the facilitator.
 */
async function allAtOnce(calls: Array<() => Promise<Result>>): Promise<string[]> {
  facilitator.mode = 'hold';
  let refused = 0;
  const pending = calls.map((call) =>
    call().then((result) => {
      refused += 1;
      // A refused call counts too: the wait below looks again.
      facilitator.called.notify();
      return result;
    }),
  );
  await facilitator.called.when(
    () => refused + facilitator.calls.verify.length === calls.length,
    'every call refused or at the facilitator',
  );
  facilitator.release();
  return (await Promise.all(pending)).map(outcome);
}

const startedFacilitator = useFacilitator();
let facilitator: FakeFacilitator;
beforeEach(() => {
  facilitator = startedFacilitator();
});

const facilitatorClient = (): ReturnType<typeof x402Facilitator> =>
  x402Facilitator({ url: facilitator.url, timeoutMs: scaled(5_000) });

function paidApp(
  handler: jest.Mock,
  tools: readonly string[] = ['search'],
  guardOptions: { timeoutMs?: number } = {},
): Express {
  return createApp({ rateLimit: false }, (mcp: McpRouter) => {
    // One x402Guard per tool: each is its own instance, at one price.
    for (const name of tools)
      mcp.tool({
        name,
        description: `Paid ${name}`,
        guards: [x402Guard({ facilitator: facilitatorClient(), accepts: [PRICE], ...guardOptions })],
        handler: () => handler(name),
      });
  });
}

describe('one signed payment runs one call, whatever the payer varies for free', () => {
  it('N concurrent free variants of one authorization: the handler runs once, the facilitator verifies and settles once', async () => {
    const handler = jest.fn(() => 'result');
    const app = paidApp(handler);
    const variants = freeVariants(signed());
    const outcomes = await allAtOnce(
      variants.map(
        ([, carrier]) =>
          () =>
            callTool(app, 'search', carrier),
      ),
    );
    expect(handler).toHaveBeenCalledTimes(1);
    expect(facilitator.calls.verify).toHaveLength(1);
    expect(facilitator.calls.settle).toHaveLength(1);
    expect(outcomes.sort()).toEqual(
      ['paid', ...Array(variants.length - 1).fill('Payment already in use by another call')].sort(),
    );
  });

  it('each free variant of a settled payment is refused without running the tool or asking the facilitator', async () => {
    const handler = jest.fn(() => 'result');
    const app = paidApp(handler);
    const [first, ...rest] = freeVariants(signed());
    expect(outcome(await callTool(app, 'search', first![1]))).toBe('paid');
    for (const [name, carrier] of rest) {
      expect({ name, outcome: outcome(await callTool(app, 'search', carrier)) }).toEqual({
        name,
        outcome: 'Payment already used',
      });
    }
    expect(handler).toHaveBeenCalledTimes(1);
    expect(facilitator.calls.verify).toHaveLength(1);
  });

  it('a different authorization (another nonce) is another payment', async () => {
    const handler = jest.fn(() => 'result');
    const app = paidApp(handler);
    expect(
      await allAtOnce(
        [signed(), signed()].map((paid) => () => callTool(app, 'search', { meta: { 'x402/payment': paid } })),
      ),
    ).toEqual(['paid', 'paid']);
    expect(handler).toHaveBeenCalledTimes(2);
  });
});

describe('one payment is in use once, whichever guard sees it', () => {
  it('two paid tools with their own x402Guard at one price, paid at once with one payment: one runs', async () => {
    const handler = jest.fn((name: string) => name);
    const app = paidApp(handler, ['search', 'summarize']);
    const paid = signed();
    const outcomes = await allAtOnce([
      () => callTool(app, 'search', { meta: { 'x402/payment': paid } }),
      () => callTool(app, 'summarize', { headers: { 'X-PAYMENT': base64(paid) } }),
    ]);
    expect(handler).toHaveBeenCalledTimes(1);
    expect(outcomes.sort()).toEqual(['Payment already in use by another call', 'paid']);
    // And once settled, neither tool takes it again.
    expect(outcome(await callTool(app, 'search', { meta: { 'x402/payment': paid } }))).toBe('Payment already used');
    expect(outcome(await callTool(app, 'summarize', { meta: { 'x402/payment': paid } }))).toBe('Payment already used');
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it("a gateway's guards on two upstream tools and a local paid tool, paid at once with one payment: one runs", async () => {
    const received: Received[] = [];
    const upstream = await routerCallUpstream(
      {},
      (mcp) => {
        mcp.tool({ name: 'search', description: 'Searches', handler: () => 'hits' });
        mcp.tool({ name: 'fetch', description: 'Fetches', handler: () => 'page' });
      },
      received,
    );
    const local = jest.fn(() => 'local');
    const pay = (): ReturnType<typeof x402Guard> => x402Guard({ facilitator: facilitatorClient(), accepts: [PRICE] });
    const gateway = await serveGateway({ sessions: false }, (mcp) => {
      mcp.tool({ name: 'local', description: 'Paid local', guards: [pay()], handler: local });
      return [mcp.upstream({ prefix: 'idx', url: upstream.url, guards: { search: [pay()], fetch: [pay()] } })];
    });
    const paid = signed();
    const callGateway = (name: string) => async (): Promise<Result> => {
      const res = await fetch(gateway.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: MCP_ACCEPT, ...V },
        body: JSON.stringify(rpc('tools/call', { name, arguments: {}, _meta: { 'x402/payment': paid } })),
      });
      return ((await res.json()) as { result: Result }).result;
    };
    const outcomes = await allAtOnce(['idx__search', 'idx__fetch', 'local'].map(callGateway));
    const upstreamRuns = received.filter((request) => request.rpc === 'tools/call').length;
    expect(upstreamRuns + local.mock.calls.length).toBe(1);
    expect(outcomes.sort()).toEqual([
      'Payment already in use by another call',
      'Payment already in use by another call',
      'paid',
    ]);
  });
});

describe('a verification that hangs or is cancelled', () => {
  it('a second call while the first hangs at /verify is refused at once; the guard timeout frees the payment for a later call', async () => {
    const handler = jest.fn(() => 'result');
    const app = paidApp(handler, ['search'], { timeoutMs: 300 });
    const paid = signed();
    facilitator.mode = 'hang';
    const first = callTool(app, 'search', { meta: { 'x402/payment': paid } });
    await facilitator.called.when(() => facilitator.calls.verify.length === 1, 'the first verification');
    expect(
      outcome(
        await callTool(app, 'search', { meta: { 'x402/payment': { ...paid, accepted: { ...PRICE, extra: {} } } } }),
      ),
    ).toBe('Payment already in use by another call');
    expect(outcome(await first)).toBe('Payment facilitator verify timed out after 300 ms');
    expect(handler).not.toHaveBeenCalled();
    facilitator.mode = 'ok';
    expect(outcome(await callTool(app, 'search', { meta: { 'x402/payment': paid } }))).toBe('paid');
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('a settlement whose answer never comes keeps the payment refused: it may have gone out, and a retry must not run the tool again', async () => {
    const handler = jest.fn(() => 'result');
    const app = paidApp(handler, ['search'], { timeoutMs: 300 });
    const paid = signed();
    facilitator.mode = 'settle-hang';
    expect(outcome(await callTool(app, 'search', { meta: { 'x402/payment': paid } }))).toBe(
      'Payment facilitator settle timed out after 300 ms',
    );
    expect(handler).toHaveBeenCalledTimes(1);
    // The facilitator answers again; the transaction is still pending, so /verify would accept the payment.
    facilitator.mode = 'ok';
    expect(outcome(await callTool(app, 'search', { meta: { 'x402/payment': paid } }))).toBe('Payment already used');
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('a caller that hangs up mid-verify frees its payment: the same payment then pays for one call', async () => {
    const handler = jest.fn(() => 'result');
    const app = paidApp(handler);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const paid = signed();
      facilitator.mode = 'hold';
      const body = JSON.stringify(
        rpc('tools/call', { name: 'search', arguments: {}, _meta: { 'x402/payment': paid } }),
      );
      const request = http.request({
        port: (server.address() as AddressInfo).port,
        host: '127.0.0.1',
        path: '/mcp',
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: MCP_ACCEPT, ...V },
      });
      request.on('error', () => undefined);
      request.end(body);
      await facilitator.called.when(() => facilitator.calls.verify.length === 1, 'the verification');
      request.destroy();
      // The guard aborts its /verify when the call is cancelled: the facilitator sees its caller go.
      await facilitator.called.when(() => facilitator.calls.abandoned === 1, 'the cancelled verification');
      facilitator.release();
      expect(outcome(await callTool(app, 'search', { meta: { 'x402/payment': paid } }))).toBe('paid');
      expect(handler).toHaveBeenCalledTimes(1);
      expect(facilitator.calls.settle).toHaveLength(1);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
