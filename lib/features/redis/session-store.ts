// RedisSessionStore: 2025 sessions in Redis, shared by every instance of a router (idle TTL on every key, a cap, drops found by polling).

import type { SharedSessionSettings } from '../../edge/store/shared-store';
import type { SessionRecord, SessionStore } from '../../edge/store/session-stores';
import type { OptionKeys } from '../../options/config-error';
import { OptionReader } from '../../options/option-reader';
import type { RedisConnection } from './connection';
import { SessionActivity } from './session-activity';
import { DELETE_SESSION, EVICT_SESSION, scriptKeys, sessionKeys, SET_SESSION } from './session-keys';

/** How often an instance asks Redis whether the sessions it has seen still exist. */
export const DEFAULT_CHECK_INTERVAL_MS = 5_000;
/** How many EXISTS one check sends at once (node-redis pipelines them). */
const CHECK_BATCH = 500;
/** The least time the eviction mark is kept, so instances polling less often still read it. */
const MIN_EVICTION_MARK_MS = 60_000;

type DropListener = (id: string, reason: 'expired' | 'evicted') => void;
type DropReason = Parameters<DropListener>[1];

/** Settings of {@link RedisSessionStore}: the router's session settings, and how often drops are looked for. */
export type RedisSessionStoreSettings = SharedSessionSettings & {
  /** How often, in ms, this instance checks that the sessions it has seen still exist. Defaults to {@link DEFAULT_CHECK_INTERVAL_MS}. */
  readonly checkIntervalMs?: number;
};

const SETTINGS_KEYS: OptionKeys<RedisSessionStoreSettings> = { idleTtlMs: true, max: true, checkIntervalMs: true };

/**
 * Keeps 2025 sessions in Redis so that any instance of a router can serve any session (no sticky sessions).
 *
 * Every key of a session (record, events, eviction mark) shares the hash tag `{id}` and lives `idleTtlMs` after
 * the session's last activity: `get`, `touch`, `set` and an event append each restart the TTL of all of them in one
 * Lua script, so a busy stream never lets its record expire (a peer fault: TTLs refreshed by some traffic only).
 * A crashed instance leaves nothing that outlives the TTL. `get`, which runs on every request of a session, is one
 * round trip (see {@link SessionActivity}).
 *
 * At most `max` sessions: an index (sorted set id → last activity) lets `set` of a new session evict the least
 * recently active; the index spans all slots, so in a Cluster it is kept by separate commands (a request's read
 * moves it in the same script on a single server), and entries whose record is gone are pruned (by the check below, and by eviction, which takes them first: they are the least recently active).
 *
 * Redis expires keys by itself, so drops are found by polling: every `checkIntervalMs` the instance asks whether
 * the sessions it has seen still exist, reports the missing ones to {@link RedisSessionStore.onDrop} and forgets
 * them. A session evicted by any instance is reported as 'evicted' (its eviction mark says so), one that is simply
 * gone as 'expired' (deleted by another instance included: its streams here must close too). A check that Redis
 * cannot answer reports nothing: an outage is not a drop.
 *
 * @example
 * ```ts
 * const connection = new RedisConnection({ url: process.env.REDIS_URL });
 * const sessions = new RedisSessionStore(connection, { idleTtlMs: 30 * 60 * 1000, max: 10_000 });
 * sessions.onDrop((id, reason) => console.log(`session ${id} ${reason}`));
 * await sessions.set(record);
 * const session = await sessions.get(record.id); // any instance; the idle TTL restarts
 * await sessions.close(); // the timer stops; the connection is closed by its owner
 * ```
 */
export class RedisSessionStore implements SessionStore {
  readonly #connection: RedisConnection;
  readonly #idleTtlMs: number;
  readonly #max: number;
  readonly #checkIntervalMs: number;
  readonly #evictionMarkMs: number;
  readonly #index: string;
  readonly #activity: SessionActivity;
  /**
   * Sessions this instance has seen live, the ones whose drop it must report, with the key of their principal's set
   * (undefined: no principal; a session's principal never changes, so the key is hashed once). Forgotten once gone
   * (or deleted).
   */
  readonly #seen = new Map<string, string | undefined>();
  readonly #listeners: DropListener[] = [];
  #timer: NodeJS.Timeout | undefined;
  #checking = false;
  #closed = false;

  /** @throws {McpConfigError} `ERR_MCP_INVALID_OPTION` for a setting that is not a positive integer, `ERR_MCP_UNKNOWN_OPTION` */
  constructor(connection: RedisConnection, settings: RedisSessionStoreSettings) {
    const read = OptionReader.of(settings, 'RedisSessionStore', SETTINGS_KEYS);
    const idleTtlMs = read.positiveInteger('idleTtlMs');
    if (idleTtlMs === undefined) throw read.invalid('idleTtlMs', 'a positive integer');
    const max = read.positiveInteger('max');
    if (max === undefined) throw read.invalid('max', 'a positive integer');
    this.#connection = connection;
    this.#idleTtlMs = idleTtlMs;
    this.#max = max;
    this.#checkIntervalMs = read.positiveInteger('checkIntervalMs', DEFAULT_CHECK_INTERVAL_MS);
    // Long enough for every instance's next check to read it, never longer than a session could have lived.
    this.#evictionMarkMs = Math.min(this.#idleTtlMs, Math.max(4 * this.#checkIntervalMs, MIN_EVICTION_MARK_MS));
    this.#activity = new SessionActivity(connection, this.#idleTtlMs);
    this.#index = this.#activity.index;
  }

  async set(record: SessionRecord): Promise<void> {
    this.#startChecking();
    const owner = record.principal === undefined ? undefined : this.#activity.ownerKey(record.principal);
    const [existed, size] = await Promise.all([
      SET_SESSION.run<number>(this.#connection, this.#keysOf(record.id), [this.#idleTtlMs, JSON.stringify(record)]),
      this.#activity.indexed(record.id, 'add'),
      owner === undefined ? undefined : this.#activity.ofOwner(owner, record.id),
    ]);
    this.#seen.set(record.id, owner);
    if (existed === 0 && size > this.#max) await this.#makeRoom(record.id);
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    this.#startChecking();
    // The principal's set this instance knows (null: not yet) is recorded in the same round trip as the read.
    const known = this.#seen.has(id);
    const text = await this.#activity.load(id, known ? this.#seen.get(id) : null);
    if (text === null) return undefined;
    // JSON drops undefined fields: put them back, so a record has the same keys as the one saved.
    const saved = JSON.parse(text) as Partial<SessionRecord>;
    const owner = typeof saved.principal === 'string' ? this.#activity.ownerKey(saved.principal) : undefined;
    // First read here of an authenticated session: its principal's set is recorded once, in a second round trip.
    if (!known) {
      this.#seen.set(id, owner);
      if (owner !== undefined) await this.#activity.ofOwner(owner, id);
    }
    return { clientInfo: undefined, logLevel: undefined, ...saved } as SessionRecord;
  }

  async touch(id: string): Promise<void> {
    await this.#activity.touch(id);
  }

  async delete(id: string): Promise<boolean> {
    // Forgotten first, so a check running meanwhile does not report the session this instance is ending.
    const seen = this.#seen.has(id);
    const owner = this.#seen.get(id);
    this.#seen.delete(id);
    let existed: number;
    try {
      existed = await DELETE_SESSION.run<number>(this.#connection, this.#keysOf(id), []);
    } catch (err) {
      // Not deleted (Redis did not answer): the session lives on, and this instance must still hear of its end.
      if (seen && !this.#seen.has(id)) this.#seen.set(id, owner);
      throw err;
    }
    // The index entry goes after: once the session is gone, a failure here must not tell the client it is not (a
    // stale entry is harmless, see #check).
    await this.#connection.send(['ZREM', this.#index, id], this.#index).catch(() => undefined);
    return existed === 1;
  }

  /**
   * The principal's sessions on every instance, least recently active first (a sorted set per principal, by a hash
   * of its name, with the idle TTL; entries whose record is gone are pruned here).
   */
  async sessionsOf(principal: string): Promise<string[]> {
    const key = this.#activity.ownerKey(principal);
    const ids = (await this.#connection.send<unknown[]>(['ZRANGE', key, '0', '-1'], key)).map(String);
    const exists = await Promise.all(
      ids.map((id) => this.#connection.send<number>(['EXISTS', this.#recordKey(id)], this.#recordKey(id))),
    );
    const gone = ids.filter((_id, i) => exists[i] === 0);
    if (gone.length > 0) await this.#connection.send(['ZREM', key, ...gone], key);
    return ids.filter((_id, i) => exists[i] === 1);
  }

  onDrop(listener: DropListener): void {
    this.#listeners.push(listener);
  }

  /** Stops the check timer and forgets what this instance saw; the sessions stay in Redis (other instances serve them). */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#seen.clear();
  }

  #keysOf(id: string): string[] {
    return scriptKeys(sessionKeys(this.#connection, id));
  }

  #recordKey(id: string): string {
    return sessionKeys(this.#connection, id).record;
  }

  /**
   * After a new session took the index past `max`: takes the least recently active entry out of the index (ZPOPMIN,
   * atomic: instances creating sessions at once each take a different one, so a burst neither evicts the same
   * session twice nor too many) and evicts it, or nothing when it was already gone (an entry of an expired session).
   * One per new session, so the index, which counts every live session, never holds more than `max` for long.
   */
  async #makeRoom(keep: string): Promise<void> {
    let victim = await this.#popOldest();
    // The session just saved was the oldest (others were active in the same ms): it stays, and the next one goes.
    if (victim?.id === keep) {
      victim = await this.#popOldest();
      await this.#connection.send(['ZADD', this.#index, String(Date.now()), keep], this.#index);
    }
    if (victim === undefined || victim.id === keep) return;
    if ((await EVICT_SESSION.run<number>(this.#connection, this.#keysOf(victim.id), [this.#evictionMarkMs])) === 0)
      return;
    this.#seen.delete(victim.id);
    this.#report([victim.id], 'evicted');
  }

  async #popOldest(): Promise<{ id: string } | undefined> {
    // [member, score], or [[member, score]] under RESP3.
    const [id] = (await this.#connection.send<unknown[]>(['ZPOPMIN', this.#index], this.#index)).flat().map(String);
    return id === undefined ? undefined : { id };
  }

  /** Starts the check timer on first use (a store that is never used polls nothing). */
  #startChecking(): void {
    if (this.#timer !== undefined || this.#checking || this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#checking = true;
      void this.#check().finally(() => {
        this.#checking = false;
        this.#startChecking();
      });
    }, this.#checkIntervalMs);
    // The check never keeps the process alive.
    this.#timer.unref();
  }

  /** Asks whether every session this instance has seen still exists; reports and forgets the missing ones. */
  async #check(): Promise<void> {
    const ids = [...this.#seen.keys()];
    try {
      const gone: string[] = [];
      for (let start = 0; start < ids.length; start += CHECK_BATCH) {
        const batch = ids.slice(start, start + CHECK_BATCH);
        // One command per id: the records are in different slots, so one EXISTS (or script) cannot span them.
        const exists = await Promise.all(
          batch.map((id) => this.#connection.send<number>(['EXISTS', this.#recordKey(id)], this.#recordKey(id))),
        );
        batch.forEach((id, i) => exists[i] === 0 && gone.push(id));
      }
      if (gone.length === 0) return;
      const marks = await Promise.all(
        gone.map((id) => {
          const { evicted } = sessionKeys(this.#connection, id);
          return this.#connection.send<number>(['EXISTS', evicted], evicted);
        }),
      );
      // Their index entries stay: eviction pops the least recently active first, and a gone session's entry is older
      // than every live one's (one idle TTL), so a pop takes it and evicts nothing. Removing them here raced a new
      // session's eviction (counted with the entry, popped after it went), which then evicted a live session.
      // Deleted here, or closed, while the check ran: nothing to report.
      const reported = (reason: DropReason): string[] =>
        gone.filter((id, i) => (marks[i] === 1) === (reason === 'evicted') && this.#seen.has(id));
      const [evicted, expired] = [reported('evicted'), reported('expired')];
      for (const id of gone) this.#seen.delete(id);
      this.#report(evicted, 'evicted');
      this.#report(expired, 'expired');
    } catch {
      // Redis did not answer (StoreUnavailableError): an outage is not a drop; the next check asks again.
    }
  }

  #report(ids: readonly string[], reason: DropReason): void {
    if (this.#closed) return;
    for (const id of ids) {
      for (const listener of this.#listeners) {
        try {
          listener(id, reason);
        } catch {
          // A listener's failure must not stop the others, nor escape the check timer and crash the process.
        }
      }
    }
  }
}
