// The harness's pure formatting of results: numbers, ratios, byte sizes, Markdown tables.

import { formatBytes, formatNumber, formatRatio, markdownTable } from '../../bench/format';

describe('formatNumber', () => {
  it.each<[number, number, string]>([
    [1234567, 0, '1,234,567'],
    [999, 0, '999'],
    [1234.5678, 2, '1,234.57'],
    [-4200, 0, '−4,200'],
    [0.5, 2, '0.50'],
  ])('formats %p with %p decimals as %p', (value, digits, expected) => {
    expect(formatNumber(value, digits)).toBe(expected);
  });

  it('writes a dash for NaN and infinities', () => {
    expect(formatNumber(Number.NaN)).toBe('–');
    expect(formatNumber(Number.POSITIVE_INFINITY)).toBe('–');
  });
});

describe('formatRatio', () => {
  it.each<[number, string]>([
    [1, '1.00×'],
    [0.934, '0.93×'],
    [4.567, '4.57×'],
    [0.0123, '0.012×'],
    [Number.NaN, '–'],
  ])('formats %p as %p', (value, expected) => {
    expect(formatRatio(value)).toBe(expected);
  });
});

describe('formatBytes', () => {
  it.each<[number, string]>([
    [512, '512 B'],
    [1536, '1.5 KB'],
    [40 * 1024, '40.0 KB'],
    [3.25 * 1024 * 1024, '3.3 MB'],
    [-2048, '−2.0 KB'],
  ])('formats %p as %p', (bytes, expected) => {
    expect(formatBytes(bytes)).toBe(expected);
  });
});

describe('markdownTable', () => {
  it('writes a header, a rule (first column left, others right) and rows, escaping |', () => {
    expect(markdownTable(['server', 'req/s'], [['a|b', '1,000']])).toBe(
      ['| server | req/s |', '| --- | ---: |', '| a\\|b | 1,000 |'].join('\n'),
    );
  });
});
