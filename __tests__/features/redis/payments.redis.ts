// The x402 payment ledger in Redis: one payment runs one call across instances and restarts; claims lapse, release, and fail closed.

import { randomUUID } from 'node:crypto';
import express, { type Express } from 'express';
import { mcpRouter } from '../../../lib';
import { x402Facilitator, x402Guard, type PaymentPayload, type PaymentRequirements } from '../../../lib/x402';
import { RedisPaymentLedger } from '../../../lib/features/redis/payment-ledger';
import { redisStore } from '../../../lib/redis';
import type { ToolGuardCall } from '../../../lib/core/registry/guards';
import type { RequestContext } from '../../../lib/core/registry/request-context';
import { post, rpc, silentLogger } from '../../helpers/create-app';
import { until } from '../../helpers/until';
import { useFacilitator, type FakeFacilitator } from '../payments/fake-facilitator';
import { useRedis } from './redis-server';
import { PRICE } from '../payments/price';

const redis = useRedis();

const V = { 'MCP-Protocol-Version': '2025-11-25' };
const TERMS = { replayTtlMs: 60_000, maxRemembered: 10 };

let counter = 0;
/** An EIP-3009 payment with a fresh nonce (`signature` steers the fake facilitator). */
function signed(): PaymentPayload {
  counter += 1;
  return {
    x402Version: 2,
    accepted: PRICE,
    payload: {
      signature: 'ok',
      authorization: {
        from: '0xAbC0000000000000000000000000000000000001',
        to: PRICE.payTo,
        value: '10000',
        validAfter: '0',
        validBefore: '9999999999',
        nonce: `0x${randomUUID().replace(/-/g, '')}${counter}`,
      },
    },
  };
}

type Result = { isError?: boolean; content: Array<{ type: string; text: string }>; _meta?: Record<string, unknown> };
function outcome(result: Result): string {
  if (result.isError !== true) return result._meta?.['x402/payment-response'] === undefined ? 'unpaid result' : 'paid';
  return String((JSON.parse(result.content[0]?.text ?? '{}') as { error?: unknown }).error);
}

const startedFacilitator = useFacilitator();
let facilitator: FakeFacilitator;
beforeEach(() => {
  facilitator = startedFacilitator();
});

/** One instance of a paid router on the shared store under `prefix`: its own guard, its own Redis connection. */
function instance(prefix: string, handler: jest.Mock): Express {
  const mcp = mcpRouter({
    name: 'paid',
    version: '1.0.0',
    sessions: false,
    rateLimit: false,
    logger: silentLogger(),
    store: redisStore({ url: redis.url, prefix }),
  });
  redis.closeAfter({ close: () => mcp.close() });
  mcp.tool({
    name: 'search',
    description: 'Paid search',
    guards: [x402Guard({ facilitator: x402Facilitator({ url: facilitator.url, timeoutMs: 5_000 }), accepts: [PRICE] })],
    handler: () => handler(),
  });
  const app = express();
  app.use('/mcp', mcp);
  return app;
}

async function callTool(app: Express, payment: unknown): Promise<Result> {
  const res = await post(
    app,
    rpc('tools/call', { name: 'search', arguments: {}, _meta: { 'x402/payment': payment } }),
    V,
  );
  expect(res.status).toBe(200);
  return (res.body as { result: Result }).result;
}

describe('instances sharing one store', () => {
  it('a payment settled on one instance is refused on another, and after a restart, without running the tool or asking the facilitator', async () => {
    const prefix = `p${randomUUID().slice(0, 8)}:`;
    const handler = jest.fn(() => 'result');
    const paid = signed();
    expect(outcome(await callTool(instance(prefix, handler), paid))).toBe('paid');
    // Another instance, and a restarted one (a new router on the same Redis), with a free variant of the payment.
    expect(
      outcome(await callTool(instance(prefix, handler), { ...paid, accepted: { ...PRICE, extra: { again: true } } })),
    ).toBe('Payment already used');
    expect(outcome(await callTool(instance(prefix, handler), paid))).toBe('Payment already used');
    expect(handler).toHaveBeenCalledTimes(1);
    expect(facilitator.calls.verify).toHaveLength(1);
    // The spent mark lives the guard's replayTtlMs (a day by default).
    const connection = redis.connect({ prefix });
    const keys = await connection.send<string[]>(['KEYS', `${prefix}pay:*`]);
    expect(keys).toHaveLength(1);
    expect(await connection.send(['GET', keys[0]!])).toBe('spent');
    expect(await connection.send<number>(['PTTL', keys[0]!])).toBeGreaterThan(86_000_000);
  });

  it('one payment sent to two instances at once runs one call', async () => {
    const prefix = `p${randomUUID().slice(0, 8)}:`;
    const handler = jest.fn(() => 'result');
    const [a, b] = [instance(prefix, handler), instance(prefix, handler)];
    const paid = signed();
    facilitator.mode = 'hold';
    let answered = 0;
    const pending = [callTool(a, paid), callTool(b, { ...paid, accepted: { ...PRICE, maxTimeoutSeconds: 5 } })].map(
      (call) =>
        call.then((result) => {
          answered += 1;
          // An answered call counts too: the wait below looks again.
          facilitator.called.notify();
          return outcome(result);
        }),
    );
    await facilitator.called.when(
      () => answered + facilitator.calls.verify.length === 2,
      'both calls refused or at the facilitator',
    );
    facilitator.release();
    expect((await Promise.all(pending)).sort()).toEqual(['Payment already in use by another call', 'paid']);
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('fails closed while Redis is down: the call is refused, the tool does not run', async () => {
    const prefix = `p${randomUUID().slice(0, 8)}:`;
    const handler = jest.fn(() => 'result');
    const app = instance(prefix, handler);
    expect(outcome(await callTool(app, signed()))).toBe('paid');
    await redis.stop();
    expect(outcome(await callTool(app, signed()))).toBe(
      'Payment could not be checked (the payment ledger is unavailable); try again',
    );
    expect(handler).toHaveBeenCalledTimes(1);
    expect(facilitator.calls.verify).toHaveLength(1);
  });
});

describe('RedisPaymentLedger', () => {
  it("renews a claim while its call runs, and a crashed instance's claim lapses by itself", async () => {
    const prefix = `p${randomUUID().slice(0, 8)}:`;
    const crashing = redis.connect({ prefix });
    const claim = await new RedisPaymentLedger(crashing, 300).claim('k', TERMS);
    expect(claim.status).toBe('claimed');
    const other = new RedisPaymentLedger(redis.connect({ prefix }), 300);
    expect((await other.claim('k', TERMS)).status).toBe('in-use');
    // Renewed: its TTL goes back up while the call holds it.
    const observer = redis.connect({ prefix });
    let last = Infinity;
    await until(async () => {
      const ttl = await observer.send<number>(['PTTL', `${prefix}pay:k`]);
      const renewed = ttl > last;
      last = ttl;
      return renewed;
    }, 'a renewal');
    // The instance dies mid-call (its connection gone, no release): the claim lapses, and the payment can be claimed.
    await crashing.close();
    await until(async () => (await other.claim('k', TERMS)).status === 'claimed', 'the lapsed claim');
    // Its hold stops renewing; the release cannot reach Redis any more.
    const { hold } = claim as Extract<typeof claim, { status: 'claimed' }>; // asserted above
    await expect(hold.release()).rejects.toThrow(/closed/);
  });

  it("releases only its own claim, never a spent mark or another call's claim", async () => {
    const prefix = `p${randomUUID().slice(0, 8)}:`;
    const ledger = new RedisPaymentLedger(redis.connect({ prefix }));
    const first = await ledger.claim('k', TERMS);
    if (first.status !== 'claimed') throw new Error('not claimed');
    await first.hold.spend();
    await first.hold.release();
    expect((await ledger.claim('k', TERMS)).status).toBe('spent');
    const held = await ledger.claim('j', TERMS);
    if (held.status !== 'claimed') throw new Error('not claimed');
    await held.hold.release();
    const again = await ledger.claim('j', TERMS);
    expect(again.status).toBe('claimed');
    // The first hold, released twice, does not drop the claim made since.
    await held.hold.release();
    expect((await ledger.claim('j', TERMS)).status).toBe('in-use');
    if (again.status === 'claimed') await again.hold.release();
  });

  it('a call cancelled mid-verify releases its claim in Redis', async () => {
    const prefix = `p${randomUUID().slice(0, 8)}:`;
    const ledger = new RedisPaymentLedger(redis.connect({ prefix }));
    const guard = x402Guard({
      facilitator: x402Facilitator({ url: facilitator.url, timeoutMs: 5_000 }),
      accepts: [PRICE],
    });
    const paid = signed();
    const controller = new AbortController();
    const call = (signal: AbortSignal): ToolGuardCall => ({
      kind: 'tool',
      name: 'search',
      arguments: {},
      meta: { 'x402/payment': paid },
      descriptor: { name: 'search', description: 'Paid', inputSchema: { type: 'object' } },
      ctx: { signal, headers: {} } as unknown as RequestContext,
      payments: ledger,
    });
    const next = jest.fn(async () => ({ content: [] }));
    facilitator.mode = 'hang';
    const pending = guard(call(controller.signal), next);
    await facilitator.called.when(() => facilitator.calls.verify.length === 1, 'the verification');
    controller.abort();
    const cancelled = await pending;
    expect(JSON.parse((cancelled.content[0] as { text: string }).text)).toMatchObject({
      error: 'Payment facilitator verify was cancelled',
    });
    expect(await redis.connect({ prefix }).send<string[]>(['KEYS', `${prefix}pay:*`])).toEqual([]);
    facilitator.mode = 'ok';
    expect((await guard(call(new AbortController().signal), next))._meta?.['x402/payment-response']).toMatchObject({
      success: true,
    });
    expect(next).toHaveBeenCalledTimes(1);
  });
});
