// RESULTS.md's part for scenarios `connections` and `streams` (issue 34, goal 5): many keep-alive connections, many open streams.

import { formatBytes, formatNumber, formatRatio, markdownTable } from '../format';
import type { ConnectionLevel } from '../scenarios/connections';
import type { ServerStreamRuns, StreamKind, StreamMemoryRun } from '../scenarios/streams';
import { SERVERS, short, type ServerSpec } from './catalog';
import { find, loadTable, paired, perSecond, p99, type TargetRow } from './report-figures';

const KIND_NAMES: Readonly<Record<StreamKind, string>> = {
  get: '2025 GET stream (one per session)',
  listen: '2026-07-28 `subscriptions/listen` stream',
};

function runOf(entry: ServerStreamRuns | undefined, kind: StreamKind): StreamMemoryRun | undefined {
  return entry?.runs.find((run) => run.kind === kind);
}

/** The router against the SDK of its era, at one connection count: req/s and p99 against (a) and that SDK. */
function connectionsRow(level: ConnectionLevel, ours: ServerSpec, sdk: ServerSpec): TargetRow {
  const entry = find(level.servers, ours);
  const figure = `${short(ours)} \`tools/call\` at ${formatNumber(level.connections)} keep-alive connections: req/s, p99`;
  const target = `reported: against (a) and ${short(sdk)}`;
  if (entry === undefined) return { figure, target, measured: '', met: undefined };
  const bare = find(level.servers, SERVERS.bare);
  const other = find(level.servers, sdk);
  return {
    figure,
    target,
    measured:
      `${formatRatio(paired(entry, bare, perSecond))} (a), ${formatRatio(paired(entry, other, perSecond))} ${short(sdk)} req/s; ` +
      `p99 ${formatRatio(paired(entry, bare, p99))} (a), ${formatRatio(paired(entry, other, p99))} ${short(sdk)}`,
    met: 'reported',
  };
}

function streamRow(entries: readonly ServerStreamRuns[] | undefined, kind: StreamKind): TargetRow {
  const ours = runOf(find(entries, SERVERS.routerStreams), kind);
  const figure = `heap per open ${KIND_NAMES[kind]} (es), ${formatNumber(ours?.count ?? Number.NaN)} open`;
  const target = kind === 'get' ? 'reported: against (a) and (c) SDK v1' : 'reported: against (a)';
  if (ours === undefined) return { figure, target, measured: '', met: undefined };
  const others = [SERVERS.bare, SERVERS.sdkStateful].flatMap((spec) => {
    const run = runOf(find(entries, spec), kind);
    return run === undefined ? [] : [`${short(spec)} ${formatBytes(run.heapPerStream)}`];
  });
  return {
    figure,
    target,
    measured: `${formatBytes(ours.heapPerStream)} (${others.join(', ')}); RSS ${formatBytes(ours.rssPerStream)}`,
    met: 'reported',
  };
}

export function scaleTargetRows(
  connections: readonly ConnectionLevel[] | undefined,
  streams: readonly ServerStreamRuns[] | undefined,
): TargetRow[] {
  const rows: TargetRow[] = [];
  for (const level of connections ?? []) {
    rows.push(connectionsRow(level, SERVERS.routerStateless, SERVERS.sdkStateless));
    rows.push(connectionsRow(level, SERVERS.routerStatelessModern, SERVERS.sdkV2Modern));
  }
  if (streams !== undefined) rows.push(streamRow(streams, 'get'), streamRow(streams, 'listen'));
  return rows;
}

function streamsTable(entries: readonly ServerStreamRuns[]): string {
  const rows = entries.flatMap((entry) =>
    entry.runs.map((run) => {
      const floor = runOf(find(entries, SERVERS.bare), run.kind);
      return [
        entry.spec.label,
        KIND_NAMES[run.kind],
        formatNumber(run.count),
        formatNumber(run.openedPerSecond),
        formatBytes(run.heapPerStream),
        floor === undefined ? '–' : formatRatio(run.heapPerStream / floor.heapPerStream),
        formatBytes(run.rssPerStream),
        formatBytes(run.heapAfterClose),
      ];
    }),
  );
  return markdownTable(
    [
      'server',
      'stream',
      'open at once',
      'opened/s',
      'heap per stream',
      '×(a)',
      'RSS per stream',
      'heap after all closed − before',
    ],
    rows,
  );
}

export function scaleSections(
  connections: readonly ConnectionLevel[] | undefined,
  streams: readonly ServerStreamRuns[] | undefined,
): string[] {
  const sections: string[] = [];
  if (connections !== undefined) {
    sections.push(
      '',
      '## Connections: `tools/call add` at 100 and 1,000 keep-alive connections (issue 34)',
      '',
      "Scenario 1's request (2025) to (a), (b) and (d), scenario 1m's (2026-07-28) to (g) and (dm), each connection kept " +
        'alive for the whole round; sequential rounds of at most 5 s (2 rounds, 3 s warm-up), × the median of per-round ' +
        'ratios. One load process drives every connection: a server busy well under 100% (rounds table) waited on it.',
    );
    for (const level of connections)
      sections.push('', `### ${formatNumber(level.connections)} connections`, '', loadTable(level.servers, 'req'));
  }
  if (streams !== undefined) {
    sections.push(
      '',
      '## Streams: the memory of open SSE streams (issue 34)',
      '',
      'The load process opens the streams on raw keep-alive sockets, 100 opening at once, and holds them: a GET ' +
        'stream in a session opened for it (every MCP transport allows one per session), a listen stream as a POST of ' +
        '`subscriptions/listen` (filter `toolsListChanged`) whose acknowledgment it waits for. Heap and RSS are read in the ' +
        'server after full GCs, before (the sessions already open) and with the streams open; ÷ the number of streams. ' +
        '500 streams of each kind are opened and closed first. One round per server and kind, each server in a fresh process.',
      '',
      streamsTable(streams),
    );
  }
  return sections;
}
