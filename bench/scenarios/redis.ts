// The Redis scenario (issue 20's load requirement): two router instances on one Redis behind a round-robin proxy,
// against one instance with the in-memory store; then 1,000 sessions and a minute of mixed traffic through the proxy.

import type { OpenedSession, Target } from '../load/http-client';
import type { MixedTrafficResult } from '../load/mixed-traffic';
import type { CannonResult } from '../load/cannon-result';
import { SERVERS, type ServerSpec } from '../harness/catalog';
import { serverNodeArgs, type BenchConfig } from '../harness/config';
import { RunningServer, type LoadGenerator } from '../harness/fleet';
import { redisServerMissing, startBenchRedis, type BenchRedis } from '../harness/redis-server';
import { median } from '../stats';
import type { ScenarioRequest } from './load-runs';
import { MODERN_ADD_CALL } from './modern';
import { ADD_CALL } from './throughput';

/** The setups loaded in part (a), the first being the base of the ratios. */
export const REDIS_SETUPS = [
  { key: 'single', label: '(e) one instance, in-memory store', description: 'the (e) router process, called directly' },
  {
    key: 'single-proxy',
    label: '(e) one instance, in-memory, through the proxy',
    description: 'the same (e) process behind the round-robin proxy with one upstream: what the proxy hop costs',
  },
  {
    key: 'redis',
    label: '(r) two instances on Redis, through the proxy',
    description:
      "two processes of `servers/router-redis.ts` ((e)'s options with `store: redisStore({ url })`) behind the round-robin proxy, no stickiness",
  },
] as const;
export type RedisSetupKey = (typeof REDIS_SETUPS)[number]['key'];

/** The two eras of part (a): scenario 1's 2025 request in one session, and scenario 1m's stateless 2026 request. */
export const REDIS_ERAS = [
  { key: '2025', label: '2025-11-25 `tools/call add` in a session', request: ADD_CALL },
  { key: '2026', label: '2026-07-28 `tools/call add`, stateless', request: MODERN_ADD_CALL },
] as const;
export type RedisEraKey = (typeof REDIS_ERAS)[number]['key'];

/** One measured run of part (a): autocannon's figures and the CPU every process of the setup used per request. */
export interface RedisRun extends CannonResult {
  readonly cpuMicrosPerRequest: number;
}

export interface RedisThroughput {
  readonly setup: RedisSetupKey;
  readonly era: RedisEraKey;
  readonly runs: readonly RedisRun[];
}

/** Part (b). Memory is Redis's `used_memory`; keys are counted by SCAN. */
export interface RedisLoadResult {
  readonly sessions: number;
  readonly openSeconds: number;
  readonly openFailed: number;
  readonly traffic: MixedTrafficResult;
  readonly trafficConnections: number;
  readonly deleteSeconds: number;
  readonly deleteFailed: number;
  readonly memory: {
    readonly before: number;
    readonly withSessions: number;
    readonly peak: number;
    readonly after: number;
  };
  readonly keys: {
    readonly before: number;
    readonly withSessions: number;
    readonly after: number;
    readonly leftOver: readonly string[];
  };
}

export type RedisResults =
  | { readonly skipped: string }
  | {
      readonly skipped?: undefined;
      readonly throughput: readonly RedisThroughput[];
      readonly load: RedisLoadResult;
      readonly loadSeconds: number;
    };

/** Sessions of part (b): the issue's 1,000. */
export const LOAD_SESSIONS = 1_000;
/** Concurrent connections of part (b)'s traffic, and of opening and deleting its sessions. */
const LOAD_CONNECTIONS = 50;
/** Sessions that hold a GET stream open through the whole traffic. */
const LOAD_STREAMS = 100;

/** BENCH_REDIS_SECONDS: part (b)'s traffic, 60 s (10 in quick mode). */
export function redisLoadSeconds(config: BenchConfig): number {
  const text = process.env.BENCH_REDIS_SECONDS;
  const value = text === undefined || text === '' ? (config.quick ? 10 : 60) : Number(text);
  if (!(value > 0) || !Number.isFinite(value))
    throw new Error(`BENCH_REDIS_SECONDS must be a positive number, got '${text}'`);
  return value;
}

function spec(key: string, label: string, script: string, args: readonly string[]): ServerSpec {
  return { key, label, script, args, sessions: true, headers: {}, description: label };
}

const portOf = (server: RunningServer): string => new URL(server.url).port;

function log(text: string): void {
  process.stderr.write(`${text}\n`);
}

/** A setup under load: where to send requests, and the CPU time its processes have used so far (µs). */
interface Setup {
  readonly key: RedisSetupKey;
  readonly url: string;
  cpuMicros(): Promise<number>;
}

async function redisCpuMicros(redis: BenchRedis): Promise<number> {
  const [user, system] = await Promise.all([redis.info('cpu', 'used_cpu_user'), redis.info('cpu', 'used_cpu_sys')]);
  return (user + system) * 1e6;
}

function targetOf(url: string, request: ScenarioRequest, session: OpenedSession | undefined): Target {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  if (session !== undefined)
    Object.assign(headers, { 'mcp-session-id': session.sessionId, 'mcp-protocol-version': session.protocolVersion });
  return { url, headers: { ...headers, ...request.headers } };
}

/** Part (a): every setup × era checked, warmed up, then `config.repeats` interleaved rounds. */
async function measureThroughput(
  config: BenchConfig,
  load: LoadGenerator,
  setups: readonly Setup[],
): Promise<{ results: RedisThroughput[]; sessions: Array<{ url: string; session: OpenedSession }> }> {
  const cells: Array<{ setup: Setup; era: (typeof REDIS_ERAS)[number]; target: Target; runs: RedisRun[] }> = [];
  const sessions: Array<{ url: string; session: OpenedSession }> = [];
  for (const setup of setups) {
    for (const era of REDIS_ERAS) {
      let session: OpenedSession | undefined;
      if (era.key === '2025') {
        session = await load.run({ kind: 'open-session', target: targetOf(setup.url, era.request, undefined) });
        sessions.push({ url: setup.url, session });
      }
      const target = targetOf(setup.url, era.request, session);
      const probe = await load.run({ kind: 'probe', target, body: era.request.body.replaceAll('[<id>]', 'probe') });
      const wrong = probe.status === 200 ? era.request.check(probe.messages) : `HTTP ${probe.status}`;
      if (wrong !== undefined) throw new Error(`redis scenario, ${setup.key} ${era.key} answered wrongly: ${wrong}`);
      log(`  warm-up ${setup.key} ${era.key}`);
      await load.run({
        kind: 'cannon',
        target,
        body: era.request.body,
        connections: config.connections,
        seconds: config.warmupSeconds,
      });
      cells.push({ setup, era, target, runs: [] });
    }
  }
  for (let round = 0; round < config.repeats; round++) {
    for (let step = 0; step < cells.length; step++) {
      const cell = cells[(step + round) % cells.length] as (typeof cells)[number];
      const cpuBefore = await cell.setup.cpuMicros();
      const result = await load.run({
        kind: 'cannon',
        target: cell.target,
        body: cell.era.request.body,
        connections: config.connections,
        seconds: config.seconds,
      });
      const cpuMicrosPerRequest = ((await cell.setup.cpuMicros()) - cpuBefore) / Math.max(1, result.ok);
      if (result.failed > 0)
        throw new Error(
          `redis scenario, ${cell.setup.key} ${cell.era.key}: ${result.failed} requests failed in round ${round + 1}`,
        );
      log(
        `  round ${round + 1} ${cell.setup.key} ${cell.era.key}: ${result.perSecond.toFixed(0)} req/s, p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms, ${cpuMicrosPerRequest.toFixed(0)} µs CPU/req`,
      );
      cell.runs.push({ ...result, cpuMicrosPerRequest });
    }
  }
  return { results: cells.map((cell) => ({ setup: cell.setup.key, era: cell.era.key, runs: cell.runs })), sessions };
}

/** Part (b): 1,000 sessions, mixed traffic, every session deleted; Redis memory and keys before, at peak, after. */
async function measureLoadTest(
  load: LoadGenerator,
  redis: BenchRedis,
  url: string,
  seconds: number,
): Promise<RedisLoadResult> {
  const target: Target = {
    url,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  };
  const baselineKeys = new Set(await redis.keys());
  const before = await redis.info('memory', 'used_memory');
  let peak = before;
  // Sampled every 500 ms from the first initialize to the last request of the traffic.
  const sampler = setInterval(() => {
    redis.info('memory', 'used_memory').then(
      (used) => (peak = Math.max(peak, used)),
      () => undefined,
    );
  }, 500);
  try {
    log(`  opening ${LOAD_SESSIONS} sessions through the proxy`);
    const opened = await load.run({
      kind: 'open-sessions',
      target,
      count: LOAD_SESSIONS,
      connections: LOAD_CONNECTIONS,
    });
    const withSessions = await redis.info('memory', 'used_memory');
    const keysWithSessions = Number(await redis.command(['DBSIZE']));
    log(
      `  ${opened.sessions.length} sessions open (${opened.failed} failed), ${keysWithSessions} keys; ${seconds} s of mixed traffic`,
    );
    const traffic = await load.run({
      kind: 'mixed-traffic',
      target,
      sessions: opened.sessions,
      seconds,
      connections: LOAD_CONNECTIONS,
      streams: LOAD_STREAMS,
    });
    clearInterval(sampler);
    peak = Math.max(peak, await redis.info('memory', 'used_memory'));
    log(
      `  ${traffic.requests} requests, ${traffic.failed} failed${traffic.failures.length ? `: ${traffic.failures.join('; ')}` : ''}; deleting every session`,
    );
    const closed = await load.run({
      kind: 'close-sessions',
      target,
      sessions: opened.sessions,
      connections: LOAD_CONNECTIONS,
    });
    // GET streams end when their session is deleted; let the instances finish their cleanup.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const after = await redis.info('memory', 'used_memory');
    const keysAfter = await redis.keys();
    return {
      sessions: opened.sessions.length,
      openSeconds: opened.seconds,
      openFailed: opened.failed,
      traffic,
      trafficConnections: LOAD_CONNECTIONS,
      deleteSeconds: closed.seconds,
      deleteFailed: closed.failed,
      memory: { before, withSessions, peak, after },
      keys: {
        before: baselineKeys.size,
        withSessions: keysWithSessions,
        after: keysAfter.length,
        leftOver: keysAfter.filter((key) => !baselineKeys.has(key)),
      },
    };
  } finally {
    clearInterval(sampler);
  }
}

/**
 * Runs both parts. Every process (redis-server, the three router instances, the two proxies) runs on the servers'
 * CPU, so the setups are compared on the same core; all are stopped at the end, also on failure.
 */
export async function measureRedis(config: BenchConfig, load: LoadGenerator): Promise<RedisResults> {
  const missing = redisServerMissing();
  if (missing !== undefined) return { skipped: missing };
  const seconds = redisLoadSeconds(config);
  const cpu = config.pinning?.serverCpu;
  const nodeArgs = serverNodeArgs(config);
  const started: RunningServer[] = [];
  let redis: BenchRedis | undefined;
  const start = async (server: ServerSpec): Promise<RunningServer> => {
    const running = await RunningServer.start(server, config.pinning, nodeArgs);
    started.push(running);
    return running;
  };
  try {
    redis = await startBenchRedis(cpu);
    const store = redis;
    const single = await start(SERVERS.routerStateful);
    const singleProxy = await start(spec('proxy-single', 'proxy → (e)', 'servers/proxy.ts', [portOf(single)]));
    const instances = [
      await start(spec('router-redis-a', '(r) A', 'servers/router-redis.ts', [store.url])),
      await start(spec('router-redis-b', '(r) B', 'servers/router-redis.ts', [store.url])),
    ];
    const proxy = await start(spec('proxy-redis', 'proxy → (r) A, B', 'servers/proxy.ts', instances.map(portOf)));
    const cpuOf = (servers: readonly RunningServer[], withRedis: boolean) => async (): Promise<number> => {
      const each = await Promise.all(servers.map((server) => server.cpuMicros()));
      return each.reduce((sum, micros) => sum + micros, 0) + (withRedis ? await redisCpuMicros(store) : 0);
    };
    const setups: Setup[] = [
      { key: 'single', url: single.url, cpuMicros: cpuOf([single], false) },
      { key: 'single-proxy', url: singleProxy.url, cpuMicros: cpuOf([single, singleProxy], false) },
      { key: 'redis', url: proxy.url, cpuMicros: cpuOf([...instances, proxy], true) },
    ];
    log('  (a) tools/call throughput');
    const { results, sessions } = await measureThroughput(config, load, setups);
    // Part (b)'s baseline holds no session of part (a).
    for (const { url, session } of sessions) {
      const closed = await load.run({
        kind: 'close-sessions',
        target: { url, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } },
        sessions: [session],
        connections: 1,
      });
      if (closed.failed > 0) throw new Error(`redis scenario: the session of part (a) on ${url} could not be deleted`);
    }
    log(`  (b) load: ${LOAD_SESSIONS} sessions, ${seconds} s of mixed traffic through the proxy`);
    const loadResult = await measureLoadTest(load, store, proxy.url, seconds);
    return { throughput: results, load: loadResult, loadSeconds: seconds };
  } finally {
    await Promise.all(started.map((server) => server.stop()));
    await redis?.close();
  }
}

/** The median req/s of one setup and era, and its per-round ratio to the base setup's (median over rounds). */
export function redisFigures(
  results: readonly RedisThroughput[],
  setup: RedisSetupKey,
  era: RedisEraKey,
  baseSetup: RedisSetupKey = 'single',
): { perSecond: number; ratio: number; cpu: number; p50: number; p99: number } {
  const entry = results.find((result) => result.setup === setup && result.era === era);
  const base = results.find((result) => result.setup === baseSetup && result.era === era);
  if (entry === undefined || base === undefined)
    return { perSecond: Number.NaN, ratio: Number.NaN, cpu: Number.NaN, p50: Number.NaN, p99: Number.NaN };
  const ratios = entry.runs.map((run, round) => run.perSecond / (base.runs[round]?.perSecond ?? Number.NaN));
  return {
    perSecond: median(entry.runs.map((run) => run.perSecond)),
    ratio: median(ratios),
    cpu: median(entry.runs.map((run) => run.cpuMicrosPerRequest)),
    p50: median(entry.runs.map((run) => run.p50Ms)),
    p99: median(entry.runs.map((run) => run.p99Ms)),
  };
}
