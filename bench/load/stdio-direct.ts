// Scenario `stdio`'s floor (u0): the SDK v1's Client on StdioClientTransport calling the stdio `add` server from the load child.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { processCpuMicros } from '../servers/process-tree';
import { percentile } from '../stats';
import type { CannonResult } from './cannon-result';

/** Calls of `add` through the SDK's stdio client: `concurrency` loops for `seconds`, after `warmupSeconds` of the same. */
export interface StdioDirectTask {
  readonly kind: 'stdio-direct';
  /** The compiled stdio server, started with this process's Node. */
  readonly script: string;
  /** The CPU the server is pinned to (`taskset`), the servers' CPU as for the gateways' upstreams; undefined: not pinned. */
  readonly cpu: number | undefined;
  /** Calls in flight at once: 1 is the sequential floor. */
  readonly concurrency: number;
  readonly warmupSeconds: number;
  /** Measured rounds, each `seconds` long, with the same process and client throughout. */
  readonly rounds: number;
  readonly seconds: number;
}

/** One measured round: the calls' figures, and the CPU time per call of the client (this process) and of the server. */
export interface StdioDirectRound extends CannonResult {
  readonly clientCpuMicrosPerRequest: number;
  readonly serverCpuMicrosPerRequest: number;
}

export interface StdioDirectResult {
  readonly rounds: readonly StdioDirectRound[];
}

const ADD_ARGUMENTS = { a: 1, b: 2 };

/** Runs `concurrency` loops of `add` until `seconds` have passed; latencies in ms, and the calls that failed. */
async function callFor(
  client: Client,
  concurrency: number,
  seconds: number,
): Promise<{ latencies: number[]; failed: number; seconds: number }> {
  const latencies: number[] = [];
  let failed = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const loop = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const sent = performance.now();
      const result = await client.callTool({ name: 'add', arguments: ADD_ARGUMENTS }).catch(() => undefined);
      const text = (result?.content as Array<{ text?: string }> | undefined)?.[0]?.text;
      if (text === '3') latencies.push(performance.now() - sent);
      else failed++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  return { latencies, failed, seconds: (performance.now() - started) / 1000 };
}

/** Starts the server through the SDK's stdio client, warms it up, measures `rounds` rounds, and ends it. */
export async function runStdioDirect(task: StdioDirectTask): Promise<StdioDirectResult> {
  const node = [process.execPath, task.script];
  const [command, ...args] = task.cpu === undefined ? node : ['taskset', '-c', String(task.cpu), ...node];
  const transport = new StdioClientTransport({ command: command as string, args });
  const client = new Client({ name: 'bench-stdio-client', version: '1.0.0' });
  await client.connect(transport);
  try {
    const pid = transport.pid;
    if (pid === null) throw new Error('the stdio server has no pid');
    await callFor(client, task.concurrency, task.warmupSeconds);
    const rounds: StdioDirectRound[] = [];
    for (let round = 0; round < task.rounds; round++) {
      const clientBefore = process.cpuUsage();
      const serverBefore = processCpuMicros(pid).own;
      const { latencies, failed, seconds } = await callFor(client, task.concurrency, task.seconds);
      const clientUsage = process.cpuUsage(clientBefore);
      const serverMicros = processCpuMicros(pid).own - serverBefore;
      const ok = Math.max(1, latencies.length);
      rounds.push({
        ok: latencies.length,
        failed,
        seconds,
        perSecond: latencies.length / seconds,
        p50Ms: percentile(latencies, 50),
        p99Ms: percentile(latencies, 99),
        clientCpuMicrosPerRequest: (clientUsage.user + clientUsage.system) / ok,
        serverCpuMicrosPerRequest: serverMicros / ok,
      });
    }
    return { rounds };
  } finally {
    await client.close();
  }
}
