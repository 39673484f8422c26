// express-mcp-router/x402/testing by direct calls: testPayment()'s shape, testFacilitator()'s checks, and its refusal in production.

import { x402Guard } from '../../../lib/x402';
import { testFacilitator, testPayment } from '../../../lib/x402-testing';
import { PRICE } from './price';
import { paymentKey } from '../../../lib/features/payments/payment-key';
import { McpConfigError } from '../../../lib/options/config-error';
import type { PaymentPayload, PaymentRequirements } from '../../../lib/features/payments/x402-types';

/** The authorization of a test payment, as a client would read it. */
const authorizationOf = (payment: PaymentPayload) => payment.payload.authorization as Record<string, string>;

describe('testPayment', () => {
  it('is an x402 v2 exact-EVM payment of the price, with a fresh nonce and a test signature', () => {
    const payment = testPayment(PRICE);
    const { nonce, from, to, value, validAfter, validBefore } = authorizationOf(payment);
    expect(payment).toEqual({ x402Version: 2, accepted: PRICE, payload: expect.any(Object) });
    expect(nonce).toMatch(/^0x[0-9a-f]{64}$/);
    // test: and a digest of what an EIP-3009 signature covers (no chain accepts it).
    expect(payment.payload.signature).toMatch(/^test:[0-9a-f]{64}$/);
    expect(from).toMatch(/test$/);
    expect({ to, value }).toEqual({ to: PRICE.payTo, value: PRICE.amount });
    const now = Date.now() / 1000;
    expect(Number(validAfter)).toBeLessThan(now);
    expect(Number(validBefore)).toBeGreaterThan(now + 50);
  });

  it('makes two distinct payments of one price: their nonces, and so their replay keys, differ', () => {
    const [first, second] = [testPayment(PRICE), testPayment(PRICE)];
    expect(authorizationOf(first).nonce).not.toBe(authorizationOf(second).nonce);
    expect(paymentKey(first)).not.toBe(paymentKey(second));
    // Off EVM, the router keys a payment by its signature: that differs too.
    const solana = { ...PRICE, network: 'solana:devnet' };
    expect(paymentKey(testPayment(solana))).not.toBe(paymentKey(testPayment(solana)));
  });

  it('pays as the payer given, and never shares the caller’s requirements object', () => {
    const requirements = { ...PRICE, extra: { name: 'USDC', decimals: 6 } };
    const payment = testPayment(requirements, { payer: '0xabc' });
    expect(authorizationOf(payment).from).toBe('0xabc');
    expect(payment.accepted).toEqual(requirements);
    expect(payment.accepted).not.toBe(requirements);
    expect(payment.accepted.extra).not.toBe(requirements.extra);
  });

  it.each([[undefined], [null], ['exact'], [{ ...PRICE, amount: 10000 }], [{ scheme: 'exact' }]])(
    'refuses requirements that are not x402 PaymentRequirements (%j)',
    (requirements) => {
      expect(() => testPayment(requirements as unknown as PaymentRequirements)).toThrow(
        /^testPayment\(requirements\): expected x402 PaymentRequirements/,
      );
    },
  );
});

describe('testFacilitator', () => {
  const originalEnv = process.env.NODE_ENV;
  afterEach(() => {
    process.env.NODE_ENV = originalEnv;
  });

  it('verifies and settles a test payment once, as its payer, with a 0xtest- transaction', async () => {
    const facilitator = testFacilitator();
    const payment = testPayment(PRICE, { payer: '0xPayer' });
    expect(await facilitator.verify(payment, PRICE)).toEqual({ isValid: true, payer: '0xPayer' });
    const settled = await facilitator.settle(payment, PRICE);
    expect(settled).toEqual({
      success: true,
      payer: '0xPayer',
      transaction: expect.stringMatching(/^0xtest-[0-9a-f]{16}$/),
      network: PRICE.network,
      amount: PRICE.amount,
    });
    // Like an EIP-3009 nonce on chain: settled once, then refused by verify and settle alike.
    expect(await facilitator.verify(payment, PRICE)).toEqual({ isValid: false, invalidReason: 'nonce_already_used' });
    expect(await facilitator.settle(payment, PRICE)).toEqual({
      success: false,
      errorReason: 'nonce_already_used',
      transaction: '',
      network: PRICE.network,
    });
    // Another payment of the same price settles, with another transaction.
    const again = await facilitator.settle(testPayment(PRICE), PRICE);
    expect(again.success).toBe(true);
    expect(again.transaction).not.toBe(settled.transaction);
  });

  it('keeps its settled nonces to itself: another testFacilitator() has its own', async () => {
    const payment = testPayment(PRICE);
    expect((await testFacilitator().settle(payment, PRICE)).success).toBe(true);
    expect((await testFacilitator().settle(payment, PRICE)).success).toBe(true);
  });

  const tampered = (change: (payment: PaymentPayload) => void): PaymentPayload => {
    const payment = testPayment(PRICE);
    change(payment);
    return payment;
  };
  it.each<[string, PaymentPayload, PaymentRequirements, RegExp]>([
    [
      'a real-looking signature',
      tampered((payment) => (payment.payload.signature = `0x${'ab'.repeat(65)}`)),
      PRICE,
      /^invalid_signature/,
    ],
    [
      'a signature of another nonce',
      tampered((payment) => (authorizationOf(payment).nonce = '0x01')),
      PRICE,
      /^invalid_signature/,
    ],
    ['no authorization', tampered((payment) => delete payment.payload.authorization), PRICE, /^invalid_signature/],
    ['no payer', tampered((payment) => delete authorizationOf(payment).from), PRICE, /^invalid_signature/],
    // Edited after it was made: each field the signature covers, as a real one covers it.
    ['another payer', tampered((payment) => (authorizationOf(payment).from = '0x1111')), PRICE, /^invalid_signature/],
    [
      'the payer upper-cased',
      tampered((payment) => (authorizationOf(payment).from = authorizationOf(payment).from!.toUpperCase())),
      PRICE,
      /^invalid_signature/,
    ],
    [
      'a later validBefore',
      tampered((payment) => (authorizationOf(payment).validBefore = String(Number.MAX_SAFE_INTEGER))),
      PRICE,
      /^invalid_signature/,
    ],
    ['another network', tampered((payment) => (payment.accepted.network = 'eip155:1')), PRICE, /^invalid_signature/],
    ['a payment to someone else', testPayment(PRICE), { ...PRICE, payTo: '0x1111' }, /recipient_mismatch$/],
    ['a payment of another amount', testPayment(PRICE), { ...PRICE, amount: '20000' }, /authorization_value$/],
    // Made already expired (its validBefore signed as it is): edited, it would fail the signature first.
    ['an expired payment', testPayment({ ...PRICE, maxTimeoutSeconds: -1 }), PRICE, /valid_before$/],
  ])('refuses %s, in verify and in settle', async (_what, payment, requirements, reason) => {
    const facilitator = testFacilitator();
    const verified = await facilitator.verify(payment, requirements);
    expect(verified.isValid).toBe(false);
    expect(verified.invalidReason).toMatch(reason);
    const settled = await facilitator.settle(payment, requirements);
    expect(settled.success).toBe(false);
    expect(settled.errorReason).toMatch(reason);
  });

  it('accepts the payee address in any case (EIP-55 casing is a checksum)', async () => {
    const payment = testPayment({ ...PRICE, payTo: PRICE.payTo.toLowerCase() });
    expect((await testFacilitator().verify(payment, PRICE)).isValid).toBe(true);
  });

  it('remembers at most 10,000 settled nonces, forgetting the oldest first', async () => {
    const facilitator = testFacilitator();
    const first = testPayment(PRICE);
    const second = testPayment(PRICE);
    await facilitator.settle(first, PRICE);
    await facilitator.settle(second, PRICE);
    for (let i = 0; i < 9_999; i += 1) await facilitator.settle(testPayment(PRICE), PRICE);
    // 10,001 settled: the first is forgotten, the second still refused.
    expect((await facilitator.verify(first, PRICE)).isValid).toBe(true);
    expect(await facilitator.verify(second, PRICE)).toEqual({ isValid: false, invalidReason: 'nonce_already_used' });
  });

  it('fits x402Guard as its facilitator', () => {
    expect(() => x402Guard({ facilitator: testFacilitator(), accepts: [PRICE] })).not.toThrow();
  });

  it('refuses to start when NODE_ENV is production, naming why and what to use', () => {
    process.env.NODE_ENV = 'production';
    let thrown: unknown;
    try {
      testFacilitator();
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(McpConfigError);
    expect(thrown).toMatchObject({
      code: 'ERR_MCP_NOT_FOR_PRODUCTION',
      message: expect.stringMatching(
        /^mcpRouter: testFacilitator\(\) refuses to start with NODE_ENV=production: it accepts fake test payments.*x402Facilitator\(\{ url \}\)/,
      ),
    });
  });

  it.each([[' production'], ['Production'], ['PRODUCTION\n']])('refuses NODE_ENV=%j as production too', (env) => {
    process.env.NODE_ENV = env;
    expect(() => testFacilitator()).toThrow(expect.objectContaining({ code: 'ERR_MCP_NOT_FOR_PRODUCTION' }));
  });

  it.each([['development'], ['test'], [undefined]])('starts when NODE_ENV is %s', (env) => {
    if (env === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = env;
    expect(typeof testFacilitator().verify).toBe('function');
  });
});
