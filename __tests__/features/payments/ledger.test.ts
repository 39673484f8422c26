// Payment ledgers by direct calls: the in-memory one (claim, release, spend, expiry, bounds) and the router's (made on first use, from the store).

import { MemoryPaymentLedger, routerPaymentLedger } from '../../../lib/edge/store/memory-payment-ledger';
import type { PaymentClaim, PaymentLedger } from '../../../lib/core/registry/payment-ledger';
import type { McpStore } from '../../../lib/edge/store/shared-store';

const TERMS = { replayTtlMs: 1_000, maxRemembered: 10 };

function held(claim: PaymentClaim): Extract<PaymentClaim, { status: 'claimed' }>['hold'] {
  if (claim.status !== 'claimed') throw new Error(`expected a claim, got ${claim.status}`);
  return claim.hold;
}

describe('MemoryPaymentLedger', () => {
  it('claims once, refuses while in use and once spent, forgets after replayTtlMs', async () => {
    let now = 0;
    const ledger = new MemoryPaymentLedger(() => now);
    const first = held(await ledger.claim('a', TERMS));
    expect((await ledger.claim('a', TERMS)).status).toBe('in-use');
    await first.release();
    const second = held(await ledger.claim('a', TERMS));
    await second.spend();
    // A hold is used once: a late release does not free a spent payment.
    await second.release();
    expect((await ledger.claim('a', TERMS)).status).toBe('spent');
    now = 1_000;
    expect((await ledger.claim('a', TERMS)).status).toBe('claimed');
  });

  it('gives a key to exactly one of many concurrent claims', async () => {
    const ledger = new MemoryPaymentLedger();
    const claims = await Promise.all(Array.from({ length: 8 }, () => ledger.claim('k', TERMS)));
    expect(claims.filter((claim) => claim.status === 'claimed')).toHaveLength(1);
  });

  it('stays bounded by the largest maxRemembered asked: the oldest spent keys go first, never one in use', async () => {
    const ledger = new MemoryPaymentLedger();
    const small = { replayTtlMs: 60_000, maxRemembered: 2 };
    held(await ledger.claim('held', small));
    for (const key of ['s1', 's2', 's3', 's4'])
      await held(await ledger.claim(key, { ...small, maxRemembered: 3 })).spend();
    expect(ledger.size).toBe(3);
    expect((await ledger.claim('held', small)).status).toBe('in-use');
    expect((await ledger.claim('s4', small)).status).toBe('spent');
    expect((await ledger.claim('s1', small)).status).toBe('claimed');
  });
});

describe('routerPaymentLedger', () => {
  it("makes the store's ledger on the first claim, and only then", async () => {
    const claim = jest.fn(async (): Promise<PaymentClaim> => ({ status: 'spent' }));
    const payments = jest.fn((): PaymentLedger => ({ claim }));
    const ledger = routerPaymentLedger({ payments } as unknown as McpStore);
    expect(payments).not.toHaveBeenCalled();
    expect((await ledger.claim('k', TERMS)).status).toBe('spent');
    await ledger.claim('j', TERMS);
    expect(payments).toHaveBeenCalledTimes(1);
    expect(claim).toHaveBeenCalledWith('j', TERMS);
  });

  it('keeps one in memory without a store, or with a store that has no payments()', async () => {
    for (const store of [undefined, {} as McpStore]) {
      const ledger = routerPaymentLedger(store);
      held(await ledger.claim('k', TERMS));
      expect((await ledger.claim('k', TERMS)).status).toBe('in-use');
    }
  });
});
