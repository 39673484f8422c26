// Scenario `streams` (issue 34, goal 5): the memory an open SSE stream keeps in the server, 2025 GET streams and 2026 listen streams.

import { SERVERS, type ServerSpec } from '../harness/catalog';
import { selectServers, serverNodeArgs, type BenchConfig } from '../harness/config';
import { RunningServer, type LoadGenerator } from '../harness/fleet';
import { sessionHeaders, type OpenedSession } from '../load/http-client';
import { MODERN_PROTOCOL_VERSION, MODERN_REQUEST_META } from '../servers/common';

/** The two kinds of long-lived stream: a session's GET stream (2025 eras), a `subscriptions/listen` POST (2026-07-28). */
export type StreamKind = 'get' | 'listen';

/** One server, one kind: `count` streams opened, the server's memory before and with them open, and after they closed. */
export interface StreamMemoryRun {
  readonly kind: StreamKind;
  readonly count: number;
  readonly openedPerSecond: number;
  /** (heap with the streams open − heap before) / count, after full GCs in the server. */
  readonly heapPerStream: number;
  readonly rssPerStream: number;
  /** Heap after the client hung up on them all − heap before. */
  readonly heapAfterClose: number;
}

export interface ServerStreamRuns {
  readonly spec: ServerSpec;
  readonly runs: readonly StreamMemoryRun[];
}

/**
 * (a) holds a hand-written SSE response for either kind (the floor); the SDK v1 stateful server has GET streams (one
 * per session, as every MCP transport); the router runs (e)'s options with its stream caps raised.
 */
export const STREAMS_SERVERS = [SERVERS.bare, SERVERS.sdkStateful, SERVERS.routerStreams];

/** The kinds each server has. */
function kindsOf(spec: ServerSpec): StreamKind[] {
  return spec.key === SERVERS.sdkStateful.key ? ['get'] : ['get', 'listen'];
}

/** Streams opened and closed before the first baseline, so that pools and compiled code are at their working size. */
const WARMUP_STREAMS = 500;
/** Sockets opening at once: under Node's listen backlog (511). */
const PARALLEL_OPENS = 100;

function getRequest(port: number, session: OpenedSession): string {
  const headers = { host: `127.0.0.1:${port}`, accept: 'text/event-stream', ...sessionHeaders(session) };
  return `GET /mcp HTTP/1.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;
}

function listenRequest(port: number, id: number): string {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'subscriptions/listen',
    params: { notifications: { toolsListChanged: true }, _meta: MODERN_REQUEST_META },
  });
  const headers = {
    host: `127.0.0.1:${port}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN_PROTOCOL_VERSION,
    'mcp-method': 'subscriptions/listen',
    'content-length': String(Buffer.byteLength(body)),
  };
  return `POST /mcp HTTP/1.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n${body}`;
}

/** Opens `count` streams of `kind` and holds them; for GET streams, first one session per stream. */
async function openAndHold(server: RunningServer, load: LoadGenerator, kind: StreamKind, count: number) {
  const port = Number(new URL(server.url).port);
  let sessions: readonly OpenedSession[] = [];
  if (kind === 'get') {
    const opened = await load.run({ kind: 'open-sessions', target: server.target(), count, connections: 10 });
    if (opened.failed > 0) throw new Error(`${server.spec.label}: ${opened.failed} of ${count} sessions did not open`);
    sessions = opened.sessions;
  }
  const requests =
    kind === 'get'
      ? sessions.map((session) => getRequest(port, session))
      : Array.from({ length: count }, (_, id) => listenRequest(port, id));
  return {
    sessions,
    open: async () => {
      const result = await load.run({
        kind: 'open-streams',
        port,
        requests,
        waitFor: kind === 'listen' ? 'notifications/subscriptions/acknowledged' : '',
        parallel: PARALLEL_OPENS,
      });
      if (result.failed > 0)
        throw new Error(
          `${server.spec.label}: ${result.failed} of ${count} ${kind} streams did not open: ${result.firstFailure}`,
        );
      return result;
    },
    release: async () => {
      await load.run({ kind: 'close-streams' });
      if (sessions.length > 0)
        await load.run({ kind: 'close-sessions', target: server.target(), sessions, connections: 10 });
    },
  };
}

async function oneRun(
  server: RunningServer,
  load: LoadGenerator,
  kind: StreamKind,
  count: number,
): Promise<StreamMemoryRun> {
  const streams = await openAndHold(server, load, kind, count);
  // The baseline has the sessions open (a GET stream needs one): the figure is the stream's own cost.
  const before = await server.memory();
  const opened = await streams.open();
  const open = await server.memory();
  await load.run({ kind: 'close-streams' });
  const after = await server.memory();
  await streams.release();
  return {
    kind,
    count,
    openedPerSecond: count / opened.seconds,
    heapPerStream: (open.heapUsed - before.heapUsed) / count,
    rssPerStream: (open.rss - before.rss) / count,
    heapAfterClose: after.heapUsed - before.heapUsed,
  };
}

/** Each server in a fresh process, one round per kind, after a warm-up of {@link WARMUP_STREAMS} streams of that kind. */
export async function measureStreams(config: BenchConfig, load: LoadGenerator): Promise<ServerStreamRuns[]> {
  const results: ServerStreamRuns[] = [];
  for (const spec of selectServers(config, STREAMS_SERVERS)) {
    const server = await RunningServer.start(spec, config.pinning, serverNodeArgs(config));
    try {
      const runs: StreamMemoryRun[] = [];
      for (const kind of kindsOf(spec)) {
        const warm = await openAndHold(server, load, kind, WARMUP_STREAMS);
        await warm.open();
        await warm.release();
        const run = await oneRun(server, load, kind, config.streams);
        process.stderr.write(
          `  ${spec.label}, ${run.count} ${kind} streams: ${run.heapPerStream.toFixed(0)} B heap and ${run.rssPerStream.toFixed(0)} B RSS per stream, ` +
            `${(run.heapAfterClose / 1024).toFixed(0)} KB heap after closing, ${run.openedPerSecond.toFixed(0)} opened/s\n`,
        );
        runs.push(run);
      }
      results.push({ spec, runs });
    } finally {
      await server.stop();
    }
  }
  return results;
}
