// express-rate-limit's store on the router's Redis: rate-limit-redis (the library's own Redis store), its commands sent through the connection. (The Redis side of security/rate-limit.ts: one concern at two layers.)

import { createHash } from 'node:crypto';
import type { Store } from 'express-rate-limit';
import type { RedisReply, SendCommandClusterDetails } from 'rate-limit-redis';
import { rateLimitRedis } from './peers';
import { StoreUnavailableError } from '../../edge/store/shared-store';
import type { RedisConnection } from './connection';

/**
 * express-rate-limit's {@link Store} for a router's `rateLimit`, counting in Redis so the limit holds across every
 * instance: `rate-limit-redis` (kept by express-rate-limit's maintainers; one key per client and window, set with
 * its TTL in one Lua script), its commands sent through the connection (the time limit, Cluster routing by key).
 * Keys: `<connection prefix>rl:<prefix>:<client key>`, strings with a PX of the window.
 *
 * While Redis is down, `increment` rejects with {@link StoreUnavailableError} within the connection's
 * `commandTimeoutMs` (never hangs); express-rate-limit then hands that error to `next()` (its `passOnStoreError`
 * is false by default: an outage does not switch the limit off).
 *
 * rate-limit-redis keeps the promise of each script's `SCRIPT LOAD` for good, so a load that failed (Redis down at
 * boot, or while it reloads after a restart) would make every later request fail for the life of the process. A
 * script's SHA1 depends only on its text, so when Redis cannot answer a `SCRIPT LOAD`, the SHA1 is computed here:
 * `EVALSHA` then gets NOSCRIPT from a Redis that came back empty, and the store loads the script again itself.
 *
 * @param prefix - distinguishes this limiter's counters from another router's under the same connection prefix
 * @example
 * ```ts
 * app.use(rateLimit({ windowMs: 60_000, limit: 100, store: redisRateLimitStore(connection, 'mcp') }));
 * ```
 */
export function redisRateLimitStore(connection: RedisConnection, prefix: string): Store {
  return new rateLimitRedis.RedisStore({
    prefix: connection.key('rl', ...(prefix === '' ? [] : [prefix])) + ':',
    sendCommandCluster: async ({ key, command }: SendCommandClusterDetails): Promise<RedisReply> => {
      try {
        return await connection.send<RedisReply>(command, key);
      } catch (err) {
        const [name, subcommand, script] = command;
        if (
          err instanceof StoreUnavailableError &&
          name === 'SCRIPT' &&
          subcommand?.toUpperCase() === 'LOAD' &&
          script !== undefined
        ) {
          return createHash('sha1').update(script).digest('hex');
        }
        throw err;
      }
    },
  });
}
