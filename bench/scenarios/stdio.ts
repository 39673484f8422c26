// Scenario `stdio` (issue 31 §3, issue 45 §3): `tools/call add` to one stdio MCP server directly through the SDK's stdio client and through gateways, then the HTTP hop (gateway-http.ts).

import { compiled } from '../harness/build';
import { SERVERS, type ServerSpec } from '../harness/catalog';
import type { BenchConfig } from '../harness/config';
import type { LoadGenerator } from '../harness/fleet';
import type { StdioDirectRound } from '../load/stdio-direct';
import { measureHttpGateway, ROUTER_ADD_CALL, type HttpGatewayAtConcurrency } from './gateway-http';
import { measureLoad, type ScenarioRequest, type ServerRuns } from './load-runs';
import { ADD_CALL } from './throughput';

/** The gateways, (u1) first: the others run side by side with it at the higher concurrency. */
export const STDIO_SERVERS = [SERVERS.stdioRouter, SERVERS.stdioSupergateway, SERVERS.stdioSupergatewayStateless];

/**
 * (u3) starts a process per request (~20 ms of CPU each, 3 requests/s at one in flight): with 10 in flight, 10 Node
 * start-ups share the servers' CPU and a 10 s round answers a few dozen requests, a 2 s round (BENCH_QUICK) none.
 * Its one-in-flight figure says what it costs; it runs there only.
 */
const ONE_IN_FLIGHT_ONLY: readonly string[] = [SERVERS.stdioSupergatewayStateless.key];

/** How the floor, the SDK's own stdio client calling the server from the load child, is named in tables. */
export const DIRECT_LABEL = '(u0) SDK v1 `Client` + `StdioClientTransport`, direct';

/** The router mounts the upstream's `add` as `up__add` (its `prefix`); supergateway passes names through. */
function requestFor(spec: ServerSpec): ScenarioRequest {
  return spec.key === SERVERS.stdioRouter.key ? ROUTER_ADD_CALL : ADD_CALL;
}

/** Every measurement at one concurrency: the direct floor's rounds and the gateways'. */
export interface StdioAtConcurrency {
  /** Calls in flight at once: the direct client's loops, the gateways' HTTP connections. */
  readonly concurrency: number;
  readonly direct: readonly StdioDirectRound[];
  readonly gateways: readonly ServerRuns[];
}

export interface StdioResults {
  readonly levels: readonly StdioAtConcurrency[];
  /** The same hop to an HTTP upstream: (h0) direct and (h1) through the router, per concurrency. */
  readonly http?: readonly HttpGatewayAtConcurrency[];
}

function log(text: string): void {
  process.stderr.write(`${text}\n`);
}

/**
 * At one call in flight (the latency floor: the direct client calls sequentially) and at `config.connections`:
 * the direct client's rounds, then the gateways' interleaved rounds (at the higher concurrency also side by side
 * with (u1), both on the servers' CPU). The stdio server always runs on the servers' CPU, the callers on the load CPU.
 */
export async function measureStdio(config: BenchConfig, load: LoadGenerator): Promise<StdioResults> {
  const levels: StdioAtConcurrency[] = [];
  for (const concurrency of [...new Set([1, config.connections])]) {
    log(`  concurrency ${concurrency}: ${DIRECT_LABEL}`);
    const { rounds: direct } = await load.run({
      kind: 'stdio-direct',
      script: compiled('servers/stdio-add.ts'),
      cpu: config.pinning?.serverCpu,
      concurrency,
      warmupSeconds: config.warmupSeconds,
      rounds: config.repeats,
      seconds: config.seconds,
    });
    for (const [round, run] of direct.entries()) {
      log(
        `  round ${round + 1} (u0): ${run.perSecond.toFixed(0)} calls/s, p50 ${run.p50Ms.toFixed(3)} ms, CPU/call ${run.serverCpuMicrosPerRequest.toFixed(0)} µs server, ${run.clientCpuMicrosPerRequest.toFixed(0)} µs client`,
      );
      if (run.failed > 0) throw new Error(`(u0): ${run.failed} calls failed in round ${round + 1}`);
    }
    log(`  concurrency ${concurrency}: gateways`);
    // Rounds are not judged by busy share: one connection leaves a gateway idle between requests, and with more the
    // gateway and its stdio server hand every message to each other through pipes on one CPU (quick runs measured
    // 71–78% busy at 10 in flight, for the router and supergateway alike), so the rule would rerun every round.
    const specs =
      concurrency === 1 ? STDIO_SERVERS : STDIO_SERVERS.filter((spec) => !ONE_IN_FLIGHT_ONLY.includes(spec.key));
    const gateways = await measureLoad({ ...config, connections: concurrency }, load, specs, requestFor, {
      sideBySide: concurrency > 1,
      retryIdleRounds: false,
    });
    levels.push({ concurrency, direct, gateways });
  }
  return { levels, http: await measureHttpGateway(config, load) };
}
