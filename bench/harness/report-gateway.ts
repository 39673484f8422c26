// The gateway hop of scenario `stdio` (issue 45 §3): stdio and HTTP upstreams, direct against through the router, and the hop's targets.

import { formatNumber, formatRatio, markdownTable } from '../format';
import type { HttpGatewayAtConcurrency } from '../scenarios/gateway-http';
import type { LoadRun, ServerRuns } from '../scenarios/load-runs';
import type { StdioResults } from '../scenarios/stdio';
import { median, ratio } from '../stats';
import { SERVERS } from './catalog';
import { find, type TargetRow } from './report-figures';
import { directFigures, gatewayFigures, type Figures } from './report-stdio';

/** The goals for the hop at 10 in flight. */
const MIN_THROUGHPUT = 0.5;
const MAX_P50 = 2;
const MAX_ADDED_CPU_MICROS = 150;

/** One transport at one concurrency: the direct call's figures and the gateway's. */
interface Hop {
  readonly transport: 'stdio' | 'HTTP';
  readonly concurrency: number;
  readonly direct: Figures;
  readonly gateway: Figures;
}

/** (h0), called by autocannon: no client CPU is counted (a caller's own work, as autocannon's is for (h1)). */
function httpDirectFigures(entry: ServerRuns): Figures {
  const mid = (pick: (run: LoadRun) => number): number => median(entry.runs.map(pick));
  return {
    perSecond: mid((r) => r.perSecond),
    p50Ms: mid((r) => r.p50Ms),
    p99Ms: mid((r) => r.p99Ms),
    callerCpu: 0,
    serverCpu: mid((r) => r.cpuMicrosPerRequest),
  };
}

function httpHop(level: HttpGatewayAtConcurrency): Hop | undefined {
  const direct = find(level.servers, SERVERS.httpUpstream);
  const gateway = find(level.servers, SERVERS.httpRouter);
  if (direct === undefined || gateway === undefined) return undefined;
  return {
    transport: 'HTTP',
    concurrency: level.concurrency,
    direct: httpDirectFigures(direct),
    gateway: gatewayFigures(gateway),
  };
}

/** Every hop the run measured: stdio (u0 → u1), then HTTP (h0 → h1), each at every concurrency. */
function hops(results: StdioResults): Hop[] {
  const stdio = results.levels.flatMap((level): Hop[] => {
    const router = find(level.gateways, SERVERS.stdioRouter);
    return router === undefined
      ? []
      : [
          {
            transport: 'stdio',
            concurrency: level.concurrency,
            direct: directFigures(level.direct),
            gateway: gatewayFigures(router),
          },
        ];
  });
  return [...stdio, ...(results.http ?? []).flatMap((level) => httpHop(level) ?? [])];
}

/**
 * The CPU the hop adds per call: everything between the caller and the tool through the gateway (the router process
 * and the upstream process) less the same for a direct call (the SDK stdio client and the stdio server; for HTTP the
 * upstream alone, the caller's own HTTP work being the caller's either way).
 */
function addedCpu(hop: Hop): number {
  return hop.gateway.callerCpu + hop.gateway.serverCpu - (hop.direct.callerCpu + hop.direct.serverCpu);
}

const DIRECT_NAME = { stdio: '(u0)', HTTP: '(h0)' } as const;
const GATEWAY_NAME = { stdio: '(u1)', HTTP: '(h1)' } as const;

/** The hop's three goals, at the highest concurrency measured (10 by default). */
export function gatewayHopTargetRows(results: StdioResults | undefined): TargetRow[] {
  if (results === undefined) return [];
  const measured = hops(results);
  const top = Math.max(...measured.map((hop) => hop.concurrency));
  return measured
    .filter((hop) => hop.concurrency === top && top > 1)
    .flatMap((hop) => {
      const prefix = `gateway hop, ${hop.transport}, ${hop.concurrency} in flight: ${GATEWAY_NAME[hop.transport]}`;
      const direct = DIRECT_NAME[hop.transport];
      const throughput = ratio(hop.gateway.perSecond, hop.direct.perSecond);
      const p50 = ratio(hop.gateway.p50Ms, hop.direct.p50Ms);
      const added = addedCpu(hop);
      return [
        {
          figure: `${prefix} calls/s`,
          target: `≥ ${MIN_THROUGHPUT.toFixed(2)}× ${direct}`,
          measured: `${formatRatio(throughput)} (${formatNumber(hop.gateway.perSecond)} against ${formatNumber(hop.direct.perSecond)}/s)`,
          met: throughput >= MIN_THROUGHPUT,
        },
        {
          figure: `${prefix} p50`,
          target: `≤ ${MAX_P50.toFixed(2)}× ${direct}`,
          measured: `${formatRatio(p50)} (${formatNumber(hop.gateway.p50Ms, 3)} against ${formatNumber(hop.direct.p50Ms, 3)} ms)`,
          met: p50 <= MAX_P50,
        },
        {
          figure: `${prefix} CPU added per call`,
          target: `≤ ${MAX_ADDED_CPU_MICROS} µs over ${direct}`,
          measured: `${formatNumber(added)} µs (${formatNumber(hop.gateway.callerCpu + hop.gateway.serverCpu)} against ${formatNumber(hop.direct.callerCpu + hop.direct.serverCpu)})`,
          met: added <= MAX_ADDED_CPU_MICROS,
        },
      ];
    });
}

/** The gateway-hop table: each transport and concurrency, direct against through the router. */
export function gatewayHopSections(results: StdioResults | undefined): string[] {
  if (results === undefined) return [];
  const rows = hops(results).map((hop) => [
    `${hop.transport}, ${hop.concurrency} in flight`,
    `${formatNumber(hop.direct.perSecond)} → ${formatNumber(hop.gateway.perSecond)}`,
    formatRatio(ratio(hop.gateway.perSecond, hop.direct.perSecond)),
    `${formatNumber(hop.direct.p50Ms, 3)} → ${formatNumber(hop.gateway.p50Ms, 3)}`,
    formatRatio(ratio(hop.gateway.p50Ms, hop.direct.p50Ms)),
    `${formatNumber(hop.direct.p99Ms, 2)} → ${formatNumber(hop.gateway.p99Ms, 2)}`,
    `${formatNumber(hop.direct.callerCpu)} + ${formatNumber(hop.direct.serverCpu)}`,
    `${formatNumber(hop.gateway.callerCpu)} + ${formatNumber(hop.gateway.serverCpu)}`,
    formatNumber(addedCpu(hop)),
  ]);
  return [
    '',
    '## The gateway hop: stdio and HTTP upstreams, direct and through the router (issue 45)',
    '',
    "stdio: (u0) the SDK's stdio client → (u1) this router in front of the same stdio server. HTTP: (h0) autocannon " +
      "calling the (d) router directly → (h1) this router, (u1)'s options, with `mcp.upstream({ url })` of an (h0) " +
      "process it starts (keep-alive, the upstream answering MCP 2026-07-28). The gateway and its upstream share the servers' CPU. " +
      "CPU per call: the caller's side (the SDK stdio client for (u0), none for (h0): autocannon's work is the caller's either way; the router " +
      'process for (u1) and (h1)) + the upstream process; added = through the router less direct. Medians of the rounds.',
    '',
    markdownTable(
      [
        'upstream, in flight',
        'calls/s direct → router',
        '×',
        'p50 ms',
        '×',
        'p99 ms',
        'CPU µs/call direct (client + server)',
        'through the router (router + server)',
        'added µs/call',
      ],
      rows,
    ),
  ];
}
