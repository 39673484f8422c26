// The run's settings, from the environment: the defaults are the (10 connections, 3 repeats, medians).

import path from 'node:path';
import { detectPinning, type Pinning } from './child';

/**
 * The scenarios of `npm run bench` (the soak has its own script): 1, 2, 3, then 1m and 2m (2026-07-28 requests), then
 * `redis` (issue 20: two instances on Redis behind a proxy; skipped when redis-server is not installed), then
 * `telemetry` (scenario 4, issue 21: OpenTelemetry absent, idle and on), then `sign-in` (issue 30: the production
 * configuration with the router's own JWTs against its static token), then `stdio` (issue 31: a stdio MCP server called
 * directly through the SDK's stdio client, through this router's `mcp.upstream({ command })` and through supergateway),
 * then `connections` and `streams` (issue 34: throughput at 100 and 1,000 keep-alive connections; the memory of
 * 10,000 open GET and listen streams), then `exchange` (tokenExchange's cache hit, in process), then
 * `session-per-call` (issue 45: whole sessions, each with one I/O-bound call), then `registration`
 * (issue 45: 1k/10k/100k tools and an OpenAPI document against SDK v1 and v2, a child per server and size).
 */
export const SCENARIOS = [
  'throughput',
  'stream',
  'sessions',
  'modern',
  'modern-stream',
  'redis',
  'telemetry',
  'sign-in',
  'stdio',
  'connections',
  'streams',
  'exchange',
  'session-per-call',
  'registration',
] as const;
export type Scenario = (typeof SCENARIOS)[number];

/** Scenarios that, run alone (`BENCH_ONLY=redis`), write their own file instead of RESULTS.md. */
export const OWN_FILES: Readonly<Partial<Record<Scenario, string>>> = {
  redis: 'REDIS.md',
  telemetry: 'TELEMETRY.md',
  'sign-in': 'SIGN-IN.md',
  stdio: 'STDIO.md',
  exchange: 'EXCHANGE.md',
  'session-per-call': 'SESSION-PER-CALL.md',
  registration: 'REGISTRATION.md',
};

/** Everything a run is parameterised by; printed into RESULTS.md so a run can be repeated. */
export interface BenchConfig {
  /** Seconds of each measured load run. */
  readonly seconds: number;
  /** Seconds of load before a server's first measured run. */
  readonly warmupSeconds: number;
  readonly repeats: number;
  /**
   * Rounds of scenario 3. Heap per session differs by under 2% between rounds (1,021 / 1,040 / 1,036 B; the
   * SDK's 29,904 / 29,890 B), and the SDK opens 10,000 sessions in 40–60 s, so two rounds keep the default
   * run near 10 minutes.
   */
  readonly sessionRepeats: number;
  readonly connections: number;
  /** Sessions created (and deleted) per repeat of scenario 3. */
  readonly sessions: number;
  /** Streams of each kind held open at once in scenario `streams` (each GET stream in its own session). */
  readonly streams: number;
  readonly scenarios: readonly Scenario[];
  /** Server keys to run (bare Express always runs: it is the base of every ratio); undefined for all. */
  readonly servers: readonly string[] | undefined;
  readonly quick: boolean;
  readonly pinning: Pinning | undefined;
  /** Where the servers write `--cpu-prof` profiles, when profiling. */
  readonly cpuProfileDir: string | undefined;
  /** Where the results go; undefined prints them only. `BENCH_ONLY=redis` alone writes bench/REDIS.md, not RESULTS.md ({@link OWN_FILES}). */
  readonly output: string | undefined;
}

function positive(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!(value > 0) || !Number.isFinite(value)) throw new Error(`${name} must be a positive number, got '${text}'`);
  return value;
}

function scenarios(): Scenario[] {
  const text = process.env.BENCH_ONLY;
  if (text === undefined || text === '') return [...SCENARIOS];
  const chosen = text.split(',').map((name) => name.trim());
  for (const name of chosen)
    if (!(SCENARIOS as readonly string[]).includes(name))
      throw new Error(`BENCH_ONLY: unknown scenario '${name}' (${SCENARIOS.join(', ')})`);
  return chosen as Scenario[];
}

/**
 * Reads BENCH_QUICK (1: a smoke run of ~1 minute, printed, not written), BENCH_DURATION, BENCH_WARMUP,
 * BENCH_REPEATS, BENCH_SESSION_REPEATS, BENCH_CONNECTIONS, BENCH_SESSIONS, BENCH_STREAMS, BENCH_ONLY (comma-separated scenarios), BENCH_SERVERS
 * (comma-separated server keys, for development), BENCH_CPU_PROF
 * (a directory: servers run with --cpu-prof), BENCH_OUT (results file) and BENCH_NO_PIN (1: no taskset).
 */
export function readConfig(): BenchConfig {
  const quick = process.env.BENCH_QUICK === '1';
  const profileDir = process.env.BENCH_CPU_PROF;
  const out = process.env.BENCH_OUT;
  const only = scenarios();
  return {
    seconds: positive('BENCH_DURATION', quick ? 2 : 10),
    // JIT tiering takes ~5 s of this load before a server's throughput stops climbing (measured per second).
    warmupSeconds: positive('BENCH_WARMUP', quick ? 1 : 5),
    repeats: Math.round(positive('BENCH_REPEATS', quick ? 1 : 3)),
    sessionRepeats: Math.round(positive('BENCH_SESSION_REPEATS', quick ? 1 : 2)),
    connections: Math.round(positive('BENCH_CONNECTIONS', 10)),
    sessions: Math.round(positive('BENCH_SESSIONS', quick ? 1000 : 10_000)),
    streams: Math.round(positive('BENCH_STREAMS', quick ? 1000 : 10_000)),
    scenarios: only,
    servers: process.env.BENCH_SERVERS ? process.env.BENCH_SERVERS.split(',').map((key) => key.trim()) : undefined,
    quick,
    pinning: detectPinning(),
    cpuProfileDir: profileDir ? path.resolve(profileDir) : undefined,
    output: out
      ? path.resolve(out)
      : quick
        ? undefined
        : path.join(__dirname, '..', (only.length === 1 ? OWN_FILES[only[0] as Scenario] : undefined) ?? 'RESULTS.md'),
  };
}

/** The servers of a scenario that this run includes: all, or those BENCH_SERVERS names, and (a) always. */
export function selectServers<T extends { readonly key: string }>(config: BenchConfig, specs: readonly T[]): T[] {
  return specs.filter(
    (spec, index) => index === 0 || config.servers === undefined || config.servers.includes(spec.key),
  );
}

/** Node flags of server children: `--cpu-prof` into the profile directory when profiling. */
export function serverNodeArgs(config: BenchConfig): string[] {
  return config.cpuProfileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${config.cpuProfileDir}`];
}
