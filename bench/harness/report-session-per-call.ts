// The part of scenario `session-per-call` in RESULTS.md or SESSION-PER-CALL.md: whole sessions per call against the
// SDKs, and the router's own CPU per session against its own CPU per stateless call.

import { formatNumber, formatRatio, markdownTable } from '../format';
import { SESSION_STEPS } from '../load/session-per-call';
import {
  SESSION_PER_CALL_SERVERS,
  type ProfiledRun,
  type SessionPerCallResults,
  type SessionPerCallRun,
  type SessionPerCallServer,
} from '../scenarios/session-per-call';
import { median } from '../stats';
import { SPLIT_LAYERS, type SplitLayer } from './profile-layers';
import { short } from './catalog';
import type { TargetRow } from './report-figures';

/** The issue's goals: router CPU per session ≤ 2× per (d) call; ≥ 4× the SDK v1's sessions per CPU-second. */
export const ROUTER_SHARE_MAX = 2;
export const OVER_SDK_V1_MIN = 4;

const [SDK_V1, SDK_V2, ROUTER, ROUTER_CALL] = SESSION_PER_CALL_SERVERS;

const cpuPerUnit = (run: SessionPerCallRun): number => run.cpuMicros / run.completed;
const mid = (entry: SessionPerCallServer, pick: (run: SessionPerCallRun) => number): number =>
  median(entry.runs.map(pick));
const entryOf = (results: SessionPerCallResults | undefined, key: string): SessionPerCallServer | undefined =>
  results?.servers.find((entry) => entry.spec.key === key);

/** Units (sessions) per CPU-second of `entry` over `base`'s, the median of per-round ratios. */
function perCpuRatio(entry: SessionPerCallServer | undefined, base: SessionPerCallServer | undefined): number {
  if (entry === undefined || base === undefined) return Number.NaN;
  return median(
    entry.runs.map((run, round) => {
      const other = base.runs[round];
      return other === undefined ? Number.NaN : cpuPerUnit(other) / cpuPerUnit(run);
    }),
  );
}

/**
 * The router's own CPU per session and per (d) call, µs: each profile's router share of the process's CPU times the
 * median CPU per session (call) of the interleaved rounds, which the machine's drift affects less than the two
 * profiled runs, one after the other, alone.
 */
function routerMicros(results: SessionPerCallResults | undefined): { session: number; call: number } | undefined {
  const profiled = results?.profiled;
  const session = entryOf(results, ROUTER.key);
  const call = entryOf(results, ROUTER_CALL.key);
  if (profiled === undefined || session === undefined || call === undefined) return undefined;
  return {
    session: profiled.session.shares.router * mid(session, cpuPerUnit),
    call: profiled.call.shares.router * mid(call, cpuPerUnit),
  };
}

export function sessionPerCallTargetRows(results: SessionPerCallResults | undefined): TargetRow[] {
  const own = routerMicros(results);
  const share = own && own.session / own.call;
  const overV1 = perCpuRatio(entryOf(results, ROUTER.key), entryOf(results, SDK_V1.key));
  return [
    {
      figure: "session per call: the router's own CPU per session against its own per stateless (d) call",
      target: `≤ ${ROUTER_SHARE_MAX.toFixed(2)}×`,
      measured: own
        ? `${formatRatio(share as number)} (${formatNumber(own.session)} µs against ${formatNumber(own.call)} µs)`
        : (results?.skipped ?? 'not run'),
      met: own ? (share as number) <= ROUTER_SHARE_MAX : undefined,
    },
    {
      figure: 'session per call: sessions per CPU-second, router against SDK v1 stateless',
      target: `≥ ${OVER_SDK_V1_MIN.toFixed(2)}× (s1)`,
      measured: Number.isNaN(overV1) ? (results?.skipped ?? 'not run') : `${formatRatio(overV1)} (s1)`,
      met: Number.isNaN(overV1) ? undefined : overV1 >= OVER_SDK_V1_MIN,
    },
  ];
}

const ms = (value: number): string => formatNumber(value, 1);

function serversTable(results: SessionPerCallResults): string {
  const v1 = entryOf(results, SDK_V1.key);
  const v2 = entryOf(results, SDK_V2.key);
  const rows = results.servers.map((entry) => {
    const perRequest = mid(entry, (run) => run.cpuMicros / run.requests);
    return [
      entry.spec.label,
      formatNumber(mid(entry, (run) => run.completed / run.seconds)),
      formatNumber(mid(entry, (run) => run.requests / run.seconds)),
      formatNumber(mid(entry, cpuPerUnit)),
      formatNumber(perRequest),
      `${ms(mid(entry, (run) => run.p50Ms))} / ${ms(mid(entry, (run) => run.p99Ms))}`,
      entry.mode === 'call' ? '–' : formatRatio(perCpuRatio(entry, v1)),
      entry.mode === 'call' ? '–' : formatRatio(perCpuRatio(entry, v2)),
      formatNumber(mid(entry, (run) => (100 * run.cpuMicros) / (run.seconds * 1e6))) + '%',
    ];
  });
  return markdownTable(
    [
      'server',
      'sessions/s (calls/s)',
      'requests/s',
      'CPU µs per session (call)',
      'CPU µs per request',
      'p50 / p99 ms, whole session',
      'per CPU-s ×(s1)',
      'per CPU-s ×(s2)',
      'server busy',
    ],
    rows,
  );
}

function stepsTable(results: SessionPerCallResults): string {
  const rows = results.servers
    .filter((entry) => entry.mode === 'session')
    .map((entry) => [
      short(entry.spec),
      ...SESSION_STEPS.map(
        (step) =>
          `${ms(mid(entry, (run) => run.steps[step]?.p50Ms ?? Number.NaN))} / ${ms(mid(entry, (run) => run.steps[step]?.p99Ms ?? Number.NaN))}`,
      ),
    ]);
  return markdownTable(['p50 / p99 ms', 'initialize', 'notifications/initialized', 'tools/call', 'DELETE'], rows);
}

const LAYER_NAMES: Record<SplitLayer, string> = {
  router: 'this router (lib/, and its own dependencies)',
  express: 'Express',
  node: 'Node: HTTP, streams, sockets',
  gc: 'garbage collection',
  tool: 'the tool: redis client, fetch (undici), bench code',
  other: 'other',
};

function shareTable(results: SessionPerCallResults, profiled: NonNullable<SessionPerCallResults['profiled']>): string {
  const perSession = mid(entryOf(results, ROUTER.key) as SessionPerCallServer, cpuPerUnit);
  const perCall = mid(entryOf(results, ROUTER_CALL.key) as SessionPerCallServer, cpuPerUnit);
  const cell = (run: ProfiledRun, micros: number, layer: SplitLayer): string =>
    `${formatNumber(micros * run.shares[layer])} µs (${(100 * run.shares[layer]).toFixed(1)}%)`;
  return markdownTable(
    ['layer (self time)', '(sr) per session', '(sd) per call'],
    [
      ...SPLIT_LAYERS.map((layer) => [
        LAYER_NAMES[layer],
        cell(profiled.session, perSession, layer),
        cell(profiled.call, perCall, layer),
      ]),
      ['whole process, median of the rounds', `${formatNumber(perSession)} µs`, `${formatNumber(perCall)} µs`],
      [
        'whole process, in the profiled run',
        `${formatNumber(profiled.session.cpuMicrosPerUnit)} µs`,
        `${formatNumber(profiled.call.cpuMicrosPerUnit)} µs`,
      ],
    ],
  );
}

export function sessionPerCallSections(results: SessionPerCallResults | undefined): string[] {
  if (results === undefined) return [];
  if (results.skipped !== undefined) return ['', '## A whole session per call', '', `Skipped: ${results.skipped}.`];
  return [
    '',
    '## A whole session per call',
    '',
    `${results.users} virtual users, each doing one session after another on keep-alive connections: \`initialize\`, \`notifications/initialized\`, one \`tools/call lookup\` (a Redis GET and a \`fetch\` of a local JSON service), \`DELETE\`. redis-server, the JSON service and the load generator share the load CPU; the server runs alone on its own. CPU is the server process's only; medians of the rounds, ratios the median of per-round ratios. (sd) is (d)'s configuration called with single stateless \`tools/call\` requests.`,
    '',
    serversTable(results),
    '',
    'Per request kind:',
    '',
    stepsTable(results),
    ...(results.profiled
      ? [
          '',
          "### The router's own share",
          '',
          `Each router profiled alone in a fresh process after the rounds (\`--cpu-prof\`, warm-up and one round of load): the profile's self time split by owner, each layer's share applied to the median CPU per session or call of the rounds above: [(sr)](${results.profiled.session.profile}), [(sd)](${results.profiled.call.profile}).`,
          '',
          shareTable(results, results.profiled),
        ]
      : []),
  ];
}
