// The bench-only control channel of a server child (IPC, never HTTP): its port, CPU time, heap after GC, and its own figures.

import type { RequestListener } from 'node:http';
import { createServer } from 'node:http';

/** What the harness asks a server child. */
export type ControlRequest = { readonly seq: number; readonly kind: 'cpu' | 'memory' | 'stats' };

/** Figures a server keeps about itself (scenario 4: the spans it exported), as JSON. */
export type ServerStats = object;

/** A server child's answer: CPU time used so far (µs), memory after full garbage collections, or its own figures. */
export type ControlReply =
  | { readonly seq: number; readonly kind: 'cpu'; readonly cpuMicros: number }
  | { readonly seq: number; readonly kind: 'memory'; readonly heapUsed: number; readonly rss: number }
  | { readonly seq: number; readonly kind: 'stats'; readonly stats: ServerStats };

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
 *
 * @param stats - what the server answers to a `stats` request (nothing by default)
 */
export function serveForBench(app: RequestListener, stats: () => Promise<ServerStats> = async () => ({})): void {
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
    } else if (message.kind === 'stats') {
      void stats().then((figures) => send({ seq: message.seq, kind: 'stats', stats: figures }));
    } else {
      void settledMemory().then((memory) => send({ seq: message.seq, kind: 'memory', ...memory }));
    }
  });
  process.on('disconnect', () => process.exit(0));
}
