// Test helpers for raw SSE: an incremental `text/event-stream` parser over a fetch body, and JSON-RPC views of its events.

/** One SSE event as the client sees it (comments such as `: keep-alive` are skipped). */
export interface SseEvent {
  /** The `id:` field, when the event had one. */
  id?: string;
  /** The `event:` field, when the event had one. */
  event?: string;
  /** The `data:` lines joined with '\n' ('' for a priming event). */
  data: string;
  /** The `retry:` field, when the event had one. */
  retry?: number;
  /** How many `data:` lines the event had (MCP messages are sent as exactly one). */
  dataLines: number;
}

/**
 * Reads SSE events from a stream of bytes as they arrive. Unlike the WHATWG EventSource algorithm it also
 * yields events whose data is empty, so priming events (an `id:` and an empty `data:`) are visible.
 *
 * @example
 * ```ts
 * const res = await fetch(url, { method: 'POST', headers, body });
 * const events = new SseReader(res.body!);
 * const priming = await events.next(); // { id: 'abc.1', data: '', retry: 1000, dataLines: 1 }
 * const rest = await events.rest();    // every further event, once the server ends the stream
 * ```
 */
export class SseReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffer = '';
  private readonly ready: SseEvent[] = [];
  private done = false;
  private pending: Partial<SseEvent> & { dataParts?: string[] } = {};

  constructor(body: ReadableStream<Uint8Array>) {
    this.reader = body.getReader();
  }

  /** The next event, or undefined once the server ended the stream. */
  async next(): Promise<SseEvent | undefined> {
    while (this.ready.length === 0 && !this.done) {
      const chunk = await this.reader.read();
      if (chunk.done) {
        this.buffer += this.decoder.decode();
        this.done = true;
      } else {
        this.buffer += this.decoder.decode(chunk.value, { stream: true });
      }
      this.parseLines();
    }
    return this.ready.shift();
  }

  /** The next `count` events; fails when the stream ends before. */
  async take(count: number): Promise<SseEvent[]> {
    const events: SseEvent[] = [];
    while (events.length < count) {
      const event = await this.next();
      if (event === undefined)
        throw new Error(`the SSE stream ended after ${events.length} of ${count} events: ${JSON.stringify(events)}`);
      events.push(event);
    }
    return events;
  }

  /** Every remaining event, once the server ends the stream. */
  async rest(): Promise<SseEvent[]> {
    const events: SseEvent[] = [];
    for (let event = await this.next(); event !== undefined; event = await this.next()) events.push(event);
    return events;
  }

  /** Stops reading (the connection is released). */
  async cancel(): Promise<void> {
    await this.reader.cancel().catch(() => undefined);
  }

  private parseLines(): void {
    // SSE lines end in CRLF, LF or CR; a trailing CR may be the first half of a CRLF still to come.
    for (;;) {
      const match = /\r\n|\n|\r/.exec(this.buffer);
      if (match === null) break;
      if (match[0] === '\r' && match.index === this.buffer.length - 1 && !this.done) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      this.parseLine(line);
    }
    if (this.done && this.buffer !== '') {
      // Text after the last line break is an incomplete line: discarded, as EventSource does.
      this.buffer = '';
    }
  }

  private parseLine(line: string): void {
    if (line === '') {
      this.dispatch();
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') (this.pending.dataParts ??= []).push(value);
    else if (field === 'id') this.pending.id = value;
    else if (field === 'event') this.pending.event = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.pending.retry = Number(value);
  }

  private dispatch(): void {
    const { id, event, retry, dataParts } = this.pending;
    this.pending = {};
    if (id === undefined && event === undefined && retry === undefined && dataParts === undefined) return;
    const parsed: SseEvent = { data: (dataParts ?? []).join('\n'), dataLines: dataParts?.length ?? 0 };
    if (id !== undefined) parsed.id = id;
    if (event !== undefined) parsed.event = event;
    if (retry !== undefined) parsed.retry = retry;
    this.ready.push(parsed);
  }
}

/** The JSON-RPC message an event carries (its `data` parsed), or undefined for a priming event (empty data). */
export function messageOf(event: SseEvent): Record<string, unknown> | undefined {
  return event.data === '' ? undefined : (JSON.parse(event.data) as Record<string, unknown>);
}

/** The JSON-RPC messages of events, in order, leaving priming events out. */
export function messagesOf(events: readonly SseEvent[]): Record<string, unknown>[] {
  return events.map(messageOf).filter((message): message is Record<string, unknown> => message !== undefined);
}

/** True for a priming event: an id, empty data, no event name (MCP 2025-11-25). */
export function isPriming(event: SseEvent): boolean {
  return event.id !== undefined && event.data === '' && event.event === undefined;
}
