// Pure statistics of the harness: medians, percentiles, ratios, and the soak's trend test.

/** The median of `values` (the mean of the middle two for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * The `p`-th percentile (0–100) of `values`, nearest-rank: the smallest value with at least p% of the
 * values at or below it, as latency tools (HdrHistogram, autocannon) report it. NaN for none.
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] as number;
}

/** `value / base`, NaN when the base is zero or either is missing. */
export function ratio(value: number, base: number): number {
  return base === 0 || !Number.isFinite(base) || !Number.isFinite(value) ? Number.NaN : value / base;
}

/** One round's figure of a server and of the base server it is compared with, and whether both ran undisturbed. */
export interface RoundPair {
  readonly value: number;
  readonly base: number;
  readonly clean: boolean;
}

/**
 * The median over rounds of value ÷ base, from the rounds in which both servers ran undisturbed; from all
 * rounds when there is no such round (`allDisturbed` then says so). Rounds of two servers run close in time,
 * so pairing them cancels slow drift; a round in which either lost its CPU compares nothing.
 */
export function pairedRatio(rounds: readonly RoundPair[]): { readonly ratio: number; readonly allDisturbed: boolean } {
  const clean = rounds.filter((round) => round.clean);
  const used = clean.length > 0 ? clean : rounds;
  return {
    ratio: median(used.map((round) => ratio(round.value, round.base))),
    allDisturbed: clean.length === 0 && rounds.length > 0,
  };
}

/** A sample of a soak: minutes since the start, and a value (bytes). */
export interface TrendSample {
  readonly minute: number;
  readonly value: number;
}

/** What {@link trendOf} concludes about a series. */
export interface Trend {
  /** Least-squares slope, in value units per minute. */
  readonly slopePerMinute: number;
  /** The rise the slope amounts to over the series' span. */
  readonly rise: number;
  /** The median of the last third minus the median of the first third. */
  readonly thirdsDelta: number;
  /** True when both the fitted rise and the thirds delta exceed the tolerance. */
  readonly upward: boolean;
}

/**
 * Whether a series trends upward. Both tests must agree, so one outlier (a GC that ran late, a burst of
 * allocation at the last sample) does not make a trend, while a steady leak of more than `tolerance` over the
 * span does: the least-squares rise over the span, and the median of the last third against the first third.
 *
 * @param tolerance - growth over the whole span that still counts as flat (bytes)
 */
export function trendOf(samples: readonly TrendSample[], tolerance: number): Trend {
  const n = samples.length;
  if (n < 3) return { slopePerMinute: 0, rise: 0, thirdsDelta: 0, upward: false };
  const meanX = samples.reduce((sum, s) => sum + s.minute, 0) / n;
  const meanY = samples.reduce((sum, s) => sum + s.value, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (const { minute, value } of samples) {
    covariance += (minute - meanX) * (value - meanY);
    variance += (minute - meanX) ** 2;
  }
  const slopePerMinute = variance === 0 ? 0 : covariance / variance;
  const span = (samples[n - 1] as TrendSample).minute - (samples[0] as TrendSample).minute;
  const rise = slopePerMinute * span;
  const third = Math.max(1, Math.floor(n / 3));
  const thirdsDelta =
    median(samples.slice(n - third).map((s) => s.value)) - median(samples.slice(0, third).map((s) => s.value));
  return { slopePerMinute, rise, thirdsDelta, upward: rise > tolerance && thirdsDelta > tolerance };
}
