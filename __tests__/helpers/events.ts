// Test helper: waits on an event the code under test gives (a callback, an emitter, a promise), with a deadline, so
// that a test fails rather than hangs when the event never comes. helpers/until polls; use it only for what has no
// event (a file, a Redis key, a process gone).

import { scaled } from './time-scale';

// The real setTimeout, taken before any test installs fake timers: a deadline must not depend on them.
const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;

/**
 * Resolves as `promise` does; rejects naming `what` after `timeoutMs` (on a quiet machine: stretched by
 * TEST_TIME_SCALE, as until() is).
 *
 * @example
 * ```ts
 * const [code] = await within(once(child, 'exit'), 'the child to exit');
 * ```
 */
export function within<T>(promise: PromiseLike<T>, what: string, timeoutMs = 5_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = realSetTimeout(() => reject(new Error(`timed out waiting for ${what}`)), scaled(timeoutMs));
    promise.then(
      (value) => {
        realClearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        realClearTimeout(timer);
        reject(error);
      },
    );
  });
}

/**
 * What a test's callbacks tell each time something happens (a listener heard, a request arrived, a stream closed):
 * a wait looks at its condition when it starts and again at each telling, never on a timer.
 *
 * @example
 * ```ts
 * const heard = new Signal();
 * const listener = jest.fn(heard.notify);
 * bus.subscribe(listener);
 * await heard.when(() => listener.mock.calls.length === 2, 'both events');
 * ```
 */
export class Signal {
  readonly #waiters = new Set<() => void>();

  /** Tells every wait to look at its condition again; any arguments are ignored, so it can be a listener itself. */
  readonly notify = (..._ignored: unknown[]): void => {
    for (const wake of [...this.#waiters]) wake();
  };

  /** Resolves once `condition` holds; rejects naming `what` when it still does not after `timeoutMs` (scaled). */
  when(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
    if (condition()) return Promise.resolve();
    let wake: () => void = () => undefined;
    const held = new Promise<void>((resolve, reject) => {
      wake = () => {
        try {
          if (condition()) resolve();
        } catch (error) {
          reject(error);
        }
      };
      this.#waiters.add(wake);
    });
    return within(held, what, timeoutMs).finally(() => this.#waiters.delete(wake));
  }
}
