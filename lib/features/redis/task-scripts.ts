// The Lua scripts of RedisTaskStore (task-store.ts): each step that must be atomic on one slot's keys.

/**
 * Writes a new task's hash and its TTL in one step: a crash between HSET and PEXPIRE would leave a key that never
 * expires (a peer fault). KEYS: task. ARGV: owner, status, expiresAt, record JSON, lifetime ms.
 */
export const WRITE_NEW = `redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'status', ARGV[2], 'expiresAt', ARGV[3], 'record', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;

/**
 * Compare-and-set of a put: the task must exist, be the same owner's, be unexpired and not terminal. Two instances
 * may write one task (a cancel on B while A completes it): SEP-2663 Task Status says a terminal task's state does
 * not change, so the second terminal write loses. HSET keeps the key's TTL: a task lives `ttlMs` from its creation
 * (SEP-2663 Task), not from its last update. KEYS: task. ARGV: owner, status, record JSON, now.
 */
export const PUT = `local held = redis.call('HMGET', KEYS[1], 'owner', 'status', 'expiresAt')
if not held[1] or held[1] ~= ARGV[1] then return 0 end
if held[2] == 'completed' or held[2] == 'failed' or held[2] == 'cancelled' then return 0 end
if tonumber(held[3]) <= tonumber(ARGV[4]) then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'record', ARGV[3])
return 1`;

/**
 * Takes a place in one scope (an owner's, or the whole store's): drops expired entries, and when the scope is full
 * evicts the finished task that expires first (the one that loses least), else refuses. An index key lives as long
 * as its longest-lived entry. KEYS: live, finished. ARGV: now, task id, expiresAt, limit, lifetime ms.
 * Returns {0} when refused, {1} when placed, {1, evictedId} when placed by evicting.
 */
export const RESERVE = `redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
local evicted = nil
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then
  local first = redis.call('ZRANGE', KEYS[2], 0, 0)
  if #first == 0 then return {0} end
  evicted = first[1]
  redis.call('ZREM', KEYS[1], evicted)
  redis.call('ZREM', KEYS[2], evicted)
end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[5]) then redis.call('PEXPIRE', KEYS[1], ARGV[5]) end
if evicted then return {1, evicted} end
return {1}`;

/** Marks a placed task finished (evictable) in one scope, if it still holds a place there. KEYS: live, finished. ARGV: task id. */
export const MARK_FINISHED = `local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
local ttl = redis.call('PTTL', KEYS[1])
if not score or ttl <= 0 then return 0 end
redis.call('ZADD', KEYS[2], score, ARGV[1])
if redis.call('PTTL', KEYS[2]) < ttl then redis.call('PEXPIRE', KEYS[2], ttl) end
return 1`;

/** Deletes a task's hash, answering its owner (to free its place in the owner's scope). KEYS: task. */
export const DROP = `local owner = redis.call('HGET', KEYS[1], 'owner')
redis.call('DEL', KEYS[1])
return owner`;
