// paymentKey by direct calls: one key for every free variant of one signed payment, per scheme; another for another payment.

import { paymentKey } from '../../../lib/features/payments/payment-key';
import type { PaymentPayload, PaymentRequirements } from '../../../lib/features/payments/x402-types';
import { PRICE } from './price';

const EVM: PaymentRequirements = { ...PRICE, extra: { name: 'USDC', version: '2' } };
const NONCE = '0xf3746613c2d920b5fdabc0856f2aeb2d4f88ee6037b8cc5d04a71a4462f13480';
const FROM = '0x857b06519E91e3A54538791bDbb0E22373e36b66';

function eip3009(authorization: Record<string, unknown> = {}, rest: Partial<PaymentPayload> = {}): PaymentPayload {
  return {
    x402Version: 2,
    accepted: EVM,
    payload: {
      signature: '0x2d6a75',
      authorization: {
        from: FROM,
        to: EVM.payTo,
        value: '10000',
        validAfter: '1740672089',
        validBefore: '1740672154',
        nonce: NONCE,
        ...authorization,
      },
    },
    ...rest,
  };
}

describe('EVM exact, EIP-3009: the key is (network, from, nonce)', () => {
  const key = paymentKey(eip3009());

  it.each([
    ['another accepted.extra', eip3009({}, { accepted: { ...EVM, extra: { name: 'USDC', version: '2', x: 1 } } })],
    ['another accepted.maxTimeoutSeconds', eip3009({}, { accepted: { ...EVM, maxTimeoutSeconds: 600 } })],
    ['another resource and extensions', eip3009({}, { resource: { url: 'https://elsewhere' }, extensions: { a: 1 } })],
    [
      'from and nonce in upper case',
      eip3009({ from: FROM.toUpperCase().replace('0X', '0x'), nonce: NONCE.toUpperCase().replace('0X', '0x') }),
    ],
    ['the nonce as a decimal number', eip3009({ nonce: BigInt(NONCE).toString() })],
    [
      'another validity window, value and signature (a re-signed nonce: only one can settle)',
      {
        ...eip3009({ validBefore: '1999999999', value: '20000' }),
        payload: { ...eip3009().payload, signature: '0xother' },
      },
    ],
    ['an unknown field in the payload', { ...eip3009(), payload: { ...eip3009().payload, memo: 'x' } }],
    [
      'keys in another order',
      JSON.parse(
        JSON.stringify(
          eip3009(),
          Object.keys(eip3009())
            .reverse()
            .concat([
              'signature',
              'authorization',
              'nonce',
              'from',
              'to',
              'value',
              'validAfter',
              'validBefore',
              'scheme',
              'network',
              'amount',
              'asset',
              'payTo',
              'maxTimeoutSeconds',
              'extra',
              'name',
              'version',
            ]),
        ),
      ) as PaymentPayload,
    ],
  ])('is the same with %s', (_name, variant) => {
    expect(paymentKey(variant)).toBe(key);
  });

  it.each([
    ['another nonce', eip3009({ nonce: `${NONCE.slice(0, -1)}1` })],
    ['another payer', eip3009({ from: '0x0000000000000000000000000000000000000001' })],
    ['another network', eip3009({}, { accepted: { ...EVM, network: 'eip155:8453' } })],
  ])('differs for %s', (_name, other) => {
    expect(paymentKey(other)).not.toBe(key);
  });

  it('keys a nonce longer than a uint256 as text, without parsing it as a number (BigInt is quadratic in its length)', () => {
    const long = '1'.repeat(100_000);
    const parse = jest.spyOn(globalThis, 'BigInt');
    try {
      expect(paymentKey(eip3009({ nonce: long }))).not.toBe(paymentKey(eip3009({ nonce: `${long}2` })));
      expect(parse).not.toHaveBeenCalled();
      paymentKey(eip3009());
      expect(parse).toHaveBeenCalledTimes(1);
    } finally {
      parse.mockRestore();
    }
  });
});

describe('EVM exact, Permit2: the key is (network, from, nonce)', () => {
  const permit2 = (nonce: unknown, extra: Record<string, unknown> = {}): PaymentPayload => ({
    x402Version: 2,
    accepted: EVM,
    payload: {
      signature: '0x2d6a',
      permit2Authorization: {
        permitted: { token: EVM.asset, amount: '10000' },
        from: FROM,
        spender: '0x402085c248EeA27D92E8b30b2C58ed07f9E20001',
        nonce,
        deadline: '1740672154',
        witness: { to: EVM.payTo, validAfter: '1740672089' },
        ...extra,
      },
    },
  });

  it('reads the nonce as a number in decimal or hex, and ignores the rest', () => {
    expect(paymentKey(permit2('33247007178036348590600198031289925668252061821958005840077069883511451257277'))).toBe(
      paymentKey(
        permit2(
          `0x${BigInt('33247007178036348590600198031289925668252061821958005840077069883511451257277').toString(16)}`,
          { deadline: '1999999999' },
        ),
      ),
    );
    expect(paymentKey(permit2('7'))).not.toBe(paymentKey(permit2('8')));
    // An EIP-3009 authorization and a Permit2 one with one nonce are different payments (two contracts).
    expect(paymentKey(permit2(NONCE))).not.toBe(paymentKey(eip3009()));
  });
});

describe('SVM exact: the key is the transaction message, without signatures', () => {
  const SOLANA: PaymentRequirements = {
    ...EVM,
    network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    payTo: '2wKupLR9q6wXYppw8Gr2NvWxKBUqm4PPJKkQfoxHDBg4',
    extra: { feePayer: 'EwWqGE4ZFKLofuestmU4LDdK7XM1N4ALgdZccwYugwGd' },
  };
  /** A transaction on the wire: two signature slots (the fee payer's, the client's), then the message. */
  const transaction = (feePayerSlot: number, message: string): Buffer =>
    Buffer.concat([Buffer.from([2]), Buffer.alloc(64, feePayerSlot), Buffer.alloc(64, 9), Buffer.from(message)]);
  const svm = (encoded: string, accepted = SOLANA): PaymentPayload => ({
    x402Version: 2,
    accepted,
    payload: { transaction: encoded },
  });
  const key = paymentKey(svm(transaction(0, 'transfer 1000 to payTo, memo 1').toString('base64')));

  it('is the same whatever the fee payer slot holds, in base64url or with line breaks', () => {
    expect(paymentKey(svm(transaction(7, 'transfer 1000 to payTo, memo 1').toString('base64')))).toBe(key);
    expect(paymentKey(svm(transaction(0, 'transfer 1000 to payTo, memo 1').toString('base64url')))).toBe(key);
    expect(
      paymentKey(
        svm(
          transaction(0, 'transfer 1000 to payTo, memo 1')
            .toString('base64')
            .replace(/(.{40})/g, '$1\n'),
        ),
      ),
    ).toBe(key);
    expect(
      paymentKey(
        svm(transaction(0, 'transfer 1000 to payTo, memo 1').toString('base64'), {
          ...SOLANA,
          extra: { feePayer: 'x', memo: 'y' },
        }),
      ),
    ).toBe(key);
  });

  it('differs for another message', () => {
    expect(paymentKey(svm(transaction(0, 'transfer 1000 to payTo, memo 2').toString('base64')))).not.toBe(key);
  });
});

describe('other schemes: transaction, else signature, else the whole payload', () => {
  const OTHER = { ...EVM, scheme: 'exact', network: 'aptos:1' };
  const other = (payload: Record<string, unknown>, accepted: PaymentRequirements = OTHER): PaymentPayload => ({
    x402Version: 2,
    accepted,
    payload,
  });
  const bytes = Buffer.from('an aptos transaction, signed').toString('base64');

  it('a transaction: by its bytes, whatever else travels beside it', () => {
    expect(paymentKey(other({ transaction: bytes, note: 1 }, { ...OTHER, extra: { any: true } }))).toBe(
      paymentKey(other({ transaction: bytes.replace(/=+$/, '') })),
    );
    expect(paymentKey(other({ transaction: Buffer.from('another').toString('base64') }))).not.toBe(
      paymentKey(other({ transaction: bytes })),
    );
  });

  it('a signature: by the signature alone', () => {
    expect(paymentKey(other({ signature: '0xABCDEF', hint: 'a' }))).toBe(
      paymentKey(other({ signature: '0xabcdef', hint: 'b' })),
    );
  });

  it('neither: the whole payload, in any key order and hex case', () => {
    const delegation = { delegationManager: '0xDe1E', permissionContext: '0xABCD', delegator: FROM };
    expect(paymentKey(other({ ...delegation }, EVM))).toBe(
      paymentKey(
        other(
          { delegator: FROM.toLowerCase(), permissionContext: '0xabcd', delegationManager: '0xde1e' },
          { ...EVM, extra: {} },
        ),
      ),
    );
    expect(paymentKey(other({ ...delegation, permissionContext: '0x01' }, EVM))).not.toBe(
      paymentKey(other(delegation, EVM)),
    );
  });
});
