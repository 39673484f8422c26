// Measured load runs shared by scenarios 1 and 2: servers checked, warmed up, then loaded in interleaved repeats.

import type { OpenedSession, Target } from '../load/http-client';
import type { CannonResult } from '../load/cannon-result';
import { short, type ServerSpec } from '../harness/catalog';
import type { ServerStats } from '../servers/control';
import { selectServers, serverNodeArgs, type BenchConfig } from '../harness/config';
import { RunningServer, type LoadGenerator } from '../harness/fleet';
import { signInForBench } from '../harness/sign-in';

/** One measured run: autocannon's figures plus the server's CPU time per answered request. */
export interface LoadRun extends CannonResult {
  /** The server's CPU time per answered request, with that of the processes it started (a gateway's upstream programs). */
  readonly cpuMicrosPerRequest: number;
  /** The part of {@link cpuMicrosPerRequest} spent in the processes it started; 0 for a server that starts none. */
  readonly descendantsCpuMicrosPerRequest: number;
  /**
   * The server's CPU time over the run's wall time. A server loaded by 10 connections is busy ~100% of the
   * time; much less means it waited, or its CPU was taken from it (another process, a VM host's steal).
   */
  readonly busyShare: number;
  /** 1, or 2 when the first attempt of this round was disturbed (see {@link DISTURBED_BELOW}). */
  readonly attempts: number;
}

/**
 * A round in which the server was busy less than this share of the wall time lost its CPU to something else
 * (on this shared VM: another tenant, the host's steal), and is run once more; the second attempt stands,
 * whatever it shows. The rule is the same for every server, and the rounds table shows the attempts.
 */
export const DISTURBED_BELOW = 0.85;

/** One side-by-side round: this server and (a) loaded at the same time, sharing the servers' CPU. */
export interface SideBySideRun {
  readonly own: LoadRun;
  readonly base: LoadRun;
}

/** Every measured run of one server, in order. */
export interface ServerRuns {
  readonly spec: ServerSpec;
  readonly runs: readonly LoadRun[];
  /** Rounds side by side with (a), when the scenario asks for them (never for (a) itself). */
  readonly sideBySide?: readonly SideBySideRun[];
  /** What the server reported about itself after its runs, when the scenario asks for it (scenario 4). */
  readonly stats?: ServerStats;
}

/** How a scenario runs its servers beyond the sequential rounds. */
export interface LoadOptions {
  /** Side-by-side rounds with the first server (see {@link measureLoad}). */
  readonly sideBySide?: boolean;
  /** Ask every server for its own figures ({@link RunningServer.stats}) after the last round. */
  readonly stats?: boolean;
  /**
   * Whether a round in which the server was busy under {@link DISTURBED_BELOW} of the time is run again (default
   * true). False where the load leaves the server idle by design: one connection, whose server waits on the client
   * and the network between requests.
   */
  readonly retryIdleRounds?: boolean;
}

/** The request a scenario sends, and how to tell that a server answered it correctly. */
export interface ScenarioRequest {
  /** JSON body; `[<id>]` becomes a unique id per request. */
  readonly body: string;
  /** Headers this request needs besides the server's (2026-07-28: MCP-Protocol-Version, Mcp-Method, Mcp-Name), lower-case. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Undefined when the messages of one reply are right, else what is wrong. */
  check(messages: readonly unknown[]): string | undefined;
}

/** A scenario whose servers do not all get the same request (1m: the 2025 request to (d), beside the modern ones). */
export type RequestPerServer = (spec: ServerSpec) => ScenarioRequest;

/** The server's target with the request's own headers on top (they replace the server's, e.g. MCP-Protocol-Version). */
function withRequestHeaders(target: Target, request: ScenarioRequest): Target {
  return request.headers === undefined
    ? target
    : { url: target.url, headers: { ...target.headers, ...request.headers } };
}

function log(text: string): void {
  process.stderr.write(`${text}\n`);
}

/**
 * Starts every server, checks one reply of each, warms each up, then runs `config.repeats` rounds; each round
 * loads every server once, starting one further along the list, so drift on a shared machine falls on all.
 * The first spec is the base of the ratios, (a).
 * A run with any failed request fails the benchmark: its figures would not mean what they say.
 */
export async function measureLoad(
  config: BenchConfig,
  load: LoadGenerator,
  specs: readonly ServerSpec[],
  requestOf: ScenarioRequest | RequestPerServer,
  options: LoadOptions = {},
): Promise<ServerRuns[]> {
  const servers: RunningServer[] = [];
  try {
    for (const spec of selectServers(config, specs))
      servers.push(await RunningServer.start(spec, config.pinning, serverNodeArgs(config)));
    const targets: Target[] = [];
    const requests = servers.map((server) => (typeof requestOf === 'function' ? requestOf(server.spec) : requestOf));
    for (const [index, server] of servers.entries()) {
      const request = requests[index] as ScenarioRequest;
      // A server that is its own authorization server: the client signs in once, then sends that token throughout.
      const accessToken = server.spec.signsIn ? await signInForBench(server.url) : undefined;
      const session: OpenedSession | undefined = server.spec.sessions
        ? await load.run({ kind: 'open-session', target: server.target(undefined, accessToken) })
        : undefined;
      const target = withRequestHeaders(server.target(session, accessToken), request);
      const probe = await load.run({ kind: 'probe', target, body: request.body.replaceAll('[<id>]', 'probe') });
      const wrong = probe.status === 200 ? request.check(probe.messages) : `HTTP ${probe.status}`;
      if (wrong !== undefined) throw new Error(`${server.spec.label} answered wrongly: ${wrong}`);
      log(`  warm-up ${server.spec.label}`);
      await load.run({
        kind: 'cannon',
        target,
        body: request.body,
        connections: config.connections,
        seconds: config.warmupSeconds,
      });
      targets.push(target);
    }
    const oneRun = async (index: number, attempts: number): Promise<LoadRun> => {
      const server = servers[index] as RunningServer;
      const before = await server.cpuTimes();
      const result = await load.run({
        kind: 'cannon',
        target: targets[index] as Target,
        body: (requests[index] as ScenarioRequest).body,
        connections: config.connections,
        seconds: config.seconds,
      });
      const after = await server.cpuTimes();
      const descendantsMicros = after.descendants - before.descendants;
      const cpuMicros = after.own - before.own + descendantsMicros;
      const answered = Math.max(1, result.ok);
      return {
        ...result,
        cpuMicrosPerRequest: cpuMicros / answered,
        descendantsCpuMicrosPerRequest: descendantsMicros / answered,
        busyShare: cpuMicros / (result.seconds * 1e6),
        attempts,
      };
    };
    const runs: LoadRun[][] = servers.map(() => []);
    for (let round = 0; round < config.repeats; round++) {
      for (let step = 0; step < servers.length; step++) {
        const index = (step + round) % servers.length;
        const server = servers[index] as RunningServer;
        let run: LoadRun | undefined;
        const retries = options.retryIdleRounds ?? true;
        for (
          let attempt = 1;
          run === undefined || (retries && run.busyShare < DISTURBED_BELOW && attempt <= 2);
          attempt++
        ) {
          run = await oneRun(index, attempt);
          if (run.failed > 0)
            throw new Error(`${server.spec.label}: ${run.failed} requests failed in round ${round + 1}`);
          log(
            `  round ${round + 1}${attempt > 1 ? ` (again: the first was disturbed)` : ''} ${server.spec.label}: ${run.perSecond.toFixed(0)} req/s, ` +
              `p50 ${run.p50Ms.toFixed(2)} ms, p99 ${run.p99Ms.toFixed(2)} ms, ${run.cpuMicrosPerRequest.toFixed(0)} µs CPU/req, busy ${(100 * run.busyShare).toFixed(0)}%`,
          );
        }
        runs[index]!.push(run);
      }
    }
    // Side by side: (a) and one other server loaded at once on the same CPU, so a change in the machine's speed
    // (this VM's swings it 2× within minutes) falls on both alike; each one's CPU per request is its cost.
    const sideBySide: SideBySideRun[][] = servers.map(() => []);
    for (let round = 0; options.sideBySide && round < config.repeats; round++) {
      for (let index = 1; index < servers.length; index++) {
        const [base, own] = await Promise.all([oneRun(0, 1), oneRun(index, 1)]);
        const failed = base.failed + own.failed;
        if (failed > 0)
          throw new Error(
            `${servers[index]!.spec.label} side by side with (a): ${failed} requests failed in round ${round + 1}`,
          );
        log(
          `  side by side ${round + 1} ${servers[index]!.spec.label}: ${own.cpuMicrosPerRequest.toFixed(0)} µs CPU/req, ${short(servers[0]!.spec)} ${base.cpuMicrosPerRequest.toFixed(0)} µs`,
        );
        sideBySide[index]!.push({ own, base });
      }
    }
    const stats = options.stats ? await Promise.all(servers.map((server) => server.stats())) : undefined;
    return servers.map((server, index) => ({
      spec: server.spec,
      runs: runs[index] as LoadRun[],
      ...(index > 0 && options.sideBySide ? { sideBySide: sideBySide[index] } : {}),
      ...(stats === undefined ? {} : { stats: stats[index] }),
    }));
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}
