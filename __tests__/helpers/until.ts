// Test helper: waits for a condition that something asynchronous (a timer, another instance, a close) makes true.

import { scaled } from './time-scale';

/**
 * Resolves once `condition` holds, checking every 25 ms; throws naming `what` after `timeoutMs` (on a quiet machine:
 * stretched by TEST_TIME_SCALE). For what nothing in the process tells (a file, a Redis key, a process gone): when a
 * callback, an emitter or a promise tells it, wait on that instead (helpers/events: `Signal`, `within`).
 *
 * @example
 * ```ts
 * await until(() => drops.length === 1, 'the drop');
 * ```
 */
export async function until(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 5_000,
): Promise<void> {
  const end = Date.now() + scaled(timeoutMs);
  while (!(await condition())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
