// Scenario `stdio`'s HTTP part (issue 45 §3): `tools/call add` to an HTTP MCP upstream, directly and through this router's gateway.

import { SERVERS, type ServerSpec } from '../harness/catalog';
import type { BenchConfig } from '../harness/config';
import type { LoadGenerator } from '../harness/fleet';
import { measureLoad, type ScenarioRequest, type ServerRuns } from './load-runs';
import { ADD_CALL } from './throughput';

/** The floor (h0) first, then the gateway (h1). */
export const HTTP_GATEWAY_SERVERS = [SERVERS.httpUpstream, SERVERS.httpRouter];

/** The router mounts the upstream's `add` as `up__add` (its `prefix`). */
export const ROUTER_ADD_CALL: ScenarioRequest = {
  ...ADD_CALL,
  body: ADD_CALL.body.replace('"name":"add"', '"name":"up__add"'),
};

/** One concurrency's rounds: (h0) and (h1), interleaved. */
export interface HttpGatewayAtConcurrency {
  readonly concurrency: number;
  readonly servers: readonly ServerRuns[];
}

/**
 * At one call in flight and at `config.connections`: the upstream loaded directly and through the gateway, in
 * interleaved rounds. The gateway and its upstream share the servers' CPU, as a stdio gateway and its server do; the
 * upstream alone has it to itself, as the stdio server has when the SDK client calls it.
 */
export async function measureHttpGateway(
  config: BenchConfig,
  load: LoadGenerator,
): Promise<HttpGatewayAtConcurrency[]> {
  const levels: HttpGatewayAtConcurrency[] = [];
  for (const concurrency of [...new Set([1, config.connections])]) {
    process.stderr.write(`  HTTP upstream, concurrency ${concurrency}\n`);
    const requestFor = (spec: ServerSpec): ScenarioRequest =>
      spec.key === SERVERS.httpRouter.key ? ROUTER_ADD_CALL : ADD_CALL;
    // Not rerun for a low busy share, for the reason stdio's rounds are not: a gateway waits on its upstream.
    const servers = await measureLoad({ ...config, connections: concurrency }, load, HTTP_GATEWAY_SERVERS, requestFor, {
      retryIdleRounds: false,
    });
    levels.push({ concurrency, servers });
  }
  return levels;
}
