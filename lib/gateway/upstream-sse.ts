// The SSE reader of the upstream client: the events of a text/event-stream body, read in one pass, each bounded in bytes.

import { UpstreamFault } from './upstream-wire';

const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;

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

/**
 * Splits a byte stream into lines ended by CRLF, LF or CR, scanning each byte once. Lines are split as bytes, before
 * decoding: CR and LF never occur inside a UTF-8 sequence, and the bytes held of an unfinished line are counted as
 * bytes. What is held of one line never passes `limit` bytes.
 */
class SseLines {
  readonly #limit: number;
  /** The parts of the line not yet ended, copied (a stream may reuse a chunk's memory). */
  #held: Uint8Array[] = [];
  #heldBytes = 0;
  /** The last line ended with CR: an LF that comes next is the second half of CRLF. */
  #afterCr = false;
  #first = true;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** The lines a chunk ends (as bytes, without their ends); holds the rest. */
  *take(chunk: Uint8Array): Generator<Uint8Array> {
    let start = 0;
    // HTML › Server-sent events: one leading U+FEFF BYTE ORDER MARK is ignored.
    if (this.#first && chunk.length > 0) {
      this.#first = false;
      if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) start = 3;
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
      const tail = chunk.subarray(start, end);
      yield this.#held.length === 0 ? tail : Buffer.concat([...this.#held, tail]);
      this.#held = [];
      this.#heldBytes = 0;
      this.#afterCr = chunk[end] === CR;
      start = end + 1;
    }
    if (start < chunk.length) {
      this.#heldBytes += chunk.length - start;
      if (this.#heldBytes > this.#limit) throw new UpstreamFault(`sent an event line larger than ${this.#limit} bytes`);
      this.#held.push(chunk.slice(start));
    }
  }
}

/**
 * The events of a `text/event-stream` body, in order (HTML Living Standard › Server-sent events › Interpreting an
 * event stream: lines end in CRLF, LF or CR; `data:` lines join with LF; a blank line dispatches; `:` starts a
 * comment; `id:` sets the last event ID unless it holds NULL). An event yields when it carried data or an id, so a
 * priming event (an id and no data) still moves the last event ID. One event may hold at most `limit` bytes of
 * data, counted as UTF-8 bytes, and one line at most `limit` bytes: the stream as a whole is unbounded (progress and
 * listen streams run long), each event is not.
 */
export async function* readSseEvents(body: ReadableStream<Uint8Array> | null, limit: number): AsyncGenerator<SseEvent> {
  if (body === null) return;
  const reader = body.getReader();
  // Each line is decoded whole; the BOM is the stream's, handled once by SseLines, never a line's.
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  const lines = new SseLines(limit);
  let data: string[] = [];
  let dataSize = 0;
  let id: string | undefined;
  let idSeen = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      // A stream that ends without the final blank line dispatches nothing more (the standard discards it).
      if (done) break;
      for (const bytes of lines.take(value)) {
        if (bytes.length === 0) {
          if (data.length > 0 || idSeen) yield { data: data.join('\n'), id };
          data = [];
          dataSize = 0;
          idSeen = false;
          continue;
        }
        const line = decoder.decode(bytes);
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const text = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') {
          // The value's UTF-8 bytes: the line's, less the `data:` before it and the one space that may follow.
          if (colon !== -1) dataSize += bytes.length - colon - 1 - (bytes[colon + 1] === SPACE ? 1 : 0);
          if (dataSize > limit) throw new UpstreamFault(`sent an event larger than ${limit} bytes`);
          data.push(text);
        } else if (field === 'id' && !text.includes('\0')) {
          id = text;
          idSeen = true;
        }
      }
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
