// express-mcp-router/redis: redisStore(), everything several instances of one router share, kept in Redis. (The same name as lib/index.ts: each is the entry point of its export path.)

import type { McpStore } from './edge/store/shared-store';
import { RedisConnection, type RedisConnectionOptions } from './features/redis/connection';
import { RedisEventStore } from './features/redis/event-store';
import { RedisMessageBus } from './features/redis/message-bus';
import { RedisPaymentLedger } from './features/redis/payment-ledger';
import { redisRateLimitStore } from './features/redis/rate-limit';
import { RedisServerEventBus } from './features/redis/server-event-bus';
import { RedisSessionStore } from './features/redis/session-store';
import { RedisSignInStore } from './features/redis/sign-in-store';
import { sharedStateKey } from './features/redis/state-key';
import { RedisTaskStore } from './features/redis/task-store';

export type { RedisClientLike, RedisConnectionOptions } from './features/redis/connection';
export { StoreUnavailableError, type McpStore } from './edge/store/shared-store';

/** Options of {@link redisStore}: where Redis is (`url` or `client`), and how this router's keys are named. */
export type RedisStoreOptions = RedisConnectionOptions;

/**
 * Keeps in Redis everything that several instances of one router must share, so a load balancer may send any
 * request to any instance (no sticky sessions): 2025 sessions and their recorded events, server→client requests,
 * answers and cancellations, list changes and resource updates, tasks, the requestState key, the rate-limit
 * counters, the x402 payments the router's paid tools have taken, and sign-in (`auth.server`: clients, codes,
 * consents, refresh-token families, signing keys). Pass it as the router's `store`; `mcp.close()` closes it (a `client` you gave stays open).
 *
 * Needs Redis 6.2 or later, and the optional peer dependencies `redis` (node-redis 5 or 6) and `rate-limit-redis`.
 *
 * @example
 * ```ts
 * import { mcpRouter } from 'express-mcp-router';
 * import { redisStore } from 'express-mcp-router/redis';
 *
 * const mcp = mcpRouter({ name: 'inventory', version: '1.0.0', store: redisStore({ url: process.env.REDIS_URL }) });
 * ```
 */
export function redisStore(options: RedisStoreOptions = {}): McpStore {
  const connection = new RedisConnection(options);
  const closing: Array<() => Promise<void> | void> = [];
  const subscriptions: Array<() => Promise<void>> = [];
  const made = <T extends { close?: () => Promise<void> | void }>(part: T): T => {
    if (part.close !== undefined) closing.push(() => part.close?.());
    return part;
  };
  return {
    sessions: (settings) => made(new RedisSessionStore(connection, settings)),
    events: (settings) => new RedisEventStore(connection, settings),
    bus: () => new RedisMessageBus(connection),
    serverEvents: (onListenerError) => {
      const events = made(new RedisServerEventBus(connection, onListenerError));
      subscriptions.push(() => events.ready());
      return events;
    },
    tasks: (settings) => new RedisTaskStore(connection, settings),
    rateLimit: (prefix) => redisRateLimitStore(connection, prefix),
    stateKey: () => sharedStateKey(connection),
    payments: () => new RedisPaymentLedger(connection),
    signIn: (limits) => new RedisSignInStore(connection, limits),
    // The latest attempt of each (a bus made while Redis was down keeps trying).
    ready: async () => {
      await Promise.all(subscriptions.map((ready) => ready()));
    },
    close: async () => {
      await Promise.all(closing.splice(0).map(async (close) => close()));
      await connection.close();
    },
  };
}
