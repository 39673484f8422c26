// Pure formatting of the results: numbers, ratios, byte sizes and Markdown tables.

/** A number with `digits` decimals and thin thousands separators; '–' when it is not finite. */
export function formatNumber(value: number, digits = 0): string {
  if (!Number.isFinite(value)) return '–';
  const [whole = '', fraction] = Math.abs(value).toFixed(digits).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${value < 0 ? '−' : ''}${grouped}${fraction === undefined ? '' : `.${fraction}`}`;
}

/** A ratio as `0.93×` (two decimals; three significant digits below 0.1). */
export function formatRatio(value: number): string {
  if (!Number.isFinite(value)) return '–';
  return `${Math.abs(value) < 0.1 ? value.toPrecision(2) : value.toFixed(2)}×`;
}

/** Bytes as B, KB or MB (1 KB = 1024 B), signed when negative. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return '–';
  const size = Math.abs(bytes);
  if (size < 1024) return `${formatNumber(bytes)} B`;
  if (size < 1024 * 1024) return `${formatNumber(bytes / 1024, 1)} KB`;
  return `${formatNumber(bytes / (1024 * 1024), 1)} MB`;
}

/** A Markdown table; `|` inside cells is escaped. The first column is left-aligned, the others right-aligned. */
export function markdownTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const cell = (text: string): string => text.replaceAll('|', '\\|');
  const line = (cells: readonly string[]): string => `| ${cells.map(cell).join(' | ')} |`;
  const rule = `|${header.map((_, index) => (index === 0 ? ' --- ' : ' ---: ')).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}
