// A 2025 session's activity in Redis (its TTLs, its index entry, its principal's set) in as few round trips as the deployment allows.

import { createHash } from 'node:crypto';
import type { RedisConnection } from './connection';
import {
  GET_SESSION,
  INDEX_SESSION,
  LOAD_SESSION,
  scriptKeys,
  sessionIndexKey,
  sessionKeys,
  TOUCH_SESSION,
} from './session-keys';

/**
 * Records activity of 2025 sessions: every request of a session reads its record and restarts its idle TTL, moves
 * its entry in the index (eviction takes the least recently active) and, for an authenticated session, in its
 * principal's set (`sessionsOf`). On a single Redis server that is one script, one round trip; in a Cluster the
 * index and the principal's set lie in other slots, so the same commands are sent together (node-redis pipelines
 * them): one round trip too, once the principal is known.
 *
 * The principal's set is named by the caller, which remembers its key per session ({@link SessionActivity.ownerKey},
 * hashed once): a session's principal never changes (a record is bound to the principal that created it), so after
 * the first read on an instance its set is updated in the same round trip as the read, never in a second one.
 */
export class SessionActivity {
  readonly #connection: RedisConnection;
  readonly #idleTtlMs: number;
  readonly #index: string;

  constructor(connection: RedisConnection, idleTtlMs: number) {
    this.#connection = connection;
    this.#idleTtlMs = idleTtlMs;
    this.#index = sessionIndexKey(connection);
  }

  /** The index of every session (sorted set id → last activity). */
  get index(): string {
    return this.#index;
  }

  /**
   * The record's JSON text, or null when the session is gone; when it exists, every activity above is recorded.
   *
   * @param owner - the key of the session's principal's set when known (undefined: no principal; null: not known
   *   yet, recorded by the caller with {@link SessionActivity.ofOwner} once the record is read)
   */
  async load(id: string, owner: string | undefined | null): Promise<string | null> {
    const keys = scriptKeys(sessionKeys(this.#connection, id));
    const now = Date.now();
    if (!this.#connection.isCluster) {
      return LOAD_SESSION.run<string | null>(
        this.#connection,
        typeof owner === 'string' ? [...keys, this.#index, owner] : [...keys, this.#index],
        [this.#idleTtlMs, id, now],
      );
    }
    const [text] = await Promise.all([
      GET_SESSION.run<string | null>(this.#connection, keys, [this.#idleTtlMs]),
      this.indexed(id, 'update', now),
      typeof owner === 'string' ? this.ofOwner(owner, id, now) : undefined,
    ]);
    return text;
  }

  /** Restarts the session's TTLs and moves its index entry when it exists; never creates one. */
  async touch(id: string): Promise<void> {
    if (!this.#connection.isCluster) {
      await this.load(id, undefined);
      return;
    }
    const keys = scriptKeys(sessionKeys(this.#connection, id));
    await Promise.all([
      TOUCH_SESSION.run<number>(this.#connection, keys, [this.#idleTtlMs]),
      this.indexed(id, 'update', Date.now()),
    ]);
  }

  /** Records activity in the index (and restarts its TTL); answers the index size. */
  indexed(id: string, mode: 'add' | 'update', now = Date.now()): Promise<number> {
    return INDEX_SESSION.run<number>(
      this.#connection,
      [this.#index],
      [id, now, mode === 'add' ? '' : 'XX', this.#idleTtlMs],
    );
  }

  /**
   * Records a session's activity in its principal's set, named by `key` ({@link SessionActivity.ownerKey}); the set's
   * TTL restarts: it lives as long as its newest session can.
   */
  async ofOwner(key: string, id: string, now = Date.now()): Promise<void> {
    // Sent together: node-redis pipelines them, one round trip.
    await Promise.all([
      this.#connection.send(['ZADD', key, String(now), id], key),
      this.#connection.send(['PEXPIRE', key, String(this.#idleTtlMs)], key),
    ]);
  }

  /** The sorted set of one principal's sessions: named by a hash, so no principal's name is in a key. */
  ownerKey(principal: string): string {
    return this.#connection.key('s', 'owner', `{${createHash('sha256').update(principal).digest('base64url')}}`);
  }
}
