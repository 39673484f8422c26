// The bench-only control channel of a server child (IPC, never HTTP): its port, CPU time, heap after GC, and its own figures.

import type { RequestListener } from 'node:http';
import { createServer } from 'node:http';
import { descendantsCpuMicros, processCpuMicros } from './process-tree';

/** What the harness asks a server child. */
export type ControlRequest = { readonly seq: number; readonly kind: 'cpu' | 'memory' | 'stats' };

/** Figures a server keeps about itself (scenario 4: the spans it exported), as JSON. */
export type ServerStats = object;

/**
 * A server child's answer: CPU time used so far (µs; `cpuMicros` the server's own, `descendantsCpuMicros` that of the
 * processes it started, a gateway's upstream programs), memory after full garbage collections, or its own figures.
 */
export type ControlReply =
  | { readonly seq: number; readonly kind: 'cpu'; readonly cpuMicros: number; readonly descendantsCpuMicros: number }
  | { readonly seq: number; readonly kind: 'memory'; readonly heapUsed: number; readonly rss: number }
  | { readonly seq: number; readonly kind: 'stats'; readonly stats: ServerStats };

/** First message of a child: the port it listens on. */
export type ReadyMessage = { readonly kind: 'ready'; readonly port: number };

/** Full collections until the heap stops shrinking: one gc() can leave garbage that finalizers freed late. */
export async function settledMemory(): Promise<{ heapUsed: number; rss: number }> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('bench servers run with --expose-gc');
  let last = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 10; round++) {
    gc();
    // Let timers, sockets closing and FinalizationRegistry callbacks run between collections.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const { heapUsed } = process.memoryUsage();
    if (heapUsed >= last - 1024) break;
    last = heapUsed;
  }
  const { heapUsed, rss } = process.memoryUsage();
  return { heapUsed, rss };
}

/** What a server child reports beyond its port and its own CPU time. */
export interface BenchServerOptions {
  /** What it answers to a `stats` request (nothing by default). */
  readonly stats?: () => Promise<ServerStats>;
  /**
   * Whether its CPU replies also count the processes it started (a gateway's upstream programs). Off for the
   * others: the /proc scan would only add its own cost to their figures.
   */
  readonly countDescendants?: boolean;
  /**
   * The gateway's process when it is not this one (a child that runs another program, `supergateway.ts`): its CPU
   * time counts as the server's own, and that of the processes it started (live or reaped) as descendants'.
   */
  readonly gatewayPid?: number;
}

/** CPU time so far (µs): the server's own, and that of the processes it started, as {@link BenchServerOptions} says. */
function cpuTimes({ countDescendants = false, gatewayPid }: BenchServerOptions): { own: number; descendants: number } {
  // The scans first, this process's reading last: one scan's few ms fall inside a measured window, never two.
  const gateway = gatewayPid === undefined ? { own: 0, reaped: 0 } : processCpuMicros(gatewayPid);
  const started =
    gatewayPid !== undefined
      ? gateway.reaped + descendantsCpuMicros(gatewayPid)
      : countDescendants
        ? descendantsCpuMicros()
        : 0;
  const { user, system } = process.cpuUsage();
  return { own: user + system + gateway.own, descendants: started };
}

/**
 * Serves `app` on a free loopback port and answers the harness over IPC. The child exits when the harness
 * disconnects, so no server outlives a benchmark run.
 */
export function serveForBench(app: RequestListener, options: BenchServerOptions = {}): void {
  const server = createServer(app);
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('bench server: no TCP address');
    answerHarness(address.port, options);
  });
}

/**
 * Tells the harness that the server listens on `port` (of 127.0.0.1) and answers its control requests from now on;
 * {@link serveForBench} for an Express app, called directly by a child that runs another program's server
 * (`supergateway.ts`). The child exits when the harness disconnects.
 */
export function answerHarness(port: number, options: BenchServerOptions = {}): void {
  const stats = options.stats ?? (async () => ({}));
  const send = (message: ReadyMessage | ControlReply): void => {
    process.send?.(message);
  };
  send({ kind: 'ready', port });
  process.on('message', (message: ControlRequest) => {
    if (message.kind === 'cpu') {
      const { own, descendants } = cpuTimes(options);
      send({ seq: message.seq, kind: 'cpu', cpuMicros: own, descendantsCpuMicros: descendants });
    } else if (message.kind === 'stats') {
      void stats().then((figures) => send({ seq: message.seq, kind: 'stats', stats: figures }));
    } else {
      void settledMemory().then((memory) => send({ seq: message.seq, kind: 'memory', ...memory }));
    }
  });
  process.on('disconnect', () => process.exit(0));
}
