// The part of scenario `stdio` (issue 31 §3) in RESULTS.md or STDIO.md: gateways to one stdio server against the SDK's own stdio client.

import { formatNumber, formatRatio, markdownTable } from '../format';
import type { StdioDirectRound } from '../load/stdio-direct';
import type { LoadRun, ServerRuns } from '../scenarios/load-runs';
import { DIRECT_LABEL, type StdioAtConcurrency, type StdioResults } from '../scenarios/stdio';
import { median, ratio } from '../stats';
import { SERVERS, short } from './catalog';
import { find, sideBySideRatio, sideBySideTable, type TargetRow } from './report-figures';

/** One row's medians over its rounds: the direct client's or a gateway's. */
export interface Figures {
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** The caller's side of stdio: the gateway process, or the SDK client in the load child. */
  readonly callerCpu: number;
  /** The stdio server process. */
  readonly serverCpu: number;
}

export function directFigures(rounds: readonly StdioDirectRound[]): Figures {
  const mid = (pick: (round: StdioDirectRound) => number): number => median(rounds.map(pick));
  return {
    perSecond: mid((r) => r.perSecond),
    p50Ms: mid((r) => r.p50Ms),
    p99Ms: mid((r) => r.p99Ms),
    callerCpu: mid((r) => r.clientCpuMicrosPerRequest),
    serverCpu: mid((r) => r.serverCpuMicrosPerRequest),
  };
}

export function gatewayFigures(entry: ServerRuns): Figures {
  const mid = (pick: (run: LoadRun) => number): number => median(entry.runs.map(pick));
  return {
    perSecond: mid((r) => r.perSecond),
    p50Ms: mid((r) => r.p50Ms),
    p99Ms: mid((r) => r.p99Ms),
    callerCpu: mid((r) => r.cpuMicrosPerRequest - r.descendantsCpuMicrosPerRequest),
    serverCpu: mid((r) => r.descendantsCpuMicrosPerRequest),
  };
}

/** One concurrency's table: the floor (u0), then each gateway with its medians' ratios to the floor's. */
function levelTable(level: StdioAtConcurrency): string {
  const floor = directFigures(level.direct);
  const row = (label: string, figures: Figures): string[] => [
    label,
    formatNumber(figures.perSecond),
    formatRatio(ratio(figures.perSecond, floor.perSecond)),
    formatNumber(figures.p50Ms, 3),
    formatRatio(ratio(figures.p50Ms, floor.p50Ms)),
    formatNumber(figures.p99Ms, 2),
    formatNumber(figures.callerCpu),
    formatNumber(figures.serverCpu),
    formatRatio(ratio(figures.callerCpu + figures.serverCpu, floor.callerCpu + floor.serverCpu)),
  ];
  return markdownTable(
    [
      'caller',
      'calls/s',
      '×(u0)',
      'p50 ms',
      '×(u0)',
      'p99 ms',
      'CPU µs/call: gateway or SDK client',
      'CPU µs/call: stdio server',
      'CPU together ×(u0)',
    ],
    [row(DIRECT_LABEL, floor), ...level.gateways.map((entry) => row(entry.spec.label, gatewayFigures(entry)))],
  );
}

/** The issue asks for these figures to be reported, not met: req/s and p50 of the router's path against the floor and supergateway. */
export function stdioTargetRows(results: StdioResults | undefined): TargetRow[] {
  if (results === undefined) return [];
  return results.levels.flatMap((level) => {
    const router = find(level.gateways, SERVERS.stdioRouter);
    const anchor = find(level.gateways, SERVERS.stdioSupergateway);
    if (router === undefined) return [];
    const ours = gatewayFigures(router);
    const floor = directFigures(level.direct);
    const theirs = anchor && gatewayFigures(anchor);
    const sideBySide = anchor?.sideBySide && sideBySideRatio(anchor.sideBySide);
    return [
      {
        figure: `stdio upstream, ${level.concurrency} in flight: (u1) calls/s and p50`,
        target: 'reported: against (u0) direct and (u2) supergateway',
        measured:
          `${formatNumber(ours.perSecond)}/s (${formatRatio(ratio(ours.perSecond, floor.perSecond))} (u0), ${theirs ? formatRatio(ratio(ours.perSecond, theirs.perSecond)) : '–'} (u2)); ` +
          `p50 ${formatNumber(ours.p50Ms, 3)} ms (${formatRatio(ratio(ours.p50Ms, floor.p50Ms))} (u0), ${theirs ? formatRatio(ratio(ours.p50Ms, theirs.p50Ms)) : '–'} (u2))` +
          // The side-by-side ratio is (u2)'s throughput per CPU-second against (u1)'s: (u1)'s CPU per call ÷ (u2)'s.
          (sideBySide ? `; (u1) CPU per call side by side ${formatRatio(sideBySide.ratio)} (u2)'s` : ''),
        met: 'reported' as const,
      },
    ];
  });
}

/** The section of scenario `stdio`, empty when the run left it out. */
export function stdioSections(results: StdioResults | undefined): string[] {
  if (results === undefined) return [];
  const sections = [
    '',
    '## stdio upstreams: one stdio MCP server, called directly and through gateways (issue 31)',
    '',
    "`tools/call add` to `bench/servers/stdio-add.ts` (the SDK v1's `McpServer` on `StdioServerTransport`). " +
      "(u0), the floor, is the SDK v1's `Client` on `StdioClientTransport` in the load process, its calls in flight on one client; " +
      'the gateways are called over HTTP by autocannon from the load process, in one session where they keep one. ' +
      "Every stdio server process runs on the servers' CPU, every caller (the SDK client, autocannon) on the load CPU, every gateway on the servers' CPU. " +
      "A gateway's CPU figures are its process's and its stdio server's (read from /proc; for (u3) the children it started and reaped). " +
      '×(u0) is a ratio of medians (u0 runs before the gateways, not in their rounds). ' +
      'Rounds are not run again for a low busy share: a gateway and its stdio server pass every message through pipes on one CPU and wait on each other (71–78% busy at 10 in flight in trial runs), and at one call in flight a gateway waits on the client.',
  ];
  for (const level of results.levels) {
    sections.push(
      '',
      `### ${level.concurrency === 1 ? 'One call in flight (sequential)' : `${level.concurrency} calls in flight`}`,
      '',
      levelTable(level),
    );
    if (level.gateways.some((entry) => entry.sideBySide !== undefined)) {
      sections.push(
        '',
        `Side by side with ${short(SERVERS.stdioRouter)} (both on the servers' CPU at the same moments, each with its own ${level.concurrency} connections), CPU of each gateway with its stdio server:`,
        '',
        sideBySideTable(level.gateways as ServerRuns[], SERVERS.stdioRouter),
      );
    }
  }
  return sections;
}
