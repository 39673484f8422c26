// The Redis scenario's load test, run in the load child: mixed 2025 and 2026 traffic over many open sessions, GET streams held open on some.

import { Agent, request, type ClientRequest } from 'node:http';
import { MODERN_PROTOCOL_VERSION, MODERN_REQUEST_META } from '../servers/common';
import { percentile } from '../stats';
import { keepAliveAgent, messagesOf, send, sessionHeaders, type OpenedSession, type Target } from './http-client';

/** `seconds` of mixed requests on `connections` keep-alive connections, each to a random one of `sessions`. */
export interface MixedTrafficTask {
  readonly kind: 'mixed-traffic';
  readonly target: Target;
  readonly sessions: readonly OpenedSession[];
  readonly seconds: number;
  readonly connections: number;
  /** How many of the sessions hold a GET stream open for the whole run. */
  readonly streams: number;
}

/** One kind of request of the mix: its share, and what a right answer is. */
interface RequestKind {
  readonly name: string;
  readonly weight: number;
  /** Whether it is sent in a 2025 session (else it is a 2026-07-28 request: no session, `_meta` and headers). */
  readonly inSession: boolean;
  body(id: number): string;
  readonly headers: Readonly<Record<string, string>>;
  /** Undefined when the one JSON-RPC reply is right, else what is wrong. */
  check(result: Record<string, unknown>): string | undefined;
}

const text = (result: Record<string, unknown>): unknown =>
  (result.content as Array<{ text?: unknown }> | undefined)?.[0]?.text;

/** The mix: 40% `tools/call add`, 20% `tools/list`, 20% `ping` in sessions, 20% 2026-07-28 `tools/call add`. */
export const MIX: readonly RequestKind[] = [
  {
    name: 'tools/call (2025)',
    weight: 40,
    inSession: true,
    body: (id) =>
      JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 } } }),
    headers: {},
    check: (result) => (text(result) === '3' ? undefined : `text ${JSON.stringify(text(result))}`),
  },
  {
    name: 'tools/list (2025)',
    weight: 20,
    inSession: true,
    body: (id) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' }),
    headers: {},
    check: (result) =>
      (result.tools as Array<{ name?: string }> | undefined)?.some((tool) => tool.name === 'add')
        ? undefined
        : 'no tool add',
  },
  {
    name: 'ping (2025)',
    weight: 20,
    inSession: true,
    body: (id) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }),
    headers: {},
    check: () => undefined,
  },
  {
    name: 'tools/call (2026-07-28)',
    weight: 20,
    inSession: false,
    body: (id) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'add', arguments: { a: 1, b: 2 }, _meta: MODERN_REQUEST_META },
      }),
    headers: { 'mcp-protocol-version': MODERN_PROTOCOL_VERSION, 'mcp-method': 'tools/call', 'mcp-name': 'add' },
    check: (result) =>
      result.resultType !== 'complete'
        ? `resultType ${JSON.stringify(result.resultType)}`
        : text(result) === '3'
          ? undefined
          : `text ${JSON.stringify(text(result))}`,
  },
];

export interface MixedTrafficResult {
  readonly requests: number;
  readonly failed: number;
  /** Requests and failures per kind of the mix. */
  readonly perKind: ReadonlyArray<{ readonly name: string; readonly requests: number; readonly failed: number }>;
  readonly seconds: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly streamsOpened: number;
  /** GET streams refused, or ended before the run did. */
  readonly streamsFailed: number;
  /** The first few failures, described. */
  readonly failures: readonly string[];
}

/** Picks a kind of the mix by weight. */
function pick(): RequestKind {
  let roll = Math.random() * MIX.reduce((sum, kind) => sum + kind.weight, 0);
  for (const kind of MIX) if ((roll -= kind.weight) < 0) return kind;
  return MIX[0] as RequestKind;
}

/** Opens GET streams on `sessions` and resolves once each has answered (or failed), within 10 s. */
async function openStreams(
  target: Target,
  sessions: readonly OpenedSession[],
  onFailure: (what: string) => void,
  isEnding: () => boolean,
): Promise<{ requests: ClientRequest[]; opened: number }> {
  const agent = new Agent({ keepAlive: false });
  const requests: ClientRequest[] = [];
  let opened = 0;
  await Promise.all(
    sessions.map(
      (session) =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            onFailure(`GET stream: no answer within 10 s`);
            resolve();
          }, 10_000);
          const done = (): void => {
            clearTimeout(timer);
            resolve();
          };
          const req = request(
            target.url,
            {
              method: 'GET',
              agent,
              headers: { ...target.headers, accept: 'text/event-stream', ...sessionHeaders(session) },
            },
            (res) => {
              if (res.statusCode === 200 && String(res.headers['content-type']).startsWith('text/event-stream'))
                opened++;
              else onFailure(`GET stream: HTTP ${res.statusCode}`);
              res.on('data', () => undefined);
              res.on('close', () => {
                if (!isEnding()) onFailure('GET stream ended before the run did');
              });
              done();
            },
          );
          req.on('error', (err) => {
            if (!isEnding()) onFailure(`GET stream: ${err.message}`);
            done();
          });
          req.end();
          requests.push(req);
        }),
    ),
  );
  return { requests, opened };
}

/** Runs the mix; every non-2xx reply, JSON-RPC error, wrong result or socket error counts as failed. */
export async function runMixedTraffic(task: MixedTrafficTask): Promise<MixedTrafficResult> {
  const failures: string[] = [];
  let streamsFailed = 0;
  let ending = false;
  const streams = await openStreams(
    task.target,
    task.sessions.slice(0, task.streams),
    (what) => {
      streamsFailed++;
      if (failures.length < 10) failures.push(what);
    },
    () => ending,
  );
  const agent = keepAliveAgent(task.connections);
  const counts = new Map(MIX.map((kind) => [kind.name, { requests: 0, failed: 0 }]));
  const latencies: number[] = [];
  let id = 0;
  const started = performance.now();
  const end = started + task.seconds * 1000;
  const worker = async (): Promise<void> => {
    while (performance.now() < end) {
      const kind = pick();
      const count = counts.get(kind.name) as { requests: number; failed: number };
      count.requests++;
      const session = task.sessions[Math.floor(Math.random() * task.sessions.length)] as OpenedSession;
      const headers = kind.inSession ? { ...sessionHeaders(session), ...kind.headers } : kind.headers;
      const sent = performance.now();
      let wrong: string | undefined;
      try {
        const reply = await send('POST', task.target, kind.body(++id), agent, headers);
        if (reply.status !== 200) wrong = `HTTP ${reply.status}: ${reply.body.slice(0, 200)}`;
        else {
          const [message] = messagesOf(reply) as Array<{ result?: Record<string, unknown>; error?: unknown }>;
          wrong = message?.result === undefined ? `no result: ${reply.body.slice(0, 200)}` : kind.check(message.result);
        }
      } catch (err) {
        wrong = err instanceof Error ? err.message : String(err);
      }
      if (wrong === undefined) latencies.push(performance.now() - sent);
      else {
        count.failed++;
        if (failures.length < 10) failures.push(`${kind.name}: ${wrong}`);
      }
    }
  };
  await Promise.all(Array.from({ length: task.connections }, worker));
  const seconds = (performance.now() - started) / 1000;
  ending = true;
  for (const req of streams.requests) req.destroy();
  agent.destroy();
  const perKind = MIX.map((kind) => ({
    name: kind.name,
    ...(counts.get(kind.name) as { requests: number; failed: number }),
  }));
  const requests = perKind.reduce((sum, kind) => sum + kind.requests, 0);
  return {
    requests,
    failed: perKind.reduce((sum, kind) => sum + kind.failed, 0) + streamsFailed,
    perKind,
    seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    streamsOpened: streams.opened,
    streamsFailed,
    failures,
  };
}
