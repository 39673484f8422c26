// Scenario 1: `tools/call add` throughput, latency and server CPU per request, for every server.

import { SERVERS } from '../harness/catalog';
import type { BenchConfig } from '../harness/config';
import type { LoadGenerator } from '../harness/fleet';
import { measureLoad, type ScenarioRequest, type ServerRuns } from './load-runs';

/** `add(1, 2)` with a unique id per request. */
export const ADD_CALL: ScenarioRequest = {
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: '[<id>]',
    method: 'tools/call',
    params: { name: 'add', arguments: { a: 1, b: 2 } },
  }),
  check(messages) {
    const [reply] = messages as Array<{ result?: { content?: Array<{ text?: string }> } }>;
    const text = reply?.result?.content?.[0]?.text;
    return messages.length === 1 && text === '3'
      ? undefined
      : `expected one result with text '3', got ${JSON.stringify(messages).slice(0, 300)}`;
  },
};

/** The servers of scenario 1, (a) first: every figure is a ratio to it. */
export const THROUGHPUT_SERVERS = [
  SERVERS.bare,
  SERVERS.sdkStateless,
  SERVERS.sdkStateful,
  SERVERS.routerStateless,
  SERVERS.routerStateful,
  SERVERS.routerStatefulSse,
  SERVERS.routerProduction,
  SERVERS.handProduction,
];

export function measureThroughput(config: BenchConfig, load: LoadGenerator): Promise<ServerRuns[]> {
  return measureLoad(config, load, THROUGHPUT_SERVERS, ADD_CALL, { sideBySide: true });
}
