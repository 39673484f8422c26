// The SSE reader of the upstream client: the events of a text/event-stream body, read in one pass, each bounded in bytes.

import { UpstreamFault } from './http-body';

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
const DATA = Buffer.from('data');
const ID = Buffer.from('id');
/** U+FEFF in UTF-8. */
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** One dispatched server-sent event: its data, and the stream's last event ID once it was read. */
export interface SseEvent {
  /** The data lines joined with LF; empty for an event that only set an id (a priming event). */
  readonly data: string;
  /**
   * The last event ID after this event (HTML › Server-sent events: the buffer persists from event to event until an
   * `id` field changes it), what a reconnecting client sends as `Last-Event-ID`; undefined until the stream sets one.
   */
  readonly id: string | undefined;
}

/** Whether `line[start, end)` names `field`: the field alone, or the field then a colon. */
function isField(line: Buffer, start: number, end: number, field: Buffer): boolean {
  const after = start + field.length;
  return (
    (after === end || (after < end && line[after] === COLON)) &&
    line.compare(field, 0, field.length, start, after) === 0
  );
}

/**
 * The events of one stream, fed its bytes chunk by chunk. Lines are split as bytes, each byte scanned once: CR and LF
 * never occur inside a UTF-8 sequence, so a line is decoded only once whole, and every size is counted in bytes.
 */
class SseParser {
  readonly #limit: number;
  /** The parts of the line not yet ended, copied (a stream may reuse a chunk's memory). */
  #held: Buffer[] = [];
  #heldBytes = 0;
  /** The last line ended with CR: an LF that comes next is the second half of CRLF. */
  #afterCr = false;
  /** How many bytes of a leading BOM were seen; undefined once the stream's start is past. */
  #bomMatched: number | undefined = 0;
  #data: string[] = [];
  #dataBytes = 0;
  #id: string | undefined;
  #idSeen = false;
  /** The events dispatched by the chunk fed last. */
  readonly events: SseEvent[] = [];

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Takes one chunk: dispatches the events it completes into `events`; holds the unfinished line. */
  feed(value: Uint8Array): void {
    const chunk = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    let start = 0;
    // HTML › Server-sent events: one leading U+FEFF BYTE ORDER MARK is ignored, even split across chunks.
    while (this.#bomMatched !== undefined && start < chunk.length) {
      if (chunk[start] === BOM[this.#bomMatched]) {
        start++;
        if (++this.#bomMatched === BOM.length) this.#bomMatched = undefined;
      } else {
        // Not a BOM after all: the bytes taken for one are the line's first.
        if (this.#bomMatched > 0) this.#hold(BOM.subarray(0, this.#bomMatched));
        this.#bomMatched = undefined;
      }
    }
    let nextLf = chunk.indexOf(LF, start);
    let nextCr = chunk.indexOf(CR, start);
    while (start < chunk.length) {
      if (this.#afterCr) {
        this.#afterCr = false;
        if (chunk[start] === LF) {
          start++;
          continue;
        }
      }
      // Each search runs again only once the scan passed its last hit: one pass over the chunk in all.
      if (nextLf !== -1 && nextLf < start) nextLf = chunk.indexOf(LF, start);
      if (nextCr !== -1 && nextCr < start) nextCr = chunk.indexOf(CR, start);
      const end = nextLf === -1 ? nextCr : nextCr === -1 ? nextLf : Math.min(nextLf, nextCr);
      if (end === -1) break;
      if (this.#held.length === 0) this.#line(chunk, start, end);
      else {
        const line = Buffer.concat([...this.#held, chunk.subarray(start, end)]);
        this.#held = [];
        this.#heldBytes = 0;
        this.#line(line, 0, line.length);
      }
      this.#afterCr = chunk[end] === CR;
      start = end + 1;
    }
    if (start < chunk.length) this.#hold(chunk.subarray(start));
  }

  /** Keeps (a copy of) the start of a line not yet ended, bounded like a whole one. */
  #hold(part: Buffer): void {
    this.#heldBytes += part.length;
    if (this.#heldBytes > this.#limit) throw new UpstreamFault(`sent an event line larger than ${this.#limit} bytes`);
    this.#held.push(Buffer.from(part));
  }

  /** One line (`data:` lines join with LF; a blank line dispatches; `id:` sets the last event ID unless it holds NULL). */
  #line(line: Buffer, start: number, end: number): void {
    if (start === end) {
      if (this.#data.length > 0 || this.#idSeen) this.events.push({ data: this.#data.join('\n'), id: this.#id });
      this.#data = [];
      this.#dataBytes = 0;
      this.#idSeen = false;
      return;
    }
    const field = isField(line, start, end, DATA) ? DATA : isField(line, start, end, ID) ? ID : undefined;
    if (field === undefined) return;
    let from = Math.min(start + field.length + 1, end);
    if (from < end && line[from] === SPACE) from++;
    if (field === DATA) {
      this.#dataBytes += end - from;
      if (this.#dataBytes > this.#limit) throw new UpstreamFault(`sent an event larger than ${this.#limit} bytes`);
      this.#data.push(line.toString('utf8', from, end));
    } else if (line.indexOf(0, from) === -1 || line.indexOf(0, from) >= end) {
      this.#id = line.toString('utf8', from, end);
      this.#idSeen = true;
    }
  }
}

/**
 * The events of a `text/event-stream` body, in order (HTML Living Standard › Server-sent events › Interpreting an
 * event stream: lines end in CRLF, LF or CR; `data:` lines join with LF; a blank line dispatches; `:` starts a
 * comment; `id:` sets the last event ID unless it holds NULL). An event yields when it carried data or an id, so a
 * priming event (an id and no data) still moves the last event ID. One event may hold at most `limit` bytes of
 * data, and one line at most `limit` bytes, counted in UTF-8 bytes: the stream as a whole is unbounded (progress and
 * listen streams run long), each event is not. A stream that ends without the final blank line dispatches nothing
 * more (the standard discards it).
 */
export async function* readSseEvents(body: ReadableStream<Uint8Array> | null, limit: number): AsyncGenerator<SseEvent> {
  if (body === null) return;
  const reader = body.getReader();
  const parser = new SseParser(limit);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(value);
      for (const event of parser.events) yield event;
      parser.events.length = 0;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/**
 * The `data` of each event of a `text/event-stream` body, in order ({@link readSseEvents}); events with no data
 * (priming events, comments) are skipped (the standard's "If the data buffer is an empty string … return").
 */
export async function* readSseData(body: ReadableStream<Uint8Array> | null, limit: number): AsyncGenerator<string> {
  for await (const event of readSseEvents(body, limit)) if (event.data !== '') yield event.data;
}
