// RESULTS.md's part for the 2026-07-28 scenarios (1m, 2m): their targets and tables.

import { formatRatio } from '../format';
import type { ServerRuns } from '../scenarios/load-runs';
import type { BenchResults } from './bench-results';
import { SERVERS, type ServerSpec } from './catalog';
import {
  find,
  loadTable,
  p50,
  paired,
  perSecond,
  sideBySideRatio,
  sideBySideTable,
  PRODUCTION_OVER_HAND_WRITTEN,
  versus,
  versusTarget,
  type TargetRow,
} from './report-figures';

/** A req/s target against (a): judged side by side when the run had those rounds, else on the sequential ones. */
function bareTarget(entries: readonly ServerRuns[], spec: ServerSpec, figure: string, min: number): TargetRow {
  const entry = find(entries, spec);
  const ratio = entry?.sideBySide
    ? sideBySideRatio(entry.sideBySide).ratio
    : entry
      ? paired(entry, find(entries, SERVERS.bare), perSecond)
      : Number.NaN;
  return {
    figure,
    target: `≥ ${min.toFixed(2)}× (a)`,
    measured: entry ? `${formatRatio(ratio)} (a)` : '',
    met: entry ? ratio >= min : undefined,
  };
}

/** The 2026-07-28 targets (scenario 1m); rows say "not measured" when a run left 1m or a server out. */
export function modernTargetRows(results: BenchResults): TargetRow[] {
  const entries = results.modernThroughput ?? [];
  const rows: TargetRow[] = [];
  // Issue 34, re-scoped in issue 45: the 2026 path at least as fast as the 2025 one, judged against (d) in the same
  // rounds (each against (a)); the fixed 1.25× (a) was the libraries' and Node's to give.
  rows.push(
    versusTarget(
      entries,
      SERVERS.routerStatelessModern,
      SERVERS.routerStateless,
      'modern stateless req/s (dm) against the 2025 request (d), same rounds',
      1.0,
    ),
  );
  const vsSdk = versus(entries, SERVERS.routerStatelessModern, SERVERS.sdkV2Modern);
  rows.push({
    figure: 'modern stateless `tools/call` req/s (dm)',
    target: '≥ 8× (g) SDK v2',
    measured: vsSdk
      ? `${formatRatio(vsSdk.sequential)} (g) (from the side-by-side CPU figures: ${formatRatio(vsSdk.sideBySide)})`
      : '',
    met: vsSdk ? vsSdk.sequential >= 8 : undefined,
  });
  rows.push(bareTarget(entries, SERVERS.routerProductionModern, 'modern, production defaults on, req/s (fm)', 0.85));
  rows.push(
    versusTarget(
      entries,
      SERVERS.routerProductionModern,
      SERVERS.handProduction,
      'modern, production defaults on, req/s (fm) against the hand-written production endpoint (p)',
      PRODUCTION_OVER_HAND_WRITTEN,
    ),
  );
  // As fast as on a 2025 stream: judged as scenario 2's (e) is, against the hand-written SSE reply of (a).
  const stream = find(results.modernStream, SERVERS.routerModern);
  const streamVsFloor = stream ? paired(stream, find(results.modernStream, SERVERS.bare), p50) : Number.NaN;
  rows.push({
    figure: '100 progress notifications + result on a modern request, p50 (em)',
    target: '≤ 1.50× (a) SSE floor, as (e) in 2',
    measured: stream ? `${formatRatio(streamVsFloor)} (a)` : '',
    met: stream ? streamVsFloor <= 1.5 : undefined,
  });
  return rows;
}

/** The sections of scenarios 1m and 2m, empty when the run left them out. */
export function modernSections(results: BenchResults): string[] {
  const sections: string[] = [];
  if (results.modernThroughput) {
    sections.push(
      '',
      '## 1m. `tools/call add` as MCP 2026-07-28 requests: throughput, latency, server CPU',
      '',
      'Every request carries the revision in `params._meta` and the headers `MCP-Protocol-Version: 2026-07-28`, `Mcp-Method` and `Mcp-Name`, ' +
        "and no session. (d) runs in the same rounds with scenario 1's 2025 request, to compare the router's two paths.",
      '',
      loadTable(results.modernThroughput, 'req'),
      '',
      '### 1m side by side with (a): throughput per CPU-second',
      '',
      sideBySideTable(results.modernThroughput),
    );
  }
  if (results.modernStream) {
    sections.push(
      '',
      '## 2m. 100 progress notifications, then the result, as MCP 2026-07-28 requests',
      '',
      "The POST's SSE reply carries all 101 messages; latency is the time until the client has read them, judged as scenario 2's.",
      '',
      loadTable(results.modernStream, 'stream'),
    );
  }
  return sections;
}
