// What the doctor reports: one finding per thing it checked, with how bad it is and how to fix it.

/** How a finding counts: `fail` makes the exit code 1, `warn` is printed but does not fail, `ok` and `info` say what was seen. */
export type Severity = 'ok' | 'info' | 'warn' | 'fail';

/** One thing the doctor checked, and what it found. */
export interface Finding {
  /** A stable id, `<area>.<what>` (`auth.prm-resource`, `stream.buffered`): what `--json` consumers match on. */
  readonly id: string;
  readonly severity: Severity;
  /** One line: what was found. */
  readonly summary: string;
  /** What was seen, when the summary alone is not enough (a status, a header, the URL asked). */
  readonly detail?: string;
  /** How to fix it, for `warn` and `fail`. */
  readonly fix?: string;
  /** A page of this package's docs that explains it: a path under docs/ with its anchor (`deployment.md#behind-a-proxy`). */
  readonly docs?: string;
}

/** The areas a report is grouped in, in the order they print. */
export const AREAS = ['reach', 'tls', 'era2025', 'era2026', 'auth', 'stream', 'cors', 'tools', 'card'] as const;

/** An area of {@link AREAS}: the prefix of a finding's id. */
export type Area = (typeof AREAS)[number];
