// The doctor's report as text for a person (grouped by area, a mark per severity, each fix and docs link) or as JSON for CI.

import { AREAS, type Finding, type Severity } from './finding';
import type { Report } from './run';

/** The mark printed before a finding. */
export const MARKS: Readonly<Record<Severity, string>> = Object.freeze({ ok: '✓', info: '·', warn: '!', fail: '✗' });

const areaOf = (finding: Finding): string => finding.id.slice(0, finding.id.indexOf('.'));

const indent = (text: string, by: string): string =>
  text
    .split('\n')
    .map((line) => by + line)
    .join('\n');

/**
 * The report as text: one block per area in {@link AREAS} order, a line per finding, then its detail, fix and docs
 * link indented under it, and a last line with the counts and the exit code.
 *
 * @param report - what `runDoctor` returned
 * @param docsAt - how a finding's `docs` (`deployment.md#…`) is printed: a path or URL of this package's docs/
 * @example
 * ```ts
 * process.stdout.write(formatText(report, (page) => `docs/${page}`));
 * ```
 */
export function formatText(report: Report, docsAt: (page: string) => string): string {
  const lines = [`express-mcp-router doctor: ${report.url}`, ''];
  const known = new Set<string>(AREAS);
  const areas = [...AREAS, ...new Set(report.findings.map(areaOf).filter((a) => !known.has(a)))];
  for (const area of areas) {
    const findings = report.findings.filter((f) => areaOf(f) === area);
    if (findings.length === 0) continue;
    lines.push(area);
    for (const finding of findings) {
      lines.push(`  ${MARKS[finding.severity]} ${finding.summary}  [${finding.id}]`);
      if (finding.detail && finding.severity !== 'ok') lines.push(indent(finding.detail, '      '));
      if (finding.fix) lines.push(indent(`fix: ${finding.fix}`, '      '));
      if (finding.docs && (finding.severity === 'warn' || finding.severity === 'fail'))
        lines.push(`      docs: ${docsAt(finding.docs)}`);
    }
    lines.push('');
  }
  const count = (severity: Severity): number => report.findings.filter((f) => f.severity === severity).length;
  const verdict = ['ok', 'problems found', 'unreachable'][report.exitCode];
  lines.push(
    `${count('fail')} failed, ${count('warn')} warnings, ${count('ok')} ok: ${verdict} (exit ${report.exitCode})`,
  );
  return `${lines.join('\n')}\n`;
}

/** The report as `--json` prints it: `{ url, exitCode, findings: [{ id, severity, summary, detail?, fix?, docs? }] }`. */
export function formatJson(report: Report): string {
  return `${JSON.stringify({ url: report.url, exitCode: report.exitCode, findings: report.findings }, null, 2)}\n`;
}
