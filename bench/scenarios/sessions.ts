// Scenario 3: how fast sessions open, the heap an idle one keeps, and whether deleting them gives it all back.

import { SERVERS, type ServerSpec } from '../harness/catalog';
import { selectServers, serverNodeArgs, type BenchConfig } from '../harness/config';
import { RunningServer, type LoadGenerator } from '../harness/fleet';

/** One repeat on one server: open `count` sessions, measure, delete them, measure. */
export interface SessionRun {
  readonly count: number;
  /** Sessions opened per second (each: initialize, then notifications/initialized). */
  readonly openedPerSecond: number;
  /** (heap with the sessions open − heap before) / count, after full GCs. */
  readonly heapPerSession: number;
  /** Heap after deleting them all − heap before, after full GCs. */
  readonly heapAfterDelete: number;
  /** The same for RSS, which the allocator may keep. */
  readonly rssAfterDelete: number;
}

export interface ServerSessionRuns {
  readonly spec: ServerSpec;
  readonly runs: readonly SessionRun[];
}

/** The bare floor (a Map of `{ createdAt }`), the SDK stateful server and this router with sessions. */
export const SESSION_SERVERS = [SERVERS.bare, SERVERS.sdkStateful, SERVERS.routerStateful];

/** Sessions opened and deleted before the first baseline: JIT, maps and pools reach their working size first. */
const WARMUP_SESSIONS = 500;

async function oneRun(server: RunningServer, load: LoadGenerator, config: BenchConfig): Promise<SessionRun> {
  const target = server.target();
  const before = await server.memory();
  const opened = await load.run({
    kind: 'open-sessions',
    target,
    count: config.sessions,
    connections: config.connections,
  });
  if (opened.failed > 0)
    throw new Error(`${server.spec.label}: ${opened.failed} of ${config.sessions} sessions did not open`);
  const open = await server.memory();
  const closed = await load.run({
    kind: 'close-sessions',
    target,
    sessions: opened.sessions,
    connections: config.connections,
  });
  if (closed.failed > 0) throw new Error(`${server.spec.label}: ${closed.failed} sessions were not deleted`);
  const after = await server.memory();
  return {
    count: config.sessions,
    openedPerSecond: config.sessions / opened.seconds,
    heapPerSession: (open.heapUsed - before.heapUsed) / config.sessions,
    heapAfterDelete: after.heapUsed - before.heapUsed,
    rssAfterDelete: after.rss - before.rss,
  };
}

/** Fresh server processes (no heap left over from other scenarios), interleaved rounds as in the load scenarios. */
export async function measureSessions(config: BenchConfig, load: LoadGenerator): Promise<ServerSessionRuns[]> {
  const servers: RunningServer[] = [];
  try {
    for (const spec of selectServers(config, SESSION_SERVERS)) {
      const server = await RunningServer.start(spec, config.pinning, serverNodeArgs(config));
      servers.push(server);
      const warm = await load.run({
        kind: 'open-sessions',
        target: server.target(),
        count: WARMUP_SESSIONS,
        connections: config.connections,
      });
      await load.run({
        kind: 'close-sessions',
        target: server.target(),
        sessions: warm.sessions,
        connections: config.connections,
      });
    }
    const runs: SessionRun[][] = servers.map(() => []);
    for (let round = 0; round < config.sessionRepeats; round++) {
      for (let step = 0; step < servers.length; step++) {
        const index = (step + round) % servers.length;
        const server = servers[index] as RunningServer;
        const run = await oneRun(server, load, config);
        process.stderr.write(
          `  round ${round + 1} ${server.spec.label}: ${run.openedPerSecond.toFixed(0)} sessions/s, ${run.heapPerSession.toFixed(0)} B heap/session, ` +
            `${(run.heapAfterDelete / 1024).toFixed(0)} KB heap after deleting\n`,
        );
        runs[index]!.push(run);
      }
    }
    return servers.map((server, index) => ({ spec: server.spec, runs: runs[index] as SessionRun[] }));
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}
