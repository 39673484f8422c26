// RedisSignInStore: sign-in state (clients, codes, refresh families, signing keys) shared by every instance of a router, one key per record with its TTL, each kind bounded by an index. (The Redis side of store/sign-in-store.ts: one concern at two layers.)

import { parseChannelPayload, type RedisConnection } from './connection';
import {
  boundOf,
  type SignInKind,
  type SignInLimits,
  type SignInRecord,
  type SignInStore,
} from '../../edge/store/sign-in-store';

/**
 * Places a record in its kind's index and evicts past the bound, in one step: drops expired entries, scores the
 * record by its expiry, and when the index holds more than the bound takes out the entries that expire first (never
 * the record placed). The index lives as long as its longest-lived entry. KEYS: index. ARGV: now, id, expiresAt,
 * bound, lifetime ms. Returns the ids evicted, whose records the caller deletes.
 */
const ADMIT = `redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[4])
local evicted = {}
if over > 0 then
  for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, over)) do
    if id ~= ARGV[2] and #evicted < over then
      evicted[#evicted + 1] = id
      redis.call('ZREM', KEYS[1], id)
    end
  end
end
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[5]) then redis.call('PEXPIRE', KEYS[1], ARGV[5]) end
return evicted`;

/**
 * Places a single-use id in its kind's index only when there is room without evicting a live one (see
 * `SignInStore.add`): drops expired entries, then adds it unless the index is at its bound. KEYS: index. ARGV: now,
 * id, expiresAt, bound, lifetime ms. Returns 1 when placed, 0 when full.
 */
const ADMIT_ONCE = `redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[5]) then redis.call('PEXPIRE', KEYS[1], ARGV[5]) end
return 1`;

/**
 * Moves a used record to its new expiry in its kind's index, if it is placed there and unexpired (one evicted or
 * expired is not placed again, so this may run beside the read). KEYS: index. ARGV: id, expiresAt, lifetime ms, now.
 */
const TOUCH = `local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) > tonumber(ARGV[4]) then
  redis.call('ZADD', KEYS[1], 'GT', ARGV[2], ARGV[1])
  if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
end
return 1`;

/**
 * A {@link SignInStore} shared by every instance of a router: one string key per record,
 * `<prefix>signin:<kind>:<id>`, holding the record's JSON with the record's TTL. `add` is `SET NX` and `take` is
 * `GETDEL`: each one command, so atomic across instances (a code is redeemed once, whichever instance each try
 * reaches). Each kind but `keys` is bounded across instances by {@link SignInLimits}: `<prefix>signin:<kind>` is a
 * sorted set of its ids by expiry, updated by a Lua script on every write (`set`, `add`) and `use`, which evicts
 * the records that expire first; for the records of one lifetime (registrations, refresh families) that is the
 * least recently used. A record and its index are in different slots of a Cluster, so a write is in steps (the
 * record, its place, the evicted records' deletion); a step left undone by an outage leaves a record outside the
 * count, or an index entry without a record, until its TTL. Needs Redis 6.2 or later (GETDEL, GETEX, ZADD GT), as
 * the task store does (ZRANGE BYSCORE).
 *
 * @example
 * ```ts
 * const store = new RedisSignInStore(connection);
 * await store.set('code', code, { clientId }, 60_000);
 * const once = await store.take('code', code); // a second take, on any instance, finds nothing
 * ```
 */
export class RedisSignInStore implements SignInStore {
  /**
   * @param connection - the router's Redis (all commands go through it)
   * @param limits - the bound of each kind; a missing one is `10000`
   */
  constructor(
    private readonly connection: RedisConnection,
    private readonly limits: Partial<SignInLimits> = {},
  ) {}

  /** @throws {StoreUnavailableError} when Redis cannot answer */
  async set(kind: SignInKind, id: string, value: SignInRecord, ttlMs: number): Promise<void> {
    const key = this.keyOf(kind, id);
    const lifetime = expiry(ttlMs);
    // Side by side (one round trip): the placing evicts other records only, never this one.
    await Promise.all([
      this.connection.send(['SET', key, JSON.stringify(value), 'PX', lifetime], key),
      this.admit(kind, id, lifetime),
    ]);
  }

  /** @throws {StoreUnavailableError} when Redis cannot answer */
  async add(kind: SignInKind, id: string, value: SignInRecord, ttlMs: number): Promise<boolean> {
    const key = this.keyOf(kind, id);
    // SET NX answers OK when it set the key, nil when one was there: the first instance wins.
    const reply = await this.connection.send<string | null>(
      ['SET', key, JSON.stringify(value), 'NX', 'PX', expiry(ttlMs)],
      key,
    );
    if (reply !== 'OK') return false;
    if (kind === 'replay') return this.admitOnce(id, key, expiry(ttlMs));
    await this.admit(kind, id, expiry(ttlMs));
    return true;
  }

  /** @throws {StoreUnavailableError} when Redis cannot answer */
  async get(kind: SignInKind, id: string): Promise<SignInRecord | undefined> {
    const key = this.keyOf(kind, id);
    return recordOf(await this.connection.send<string | null>(['GET', key], key));
  }

  /** @throws {StoreUnavailableError} when Redis cannot answer */
  async use(kind: SignInKind, id: string, ttlMs: number): Promise<SignInRecord | undefined> {
    const key = this.keyOf(kind, id);
    const lifetime = expiry(ttlMs);
    const read = this.connection.send<string | null>(['GETEX', key, 'PX', lifetime], key);
    if (boundOf(kind, this.limits) === undefined) return recordOf(await read);
    // Beside the read, not after it: one round trip (the script moves only an entry still placed and unexpired).
    const index = this.indexOf(kind);
    const now = Date.now();
    const [text] = await Promise.all([
      read,
      this.connection.send(
        ['EVAL', TOUCH, '1', index, id, String(now + Number(lifetime)), lifetime, String(now)],
        index,
      ),
    ]);
    return recordOf(text);
  }

  /** @throws {StoreUnavailableError} when Redis cannot answer */
  async take(kind: SignInKind, id: string): Promise<SignInRecord | undefined> {
    const key = this.keyOf(kind, id);
    const [text] = await Promise.all([
      this.connection.send<string | null>(['GETDEL', key], key),
      this.unplace(kind, id),
    ]);
    return recordOf(text);
  }

  /** @throws {StoreUnavailableError} when Redis cannot answer */
  async delete(kind: SignInKind, id: string): Promise<void> {
    const key = this.keyOf(kind, id);
    await Promise.all([this.connection.send(['DEL', key], key), this.unplace(kind, id)]);
  }

  /** Counts a record written in its kind's index, and deletes the records its bound evicts. */
  private async admit(kind: SignInKind, id: string, lifetime: string): Promise<void> {
    const bound = boundOf(kind, this.limits);
    if (bound === undefined) return;
    const index = this.indexOf(kind);
    const now = Date.now();
    const evicted = await this.connection.send<string[]>(
      ['EVAL', ADMIT, '1', index, String(now), id, String(now + Number(lifetime)), String(bound), lifetime],
      index,
    );
    // Each record in its own slot (a Cluster): one DEL each.
    await Promise.all(
      evicted.map(async (gone) => {
        const key = this.keyOf(kind, gone);
        await this.connection.send(['DEL', key], key);
      }),
    );
  }

  /** Counts a single-use id when there is room; when the kind is full, takes its record back and answers false. */
  private async admitOnce(id: string, key: string, lifetime: string): Promise<boolean> {
    const index = this.indexOf('replay');
    const now = Date.now();
    const bound = String(boundOf('replay', this.limits));
    const placed = await this.connection.send<number>(
      ['EVAL', ADMIT_ONCE, '1', index, String(now), id, String(now + Number(lifetime)), bound, lifetime],
      index,
    );
    if (placed === 1) return true;
    await this.connection.send(['DEL', key], key);
    return false;
  }

  /** Takes a record out of its kind's index (a record taken or deleted no longer counts). */
  private async unplace(kind: SignInKind, id: string): Promise<void> {
    if (boundOf(kind, this.limits) === undefined) return;
    const index = this.indexOf(kind);
    await this.connection.send(['ZREM', index, id], index);
  }

  private keyOf(kind: SignInKind, id: string): string {
    return this.connection.key('signin', kind, id);
  }

  /** A kind's index, `<prefix>signin:<kind>`: no record's key, which always has a third part (`:<id>`). */
  private indexOf(kind: SignInKind): string {
    return this.connection.key('signin', kind);
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
