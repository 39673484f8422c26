// The key that signs 2026 requestState, made once in Redis by the first instance and read by every other one.

import { randomBytes } from 'node:crypto';
import { MIN_STATE_KEY_BYTES } from '../../core/protocol/era-2026/request-state';
import type { RedisConnection } from './connection';

/** The key's name under the connection's prefix: `<prefix>state-key`. */
const STATE_KEY_NAME = 'state-key';

/**
 * The `requestState` signing key shared by all instances of a router (an `input_required` retry signed on one
 * instance must open on any other): the first instance to ask stores 32 random bytes, base64url (43 characters,
 * used as the `inputRequired.stateKey` string: 43 bytes, above {@link MIN_STATE_KEY_BYTES}), with `SET … NX`, so
 * instances starting together agree on one; then every instance reads the one stored.
 *
 * The key has no TTL on purpose: rotating it would make every retry in flight (a requestState lives
 * `inputRequired.stateTtlMs`, 10 minutes by default) fail its signature check. To rotate it, delete
 * `<prefix>state-key` and restart all instances (retries in flight then fail once, and clients start the call
 * again), or pass `inputRequired.stateKey` to `mcpRouter()` yourself: an explicit key wins over the stored one.
 * Whoever can read Redis can read this key: protect Redis with an ACL user and TLS as you would the key itself.
 *
 * @throws {StoreUnavailableError} when Redis cannot answer
 * @throws {Error} when the stored key is shorter than {@link MIN_STATE_KEY_BYTES} (someone wrote it by hand)
 * @example
 * ```ts
 * const stateKey = await sharedStateKey(connection);
 * const codec = createRequestStateCodec(resolveInputRequired({ stateKey }));
 * ```
 */
export async function sharedStateKey(connection: RedisConnection): Promise<string> {
  const key = connection.key(STATE_KEY_NAME);
  // Twice at most: someone may delete the key (a rotation) between our SET and our GET.
  for (let attempt = 0; attempt < 2; attempt++) {
    await connection.send(['SET', key, randomBytes(MIN_STATE_KEY_BYTES).toString('base64url'), 'NX'], key);
    const stored = await connection.send<string | null>(['GET', key], key);
    if (stored === null || stored === undefined) continue;
    if (Buffer.byteLength(stored) < MIN_STATE_KEY_BYTES) {
      throw new Error(
        `express-mcp-router/redis: the requestState key in Redis (${key}) is shorter than ${MIN_STATE_KEY_BYTES} bytes; delete it and restart, or pass inputRequired.stateKey`,
      );
    }
    return stored;
  }
  throw new Error(
    `express-mcp-router/redis: the requestState key in Redis (${key}) was deleted while it was being read; start again`,
  );
}
