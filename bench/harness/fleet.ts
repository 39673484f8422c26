// The processes of a run: one load generator, and the servers under test, each on its pinned CPU.

import type { ControlReply, ReadyMessage, ServerStats } from '../servers/control';
import type { OpenedSession, Target } from '../load/http-client';
import { PROTOCOL_VERSION, sessionHeaders } from '../load/http-client';
import type { LoadResults, LoadTask } from '../load/tasks';
import { Child, type Pinning } from './child';
import type { ServerSpec } from './catalog';

/** The load child: autocannon and the session client, on the load CPU. */
export class LoadGenerator {
  private constructor(private readonly child: Child) {}

  static async start(pinning: Pinning | undefined): Promise<LoadGenerator> {
    const { child } = await Child.start('load generator', 'load/worker.ts', [], pinning?.loadCpu);
    return new LoadGenerator(child);
  }

  run<T extends LoadTask>(task: T): Promise<LoadResults[T['kind']]> {
    return this.child.ask<LoadResults[T['kind']]>(task);
  }

  /** The figures the server keeps about itself (scenario 4's servers: what their OpenTelemetry setup recorded). */
  async stats(): Promise<ServerStats> {
    const reply = await this.child.ask<Extract<ControlReply, { kind: 'stats' }>>({ kind: 'stats' });
    return reply.stats;
  }

  stop(): Promise<void> {
    return this.child.stop();
  }
}

/** A server child listening on loopback, with its control channel. */
export class RunningServer {
  private constructor(
    readonly spec: ServerSpec,
    private readonly child: Child,
    readonly url: string,
  ) {}

  /** @param nodeArgs - extra Node flags, e.g. `--cpu-prof` when profiling */
  static async start(
    spec: ServerSpec,
    pinning: Pinning | undefined,
    nodeArgs: readonly string[] = [],
  ): Promise<RunningServer> {
    const { child, ready } = await Child.start<ReadyMessage>(
      spec.label,
      spec.script,
      spec.args,
      pinning?.serverCpu,
      nodeArgs,
    );
    return new RunningServer(spec, child, `http://127.0.0.1:${ready.port}/mcp`);
  }

  /**
   * The headers of an MCP client of this server: in `session` if given; to a stateless server, with the
   * MCP-Protocol-Version that the official client sends after its (sessionless) initialize; with `accessToken`
   * (a server that {@link ServerSpec.signsIn}) as its bearer token.
   */
  target(session?: OpenedSession, accessToken?: string): Target {
    const sessionless: Record<string, string> = this.spec.sessions ? {} : { 'mcp-protocol-version': PROTOCOL_VERSION };
    return {
      url: this.url,
      ...(this.spec.dpop && { dpop: true }),
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...this.spec.headers,
        ...(accessToken === undefined ? {} : { authorization: `Bearer ${accessToken}` }),
        ...(session === undefined ? sessionless : sessionHeaders(session)),
      },
    };
  }

  /** CPU time (user + system) the server has used so far, in µs: its process's, and that of the processes it started if it counts them. */
  async cpuMicros(): Promise<number> {
    const { own, descendants } = await this.cpuTimes();
    return own + descendants;
  }

  /** CPU time used so far, in µs: the server process's own, and that of the processes it started (a gateway's upstreams; 0 for servers that do not count them). */
  async cpuTimes(): Promise<{ own: number; descendants: number }> {
    const reply = await this.child.ask<Extract<ControlReply, { kind: 'cpu' }>>({ kind: 'cpu' });
    return { own: reply.cpuMicros, descendants: reply.descendantsCpuMicros };
  }

  /** Heap and RSS after full garbage collections. */
  async memory(): Promise<{ heapUsed: number; rss: number }> {
    const { heapUsed, rss } = await this.child.ask<Extract<ControlReply, { kind: 'memory' }>>({ kind: 'memory' });
    return { heapUsed, rss };
  }

  /** The figures the server keeps about itself (scenario 4's servers: what their OpenTelemetry setup recorded). */
  async stats(): Promise<ServerStats> {
    const reply = await this.child.ask<Extract<ControlReply, { kind: 'stats' }>>({ kind: 'stats' });
    return reply.stats;
  }

  stop(): Promise<void> {
    return this.child.stop();
  }
}
