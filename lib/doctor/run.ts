// Runs the doctor's areas in order within one deadline, and turns their findings into a report with an exit code.

import { checkAuth } from './auth';
import { checkCard } from './card';
import type { Check, DoctorContext, DoctorTarget } from './context';
import { checkCors } from './cors';
import { checkEra2025 } from './era2025';
import { checkEra2026 } from './era2026';
import type { Finding } from './finding';
import { withoutUserinfo, type HttpSettings } from './http';
import { checkReach, STOPPED, UNREACHABLE } from './reach';
import { checkStream, DEFAULT_HEAD_WAIT_MS, DEFAULT_STREAM_WATCH_MS, type StreamSettings } from './stream';
import { checkTools } from './tools';

/** How one run goes: its HTTP bounds, the stream area's durations, and the most the whole run may take. */
export interface DoctorSettings {
  readonly http: HttpSettings;
  readonly stream: StreamSettings;
  /** The most the whole run may take, in ms; areas not done by then are reported as not checked. */
  readonly deadlineMs: number;
}

/** `--timeout`'s default: the most one request may take. */
export const DEFAULT_TIMEOUT_MS = 10_000;

/** The most of one body the doctor reads: a tools list of several hundred KB fits, a runaway body does not. */
export const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;

/** The whole run's deadline: the stream watch plus time for every other area. */
export const DEFAULT_DEADLINE_MS = DEFAULT_STREAM_WATCH_MS + 60_000;

/** The longest delay Node's timers keep (2^31 − 1 ms, about 24.8 days): a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Said when the URL carried a user or password: dropped, since MCP clients send a token, never URL credentials. */
const USERINFO_DROPPED: Finding = Object.freeze({
  id: 'reach.userinfo',
  severity: 'info',
  summary: 'the URL’s user and password were dropped: they are neither sent nor printed',
  detail: 'MCP clients authenticate with a bearer token (--token), not with credentials in the URL.',
});

/** The settings of a run from the command line's defaults. */
export const DEFAULT_SETTINGS: DoctorSettings = Object.freeze({
  http: Object.freeze({ timeoutMs: DEFAULT_TIMEOUT_MS, maxBytes: DEFAULT_MAX_BYTES }),
  stream: Object.freeze({ watchMs: DEFAULT_STREAM_WATCH_MS, headWaitMs: DEFAULT_HEAD_WAIT_MS }),
  deadlineMs: DEFAULT_DEADLINE_MS,
});

/** What the doctor found, and the exit code that says it: 0 ok, 1 problems (a `fail`), 2 unreachable. */
export interface Report {
  readonly url: string;
  readonly exitCode: 0 | 1 | 2;
  readonly findings: readonly Finding[];
}

/** The areas in the order they run, each with the check that makes its findings (reach makes the tls area's too). */
function checksOf(settings: DoctorSettings): [string, Check][] {
  return [
    ['reach', checkReach],
    ['era2025', checkEra2025],
    ['era2026', checkEra2026],
    ['auth', checkAuth],
    ['stream', checkStream(settings.stream)],
    ['cors', checkCors],
    ['tools', checkTools],
    ['card', checkCard],
  ];
}

/**
 * An area the deadline stopped. Reach unfinished means nothing at all was checked: a `fail`, so such a run never
 * exits 0.
 */
function deadlineFinding(area: string, summary: string): Finding {
  return area === 'reach'
    ? {
        id: `${area}.deadline`,
        severity: 'fail',
        summary: `${summary}: nothing was checked`,
        fix: 'Check that the endpoint answers, or raise --timeout and --stream-seconds.',
        docs: 'doctor.md#options',
      }
    : { id: `${area}.deadline`, severity: 'warn', summary, docs: 'doctor.md#options' };
}

/** Runs one check; a throw (a timeout mid-area, a bug) becomes a finding of its area, as does the deadline. */
async function runOne(area: string, check: Check, ctx: DoctorContext): Promise<Finding[]> {
  const signal = ctx.http.signal as AbortSignal;
  let onDeadline = (): void => undefined;
  const deadline = new Promise<Finding[]>((resolve) => {
    onDeadline = () => resolve([deadlineFinding(area, 'not finished by the run’s deadline')]);
    signal.addEventListener('abort', onDeadline, { once: true });
  });
  try {
    return await Promise.race([
      check(ctx).catch((error: unknown): Finding[] => [
        {
          id: `${area}.error`,
          severity: 'fail',
          summary: `the check stopped: ${(error as Error).message}`,
          docs: 'doctor.md#reach',
        },
      ]),
      deadline,
    ]);
  } finally {
    signal.removeEventListener('abort', onDeadline);
  }
}

/** The exit code of a list of findings: 2 when the endpoint gave no HTTP answer, 1 for any `fail`, else 0. */
export function exitCodeOf(findings: readonly Finding[]): 0 | 1 | 2 {
  if (findings.some((f) => UNREACHABLE.has(f.id))) return 2;
  return findings.some((f) => f.severity === 'fail') ? 1 : 0;
}

/**
 * Checks an MCP endpoint from outside, area by area (reach and TLS, both eras, auth, streams, CORS, tools, the
 * server card); when the endpoint cannot be reached (or its TLS fails), the later areas are skipped.
 *
 * @param target - the endpoint and what the command line allowed (token, origin, tools to call)
 * @param settings - bounds in time and bytes; {@link DEFAULT_SETTINGS} by default
 * @throws RangeError when `settings.deadlineMs` is not within 1..{@link MAX_TIMER_MS}
 * @example
 * ```ts
 * const report = await runDoctor({ url: new URL('https://mcp.example.com/mcp'), calls: [] });
 * process.exitCode = report.exitCode;
 * ```
 */
export async function runDoctor(target: DoctorTarget, settings: DoctorSettings = DEFAULT_SETTINGS): Promise<Report> {
  if (!(settings.deadlineMs > 0 && settings.deadlineMs <= MAX_TIMER_MS))
    throw new RangeError(`the deadline must be within 1..${MAX_TIMER_MS} ms, not ${settings.deadlineMs}`);
  // One signal for the run: at the deadline every request in flight ends, so the run ends then too.
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), settings.deadlineMs);
  const url = withoutUserinfo(target.url);
  const ctx: DoctorContext = { target: { ...target, url }, http: { ...settings.http, signal: deadline.signal } };
  const findings: Finding[] = url === target.url ? [] : [USERINFO_DROPPED];
  try {
    for (const [area, check] of checksOf(settings)) {
      if (deadline.signal.aborted) {
        findings.push(deadlineFinding(area, 'not checked: the run’s deadline passed'));
        continue;
      }
      findings.push(...(await runOne(area, check, ctx)));
      if (area === 'reach' && findings.some((f) => UNREACHABLE.has(f.id) || STOPPED.has(f.id))) {
        findings.push({ id: 'reach.stopped', severity: 'info', summary: 'the other areas were not checked' });
        break;
      }
    }
  } finally {
    clearTimeout(timer);
    deadline.abort();
  }
  return { url: url.href, exitCode: exitCodeOf(findings), findings };
}
