// The gateway's one retry policy: exponential backoff, optionally jittered, back to the first delay after a healthy spell.

/** How a {@link Backoff} waits: from `initialMs`, doubling per failure, to `maxMs`; `jitter` spreads each wait. */
export interface BackoffPolicy {
  readonly initialMs: number;
  readonly maxMs: number;
  /**
   * Each wait taken between half the delay and all of it, so that peers that failed together (processes that
   * crashed together, streams an upstream restart dropped) do not retry together. Defaults to `false`.
   */
  readonly jitter?: boolean;
}

/**
 * The waits between retries of one thing that keeps failing: the lists of a failing upstream (1 s to 60 s), a
 * stdio process that exited (1 s to 60 s, jittered), an upstream's notification stream (250 ms to 30 s, jittered).
 * `next()` gives the wait now and doubles the next one up to the ceiling; `reset()` (after a success, or after a run
 * that stayed up `maxMs`) starts again from the first.
 *
 * @example
 * ```ts
 * const backoff = new Backoff({ initialMs: 1_000, maxMs: 60_000 });
 * backoff.next(); // 1000, then 2000, 4000 … 60000
 * ```
 */
export class Backoff {
  readonly #policy: BackoffPolicy;
  #delayMs: number;

  constructor(policy: BackoffPolicy) {
    this.#policy = policy;
    this.#delayMs = policy.initialMs;
  }

  /** The wait before the next retry; the one after it is twice as long, up to `maxMs`. */
  next(): number {
    const delay = this.#delayMs;
    this.#delayMs = Math.min(delay * 2, this.#policy.maxMs);
    return this.#policy.jitter === true ? Math.round(delay / 2 + (Math.random() * delay) / 2) : delay;
  }

  /** Starts again from `initialMs`. */
  reset(): void {
    this.#delayMs = this.#policy.initialMs;
  }
}
