// The doctor's report as text for a person (grouped by area, a mark per severity, each fix and docs link) or as JSON for CI.

import { AREAS, type Finding, type Severity } from './finding';
import type { Report } from './run';

/** The mark printed before a finding. */
export const MARKS: Readonly<Record<Severity, string>> = Object.freeze({ ok: '✓', info: '·', warn: '!', fail: '✗' });

const areaOf = (finding: Finding): string => finding.id.slice(0, finding.id.indexOf('.'));

/**
 * Control characters a server could hide in a field (C0, DEL, C1: ECMA-48 escapes, OSC titles, a carriage return that
 * overwrites a line), and the Unicode line and paragraph separators.
 */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const CONTROLS_BUT_LF = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/g;

/** A character as its `\u` escape. */
const escaped = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** A server-derived text made inert for a terminal: each control character as its `\u001b` escape (line feeds kept when `newlines`). */
export function inert(text: string, newlines = false): string {
  const pattern = newlines ? CONTROLS_BUT_LF : CONTROLS;
  return text.replace(pattern, escaped);
}

/** A multi-line field under its finding: every line indented, so a line in it never reads as a line of the report. */
const indent = (text: string, by: string): string =>
  inert(text, true)
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
  const lines = [`express-mcp-router doctor: ${inert(report.url)}`, ''];
  const known = new Set<string>(AREAS);
  const areas = [...AREAS, ...new Set(report.findings.map(areaOf).filter((a) => !known.has(a)))];
  for (const area of areas) {
    const findings = report.findings.filter((f) => areaOf(f) === area);
    if (findings.length === 0) continue;
    lines.push(inert(area));
    for (const finding of findings) {
      lines.push(`  ${MARKS[finding.severity]} ${inert(finding.summary)}  [${inert(finding.id)}]`);
      if (finding.detail && finding.severity !== 'ok') lines.push(indent(finding.detail, '      '));
      if (finding.fix) lines.push(indent(`fix: ${finding.fix}`, '      '));
      if (finding.docs && (finding.severity === 'warn' || finding.severity === 'fail'))
        lines.push(`      docs: ${inert(docsAt(finding.docs))}`);
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

/**
 * The report as `--json` prints it: `{ url, exitCode, findings: [{ id, severity, summary, detail?, fix?, docs? }] }`.
 * JSON escapes C0 itself; DEL, C1 and the line separators, which it allows raw in strings, are escaped too, so the
 * output is inert on a terminal as well.
 */
export function formatJson(report: Report): string {
  const json = JSON.stringify({ url: report.url, exitCode: report.exitCode, findings: report.findings }, null, 2);
  return `${json.replace(/[\u007f-\u009f\u2028\u2029]/g, escaped)}\n`;
}
