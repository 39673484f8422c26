// The harness's pure statistics: medians, nearest-rank percentiles, ratios, and the soak's trend test.

import { median, pairedRatio, percentile, ratio, trendOf, type TrendSample } from '../../bench/stats';

describe('median', () => {
  it.each<[number[], number]>([
    [[3, 1, 2], 2],
    [[4, 1, 3, 2], 2.5],
    [[7], 7],
  ])('of %p is %p', (values, expected) => {
    expect(median(values)).toBe(expected);
  });

  it('is NaN for no values, and leaves its input unsorted', () => {
    const values = [3, 1, 2];
    expect(median([])).toBeNaN();
    median(values);
    expect(values).toEqual([3, 1, 2]);
  });
});

describe('percentile (nearest rank)', () => {
  const hundred = Array.from({ length: 100 }, (_, i) => 100 - i); // 100 … 1, unsorted on purpose

  it.each<[number, number]>([
    [50, 50],
    [99, 99],
    [100, 100],
    [0, 1],
  ])('p%p of 1…100 is %p', (p, expected) => {
    expect(percentile(hundred, p)).toBe(expected);
  });

  it('is the largest value for p99 of a short list, and NaN for none', () => {
    expect(percentile([5, 1, 9], 99)).toBe(9);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('ratio', () => {
  it('divides, and is NaN for a zero or missing base', () => {
    expect(ratio(3, 4)).toBe(0.75);
    expect(ratio(1, 0)).toBeNaN();
    expect(ratio(1, Number.NaN)).toBeNaN();
    expect(ratio(Number.NaN, 2)).toBeNaN();
  });
});

describe('trendOf', () => {
  const MB = 1024 * 1024;
  const series = (values: number[]): TrendSample[] => values.map((value, i) => ({ minute: i * 0.5, value }));

  it('finds no trend in a flat series with noise', () => {
    const trend = trendOf(series([50, 51, 49, 50, 52, 48, 50, 51, 49, 50].map((v) => v * MB)), MB);
    expect(trend.upward).toBe(false);
  });

  it('finds a steady leak of 2 MB a minute', () => {
    const trend = trendOf(series(Array.from({ length: 20 }, (_, i) => 50 * MB + i * MB)), MB);
    expect(trend.upward).toBe(true);
    expect(trend.slopePerMinute).toBeCloseTo(2 * MB);
    expect(trend.rise).toBeCloseTo(19 * MB);
  });

  it('is not fooled by one high sample at the end', () => {
    const values = Array.from({ length: 20 }, () => 50 * MB);
    values[19] = 80 * MB;
    const trend = trendOf(series(values), MB);
    expect(trend.rise).toBeGreaterThan(MB); // the fit alone would call it a trend…
    expect(trend.upward).toBe(false); // …but the thirds agree it is flat
  });

  it('counts a rise within the tolerance as flat, and a falling series as no trend', () => {
    expect(trendOf(series([50, 50.2, 50.4, 50.6].map((v) => v * MB)), MB).upward).toBe(false);
    expect(trendOf(series([60, 58, 56, 54, 52, 50].map((v) => v * MB)), MB).upward).toBe(false);
  });

  it('needs three samples', () => {
    expect(trendOf(series([1, 100 * MB]), MB)).toEqual({ slopePerMinute: 0, rise: 0, thirdsDelta: 0, upward: false });
  });
});

describe('pairedRatio', () => {
  it('is the median of the per-round ratios of the undisturbed rounds', () => {
    const result = pairedRatio([
      { value: 90, base: 100, clean: true },
      { value: 30, base: 100, clean: false }, // this server lost its CPU in round 2
      { value: 110, base: 100, clean: true },
      { value: 95, base: 100, clean: true },
    ]);
    expect(result).toEqual({ ratio: 0.95, allDisturbed: false });
  });

  it('falls back to every round, and says so, when no round was undisturbed', () => {
    expect(pairedRatio([{ value: 1, base: 2, clean: false }])).toEqual({ ratio: 0.5, allDisturbed: true });
    expect(pairedRatio([]).ratio).toBeNaN();
  });
});
