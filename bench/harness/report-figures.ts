// The figures and tables that RESULTS.md's load sections share: paired ratios to (a), side-by-side ratios, tables.

import { formatNumber, formatRatio, markdownTable } from '../format';
import { DISTURBED_BELOW, type LoadRun, type ServerRuns, type SideBySideRun } from '../scenarios/load-runs';
import { median, pairedRatio } from '../stats';
import { SERVERS, short, type ServerSpec } from './catalog';

export type Runs<T> = { readonly spec: ServerSpec; readonly runs: readonly T[] };

/** The median of a figure over the rounds. */
export function mid<T>(entry: Runs<T>, pick: (run: T) => number): number {
  return median(entry.runs.map(pick));
}

/** False for a load round in which the server lost its CPU (busy under {@link DISTURBED_BELOW} of the time). */
export function undisturbed(run: unknown): boolean {
  return (
    typeof run !== 'object' || run === null || !('busyShare' in run) || (run as LoadRun).busyShare >= DISTURBED_BELOW
  );
}

/**
 * This server's figure against the other's, round by round ({@link pairedRatio}): rounds run close in time,
 * so pairing them cancels the drift of a shared machine better than a ratio of two medians, and a round in
 * which either server lost its CPU is left out.
 */
export function pairedWith<T>(
  entry: Runs<T>,
  base: Runs<T> | undefined,
  pick: (run: T) => number,
): { ratio: number; allDisturbed: boolean } {
  if (base === undefined) return { ratio: Number.NaN, allDisturbed: false };
  const rounds = entry.runs.map((run, round) => {
    const other = base.runs[round];
    return {
      value: pick(run),
      base: other === undefined ? Number.NaN : pick(other),
      clean: other !== undefined && undisturbed(run) && undisturbed(other),
    };
  });
  return pairedRatio(rounds);
}

export function paired<T>(entry: Runs<T>, base: Runs<T> | undefined, pick: (run: T) => number): number {
  return pairedWith(entry, base, pick).ratio;
}

/** A paired ratio for a table: marked † when every round of the pair was disturbed. */
export function ratioCell<T>(entry: Runs<T>, base: Runs<T> | undefined, pick: (run: T) => number): string {
  const { ratio: value, allDisturbed } = pairedWith(entry, base, pick);
  return `${formatRatio(value)}${allDisturbed ? ' †' : ''}`;
}

export function find<E extends Runs<unknown>>(entries: readonly E[] | undefined, spec: ServerSpec): E | undefined {
  return entries?.find((entry) => entry.spec.key === spec.key);
}

/**
 * Throughput per CPU-second against (a)'s, from the side-by-side rounds: (a)'s CPU per request ÷ this server's.
 * Both shared one CPU at the same moments, so the machine's speed cancels out. A round in which the two together
 * were busy less than {@link DISTURBED_BELOW} of the time is left out, as in the sequential rounds.
 */
export function sideBySideRatio(rounds: readonly SideBySideRun[]): { ratio: number; allDisturbed: boolean } {
  return pairedRatio(
    rounds.map(({ own, base }) => ({
      value: 1 / own.cpuMicrosPerRequest,
      base: 1 / base.cpuMicrosPerRequest,
      clean: own.busyShare + base.busyShare >= DISTURBED_BELOW,
    })),
  );
}

/** The table of the side-by-side rounds: each server's cost and the base's ((a) unless given), measured at the same moments. */
export function sideBySideTable(entries: readonly ServerRuns[], baseSpec: ServerSpec = SERVERS.bare): string {
  const name = short(baseSpec);
  const rows = entries.flatMap((entry) => {
    if (entry.sideBySide === undefined) return [];
    const { ratio: value, allDisturbed } = sideBySideRatio(entry.sideBySide);
    return [
      [
        entry.spec.label,
        formatNumber(median(entry.sideBySide.map((round) => round.own.cpuMicrosPerRequest))),
        formatNumber(median(entry.sideBySide.map((round) => round.base.cpuMicrosPerRequest))),
        `${formatRatio(value)}${allDisturbed ? ' †' : ''}`,
        ratioCell(entry, find(entries, baseSpec), perSecond),
      ],
    ];
  });
  return markdownTable(
    [
      'server',
      'CPU µs/req',
      `${name} CPU µs/req, same moments`,
      `req/s per CPU ×${name}`,
      `sequential req/s ×${name}, for comparison`,
    ],
    rows,
  );
}

export const perSecond = (run: LoadRun): number => run.perSecond;
export const p50 = (run: LoadRun): number => run.p50Ms;
export const p99 = (run: LoadRun): number => run.p99Ms;
export const cpu = (run: LoadRun): number => run.cpuMicrosPerRequest;

/** Every server's medians and paired ratios to the base ((a) unless given). */
export function loadTable(entries: readonly ServerRuns[], unit: string, baseSpec: ServerSpec = SERVERS.bare): string {
  const base = find(entries, baseSpec);
  const times = `×${short(baseSpec)}`;
  const rows = entries.map((entry) => [
    entry.spec.label,
    formatNumber(mid(entry, perSecond)),
    ratioCell(entry, base, perSecond),
    formatNumber(mid(entry, p50), 2),
    ratioCell(entry, base, p50),
    formatNumber(mid(entry, p99), 2),
    ratioCell(entry, base, p99),
    formatNumber(mid(entry, cpu)),
    ratioCell(entry, base, cpu),
  ]);
  return markdownTable([`server`, `${unit}/s`, times, 'p50 ms', times, 'p99 ms', times, `CPU µs/${unit}`, times], rows);
}

/** One line of the targets table. */
export interface TargetRow {
  readonly figure: string;
  readonly target: string;
  readonly measured: string;
  /** Undefined when the run did not measure it; `reported` for a figure the issue asks to report, not to meet. */
  readonly met: boolean | undefined | 'reported';
}

/** A side-by-side round's throughput per CPU-second against (a)'s: (a)'s CPU per request ÷ the server's. */
function againstBare(round: SideBySideRun): number {
  return round.base.cpuMicrosPerRequest / round.own.cpuMicrosPerRequest;
}

/** As in the side-by-side ratios of scenario 1: the two servers together busy at least {@link DISTURBED_BELOW}. */
function undisturbedPair(round: SideBySideRun): boolean {
  return round.own.busyShare + round.base.busyShare >= DISTURBED_BELOW;
}

/**
 * One server's throughput against another's of the same scenario, two ways. `sideBySide`: each one's throughput
 * per CPU-second against (a) in side-by-side round r, the first ÷ the second, median over rounds (two servers never
 * run side by side with each other, but each ran at the same moments as (a)); NaN without side-by-side rounds.
 * `sequential`: the paired req/s ratio of the sequential rounds.
 */
export function versus(
  entries: readonly ServerRuns[],
  ours: ServerSpec,
  other: ServerSpec,
): { sideBySide: number; sequential: number } | undefined {
  const entry = find(entries, ours);
  const base = find(entries, other);
  if (entry === undefined || base === undefined) return undefined;
  const sequential = paired(entry, base, perSecond);
  if (entry.sideBySide === undefined || base.sideBySide === undefined) return { sideBySide: Number.NaN, sequential };
  const theirs = base.sideBySide;
  const rounds = entry.sideBySide.flatMap((round, index) => {
    const other = theirs[index];
    if (other === undefined) return [];
    return [
      { value: againstBare(round), base: againstBare(other), clean: undisturbedPair(round) && undisturbedPair(other) },
    ];
  });
  return { sideBySide: pairedRatio(rounds).ratio, sequential };
}

/**
 * The production configuration's req/s per CPU-second against the hand-written production endpoint (p), (f) and
 * (fm) alike: ahead of it (issue 34 asked 1.3×; issue 45 re-scoped it to "ahead", the libraries' own cost being the rest).
 */
export const PRODUCTION_OVER_HAND_WRITTEN = 1.0;

/**
 * A target on {@link versus}: `ours` at least `min`× `other`, judged side by side when both have those rounds, else
 * on the sequential rounds; undefined (not measured) when the run left either out.
 */
export function versusTarget(
  entries: readonly ServerRuns[] | undefined,
  ours: ServerSpec,
  other: ServerSpec,
  figure: string,
  min: number,
): TargetRow {
  const name = short(other);
  const both = versus(entries ?? [], ours, other);
  const judged = both === undefined ? Number.NaN : Number.isNaN(both.sideBySide) ? both.sequential : both.sideBySide;
  return {
    figure,
    target: `≥ ${min.toFixed(2)}× ${name}`,
    measured: both ? `${formatRatio(both.sideBySide)} ${name} (sequential ${formatRatio(both.sequential)})` : '',
    met: both ? judged >= min : undefined,
  };
}
