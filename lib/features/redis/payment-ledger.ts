// The x402 payment ledger in Redis: one payment claimed atomically across every instance, then remembered as spent. (The Redis side of registry/payment-ledger.ts: one concern at two layers.)

import { randomUUID } from 'node:crypto';
import type { PaymentClaim, PaymentHold, PaymentLedger, PaymentTerms } from '../../core/registry/payment-ledger';
import type { RedisConnection } from './connection';
import { RedisScript } from './session-keys';

/**
 * How long an instance's claim lives without renewal: a call renews it every third of this while it runs, so the
 * claim of an instance that crashed mid-call lapses by itself within this time (the payment may then be used again;
 * the facilitator still refuses it if it had settled).
 */
export const PAYMENT_CLAIM_TTL_MS = 30_000;

const SPENT_MARK = 'spent';
const IN_USE: PaymentClaim = Object.freeze({ status: 'in-use' });
const SPENT: PaymentClaim = Object.freeze({ status: 'spent' });

/** Sets the key to ARGV[1] for ARGV[2] ms unless it exists; answers what it held (nil: claimed). SET NX PX, answering the holder. */
const CLAIM = new RedisScript(`
local held = redis.call('GET', KEYS[1])
if held then return held end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false
`);

/** Renews the claim for ARGV[2] ms while it is still ARGV[1] (this call's). */
const RENEW = new RedisScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`);

/** Drops the claim while it is still ARGV[1] (this call's): never another call's claim, never a spent mark. */
const RELEASE = new RedisScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

/**
 * A {@link PaymentLedger} shared by every instance of a router: one key per payment, `<prefix>pay:<payment key>`.
 * A claim is `claim:<random token>` with a short TTL ({@link PAYMENT_CLAIM_TTL_MS}) renewed while its call runs; a
 * settled payment becomes `spent` for the guard's `replayTtlMs`; a payment that did not pay is deleted (only by the
 * call that claimed it). Redis bounds the keys by their TTLs (`maxRemembered` is for the in-memory ledger).
 *
 * @example
 * ```ts
 * const ledger = new RedisPaymentLedger(connection);
 * const claim = await ledger.claim(key, { replayTtlMs: 86_400_000, maxRemembered: 10_000 });
 * if (claim.status === 'claimed') await claim.hold.spend();
 * ```
 */
export class RedisPaymentLedger implements PaymentLedger {
  /**
   * @param claimTtlMs - the life of an unrenewed claim (tests shorten it)
   */
  constructor(
    private readonly connection: RedisConnection,
    private readonly claimTtlMs = PAYMENT_CLAIM_TTL_MS,
  ) {}

  /** @throws {StoreUnavailableError} when Redis cannot answer */
  async claim(key: string, terms: PaymentTerms): Promise<PaymentClaim> {
    const redisKey = this.connection.key('pay', key);
    const token = `claim:${randomUUID()}`;
    const held = await CLAIM.run<string | null>(this.connection, [redisKey], [token, this.claimTtlMs]);
    if (held === SPENT_MARK) return SPENT;
    if (held !== null && held !== undefined) return IN_USE;
    return { status: 'claimed', hold: this.#hold(redisKey, token, terms) };
  }

  #hold(redisKey: string, token: string, terms: PaymentTerms): PaymentHold {
    const { connection, claimTtlMs } = this;
    // A failed renewal (Redis down for a moment) is retried at the next tick; the claim lapses only if all fail.
    const renewal = setInterval(
      () => void RENEW.run(connection, [redisKey], [token, claimTtlMs]).catch(() => undefined),
      Math.max(1, Math.floor(claimTtlMs / 3)),
    );
    renewal.unref();
    let done = false;
    const finish = (): boolean => {
      clearInterval(renewal);
      if (done) return false;
      done = true;
      return true;
    };
    return {
      spend: async () => {
        // Spent is final, whoever holds the key now (a claim that lapsed and was taken again cannot pay twice).
        if (finish()) await connection.send(['SET', redisKey, SPENT_MARK, 'PX', String(terms.replayTtlMs)], redisKey);
      },
      release: async () => {
        if (finish()) await RELEASE.run(connection, [redisKey], [token]);
      },
    };
  }
}
