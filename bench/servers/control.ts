// The bench-only control channel of a server child (IPC, never HTTP): its port, CPU time, and heap after GC.

import type { RequestListener } from 'node:http';
import { createServer } from 'node:http';

/** What the harness asks a server child. */
export type ControlRequest = { readonly seq: number; readonly kind: 'cpu' | 'memory' };

/** A server child's answer: CPU time used so far (µs), or memory after full garbage collections. */
export type ControlReply =
  | { readonly seq: number; readonly kind: 'cpu'; readonly cpuMicros: number }
  | { readonly seq: number; readonly kind: 'memory'; readonly heapUsed: number; readonly rss: number };

/** First message of a child: the port it listens on. */
export type ReadyMessage = { readonly kind: 'ready'; readonly port: number };

/** Full collections until the heap stops shrinking: one gc() can leave garbage that finalizers freed late. */
async function settledMemory(): Promise<{ heapUsed: number; rss: number }> {
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

/**
 * Serves `app` on a free loopback port and answers the harness over IPC. The child exits when the harness
 * disconnects, so no server outlives a benchmark run.
 */
export function serveForBench(app: RequestListener): void {
  const send = (message: ReadyMessage | ControlReply): void => {
    process.send?.(message);
  };
  const server = createServer(app);
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('bench server: no TCP address');
    send({ kind: 'ready', port: address.port });
  });
  process.on('message', (message: ControlRequest) => {
    if (message.kind === 'cpu') {
      const { user, system } = process.cpuUsage();
      send({ seq: message.seq, kind: 'cpu', cpuMicros: user + system });
    } else {
      void settledMemory().then((memory) => send({ seq: message.seq, kind: 'memory', ...memory }));
    }
  });
  process.on('disconnect', () => process.exit(0));
}
