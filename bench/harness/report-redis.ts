// The Redis scenario's part of the results (issue 20's load requirement): req/s against one in-memory instance, and the load test.

import { formatBytes, formatNumber, formatRatio, markdownTable } from '../format';
import {
  LOAD_SESSIONS,
  REDIS_ERAS,
  REDIS_SETUPS,
  redisFigures,
  type RedisLoadResult,
  type RedisResults,
} from '../scenarios/redis';
import type { TargetRow } from './report-figures';

/** The command that runs this scenario alone (it writes bench/REDIS.md). */
export const REDIS_COMMAND = 'npm run bench:redis';

/**
 * Issue 34, re-scoped in issue 45: a 2025 session through two instances on Redis, against one in-memory instance
 * behind the same proxy (the hop a load balancer adds anyway is not the store's).
 */
const MIN_REDIS_RATIO = 0.6;

/** Memory back within this much of its baseline counts as returned (allocator pages and client buffers move a little). */
const MEMORY_SLACK = 256 * 1024;

function keysReturned(load: RedisLoadResult): boolean {
  return load.keys.leftOver.length === 0;
}

function memoryReturned(load: RedisLoadResult): boolean {
  return load.memory.after - load.memory.before <= MEMORY_SLACK;
}

/** The targets of issue 20's load requirement, for the Targets table. */
export function redisTargetRows(results: RedisResults | undefined): TargetRow[] {
  if (results === undefined || results.skipped !== undefined) {
    const measured = results?.skipped === undefined ? '' : `skipped: ${results.skipped}`;
    return [
      {
        figure: 'Redis: failed requests, 1,000 sessions + mixed traffic through the proxy',
        target: '0',
        measured,
        met: undefined,
      },
    ];
  }
  const { load } = results;
  const failed = load.openFailed + load.traffic.failed + load.deleteFailed;
  const viaRedis = redisFigures(results.throughput, 'redis', '2025').ratio;
  const proxyAlone = redisFigures(results.throughput, 'single-proxy', '2025').ratio;
  const behindProxy = redisFigures(results.throughput, 'redis', '2025', 'single-proxy').ratio;
  return [
    {
      figure:
        'Redis: a 2025 session through two instances behind the proxy, req/s against one in-memory instance behind the same proxy',
      target: `≥ ${formatRatio(MIN_REDIS_RATIO)}`,
      measured: `${formatRatio(behindProxy)} (against a direct in-memory instance ${formatRatio(viaRedis)}, the proxy alone ${formatRatio(proxyAlone)})`,
      met: Number.isNaN(behindProxy) ? undefined : behindProxy >= MIN_REDIS_RATIO,
    },
    {
      figure: `Redis: failed requests, ${formatNumber(load.sessions)} sessions + ${formatNumber(results.loadSeconds)} s mixed traffic through the proxy`,
      target: '0',
      measured: formatNumber(failed),
      met: failed === 0,
    },
    {
      figure: 'Redis: keys and memory after deleting every session',
      target: 'back to the baseline',
      measured: `${formatNumber(load.keys.leftOver.length)} keys left; used_memory ${signedBytes(load.memory.after - load.memory.before)}`,
      met: keysReturned(load) && memoryReturned(load),
    },
  ];
}

function signedBytes(bytes: number): string {
  return bytes >= 0 ? `+${formatBytes(bytes)}` : `−${formatBytes(-bytes)}`;
}

function throughputTable(results: Extract<RedisResults, { throughput: unknown }>): string {
  const rows = REDIS_ERAS.flatMap((era) =>
    REDIS_SETUPS.map((setup) => {
      const figures = redisFigures(results.throughput, setup.key, era.key);
      return [
        era.key,
        setup.label,
        formatNumber(figures.perSecond),
        setup.key === 'single' ? '1.00×' : formatRatio(figures.ratio),
        formatNumber(figures.p50, 2),
        formatNumber(figures.p99, 2),
        formatNumber(figures.cpu),
      ];
    }),
  );
  return markdownTable(
    ['era', 'setup', 'req/s', '× one in-memory', 'p50 ms', 'p99 ms', 'CPU µs/req (all its processes)'],
    rows,
  );
}

function loadTable(load: RedisLoadResult, seconds: number): string {
  const rows = [
    [
      `open ${formatNumber(LOAD_SESSIONS)} sessions (initialize + notifications/initialized)`,
      formatNumber(load.sessions),
      formatNumber(load.openFailed),
      `${formatNumber(load.openSeconds, 1)} s`,
    ],
    ...load.traffic.perKind.map((kind) => [
      kind.name,
      formatNumber(kind.requests),
      formatNumber(kind.failed),
      `${formatNumber(kind.requests / load.traffic.seconds)}/s`,
    ]),
    [
      `GET streams held open for the ${formatNumber(seconds)} s`,
      formatNumber(load.traffic.streamsOpened),
      formatNumber(load.traffic.streamsFailed),
      '',
    ],
    [
      'DELETE every session',
      formatNumber(load.sessions),
      formatNumber(load.deleteFailed),
      `${formatNumber(load.deleteSeconds, 1)} s`,
    ],
  ];
  return markdownTable(['step', 'requests', 'failed', 'rate / time'], rows);
}

function memoryTable(load: RedisLoadResult): string {
  const { memory, keys } = load;
  return markdownTable(
    ['moment', 'used_memory', '− baseline', 'keys'],
    [
      ['baseline (instances up, no session)', formatBytes(memory.before), '', formatNumber(keys.before)],
      [
        `${formatNumber(load.sessions)} sessions open`,
        formatBytes(memory.withSessions),
        signedBytes(memory.withSessions - memory.before),
        formatNumber(keys.withSessions),
      ],
      ['peak (sampled every 0.5 s)', formatBytes(memory.peak), signedBytes(memory.peak - memory.before), ''],
      [
        'after deleting every session',
        formatBytes(memory.after),
        signedBytes(memory.after - memory.before),
        formatNumber(keys.after),
      ],
    ],
  );
}

/** The section, or a line saying why the scenario was skipped. */
export function redisSections(results: RedisResults | undefined): string[] {
  if (results === undefined) return [];
  const title = '## Redis: two instances on one Redis behind a round-robin proxy (issue 20)';
  if (results.skipped !== undefined) return ['', title, '', `Skipped: ${results.skipped}.`];
  const { load } = results;
  const left = load.keys.leftOver;
  return [
    '',
    title,
    '',
    `Run alone with \`${REDIS_COMMAND}\` (\`BENCH_ONLY=redis\`; \`BENCH_REDIS_SECONDS\` sets the traffic's length). A redis-server (no persistence) runs on a free port; every server-side process (redis-server, the routers, the proxies) is pinned to the servers' CPU, the load generator to its own, so each setup is measured on one core. The instances on Redis run (e)'s options (sessions, \`responseMode: 'auto'\`, \`rateLimit: false\`) with \`store: redisStore({ url })\`; the proxy sends each request to the next instance in turn (no stickiness) and streams replies through.`,
    '',
    '### (a) `tools/call add` throughput',
    '',
    'The same tool and load generator as scenarios 1 and 1m, in the same run, interleaved rounds; the 2025 request runs in one session opened through the setup (through the proxy, its requests alternate between the instances). × is the median of per-round ratios. CPU counts every process of the setup (for (r): both instances, the proxy and redis-server).',
    '',
    throughputTable(results),
    '',
    `### (b) Load: ${formatNumber(LOAD_SESSIONS)} concurrent sessions, ${formatNumber(results.loadSeconds)} s of mixed traffic`,
    '',
    `Through the proxy: ${formatNumber(LOAD_SESSIONS)} 2025 sessions opened; then ${formatNumber(load.trafficConnections)} keep-alive connections send requests back to back, each to a random session (2026-07-28 requests without one), while ${formatNumber(load.traffic.streamsOpened + load.traffic.streamsFailed)} sessions hold a GET stream open; then DELETE of every session. A failure is any non-2xx status, JSON-RPC error, wrong result, socket error, refused GET stream or GET stream that ended early. ${formatNumber(load.traffic.requests)} requests in ${formatNumber(load.traffic.seconds, 1)} s (${formatNumber(load.traffic.requests / load.traffic.seconds)}/s), p50 ${formatNumber(load.traffic.p50Ms, 2)} ms, p99 ${formatNumber(load.traffic.p99Ms, 2)} ms.`,
    '',
    loadTable(load, results.loadSeconds),
    ...(load.traffic.failures.length
      ? ['', `First failures: ${load.traffic.failures.map((text) => `\`${text}\``).join('; ')}`]
      : []),
    '',
    'Redis memory (`INFO memory` used_memory) and keys (SCAN):',
    '',
    memoryTable(load),
    '',
    left.length === 0
      ? `After the DELETEs the keys are the baseline's (${formatNumber(load.keys.before)}: no key of a deleted session is left), and used_memory is ${signedBytes(load.memory.after - load.memory.before)} from its baseline: ${memoryReturned(load) ? `**returned to baseline** (within ${formatBytes(MEMORY_SLACK)})` : '**not back to baseline**'}.`
      : `**${formatNumber(left.length)} keys of deleted sessions are left** (e.g. ${left
          .slice(0, 5)
          .map((key) => `\`${key}\``)
          .join(', ')}); used_memory is ${signedBytes(load.memory.after - load.memory.before)} from its baseline.`,
  ];
}
