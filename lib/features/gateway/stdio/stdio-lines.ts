// Bounded line reading for a child's stdout and stderr: splits a byte stream on LF, never holding more than one line's cap.

/** What a {@link LineSplitter} reports: each whole line, and each line it dropped for passing the cap. */
export interface LineSink {
  /** A whole line, decoded as UTF-8, without its LF (nor a CR before it). */
  line(text: string): void;
  /** A line passed `maxBytes`: what was held of it is freed and the rest of it, up to its LF, is skipped. */
  oversized(): void;
}

/**
 * Splits chunks into lines (MCP transports › stdio: messages are delimited by newlines and MUST NOT contain embedded
 * newlines). Memory stays bounded whatever the child writes: the bytes held for the current line never pass
 * `maxBytes`; a longer line is reported once and skipped to its end, and the stream goes on with the next line.
 */
export class LineSplitter {
  readonly #maxBytes: number;
  readonly #sink: LineSink;
  #held: Buffer[] = [];
  #heldBytes = 0;
  /** True while skipping the rest of an oversized line. */
  #skipping = false;

  constructor(maxBytes: number, sink: LineSink) {
    this.#maxBytes = maxBytes;
    this.#sink = sink;
  }

  /** Takes one chunk of the stream. */
  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      if (newline === -1) break;
      this.#endLine(chunk.subarray(start, newline));
      start = newline + 1;
    }
    if (start < chunk.length) this.#hold(chunk.subarray(start));
  }

  #hold(part: Buffer): void {
    if (this.#skipping) return;
    if (this.#heldBytes + part.length > this.#maxBytes) {
      this.#drop();
      return;
    }
    // Copied: the stream may reuse the chunk's memory.
    this.#held.push(Buffer.from(part));
    this.#heldBytes += part.length;
  }

  #endLine(last: Buffer): void {
    if (this.#skipping) {
      this.#skipping = false;
      return;
    }
    if (this.#heldBytes + last.length > this.#maxBytes) {
      this.#drop();
      this.#skipping = false;
      return;
    }
    const bytes = this.#held.length === 0 ? last : Buffer.concat([...this.#held, last]);
    this.#held = [];
    this.#heldBytes = 0;
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
    this.#sink.line(bytes.toString('utf8', 0, end));
  }

  #drop(): void {
    this.#held = [];
    this.#heldBytes = 0;
    this.#skipping = true;
    this.#sink.oversized();
  }
}
