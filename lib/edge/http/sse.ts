// SSE connection: headers, `id:`/`event:`/`data:` framing, priming, `retry:`, keep-alive comments, the unsent-bytes bound, cleanup on close.

import type { ServerResponse } from 'node:http';
import type { McpLogger } from '../../core/logger';

/** Settings of every SSE connection of a router. */
export interface SseOptions {
  /** Interval of `: keep-alive` comments, so proxies do not cut an idle stream; false for none. */
  readonly keepAliveMs: number | false;
  /** Reconnection delay advised to clients with `retry:` (MCP 2025-11-25 polling). */
  readonly retryMs: number;
  /** Most bytes a connection may hold unsent (the router's `streamBufferLimit`); past it, the connection is cut. */
  readonly streamBufferLimit: number;
  /** Where a cut is reported, once per connection. */
  readonly logger: McpLogger;
}

/** How one event is written. */
export interface SseEventOptions {
  /** Adds `retry:` advice before the data. */
  readonly retryMs?: number;
  /**
   * The event is part of a finite answer the server holds for the client anyway (a response, a replay of recorded
   * events), as a JSON reply would be: its bytes never count toward `streamBufferLimit`, only what queues behind them.
   */
  readonly owed?: boolean;
}

/** An event written as it comes (made once: every live event passes here). */
export const LIVE_EVENT: SseEventOptions = Object.freeze({});
/** An event owed to the client (see {@link SseEventOptions.owed}). */
export const OWED_EVENT: SseEventOptions = Object.freeze({ owed: true });

/**
 * One open `text/event-stream` response. Every event is `event: message` with one `data:` line (clients
 * such as the official SDK ignore other event names), and an `id:` when the stream is resumable.
 *
 * A client that stops reading would make the server hold every later event (Node buffers writes without bound):
 * the bytes held unsent (`res.writableLength` plus what this connection has not written yet) are bounded by
 * `streamBufferLimit`. An event that would take them past it cuts the connection instead (destroyed: a client that
 * does not read would not read an orderly end either); a resumable stream's client resumes from its last event id.
 */
export class SseConnection {
  private keepAlive: NodeJS.Timeout | undefined;
  private closed = false;
  /**
   * Frames not yet written. Events of one tick (a handler's burst of progress notifications) go out as one
   * `res.write`: Node frames and copies every write as its own HTTP chunk, which cost more than the events.
   */
  private pending = '';
  private pendingBytes = 0;
  /** Bytes of events queued since the connection opened (written or pending). */
  private queuedBytes = 0;
  /** Where owed events lie in the byte sequence of the events: `[start, end)` ranges, oldest first, merged when adjacent. */
  private owed: Array<[number, number]> = [];
  /** Who learns of the close (its owner: the stream it is attached to, a listen stream's bookkeeping). */
  private closeListeners: Array<() => void> = [];

  /**
   * Writes the headers at once, so the client sees the stream open.
   *
   * @param onActivity - called on every keep-alive (an open stream keeps its session alive)
   * @param complete - the stream carries a reply that is already complete and ends at once: the headers go out
   *   with its events and the end, in one write instead of three, and no keep-alive timer starts
   */
  constructor(
    private readonly res: ServerResponse,
    private readonly options: SseOptions,
    headers: Record<string, string>,
    onActivity?: () => void,
    complete = false,
  ) {
    // No `Connection` header: Node answers the client's own (RFC 9110 §7.6.1), keep-alive unless it asked to close or
    // spoke HTTP/1.0 without asking to keep it. Writing `keep-alive` here would hold the socket of a client that did.
    res.writeHead(200, {
      ...headers,
      'Content-Type': 'text/event-stream',
      // no-transform: compression proxies must not buffer; X-Accel-Buffering: nginx must not either.
      'Cache-Control': 'no-cache, no-transform',
      'X-Accel-Buffering': 'no',
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
        this.write(': keep-alive\n\n', false);
        onActivity?.();
      }, options.keepAliveMs);
      this.keepAlive.unref();
    }
  }

  /** True until the connection ends. */
  get open(): boolean {
    return !this.closed;
  }

  /** Calls `listener` once when the connection ends for any reason (at once if it has ended already). */
  whenClosed(listener: () => void): void {
    if (this.closed) listener();
    else this.closeListeners.push(listener);
  }

  /**
   * Writes one event. Null data is a priming event: an id and empty data (MCP 2025-11-25).
   *
   * @param data - one JSON-RPC message as JSON text (JSON text has no raw newlines, so one `data:` line)
   */
  event(id: string | undefined, data: string | null, options: SseEventOptions = LIVE_EVENT): void {
    if (this.closed) return;
    let frame = id === undefined ? '' : `id: ${id}\n`;
    if (options.retryMs !== undefined) frame += `retry: ${options.retryMs}\n`;
    frame += data === null ? 'data: \n\n' : `event: message\ndata: ${data}\n\n`;
    this.write(frame, options.owed === true);
  }

  /** Ends the response, after what is pending (in the same write: Node corks the socket for `end(chunk)`). */
  end(): void {
    if (this.closed) return;
    const chunk = this.takePending();
    if (chunk === '') this.res.end();
    else this.res.end(chunk);
    this.cleanUp();
  }

  /** Queues `frame`, or cuts the connection when the bytes held unsent would pass the bound; the first frame of a tick schedules the write of all of them. */
  private write(frame: string, owed: boolean): void {
    const bytes = Buffer.byteLength(frame);
    const limit = this.options.streamBufferLimit;
    // All unsent bytes, owed ones included, bound what is held: only near the limit is the exact figure worked out.
    if (!owed && this.res.writableLength + this.pendingBytes + bytes > limit) {
      const held = this.heldBytes();
      // One event larger than the bound still goes out to a client that has taken everything before it.
      if (held > 0 && held + bytes > limit) {
        this.cut(held);
        return;
      }
    }
    if (this.pending === '') process.nextTick(() => this.flush());
    this.pending += frame;
    this.pendingBytes += bytes;
    if (owed) this.markOwed(this.queuedBytes, this.queuedBytes + bytes);
    this.queuedBytes += bytes;
  }

  /** The bytes held unsent, owed events left out. */
  private heldBytes(): number {
    const unsent = this.res.writableLength + this.pendingBytes;
    // Everything before `sent` left the process (the headers and chunk framing counted in writableLength make it a little late).
    const sent = Math.max(0, this.queuedBytes - unsent);
    let owedUnsent = 0;
    while (this.owed.length > 0 && (this.owed[0] as [number, number])[1] <= sent) this.owed.shift();
    for (const [start, end] of this.owed) owedUnsent += end - Math.max(start, sent);
    return Math.max(0, unsent - owedUnsent);
  }

  private markOwed(start: number, end: number): void {
    const last = this.owed[this.owed.length - 1];
    if (last !== undefined && last[1] === start) last[1] = end;
    else this.owed.push([start, end]);
  }

  /** The client stopped reading: what it did not take is dropped with the socket, and the stream's owner learns it from {@link SseConnection.whenClosed}. */
  private cut(held: number): void {
    const limit = this.options.streamBufferLimit;
    this.options.logger.warn(
      `mcpRouter: an SSE client stopped reading with ${held} bytes unsent (streamBufferLimit: ${limit}); its connection was closed`,
    );
    this.res.destroy();
    this.cleanUp();
  }

  private flush(): void {
    if (this.pending !== '' && !this.closed) this.res.write(this.takePending());
  }

  private takePending(): string {
    const chunk = this.pending;
    this.pending = '';
    this.pendingBytes = 0;
    return chunk;
  }

  private cleanUp(): void {
    if (this.closed) return;
    this.closed = true;
    this.pending = '';
    this.pendingBytes = 0;
    this.owed = [];
    clearInterval(this.keepAlive);
    this.keepAlive = undefined;
    const listeners = this.closeListeners;
    this.closeListeners = [];
    for (const listener of listeners) listener();
  }
}
