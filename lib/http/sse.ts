// SSE connection: headers, `id:`/`event:`/`data:` framing, priming, `retry:`, keep-alive comments, cleanup on close.

import type { ServerResponse } from 'node:http';

/** Settings of every SSE connection of a router. */
export interface SseOptions {
  /** Interval of `: keep-alive` comments, so proxies do not cut an idle stream; false for none. */
  readonly keepAliveMs: number | false;
  /** Reconnection delay advised to clients with `retry:` (MCP 2025-11-25 polling). */
  readonly retryMs: number;
}

/**
 * One open `text/event-stream` response. Every event is `event: message` with one `data:` line (clients
 * such as the official SDK ignore other event names), and an `id:` when the stream is resumable.
 */
export class SseConnection {
  private keepAlive: NodeJS.Timeout | undefined;
  private closed = false;
  /**
   * Frames not yet written. Events of one tick (a handler's burst of progress notifications) go out as one
   * `res.write`: Node frames and copies every write as its own HTTP chunk, which cost more than the events.
   */
  private pending = '';

  /**
   * Writes the headers at once, so the client sees the stream open.
   *
   * @param onActivity - called on every keep-alive (an open stream keeps its session alive)
   * @param onClose - called once, when the connection ends for any reason
   * @param complete - the stream carries a reply that is already complete and ends at once: the headers go out
   *   with its events and the end, in one write instead of three, and no keep-alive timer starts
   */
  constructor(
    private readonly res: ServerResponse,
    options: SseOptions,
    headers: Record<string, string>,
    onActivity: (() => void) | undefined,
    private readonly onClose: () => void,
    complete = false,
  ) {
    res.writeHead(200, {
      ...headers,
      'Content-Type': 'text/event-stream',
      // no-transform: compression proxies must not buffer; X-Accel-Buffering: nginx must not either.
      'Cache-Control': 'no-cache, no-transform',
      'X-Accel-Buffering': 'no',
      Connection: 'keep-alive',
    });
    if (!complete) res.flushHeaders();
    // A caller already gone will never emit 'close' again: start closed, so no keep-alive timer is left behind.
    if (res.destroyed || res.writableEnded) {
      this.cleanUp();
      return;
    }
    res.once('close', () => this.cleanUp());
    if (options.keepAliveMs !== false && !complete) {
      this.keepAlive = setInterval(() => {
        this.write(': keep-alive\n\n');
        onActivity?.();
      }, options.keepAliveMs);
      this.keepAlive.unref();
    }
  }

  /** True until the connection ends. */
  get open(): boolean {
    return !this.closed;
  }

  /**
   * Writes one event. Null data is a priming event: an id and empty data (MCP 2025-11-25).
   *
   * @param data - one JSON-RPC message as JSON text (JSON text has no raw newlines, so one `data:` line)
   * @param retryMs - adds `retry:` advice before the data
   */
  event(id: string | undefined, data: string | null, retryMs?: number): void {
    if (this.closed) return;
    let frame = id === undefined ? '' : `id: ${id}\n`;
    if (retryMs !== undefined) frame += `retry: ${retryMs}\n`;
    frame += data === null ? 'data: \n\n' : `event: message\ndata: ${data}\n\n`;
    this.write(frame);
  }

  /** Ends the response, after what is pending (in the same write: Node corks the socket for `end(chunk)`). */
  end(): void {
    if (this.closed) return;
    const chunk = this.takePending();
    if (chunk === '') this.res.end();
    else this.res.end(chunk);
    this.cleanUp();
  }

  /** Queues `frame`; the first frame of a tick schedules the write of all of them once the tick's work is done. */
  private write(frame: string): void {
    if (this.pending === '') process.nextTick(() => this.flush());
    this.pending += frame;
  }

  private flush(): void {
    if (this.pending !== '' && !this.closed) this.res.write(this.takePending());
  }

  private takePending(): string {
    const chunk = this.pending;
    this.pending = '';
    return chunk;
  }

  private cleanUp(): void {
    if (this.closed) return;
    this.closed = true;
    this.pending = '';
    clearInterval(this.keepAlive);
    this.onClose();
  }
}
