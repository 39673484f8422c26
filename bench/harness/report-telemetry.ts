// RESULTS.md's part for scenario 4 (issue 21): the cost of OpenTelemetry off and on, its targets and tables.

import { formatNumber, formatRatio, markdownTable } from '../format';
import type { ServerRuns, SideBySideRun } from '../scenarios/load-runs';
import { answered, type TelemetryResults } from '../scenarios/telemetry';
import type { TelemetryStats } from '../servers/telemetry-setup';
import { median } from '../stats';
import { SERVERS } from './catalog';
import { find, loadTable, paired, perSecond, sideBySideRatio, sideBySideTable, type TargetRow } from './report-figures';

/**
 * Off must be noise: at least this share of (t0)'s throughput per CPU, or no lower than the lowest round of the
 * controls ((t0′), (t1′): servers whose code per message is (t0)'s), which is how far differences between processes
 * alone moved a ratio in this run.
 */
const OFF_FLOOR = 0.97;

/** The direct check of the same claim: `live()`, the only per-message work when off, under this share of a request's CPU. */
const LIVE_CHECK_SHARE = 0.01;

/** A side-by-side round's throughput per CPU-second against (t0)'s. */
function roundRatio(round: SideBySideRun): number {
  return round.base.cpuMicrosPerRequest / round.own.cpuMicrosPerRequest;
}

/** The CPU a server spends per request beyond (t0)'s, at the same moments: median over side-by-side rounds. */
function extraMicros(entry: ServerRuns): number {
  return median(
    (entry.sideBySide ?? []).map((round) => round.own.cpuMicrosPerRequest - round.base.cpuMicrosPerRequest),
  );
}

function sideBySideAgainstAbsent(
  entries: readonly ServerRuns[] | undefined,
  spec: (typeof SERVERS)[keyof typeof SERVERS],
): number | undefined {
  const sideBySide = find(entries, spec)?.sideBySide;
  return sideBySide === undefined ? undefined : sideBySideRatio(sideBySide).ratio;
}

/** The two figures of issue 21: tracing off must be noise (judged), tracing on is reported. */
export function telemetryTargetRows(results: TelemetryResults | undefined): TargetRow[] {
  const entries = results?.servers;
  const idle = sideBySideAgainstAbsent(entries, SERVERS.telemetryIdle);
  const controlRounds = [SERVERS.telemetryAbsentAgain, SERVERS.telemetryDisabled].flatMap((spec) =>
    (find(entries, spec)?.sideBySide ?? []).map(roundRatio),
  );
  const controlLowest = controlRounds.length ? Math.min(...controlRounds) : Number.NaN;
  const sdk = find(entries, SERVERS.telemetrySdk);
  const on = sideBySideAgainstAbsent(entries, SERVERS.telemetrySdk);
  const absent = find(entries, SERVERS.telemetryAbsent);
  const requestNs = absent ? 1000 * median(absent.runs.map((run) => run.cpuMicrosPerRequest)) : Number.NaN;
  const liveShare = results ? results.liveCheckNs / requestNs : Number.NaN;
  const endToEnd = idle !== undefined && (idle >= OFF_FLOOR || idle >= controlLowest);
  return [
    {
      figure:
        'tracing off, no provider registered (t1): end to end, req/s per CPU; and its per-message check, timed directly',
      target: `≥ ${OFF_FLOOR.toFixed(2)}× (t0) or ≥ the controls' lowest round; check < ${formatNumber(100 * LIVE_CHECK_SHARE)}% of a request's CPU`,
      measured:
        idle === undefined || results === undefined
          ? ''
          : `${formatRatio(idle)} (t0) (controls' rounds ${formatRatio(controlLowest)} … ${formatRatio(Math.max(...controlRounds))}); ${formatNumber(results.liveCheckNs, 1)} ns = ${formatNumber(100 * liveShare, 3)}%`,
      met: idle === undefined ? undefined : endToEnd && liveShare < LIVE_CHECK_SHARE,
    },
    {
      figure: 'tracing on, OpenTelemetry SDK, every span sampled: req/s per CPU (t2)',
      target: 'report it',
      measured:
        on === undefined || sdk === undefined
          ? ''
          : `${formatRatio(on)} (t0), ${formatNumber(extraMicros(sdk))} µs more CPU per request`,
      met: on === undefined ? undefined : 'reported',
    },
  ];
}

/** Per server: its extra CPU per request, the spread of its side-by-side rounds, and what its setup recorded. */
function costTable(entries: readonly ServerRuns[]): string {
  const rows = entries.slice(1).map((entry) => {
    const stats = entry.stats as TelemetryStats | undefined;
    const ratios = (entry.sideBySide ?? []).map(roundRatio);
    return [
      entry.spec.label,
      `${formatNumber(extraMicros(entry), 1)}`,
      ratios.length ? `${formatRatio(Math.min(...ratios))} … ${formatRatio(Math.max(...ratios))}` : '–',
      stats?.apiLoaded ? 'yes' : 'no',
      formatNumber(answered(entry)),
      formatNumber(stats?.addSpans ?? Number.NaN),
      formatNumber(stats?.operations ?? Number.NaN),
    ];
  });
  return markdownTable(
    [
      'server',
      'CPU µs/req more than (t0), same moments',
      'per-round req/s per CPU ×(t0)',
      'API loaded',
      'requests measured',
      "'tools/call add' spans exported",
      'operation histogram count',
    ],
    rows,
  );
}

/** The section of scenario 4, empty when the run left it out. */
export function telemetrySections(results: TelemetryResults | undefined): string[] {
  if (results === undefined) return [];
  const entries = results.servers;
  const absent = find(entries, SERVERS.telemetryAbsent);
  const idle = find(entries, SERVERS.telemetryIdle);
  const sequentialIdle = absent && idle ? paired(idle, absent, perSecond) : Number.NaN;
  return [
    '',
    '## 4. OpenTelemetry: `tools/call add` with the API absent, installed but idle, and the SDK on',
    '',
    "The (d) router's configuration (stateless JSON) in five processes: its fastest path, where a fixed cost per request weighs most; " +
      `${formatNumber(absent?.runs.length ?? 0)} rounds, since the servers differ by little. ` +
      "(t0′) and (t1′) are controls: their code per message is (t0)'s, so their ratios show what differences between processes alone make. Every other server runs side by side with (t0), " +
      'as scenario 1 with (a); the judged figures are those side-by-side ratios ' +
      `(sequential, (t1) measured ${formatRatio(sequentialIdle)} (t0)). After the runs each server reports what its setup recorded, ` +
      'and the benchmark fails if (t0) loaded the API, if (t1) exported anything, or if (t2) exported fewer `tools/call add` spans or histogram points than it answered requests. ' +
      `With tracing off the router's only work per message is \`OpenTelemetryObserver.live()\` (is a provider registered?), timed in the harness over 10⁶ calls: ${formatNumber(results.liveCheckNs, 1)} ns.`,
    '',
    loadTable(entries, 'req', SERVERS.telemetryAbsent),
    '',
    '### 4 side by side with (t0): throughput per CPU-second',
    '',
    sideBySideTable(entries, SERVERS.telemetryAbsent),
    '',
    '### 4 cost per request and what each setup recorded',
    '',
    costTable(entries),
  ];
}
