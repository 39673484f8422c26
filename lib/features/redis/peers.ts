// The optional peers of express-mcp-router/redis (redis, rate-limit-redis), required with an error naming the install.

// (A bare "Cannot find module 'redis'" from deep inside dist/ says neither that it is optional nor what else is needed.)

import type * as NodeRedis from 'redis';
import type * as RateLimitRedis from 'rate-limit-redis';

/** What the subpath needs installed beside it, as the install line names them. */
const PEERS = ['redis', 'rate-limit-redis'] as const;

function requirePeer<T>(name: (typeof PEERS)[number]): T {
  try {
    return require(name) as T;
  } catch (err) {
    // Only the peer itself missing: a package it needs that is missing (a broken install) is that package's error.
    const { code, message } = err as { code?: unknown; message?: unknown };
    if (code !== 'MODULE_NOT_FOUND' || !String(message).includes(`'${name}'`)) throw err;
    throw new Error(
      `express-mcp-router/redis needs its optional peer dependencies ${PEERS.join(' and ')}: npm install ${PEERS.join(' ')} (cannot find '${name}')`,
      { cause: err },
    );
  }
}

/** node-redis (`redis`, 5 or 6). */
export const nodeRedis: typeof NodeRedis = requirePeer('redis');
/** express-rate-limit's Redis store (`rate-limit-redis`). */
export const rateLimitRedis: typeof RateLimitRedis = requirePeer('rate-limit-redis');
