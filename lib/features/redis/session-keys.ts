// The Redis key layout of 2025 sessions (record, events, eviction mark, index) and the Lua scripts that act on one session's keys at once.

import { createHash } from 'node:crypto';
import { STREAM_HEARTBEAT_MS } from '../../edge/store/session-stores';
import type { RedisConnection } from './connection';

/**
 * Every key of one session. They share the hash tag `{id}`, so one Lua script may touch them all in a Redis
 * Cluster (a script may only touch keys of one slot).
 */
export interface SessionKeys {
  /** String: the session record as JSON. TTL `idleTtlMs`, refreshed by every activity. */
  readonly record: string;
  /** Stream: the session's recorded SSE events (field `s` the SSE stream id, `d` the JSON text, '' for a priming event). Same TTL. */
  readonly events: string;
  /** String: set when the session was evicted, so instances polling for it report 'evicted' rather than 'expired'. Short TTL. */
  readonly evicted: string;
  /**
   * Hash: the POST streams some instance runs (or ran, until it stopped), SSE stream id → `<deadline> <JSON array of
   * the request ids it answers>`; the deadline (ms, Redis's clock) is the owner's heartbeat, renewed while the stream
   * runs, and past it the owner is taken for stopped. A field goes when its stream finishes. Same TTL as the record;
   * a field, not a key of its own, so that deleting the session leaves nothing behind.
   */
  readonly streams: string;
}

/** How long a stream's owner heartbeat holds after its last renewal: three heartbeats, so one slow renewal is not a death. */
export const STREAM_OWNER_TTL_MS = 3 * STREAM_HEARTBEAT_MS;

/**
 * The keys of session `id`. Session ids are visible ASCII made by the router (base64url): no `{` or `}` that
 * would move the hash tag.
 */
export function sessionKeys(connection: RedisConnection, id: string): SessionKeys {
  const tag = `{${id}}`;
  return {
    record: connection.key('s', tag, 'record'),
    events: connection.key('s', tag, 'events'),
    evicted: connection.key('s', tag, 'evicted'),
    streams: connection.key('s', tag, 'streams'),
  };
}

/**
 * The index of every session: a sorted set, id → last activity (ms). It spans all sessions, so it cannot share a
 * slot with them: in a Cluster it is kept by separate commands, and its entries whose record is gone are pruned.
 */
export function sessionIndexKey(connection: RedisConnection): string {
  return connection.key('s', 'index');
}

/** The keys of a session, in the order the scripts below expect them (KEYS[1] routes the command in a Cluster). */
export function scriptKeys(keys: SessionKeys): [string, string, string, string] {
  return [keys.record, keys.events, keys.evicted, keys.streams];
}

/**
 * A Lua script run by EVALSHA, sent in full (EVAL) when Redis does not know it yet, after a restart for instance.
 * A script touches one slot only: its keys are given in KEYS, never built inside it.
 */
export class RedisScript {
  readonly #source: string;
  readonly #sha: string;

  constructor(source: string) {
    this.#source = source;
    this.#sha = createHash('sha1').update(source).digest('hex');
  }

  /** @throws {StoreUnavailableError} when Redis cannot answer */
  async run<T>(connection: RedisConnection, keys: readonly string[], args: readonly (string | number)[]): Promise<T> {
    const tail = [String(keys.length), ...keys, ...args.map(String)];
    try {
      return await connection.send<T>(['EVALSHA', this.#sha, ...tail], keys[0]);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return connection.send<T>(['EVAL', this.#source, ...tail], keys[0]);
    }
  }
}

/** Restarts the idle TTL of every key of a session (KEYS: record, events, evicted, streams; ARGV[1]: the TTL in ms). */
const REFRESH = `
local function refresh(ttl)
  redis.call('PEXPIRE', KEYS[1], ttl)
  redis.call('PEXPIRE', KEYS[2], ttl)
  redis.call('PEXPIRE', KEYS[4], ttl)
end
`;

/** Saves the record and restarts every TTL; answers 1 when the session already existed. ARGV: ttl, JSON. */
export const SET_SESSION = new RedisScript(`${REFRESH}
local existed = redis.call('EXISTS', KEYS[1])
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[1])
refresh(ARGV[1])
redis.call('DEL', KEYS[3])
return existed
`);

/** The record (or nil), restarting every TTL when it exists. ARGV: ttl. */
export const GET_SESSION = new RedisScript(`${REFRESH}
local record = redis.call('GET', KEYS[1])
if record then refresh(ARGV[1]) end
return record
`);

/**
 * A request's whole session lookup on a single Redis server (not a Cluster: the index and a principal's set lie in
 * other slots), one round trip: the record (or nil) and, when it exists, every TTL of the session restarted, its
 * index entry moved to now (only an existing one: XX) and, with KEYS[6], its principal's set too (each set's TTL
 * restarted). KEYS: record, events, evicted, streams, index[, principal's set]. ARGV: ttl, id, now (ms).
 */
export const LOAD_SESSION = new RedisScript(`${REFRESH}
local record = redis.call('GET', KEYS[1])
if not record then return nil end
refresh(ARGV[1])
redis.call('ZADD', KEYS[5], 'XX', ARGV[3], ARGV[2])
redis.call('PEXPIRE', KEYS[5], ARGV[1])
if KEYS[6] then
  redis.call('ZADD', KEYS[6], ARGV[3], ARGV[2])
  redis.call('PEXPIRE', KEYS[6], ARGV[1])
end
return record
`);

/** Restarts every TTL when the session exists; answers 1 when it did. ARGV: ttl. */
export const TOUCH_SESSION = new RedisScript(`${REFRESH}
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
refresh(ARGV[1])
return 1
`);

/** Removes every key of the session; answers 1 when the record existed. */
export const DELETE_SESSION = new RedisScript(`
local existed = redis.call('DEL', KEYS[1])
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
return existed
`);

/** Removes the record and events of a live session and leaves the eviction mark; answers 1 when it was live. ARGV: mark TTL. */
export const EVICT_SESSION = new RedisScript(`
if redis.call('DEL', KEYS[1]) == 0 then return 0 end
redis.call('DEL', KEYS[2], KEYS[4])
redis.call('SET', KEYS[3], '1', 'PX', ARGV[1])
return 1
`);

/**
 * Records one event and restarts every TTL of the session: a busy stream keeps its record alive. The id is
 * XADD's own, allocated by Redis (never read-modify-write, so two instances cannot collide); MAXLEN bounds the
 * session's events. ARGV: ttl, max events, SSE stream id, JSON text ('' for a priming event).
 */
export const APPEND_EVENT = new RedisScript(`${REFRESH}
local id = redis.call('XADD', KEYS[2], 'MAXLEN', ARGV[2], '*', 's', ARGV[3], 'd', ARGV[4])
refresh(ARGV[1])
return id
`);

/**
 * The events of one SSE stream after an entry, as [id, text, id, text…], restarting every TTL; nil when that
 * entry is not held (never issued, trimmed away, or of another SSE stream). Trimming removes the oldest entries
 * first, so a held entry means nothing after it was trimmed: a replay never skips an event.
 * ARGV: ttl, entry id, SSE stream id.
 */
export const REPLAY_EVENTS = new RedisScript(`${REFRESH}
local at = redis.call('XRANGE', KEYS[2], ARGV[2], ARGV[2])
if #at == 0 or at[1][2][2] ~= ARGV[3] then return nil end
refresh(ARGV[1])
local out = {}
for _, entry in ipairs(redis.call('XRANGE', KEYS[2], '(' .. ARGV[2], '+')) do
  if entry[2][2] == ARGV[3] then
    out[#out + 1] = entry[1]
    out[#out + 1] = entry[2][4]
  end
end
return out
`);

/** Adds (or, with ARGV[3] 'XX', only updates) an index entry and restarts the index's TTL; answers the index size. ARGV: id, ms, mode, ttl. */
export const INDEX_SESSION = new RedisScript(`
if ARGV[3] == 'XX' then redis.call('ZADD', KEYS[1], 'XX', ARGV[2], ARGV[1]) else redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return redis.call('ZCARD', KEYS[1])
`);

/** Redis's clock in ms (TIME): one clock for every instance, so a deadline set by one is read right by another. */
const NOW = `
local function now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`;

/**
 * Marks a POST stream running (its request ids) and renews its owner's heartbeat deadline, while the session lives
 * (a deleted session is not brought back); answers 1 when marked. KEYS: record, streams. ARGV: ttl, stream id, JSON
 * request ids, heartbeat TTL.
 */
export const MARK_STREAM_OPEN = new RedisScript(`${NOW}
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[2], ARGV[2], (now() + tonumber(ARGV[4])) .. ' ' .. ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return 1
`);

/** Forgets a finished stream's mark. KEYS: streams. ARGV: stream id. */
export const MARK_STREAM_FINISHED = new RedisScript(`
return redis.call('HDEL', KEYS[1], ARGV[1])
`);

/**
 * A marked stream's request ids (JSON) and whether its owner's heartbeat holds (1 or 0); nil when not marked or
 * finished. KEYS: streams. ARGV: stream id.
 */
export const STREAM_STATE = new RedisScript(`${NOW}
local mark = redis.call('HGET', KEYS[1], ARGV[1])
if not mark then return nil end
local space = string.find(mark, ' ', 1, true)
local alive = tonumber(string.sub(mark, 1, space - 1)) > now() and 1 or 0
return { string.sub(mark, space + 1), alive }
`);
