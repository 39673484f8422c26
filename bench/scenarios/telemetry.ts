// Scenario 4 (issue 21): what OpenTelemetry costs the router's `tools/call`, with the API absent, idle, and the SDK on.

import { createTelemetry } from '../../lib/features/telemetry/telemetry';
import { SERVERS } from '../harness/catalog';
import type { BenchConfig } from '../harness/config';
import type { LoadGenerator } from '../harness/fleet';
import type { TelemetryStats } from '../servers/telemetry-setup';
import { median } from '../stats';
import { measureLoad, type ServerRuns } from './load-runs';
import { ADD_CALL } from './throughput';

/**
 * The servers of scenario 4, (t0) first: every ratio is to it, and every other server runs side by side with it.
 * Bare Express is not needed here: the question is the router against itself.
 */
export const TELEMETRY_SERVERS = [
  SERVERS.telemetryAbsent,
  SERVERS.telemetryAbsentAgain,
  SERVERS.telemetryIdle,
  SERVERS.telemetryDisabled,
  SERVERS.telemetrySdk,
];

/** Requests the server answered in the measured runs (sequential and side by side; warm-up and probe come on top). */
export function answered(entry: ServerRuns): number {
  return (
    entry.runs.reduce((sum, run) => sum + run.ok, 0) +
    (entry.sideBySide ?? []).reduce((sum, round) => sum + round.own.ok, 0)
  );
}

/**
 * Undefined when the server's setup recorded what it claims, else what is wrong: the API must be missing from (t0)
 * and loaded in the others, nothing exported without the SDK, and with it a span and a histogram point for every
 * answered request. A setup that silently recorded nothing would make the "on" figure a second "off" figure.
 */
export function wrongSetup(entry: ServerRuns): string | undefined {
  const stats = entry.stats as TelemetryStats | undefined;
  if (stats === undefined) return 'it reported no figures';
  const mode = entry.spec.args[1];
  if (stats.mode !== mode) return `it ran setup '${String(stats.mode)}', expected '${String(mode)}'`;
  if (stats.apiLoaded !== (mode !== 'absent'))
    return `@opentelemetry/api ${stats.apiLoaded ? 'was' : 'was not'} loaded`;
  if (mode !== 'sdk') return stats.spans === 0 ? undefined : `${stats.spans} spans were exported without an SDK`;
  const requests = answered(entry);
  if (stats.addSpans < requests)
    return `${stats.addSpans} 'tools/call add' spans for ${requests} answered requests (spans dropped?)`;
  if (stats.operations < requests)
    return `mcp.server.operation.duration counted ${stats.operations} operations for ${requests} answered requests`;
  return undefined;
}

/** What scenario 4 measured. */
export interface TelemetryResults {
  readonly servers: readonly ServerRuns[];
  /**
   * Nanoseconds of `OpenTelemetryObserver.live()` with the API installed and no provider, timed in this process: the only work
   * the router adds per message when tracing is off (the dispatcher's one branch), measured directly because an
   * end-to-end figure cannot resolve it from noise.
   */
  readonly liveCheckNs: number;
}

/** Scenario 4 compares servers that differ by little, so it takes at least this many rounds (not when quick). */
const MIN_ROUNDS = 5;

/** `live()` as the dispatcher calls it once per message, timed over 10⁶ calls, five times: the median. */
function timeLiveCheck(): number {
  const telemetry = createTelemetry({ recordArguments: false, recordResults: false });
  if (telemetry === undefined) throw new Error('scenario 4: @opentelemetry/api is not installed in the repo');
  if (telemetry.live())
    throw new Error('scenario 4: a provider is registered in the harness, so live() is not the idle check');
  const calls = 1_000_000;
  const samples: number[] = [];
  let live = 0;
  for (let sample = 0; sample < 5; sample++) {
    const start = process.hrtime.bigint();
    for (let call = 0; call < calls; call++) if (telemetry.live()) live++;
    samples.push(Number(process.hrtime.bigint() - start) / calls);
  }
  if (live !== 0) throw new Error('scenario 4: live() changed its answer while timed');
  return median(samples);
}

export async function measureTelemetry(config: BenchConfig, load: LoadGenerator): Promise<TelemetryResults> {
  const repeats = config.quick ? config.repeats : Math.max(config.repeats, MIN_ROUNDS);
  const servers = await measureLoad({ ...config, repeats }, load, TELEMETRY_SERVERS, ADD_CALL, {
    sideBySide: true,
    stats: true,
  });
  for (const entry of servers) {
    const wrong = wrongSetup(entry);
    if (wrong !== undefined)
      throw new Error(`${entry.spec.label}: its OpenTelemetry setup is not what it claims: ${wrong}`);
  }
  return { servers, liveCheckNs: timeLiveCheck() };
}
