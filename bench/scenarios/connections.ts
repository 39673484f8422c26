// Scenario `connections` (issue 34, goal 5): scenario 1's `tools/call add` at 100 and 1,000 keep-alive connections.

import { SERVERS, type ServerSpec } from '../harness/catalog';
import type { BenchConfig } from '../harness/config';
import type { LoadGenerator } from '../harness/fleet';
import { measureLoad, type ServerRuns } from './load-runs';
import { MODERN_ADD_CALL } from './modern';
import { ADD_CALL } from './throughput';

/** The connection counts of the scenario: many clients per server, each keeping its connection open. */
export const CONNECTION_LEVELS = [100, 1_000] as const;

/**
 * (a) first; each era against the SDK that serves it: the SDK v1 stateless and the router's (d) with scenario 1's
 * 2025 request, the SDK v2 and the router's (dm) with 1m's 2026-07-28 request.
 */
export const CONNECTIONS_SERVERS = [
  SERVERS.bare,
  SERVERS.sdkStateless,
  SERVERS.routerStateless,
  SERVERS.sdkV2Modern,
  SERVERS.routerStatelessModern,
];

/** Rounds are shorter than scenario 1's so that both levels fit in about three minutes; the figures are medians of them. */
const MAX_SECONDS = 5;
const MAX_REPEATS = 2;
const MAX_WARMUP_SECONDS = 3;

/** One connection count's runs. */
export interface ConnectionLevel {
  readonly connections: number;
  readonly servers: readonly ServerRuns[];
}

function requestFor(spec: ServerSpec) {
  return spec.key === SERVERS.sdkV2Modern.key || spec.key === SERVERS.routerStatelessModern.key
    ? MODERN_ADD_CALL
    : ADD_CALL;
}

/**
 * Every server at each level, sequential rounds as scenario 1 (no side-by-side rounds: two servers sharing a core
 * would each get 500 connections' worth of queueing). One load process drives all connections; at 1,000 it may be
 * the limit itself, which the servers' busy share shows (a server under 85% busy waited on the load generator).
 */
export async function measureConnections(config: BenchConfig, load: LoadGenerator): Promise<ConnectionLevel[]> {
  const levels: ConnectionLevel[] = [];
  for (const connections of CONNECTION_LEVELS) {
    process.stderr.write(`  ${connections} connections\n`);
    const levelConfig: BenchConfig = {
      ...config,
      connections,
      seconds: Math.min(config.seconds, MAX_SECONDS),
      repeats: Math.min(config.repeats, MAX_REPEATS),
      warmupSeconds: Math.min(config.warmupSeconds, MAX_WARMUP_SECONDS),
    };
    levels.push({ connections, servers: await measureLoad(levelConfig, load, CONNECTIONS_SERVERS, requestFor) });
  }
  return levels;
}
