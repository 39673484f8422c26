// Scenario 2: a tool that sends 100 progress notifications, then its result, on the POST's SSE stream.

import { SERVERS } from '../harness/catalog';
import type { BenchConfig } from '../harness/config';
import type { LoadGenerator } from '../harness/fleet';
import { PROGRESS_STEPS } from '../servers/common';
import { measureLoad, type ScenarioRequest, type ServerRuns } from './load-runs';

/**
 * `count` with a progress token; autocannon's latency of it is the time until the client has read the whole
 * stream, which ends right after the result: all 101 messages.
 */
export const COUNT_CALL: ScenarioRequest = {
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: '[<id>]',
    method: 'tools/call',
    params: { name: 'count', arguments: {}, _meta: { progressToken: '[<id>]' } },
  }),
  check(messages) {
    const progress = messages.slice(0, -1) as Array<{ method?: string; params?: { progress?: number } }>;
    const last = messages.at(-1) as { result?: unknown } | undefined;
    const inOrder = progress.every(
      (message, index) => message.method === 'notifications/progress' && message.params?.progress === index + 1,
    );
    if (progress.length === PROGRESS_STEPS && inOrder && last?.result !== undefined) return undefined;
    return `expected ${PROGRESS_STEPS} progress notifications in order, then the result; got ${messages.length} messages: ${JSON.stringify(messages.slice(0, 2)).slice(0, 300)}`;
  },
};

/**
 * The bare-Express SSE floor, the same floor recording its events for resumption, the SDK (stateful, SSE) and this
 * router (SSE once the handler reports progress, every event recorded in its event store).
 */
export const STREAM_SERVERS = [SERVERS.bare, SERVERS.bareRecording, SERVERS.sdkStateful, SERVERS.routerStateful];

export function measureStream(config: BenchConfig, load: LoadGenerator): Promise<ServerRuns[]> {
  return measureLoad(config, load, STREAM_SERVERS, COUNT_CALL);
}
