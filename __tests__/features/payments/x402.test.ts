// Paid tools over HTTP: x402Guard with x402Facilitator against an in-process facilitator, in both protocol eras.

import type { Express } from 'express';
import type request from 'supertest';
import { type ToolGuard } from '../../../lib';
import { x402Facilitator, x402Guard, type PaymentPayload, type PaymentRequirements } from '../../../lib/x402';
import { createApp, post, rpc } from '../../helpers/create-app';
import { modern } from '../../helpers/modern';
import { FACILITATOR_SECRET, startFacilitator, type FakeFacilitator } from './fake-facilitator';
import { PRICE } from './price';
import { Signal } from '../../helpers/events';

const V = { 'MCP-Protocol-Version': '2025-11-25' };

let nonces = 0;
/** A payment as a client signs it: `signature` steers the fake facilitator; each has a fresh nonce. */
function payment(signature = 'ok', accepted: PaymentRequirements = PRICE): PaymentPayload {
  nonces += 1;
  return { x402Version: 2, accepted, payload: { signature, authorization: { from: '0xPayer', nonce: `n${nonces}` } } };
}
const base64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64');

type Body = { result?: Record<string, unknown>; error?: Record<string, unknown> };
type Result = {
  isError?: boolean;
  content: Array<{ type: string; text: string }>;
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
};

let facilitator: FakeFacilitator;
let app: Express;
const handler = jest.fn((args: { q?: string }) => ({ hits: [`${args.q ?? ''}: 1 result`] }));

beforeAll(async () => {
  facilitator = await startFacilitator();
});
afterAll(() => facilitator?.close());

function build(guardOptions: { facilitatorTimeoutMs?: number; timeoutMs?: number } = {}): Express {
  const pay = x402Guard({
    facilitator: x402Facilitator({ url: facilitator.url, timeoutMs: guardOptions.facilitatorTimeoutMs ?? 2_000 }),
    accepts: [PRICE],
    timeoutMs: guardOptions.timeoutMs,
  });
  return createApp({ rateLimit: false }, (mcp) => {
    mcp.tool({
      name: 'search',
      description: 'Paid search',
      inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
      guards: [pay],
      handler,
    });
    mcp.tool({
      name: 'typed',
      description: 'Paid, with an outputSchema',
      inputSchema: { type: 'object' },
      outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      guards: [pay],
      handler: () => ({ n: 1 }),
    });
    mcp.tool({
      name: 'broken',
      description: 'Paid, and fails',
      inputSchema: { type: 'object' },
      guards: [pay],
      handler: () => {
        throw new Error('index offline');
      },
    });
    mcp.tool({ name: 'free', description: 'Free', inputSchema: { type: 'object' }, handler: () => 'free' });
  });
}

beforeEach(() => {
  jest.clearAllMocks();
  facilitator.mode = 'ok';
  facilitator.calls.verify.length = 0;
  facilitator.calls.settle.length = 0;
  app = build();
});

/** A 2025 (stateless, 2025-11-25) tools/call; `meta` is its `_meta`. */
async function call2025(
  name: string,
  meta?: Record<string, unknown>,
  headers: Record<string, string> = {},
  target: Express = app,
): Promise<Result> {
  const res = await post(
    target,
    rpc('tools/call', { name, arguments: { q: 'x' }, ...(meta === undefined ? {} : { _meta: meta }) }),
    { ...V, ...headers },
  );
  expect(res.status).toBe(200);
  const body = res.body as Body;
  expect(body.error).toBeUndefined();
  return body.result as unknown as Result;
}

/** A 2025-11-25 session on `target`, initialized: the headers of its later requests. */
async function openSession(target: Express): Promise<Record<string, string>> {
  const init = await post(
    target,
    rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } }),
  );
  const session = { 'Mcp-Session-Id': init.headers['mcp-session-id'] as string, ...V };
  expect((await post(target, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status).toBe(202);
  return session;
}

/**
 * The PaymentRequired a payment-required result carries, from its text; its structuredContent is the same, except for
 * a tool with an outputSchema (`textOnly`), whose envelope has none.
 */
function required(result: Result, { textOnly = false } = {}): Record<string, unknown> {
  expect(result.isError).toBe(true);
  const fromText = JSON.parse(result.content[0]?.text ?? '') as Record<string, unknown>;
  expect(result.structuredContent).toEqual(textOnly ? undefined : fromText);
  return fromText;
}

describe('the pay-and-retry flow', () => {
  it('2025: no payment → PaymentRequired (structuredContent and text, HTTP 200); paid retry → result with the settlement', async () => {
    const first = await call2025('search');
    expect(first.structuredContent).toEqual({
      x402Version: 2,
      resource: { url: 'mcp://tool/search', description: 'Paid search', mimeType: 'application/json' },
      accepts: [PRICE],
    });
    expect(required(first)).toEqual(first.structuredContent);
    expect(handler).not.toHaveBeenCalled();

    const paid = payment();
    const second = await call2025('search', { 'x402/payment': paid });
    expect(second.isError).toBeUndefined();
    expect(second.structuredContent).toEqual({ hits: ['x: 1 result'] });
    expect(second._meta?.['x402/payment-response']).toEqual({
      success: true,
      payer: '0xPayer',
      transaction: `0xtx-${(paid.payload.authorization as { nonce: string }).nonce}`,
      network: 'eip155:84532',
    });
    expect(facilitator.calls.verify).toEqual([{ x402Version: 2, paymentPayload: paid, paymentRequirements: PRICE }]);
    expect(facilitator.calls.settle).toHaveLength(1);
  });

  it('2026: the same flow on stateless requests (a complete result, then a new request with the payment)', async () => {
    const first = await modern(app, 'tools/call', { name: 'search', arguments: { q: 'x' } });
    expect(first.status).toBe(200);
    const unpaid = (first.body as Body).result as unknown as Result & { resultType?: string };
    expect(unpaid.resultType).toBe('complete');
    expect(required(unpaid).accepts).toEqual([PRICE]);

    const second = await modern(
      app,
      'tools/call',
      { name: 'search', arguments: { q: 'x' } },
      {},
      { 'x402/payment': payment() },
    );
    expect(second.status).toBe(200);
    const paid = (second.body as Body).result as unknown as Result & { resultType?: string };
    expect(paid).toMatchObject({ resultType: 'complete', structuredContent: { hits: ['x: 1 result'] } });
    expect(paid._meta?.['x402/payment-response']).toMatchObject({ success: true, network: 'eip155:84532' });
  });

  it('2026: a guard outside the paid one that asks the client after it gets an error, not input_required (its retry would run the paid call again)', async () => {
    const asked: unknown[] = [];
    const feedback: ToolGuard = async (call, next) => {
      const result = await next();
      await call.ctx
        .elicit({ message: 'Rate it', requestedSchema: { type: 'object', properties: {} } })
        .catch((err: Error) => asked.push(err.message));
      return result;
    };
    const pay = x402Guard({ facilitator: x402Facilitator({ url: facilitator.url }), accepts: [PRICE] });
    const asking = createApp({ rateLimit: false }, (mcp) =>
      mcp.tool({
        name: 'search',
        description: 'Paid search',
        inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
        guards: [feedback, pay],
        handler,
      }),
    );
    const res = await modern(
      asking,
      'tools/call',
      { name: 'search', arguments: { q: 'x' } },
      {},
      { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} }, 'x402/payment': payment() },
    );
    const result = (res.body as Body).result as unknown as Result & { resultType?: string };
    // The paid result, settled once: the ask after the settlement failed at once instead of ending the call.
    expect(result).toMatchObject({ resultType: 'complete', structuredContent: { hits: ['x: 1 result'] } });
    expect(result._meta?.['x402/payment-response']).toMatchObject({ success: true });
    expect(asked).toEqual([
      "ctx: elicitation/create cannot be sent after the call's payment settled (a retry would run it again)",
    ]);
    expect(facilitator.calls.settle).toHaveLength(1);
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('takes the payment as base64 JSON, under x402.payment, and in the PAYMENT-SIGNATURE and X-PAYMENT headers', async () => {
    for (const [meta, headers] of [
      [{ 'x402/payment': base64(payment()) }, {}],
      [{ 'x402.payment': base64(payment()) }, {}],
      [undefined, { 'PAYMENT-SIGNATURE': base64(payment()) }],
      [undefined, { 'X-PAYMENT': base64(payment()) }],
    ] as const) {
      const result = await call2025('search', meta, headers);
      expect(result.isError).toBeUndefined();
      expect(result._meta?.['x402/payment-response']).toMatchObject({ success: true });
    }
    expect(facilitator.calls.settle).toHaveLength(4);
  });

  it('leaves structuredContent out of the envelope of a tool with an outputSchema (text only), and pays it as usual', async () => {
    const first = await call2025('typed');
    expect(required(first, { textOnly: true }).accepts).toEqual([PRICE]);
    const paid = await call2025('typed', { 'x402/payment': payment() });
    expect(paid.structuredContent).toEqual({ n: 1 });
  });

  it('2025 session, SSE replies: the same flow, HTTP 200 on both', async () => {
    const pay = x402Guard({ facilitator: x402Facilitator({ url: facilitator.url }), accepts: [PRICE] });
    const stateful = createApp({ sessions: {}, responseMode: 'sse', rateLimit: false }, (mcp) =>
      mcp.tool({ name: 'search', description: 'Paid search', guards: [pay], handler }),
    );
    const session = await openSession(stateful);
    const sseResult = async (meta?: Record<string, unknown>): Promise<Result> => {
      const res = await post(
        stateful,
        rpc('tools/call', { name: 'search', arguments: {}, ...(meta && { _meta: meta }) }, 2),
        session,
      );
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
      const data = res.text.split('\n').filter((line) => line.startsWith('data: ') && line.length > 6);
      return (JSON.parse(data[data.length - 1]?.slice(6) ?? '{}') as Body).result as unknown as Result;
    };
    expect(required(await sseResult()).accepts).toEqual([PRICE]);
    expect((await sseResult({ 'x402/payment': payment() }))._meta?.['x402/payment-response']).toMatchObject({
      success: true,
    });
  });

  it('lets free tools through untouched', async () => {
    expect(await call2025('free')).toEqual({ content: [{ type: 'text', text: 'free' }] });
  });
});

describe('failures end with the envelope and the reason in error', () => {
  it('a payment the facilitator finds invalid: not run, not settled', async () => {
    const result = await call2025('search', { 'x402/payment': payment('forged') });
    expect(required(result).error).toBe('Payment verification failed: invalid_exact_evm_payload_signature');
    expect(handler).not.toHaveBeenCalled();
    expect(facilitator.calls.settle).toHaveLength(0);
  });

  it('a payment for another price: no matching requirement, the facilitator not asked', async () => {
    const result = await call2025('search', { 'x402/payment': payment('ok', { ...PRICE, amount: '1' }) });
    expect(required(result).error).toBe('No matching payment requirements');
    expect(facilitator.calls.verify).toHaveLength(0);
  });

  it('a payment that does not decode', async () => {
    expect(required(await call2025('search', { 'x402/payment': '%%%' })).error).toBe(
      'Invalid payment: not base64-encoded JSON',
    );
    expect(required(await call2025('search', { 'x402/payment': { x402Version: 1, scheme: 'exact' } })).error).toMatch(
      /unsupported x402Version 1/,
    );
  });

  it('a failing tool: no settlement, the reason given, and the payment can be used again', async () => {
    const paid = payment();
    const result = await call2025('broken', { 'x402/payment': paid });
    expect(required(result).error).toBe('Tool failed; payment not settled: index offline');
    expect(facilitator.calls.settle).toHaveLength(0);
    expect((await call2025('search', { 'x402/payment': paid })).isError).toBeUndefined();
  });

  it('a failed settlement withholds the output', async () => {
    const result = await call2025('search', { 'x402/payment': payment('settle-fails') });
    expect(required(result).error).toBe('Settlement failed: insufficient_funds');
    expect(result.content[0]?.text).not.toContain('1 result');
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it.each([
    ['500', 'Payment facilitator /verify answered HTTP 500'],
    ['garbage', 'Payment facilitator /verify gave a malformed answer'],
    ['huge', 'Payment facilitator /verify gave a malformed answer (too large)'],
  ] as const)('a facilitator answering %s: HTTP 200, a clear error, no URL or body', async (mode, error) => {
    facilitator.mode = mode;
    const res = await post(
      app,
      rpc('tools/call', { name: 'search', arguments: {}, _meta: { 'x402/payment': payment() } }),
      V,
    );
    expect(res.status).toBe(200);
    const result = (res.body as Body).result as unknown as Result;
    expect(required(result).error).toBe(error);
    expect(res.text).not.toContain(FACILITATOR_SECRET);
    expect(res.text).not.toContain(facilitator.url);
    expect(handler).not.toHaveBeenCalled();
  });

  it('a facilitator that hangs: the call ends at the facilitator timeout, and at the guard timeout', async () => {
    facilitator.mode = 'hang';
    const slow = build({ facilitatorTimeoutMs: 200 });
    expect(required(await call2025('search', { 'x402/payment': payment() }, {}, slow)).error).toBe(
      'Payment facilitator /verify timed out after 200 ms',
    );
    const guarded = build({ facilitatorTimeoutMs: 60_000, timeoutMs: 200 });
    expect(required(await call2025('search', { 'x402/payment': payment() }, {}, guarded)).error).toBe(
      'Payment facilitator verify timed out after 200 ms',
    );
  });
});

describe('one payment, one call', () => {
  it('refuses a settled payment presented again, in either form', async () => {
    const paid = payment();
    expect((await call2025('search', { 'x402/payment': paid })).isError).toBeUndefined();
    expect(required(await call2025('search', { 'x402/payment': paid })).error).toBe('Payment already used');
    expect(required(await call2025('search', undefined, { 'PAYMENT-SIGNATURE': base64(paid) })).error).toBe(
      'Payment already used',
    );
    expect(handler).toHaveBeenCalledTimes(1);
    expect(facilitator.calls.settle).toHaveLength(1);
  });

  it('runs only one of two concurrent calls paying with one payload', async () => {
    facilitator.mode = 'slow';
    const paid = payment();
    const results = await Promise.all([
      call2025('search', { 'x402/payment': paid }),
      call2025('search', { 'x402/payment': paid }),
    ]);
    const errors = results.map((result) => (result.isError === true ? required(result).error : 'paid'));
    expect(errors.sort()).toEqual(['Payment already in use by another call', 'paid']);
    expect(handler).toHaveBeenCalledTimes(1);
    expect(facilitator.calls.settle).toHaveLength(1);
  });
  /**
   * A 2025 session on a router whose paid tool `report` runs `handler`: calls paying with one payment (`call(id)`),
   * and `cancel(id)`, the client's notifications/cancelled.
   */
  async function cancellableSession(
    facilitatorOf: () => Parameters<typeof x402Guard>[0]['facilitator'],
    handler: (ctx: { signal: AbortSignal }) => Promise<string>,
  ): Promise<{ call(id: number): Promise<request.Response>; cancel(id: number): Promise<unknown> }> {
    const pay = x402Guard({ facilitator: facilitatorOf(), accepts: [PRICE] });
    const stateful = createApp({ sessions: {}, rateLimit: false }, (mcp) =>
      mcp.tool({
        name: 'report',
        description: 'Paid; finishes its work even when cancelled (deaf to its signal, as many handlers are)',
        guards: [pay],
        handler: (_args: unknown, ctx) => handler(ctx),
      }),
    );
    const session = await openSession(stateful);
    const paid = payment();
    return {
      call: (id) =>
        post(
          stateful,
          rpc('tools/call', { name: 'report', arguments: {}, _meta: { 'x402/payment': paid } }, id),
          session,
        ).then((res) => res),
      cancel: (id) =>
        post(
          stateful,
          { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'no longer needed' } },
          session,
        ).expect(202),
    };
  }

  it('settles nothing for a call the client cancelled while the tool ran, and the payment pays for a later call', async () => {
    const running = new Signal();
    const runs = jest.fn(running.notify);
    const session = await cancellableSession(
      () => x402Facilitator({ url: facilitator.url }),
      async (ctx) => {
        runs();
        if (runs.mock.calls.length === 1) await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
        return 'the report';
      },
    );
    const cancelled = session.call(7);
    await running.when(() => runs.mock.calls.length === 1, 'the tool to run');
    await session.cancel(7);
    expect((await cancelled).text).not.toContain('the report');
    expect(facilitator.calls.settle).toHaveLength(0);
    // Not spent: the same payment pays for the next call, which runs and settles once.
    const again = (await session.call(8)).body as Body;
    expect(again.result).toMatchObject({ _meta: { 'x402/payment-response': { success: true } } });
    expect(facilitator.calls.settle).toHaveLength(1);
  });

  it('answers a call cancelled while its settlement is under way with the paid result: a settle sent cannot be called back', async () => {
    let settling: (() => void) | undefined;
    const sent = new Signal();
    const session = await cancellableSession(
      () => ({
        verify: async () => ({ isValid: true, payer: '0xPayer' }),
        // A remote settlement the guard has sent: it completes whatever the call's signal says.
        settle: () =>
          new Promise((resolve) => {
            settling = () =>
              resolve({ success: true, transaction: '0xsettled', network: PRICE.network, payer: '0xPayer' });
            sent.notify();
          }),
      }),
      async () => 'the report',
    );
    const pending = session.call(7);
    await sent.when(() => settling !== undefined, 'the settlement to be sent');
    await session.cancel(7);
    settling?.();
    const body = (await pending).body as Body;
    expect(body.result).toMatchObject({
      content: [{ type: 'text', text: 'the report' }],
      _meta: { 'x402/payment-response': { success: true, transaction: '0xsettled' } },
    });
  });
});

describe('tools/list', () => {
  it('advertises the price of paid tools in _meta, and nothing on free ones', async () => {
    const res = await post(app, rpc('tools/list', {}), V);
    const tools = (res.body as Body).result?.tools as Array<{ name: string; _meta?: Record<string, unknown> }>;
    expect(tools.find((tool) => tool.name === 'search')?._meta).toEqual({ 'x402/paid': true, 'x402/accepts': [PRICE] });
    expect(tools.find((tool) => tool.name === 'free')?._meta).toBeUndefined();
  });

  it("merges any guard's listMeta into its tool's _meta, the tool's own _meta winning on a shared key", async () => {
    const tagged = Object.assign(((_call, next) => next()) as ToolGuard, {
      listMeta: { 'example/price': '1', 'example/tier': 'gold' },
    });
    const listed = createApp({}, (mcp) =>
      mcp.tool({
        name: 't',
        description: 'Tagged',
        _meta: { 'example/tier': 'own' },
        guards: [tagged],
        handler: () => 'ok',
      }),
    );
    const res = await post(listed, rpc('tools/list', {}), V);
    expect(((res.body as Body).result?.tools as Array<{ _meta?: unknown }>)[0]?._meta).toEqual({
      'example/price': '1',
      'example/tier': 'own',
    });
  });
});

describe('a price per call, and any { verify, settle } facilitator', () => {
  it('asks accepts(call) for the price of each call, and refuses a bad one with an isError result', async () => {
    const verify = jest.fn(async () => ({ isValid: true }));
    const settle = jest.fn(async () => ({ success: true, transaction: '0xt', network: 'eip155:84532' }));
    const pay = x402Guard({
      facilitator: { verify, settle },
      accepts: (call) =>
        call.arguments.q === 'bad'
          ? ([] as PaymentRequirements[])
          : [{ ...PRICE, amount: String(1000 * String(call.arguments.q).length) }],
    });
    const priced = createApp({ rateLimit: false }, (mcp) => {
      mcp.tool({
        name: 'search',
        description: 'Priced by query length',
        inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
        guards: [pay],
        handler,
      });
    });
    const callWith = async (q: string, meta?: Record<string, unknown>): Promise<Result> =>
      (
        (await post(priced, rpc('tools/call', { name: 'search', arguments: { q }, ...(meta && { _meta: meta }) }), V))
          .body as Body
      ).result as unknown as Result;
    expect(required(await callWith('abc')).accepts).toEqual([{ ...PRICE, amount: '3000' }]);
    expect(required(await callWith('abc', { 'x402/payment': payment('ok', { ...PRICE, amount: '1000' }) })).error).toBe(
      'No matching payment requirements',
    );
    expect(
      (await callWith('abc', { 'x402/payment': payment('ok', { ...PRICE, amount: '3000' }) }))._meta?.[
        'x402/payment-response'
      ],
    ).toEqual({ success: true, transaction: '0xt', network: 'eip155:84532' });
    const bad = await callWith('bad');
    expect(bad).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: expect.stringMatching(/^x402Guard: accepts\(\) must return a non-empty array/) }],
    });
  });

  it('never shows what a custom facilitator threw (it may hold a URL)', async () => {
    const pay = x402Guard({
      facilitator: {
        verify: async () => {
          throw new Error(`connect ECONNREFUSED ${facilitator.url}`);
        },
        settle: async () => ({ success: true, transaction: '0xt', network: 'n' }),
      },
      accepts: [PRICE],
    });
    const custom = createApp({ rateLimit: false }, (mcp) =>
      mcp.tool({ name: 'search', description: 'Paid', guards: [pay], handler }),
    );
    const res = await post(
      custom,
      rpc('tools/call', { name: 'search', arguments: {}, _meta: { 'x402/payment': payment() } }),
      V,
    );
    expect(required((res.body as Body).result as unknown as Result).error).toBe('Payment facilitator failed');
    expect(res.text).not.toContain(facilitator.url);
  });
});
