// x402 pieces by direct calls: finding and decoding a payment, matching it to a price, facilitator answers and options.

import { McpConfigError } from '../../../lib/options/config-error';
import { JsonRpcError } from '../../../lib/core/jsonrpc/errors';
import { checkSettle, checkVerify, x402Facilitator } from '../../../lib/features/payments/facilitator';
import { x402Guard } from '../../../lib/features/payments/guard';
import { decodePayment, findPayment, matchRequirement } from '../../../lib/features/payments/payload';
import {
  FacilitatorError,
  type PaymentPayload,
  type PaymentRequirements,
} from '../../../lib/features/payments/x402-types';
import type { ToolGuardCall } from '../../../lib/core/registry/guards';
import type { RequestContext } from '../../../lib/core/registry/request-context';
import { Signal } from '../../helpers/events';
import { startFacilitator } from './fake-facilitator';

const PRICE: PaymentRequirements = {
  scheme: 'exact',
  network: 'eip155:84532',
  amount: '10000',
  asset: '0xAbC',
  payTo: '0xDeF',
  maxTimeoutSeconds: 60,
};
const PAID: PaymentPayload = {
  x402Version: 2,
  accepted: PRICE,
  payload: { signature: '0x1', authorization: { nonce: '0x2', value: '10000' } },
};
const base64 = (value: unknown, encoding: BufferEncoding = 'base64'): string =>
  Buffer.from(JSON.stringify(value)).toString(encoding);
const facilitator = {
  verify: async () => ({ isValid: true }),
  settle: async () => ({ success: true, transaction: '0x', network: 'n' }),
};

describe('findPayment and decodePayment', () => {
  it('reads x402/payment, then x402.payment, then PAYMENT-SIGNATURE, then X-PAYMENT', () => {
    const other = { ...PAID, payload: { signature: 'other' } };
    expect(
      findPayment({ 'x402/payment': PAID, 'x402.payment': other }, { 'payment-signature': base64(other) }),
    ).toEqual({ ok: true, payload: PAID });
    expect(findPayment({ 'x402.payment': base64(PAID) }, { 'payment-signature': base64(other) })).toEqual({
      ok: true,
      payload: PAID,
    });
    expect(findPayment(undefined, { 'payment-signature': base64(PAID), 'x-payment': base64(other) })).toEqual({
      ok: true,
      payload: PAID,
    });
    expect(findPayment({}, { 'x-payment': base64(PAID) })).toEqual({ ok: true, payload: PAID });
    expect(findPayment({ progressToken: 1 }, {})).toBeUndefined();
  });

  it('takes base64url too, and refuses a repeated header', () => {
    expect(decodePayment(base64(PAID, 'base64url'))).toEqual({ ok: true, payload: PAID });
    expect(findPayment(undefined, { 'x-payment': [base64(PAID), base64(PAID)] })).toEqual({
      ok: false,
      reason: 'Invalid payment: more than one x-payment header',
    });
  });

  it.each([
    ['not base64', '%%%', 'Invalid payment: not base64-encoded JSON'],
    ['base64 of no JSON', Buffer.from('nope').toString('base64'), 'Invalid payment: not base64-encoded JSON'],
    ['too large', 'A'.repeat(20_000), 'Invalid payment: too large'],
    // A 3 MB decimal nonce in the object form took BigInt 0.6 s of the event loop to key (found attacking issue 29's key).
    [
      'too large as an object',
      { x402Version: 2, accepted: PRICE, payload: { authorization: { from: '0x1', nonce: '1'.repeat(3_000_000) } } },
      'Invalid payment: too large',
    ],
    ['an array', [PAID], 'Invalid payment: expected a PaymentPayload object'],
    [
      'x402 v1',
      { x402Version: 1, scheme: 'exact', network: 'base-sepolia', payload: {} },
      'Invalid payment: unsupported x402Version 1; this server accepts x402 v2',
    ],
    [
      'no version',
      { accepted: PRICE, payload: {} },
      'Invalid payment: unsupported x402Version undefined; this server accepts x402 v2',
    ],
    ['no accepted', { x402Version: 2, payload: {} }, 'Invalid payment: no accepted payment requirements'],
    ['no payload', { x402Version: 2, accepted: PRICE }, 'Invalid payment: no payload'],
  ])('refuses %s with a reason', (_name, value, reason) => {
    expect(decodePayment(value)).toEqual({ ok: false, reason });
  });
});

describe('matchRequirement', () => {
  const cheaper = { ...PRICE, amount: '1' };

  it('finds the requirement whose scheme, network, amount, asset and payTo the payment accepted', () => {
    expect(matchRequirement(PAID, [cheaper, PRICE])).toBe(PRICE);
    expect(
      matchRequirement({ ...PAID, accepted: { ...PRICE, maxTimeoutSeconds: 5, extra: { name: 'USDC' } } }, [PRICE]),
    ).toBe(PRICE);
  });

  it('compares EVM addresses without case, everything else exactly', () => {
    expect(matchRequirement({ ...PAID, accepted: { ...PRICE, asset: '0xabc', payTo: '0xDEF' } }, [PRICE])).toBe(PRICE);
    expect(matchRequirement({ ...PAID, accepted: { ...PRICE, network: 'EIP155:84532' } }, [PRICE])).toBeUndefined();
    expect(matchRequirement({ ...PAID, accepted: { ...PRICE, amount: '10000.0' } }, [PRICE])).toBeUndefined();
    expect(
      matchRequirement({ ...PAID, accepted: { ...PRICE, amount: 10000 as unknown as string } }, [PRICE]),
    ).toBeUndefined();
  });
});

describe('facilitator answers', () => {
  it('accepts well-formed verify and settle answers', () => {
    expect(checkVerify({ isValid: false, invalidReason: 'x', payer: '0x' })).toEqual({
      isValid: false,
      invalidReason: 'x',
      payer: '0x',
    });
    expect(checkSettle({ success: true, transaction: '0xt', network: 'n', amount: '1' })).toMatchObject({
      success: true,
    });
    // Only the x402 fields reach the client: a facilitator's own additions stay with it.
    expect(
      checkSettle({ success: true, transaction: '0xt', network: 'n', internalLedgerId: 'L-7', debug: { host: 'x' } }),
    ).toEqual({ success: true, transaction: '0xt', network: 'n' });
    expect(
      checkSettle({ success: false, errorReason: 'insufficient_funds', transaction: '', network: 'n' }),
    ).toMatchObject({ success: false });
  });

  it.each([[null], [{}], [{ isValid: 'true' }], [{ isValid: true, invalidReason: 5 }]])(
    'refuses the verify answer %j',
    (answer) => {
      expect(() => checkVerify(answer)).toThrow(
        new FacilitatorError('Payment facilitator /verify gave a malformed answer'),
      );
    },
  );

  it.each([
    [{ success: true, network: 'n' }],
    [{ success: true, transaction: '', network: 'n' }],
    [{ success: 1 }],
    [{ success: false, errorReason: {} }],
  ])('refuses the settle answer %j', (answer) => {
    expect(() => checkSettle(answer)).toThrow(FacilitatorError);
  });
});

describe('x402Facilitator', () => {
  it('reads /supported, sends its headers, and says "unreachable" without the URL', async () => {
    const fake = await startFacilitator();
    try {
      const client = x402Facilitator({ url: fake.url, headers: () => ({ 'x-api-key': 'k' }) });
      expect(await client.supported()).toEqual({
        kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:84532' }],
      });
      expect(await client.verify({ ...PAID, payload: { signature: 'ok' } }, PRICE)).toEqual({
        isValid: true,
        payer: '0xPayer',
      });
    } finally {
      await fake.close();
    }
    const gone = x402Facilitator({ url: fake.url });
    await expect(gone.verify(PAID, PRICE)).rejects.toThrow(
      new FacilitatorError('Payment facilitator /verify is unreachable'),
    );
  });

  it('honours the caller signal', async () => {
    const fake = await startFacilitator();
    fake.mode = 'hang';
    try {
      const controller = new AbortController();
      const pending = x402Facilitator({ url: fake.url }).settle(PAID, PRICE, { signal: controller.signal });
      // Cancelled once the facilitator holds the request.
      await fake.called.when(() => fake.calls.settle.length === 1, 'the settle request');
      controller.abort();
      await expect(pending).rejects.toThrow(new FacilitatorError('Payment facilitator /settle was cancelled'));
    } finally {
      await fake.close();
    }
  });

  it.each([
    [undefined, "option 'x402Facilitator.url' must be an http(s) URL, got undefined"],
    [{}, "option 'x402Facilitator.url' must be an http(s) URL"],
    [{ url: 'ftp://x' }, "option 'x402Facilitator.url' must be an http(s) URL"],
    [{ url: 'https://f', timeoutMs: 0 }, "option 'x402Facilitator.timeoutMs'"],
    [{ url: 'https://f', headers: { a: 1 } }, "option 'x402Facilitator.headers'"],
    [
      { url: 'https://f', timeout: 5 },
      "mcpRouter: unknown option 'x402Facilitator.timeout'. Did you mean 'x402Facilitator.timeoutMs'?",
    ],
  ])('refuses the options %j', (options, message) => {
    expect(() => x402Facilitator(options as never)).toThrow(McpConfigError);
    expect(() => x402Facilitator(options as never)).toThrow(message);
  });
});

describe('x402Guard options', () => {
  it.each([
    [undefined, "option 'x402Guard.facilitator' must be an object with verify() and settle()"],
    [{ accepts: [PRICE] }, "option 'x402Guard.facilitator'"],
    [{ facilitator, accepts: [] }, "option 'x402Guard.accepts' must be a non-empty array"],
    [{ facilitator, accepts: [{ ...PRICE, amount: '0.01' }] }, "option 'x402Guard.accepts'"],
    [{ facilitator, accepts: [{ ...PRICE, maxTimeoutSeconds: undefined }] }, "option 'x402Guard.accepts'"],
    [{ facilitator, accepts: [PRICE], timeoutMs: -1 }, "option 'x402Guard.timeoutMs'"],
    [{ facilitator, accepts: [PRICE], price: 1 }, "mcpRouter: unknown option 'x402Guard.price'."],
    [
      { facilitator, accepts: [PRICE], replayTtl: 1 },
      "mcpRouter: unknown option 'x402Guard.replayTtl'. Did you mean 'x402Guard.replayTtlMs'?",
    ],
  ])('refuses %j', (options, message) => {
    expect(() => x402Guard(options as never)).toThrow(McpConfigError);
    expect(() => x402Guard(options as never)).toThrow(message);
  });

  it('advertises a fixed price in listMeta, and only that it is paid when the price is a function', () => {
    expect(x402Guard({ facilitator, accepts: [PRICE] }).listMeta).toEqual({
      'x402/paid': true,
      'x402/accepts': [PRICE],
    });
    expect(x402Guard({ facilitator, accepts: () => [PRICE] }).listMeta).toEqual({ 'x402/paid': true });
  });
});

describe('x402Guard by direct calls', () => {
  /** A tool call as the chain hands it to guards, with just what the guard reads. */
  function toolCall(meta: Record<string, unknown>, signal: AbortSignal): ToolGuardCall {
    const ctx = { signal, headers: {} } as unknown as RequestContext;
    return {
      kind: 'tool',
      name: 'search',
      arguments: {},
      meta,
      descriptor: { name: 'search', description: 'Paid' },
      ctx,
    };
  }

  it('ends a verification when the call is cancelled, even if the facilitator ignores its signal, and frees the payment', async () => {
    const verifying = new Signal();
    const verify = jest.fn(() => {
      verifying.notify();
      return new Promise<never>(() => undefined);
    });
    const guard = x402Guard({ facilitator: { ...facilitator, verify }, accepts: [PRICE], timeoutMs: 60_000 });
    const controller = new AbortController();
    const next = jest.fn(async () => ({ content: [] }));
    const pending = guard(toolCall({ 'x402/payment': PAID }, controller.signal), next);
    // Cancelled once the facilitator has the verification.
    await verifying.when(() => verify.mock.calls.length === 1, 'the verification');
    controller.abort();
    const result = await pending;
    expect(JSON.parse((result.content[0] as { text: string }).text)).toMatchObject({
      error: 'Payment facilitator verify was cancelled',
    });
    expect(next).not.toHaveBeenCalled();
    // The payment was not spent: a new call with it gets to the facilitator again.
    verify.mockImplementation(async () => ({ isValid: false, invalidReason: 'expired' }) as never);
    const again = await guard(toolCall({ 'x402/payment': PAID }, new AbortController().signal), next);
    expect(JSON.parse((again.content[0] as { text: string }).text)).toMatchObject({
      error: 'Payment verification failed: expired',
    });
  });
  it('settles nothing for a call cancelled while its tool ran (a handler that ignores its signal), and frees the payment', async () => {
    const settle = jest.fn(facilitator.settle);
    const guard = x402Guard({ facilitator: { ...facilitator, settle }, accepts: [PRICE] });
    const controller = new AbortController();
    let finish: (value: { content: never[] }) => void = () => undefined;
    const running = new Promise<{ content: never[] }>((resolve) => (finish = resolve));
    const runs = new Signal();
    const next = jest.fn(() => {
      runs.notify();
      return running;
    });
    const pending = guard(toolCall({ 'x402/payment': PAID }, controller.signal), next);
    await runs.when(() => next.mock.calls.length === 1, 'the tool to run');
    controller.abort();
    finish({ content: [] });
    expect(JSON.parse(((await pending).content[0] as { text: string }).text)).toMatchObject({
      error: 'Call cancelled; payment not settled',
    });
    expect(settle).not.toHaveBeenCalled();
    // Not spent: the same payment pays for a call that completes.
    await expect(
      guard(toolCall({ 'x402/payment': PAID }, new AbortController().signal), async () => ({ content: [] })),
    ).resolves.toMatchObject({ _meta: { 'x402/payment-response': { success: true } } });
    expect(settle).toHaveBeenCalledTimes(1);
  });
});

describe('x402Guard and the rest of the chain', () => {
  it('lets a JsonRpcError from an inner guard go on as a protocol error, and frees the payment', async () => {
    const guard = x402Guard({ facilitator, accepts: [PRICE] });
    const call = {
      kind: 'tool',
      name: 'search',
      arguments: {},
      meta: { 'x402/payment': PAID },
      descriptor: { name: 'search' },
      ctx: { signal: new AbortController().signal, headers: {} },
    } as unknown as ToolGuardCall;
    await expect(guard(call, () => Promise.reject(new JsonRpcError(-32602, 'Blocked')))).rejects.toThrow('Blocked');
    await expect(guard(call, async () => ({ content: [] }))).resolves.toMatchObject({
      _meta: { 'x402/payment-response': { success: true } },
    });
  });
});
