// Scenarios 1m and 2m: scenarios 1 and 2 with MCP 2026-07-28 ("modern") requests, answered without a session.

import { SERVERS, type ServerSpec } from '../harness/catalog';
import type { BenchConfig } from '../harness/config';
import type { LoadGenerator } from '../harness/fleet';
import { MODERN_PROTOCOL_VERSION, MODERN_REQUEST_META, PROGRESS_STEPS } from '../servers/common';
import { measureLoad, type ScenarioRequest, type ServerRuns } from './load-runs';
import { COUNT_CALL } from './stream';
import { ADD_CALL } from './throughput';

/** The headers a 2026-07-28 `tools/call` must carry (SEP-2243), else the router answers 400 -32020. */
function headers2026(toolName: string): Record<string, string> {
  return { 'mcp-protocol-version': MODERN_PROTOCOL_VERSION, 'mcp-method': 'tools/call', 'mcp-name': toolName };
}

type ModernResult = { resultType?: string; content?: Array<{ text?: string }> };

/** Undefined when `result` is a complete 2026-07-28 result whose first text is `text`. */
function wrongModernResult(result: ModernResult | undefined, text: string): string | undefined {
  if (result?.resultType !== 'complete') return `resultType ${JSON.stringify(result?.resultType)}, expected 'complete'`;
  return result.content?.[0]?.text === text
    ? undefined
    : `text ${JSON.stringify(result.content?.[0]?.text)}, expected '${text}'`;
}

/** `add(1, 2)` as a 2026-07-28 request: protocol version and client capabilities in `_meta`, no session. */
export const MODERN_ADD_CALL: ScenarioRequest = {
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: '[<id>]',
    method: 'tools/call',
    params: { name: 'add', arguments: { a: 1, b: 2 }, _meta: MODERN_REQUEST_META },
  }),
  headers: headers2026('add'),
  check(messages) {
    const [reply] = messages as Array<{ result?: ModernResult }>;
    const wrong = messages.length === 1 ? wrongModernResult(reply?.result, '3') : `${messages.length} messages`;
    return wrong === undefined ? undefined : `${wrong}; got ${JSON.stringify(messages).slice(0, 300)}`;
  },
};

/** `count` with a progress token, as a 2026-07-28 request: 100 progress notifications, then the result, on the POST's SSE reply. */
export const MODERN_COUNT_CALL: ScenarioRequest = {
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: '[<id>]',
    method: 'tools/call',
    params: { name: 'count', arguments: {}, _meta: { ...MODERN_REQUEST_META, progressToken: '[<id>]' } },
  }),
  headers: headers2026('count'),
  check(messages) {
    // Scenario 2's check covers the notifications and that a result came last; the result's shape is 2026's.
    const wrong =
      COUNT_CALL.check(messages) ??
      wrongModernResult((messages.at(-1) as { result?: ModernResult }).result, `counted to ${PROGRESS_STEPS}`);
    return wrong === undefined ? undefined : `${wrong}; last message ${JSON.stringify(messages.at(-1)).slice(0, 300)}`;
  },
};

/**
 * Scenario 1m, (a) first. (d), the router answering scenario 1's 2025 request, runs in the same rounds, so that
 * the router's modern path is compared with its 2025 path under the same machine.
 */
export const MODERN_THROUGHPUT_SERVERS = [
  SERVERS.bare,
  SERVERS.routerStateless,
  SERVERS.routerStatelessModern,
  SERVERS.routerProductionModern,
  SERVERS.handProduction,
  SERVERS.sdkV2Modern,
];

/** Scenario 2m: the bare SSE floor, the router with its default (`auto`) replies, and the SDK v2. */
export const MODERN_STREAM_SERVERS = [SERVERS.bare, SERVERS.routerModern, SERVERS.sdkV2Modern];

function modernAddFor(spec: ServerSpec): ScenarioRequest {
  return spec.key === SERVERS.routerStateless.key ? ADD_CALL : MODERN_ADD_CALL;
}

export function measureModernThroughput(config: BenchConfig, load: LoadGenerator): Promise<ServerRuns[]> {
  return measureLoad(config, load, MODERN_THROUGHPUT_SERVERS, modernAddFor, { sideBySide: true });
}

export function measureModernStream(config: BenchConfig, load: LoadGenerator): Promise<ServerRuns[]> {
  return measureLoad(config, load, MODERN_STREAM_SERVERS, MODERN_COUNT_CALL);
}
