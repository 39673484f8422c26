// RedisSignInStore: sign-in state (clients, codes, refresh families, signing keys) shared by every instance of a router, one key per record with its TTL. (The Redis side of store/sign-in-store.ts: one concern at two layers.)

import { parseChannelPayload, type RedisConnection } from './connection';
import type { SignInKind, SignInRecord, SignInStore } from '../store/sign-in-store';

/**
 * A {@link SignInStore} shared by every instance of a router: one string key per record,
 * `<prefix>signin:<kind>:<id>`, holding the record's JSON with the record's TTL, so Redis bounds the keys by
 * their lifetimes (a memory store's per-kind cap is for one process). `add` is `SET NX` and `take` is `GETDEL`:
 * each one command, so atomic across instances (a code is redeemed once, whichever instance each try reaches).
 * Needs Redis 6.2 or later (GETDEL), as the task store does (ZRANGE BYSCORE).
 *
 * @example
 * ```ts
 * const store = new RedisSignInStore(connection);
 * await store.set('code', code, { clientId }, 60_000);
 * const once = await store.take('code', code); // a second take, on any instance, finds nothing
 * ```
 */
export class RedisSignInStore implements SignInStore {
  constructor(private readonly connection: RedisConnection) {}

  /** @throws {StoreUnavailableError} when Redis cannot answer */
  async set(kind: SignInKind, id: string, value: SignInRecord, ttlMs: number): Promise<void> {
    const key = this.keyOf(kind, id);
    await this.connection.send(['SET', key, JSON.stringify(value), 'PX', expiry(ttlMs)], key);
  }

  /** @throws {StoreUnavailableError} when Redis cannot answer */
  async add(kind: SignInKind, id: string, value: SignInRecord, ttlMs: number): Promise<boolean> {
    const key = this.keyOf(kind, id);
    // SET NX answers OK when it set the key, nil when one was there: the first instance wins.
    const reply = await this.connection.send<string | null>(
      ['SET', key, JSON.stringify(value), 'NX', 'PX', expiry(ttlMs)],
      key,
    );
    return reply === 'OK';
  }

  /** @throws {StoreUnavailableError} when Redis cannot answer */
  async get(kind: SignInKind, id: string): Promise<SignInRecord | undefined> {
    const key = this.keyOf(kind, id);
    return recordOf(await this.connection.send<string | null>(['GET', key], key));
  }

  /** @throws {StoreUnavailableError} when Redis cannot answer */
  async take(kind: SignInKind, id: string): Promise<SignInRecord | undefined> {
    const key = this.keyOf(kind, id);
    return recordOf(await this.connection.send<string | null>(['GETDEL', key], key));
  }

  /** @throws {StoreUnavailableError} when Redis cannot answer */
  async delete(kind: SignInKind, id: string): Promise<void> {
    const key = this.keyOf(kind, id);
    await this.connection.send(['DEL', key], key);
  }

  private keyOf(kind: SignInKind, id: string): string {
    return this.connection.key('signin', kind, id);
  }
}

/** A record's TTL as PX takes it: whole milliseconds, at least one (PX refuses 0 and fractions). */
function expiry(ttlMs: number): string {
  if (!Number.isFinite(ttlMs))
    throw new RangeError(`a sign-in record's TTL must be a finite number of ms, got ${ttlMs}`);
  return String(Math.max(1, Math.ceil(ttlMs)));
}

/** The stored text as a record, or undefined when absent or not a JSON object: anything may be in Redis. */
function recordOf(text: string | null | undefined): SignInRecord | undefined {
  if (typeof text !== 'string') return undefined;
  return parseChannelPayload(text);
}
