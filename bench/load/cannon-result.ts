// The figures of one batch of calls (count, rate, latency): what a cannon task answers, and every run built on one.

/** The outcome of a cannon task. Latencies are exact (autocannon's own histogram keeps whole milliseconds). */
export interface CannonResult {
  /** Responses with a 2xx status. */
  readonly ok: number;
  /** Responses with another status, and connection errors and timeouts. */
  readonly failed: number;
  readonly seconds: number;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}
