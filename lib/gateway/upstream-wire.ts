// The upstream client's wire helpers: bounded body reads, the SSE event reader, and the fault type (header values are encoded by protocol/request-headers.ts).

import { readBoundedText as readBodyText } from '../http/bounded-text';

// The value encoding of SEP-2243 headers lives with its decoding (protocol/request-headers.ts).
export { encodeHeaderValue } from '../protocol/request-headers';
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';

/** The most an upstream may send in one JSON body or one SSE event; a bigger one is a fault, so memory stays bounded. */
export const MAX_UPSTREAM_MESSAGE_BYTES = 4 * 1024 * 1024;

/**
 * A transport failure or a non-MCP answer from an upstream. Its message is a phrase with no URL and no upstream body
 * ("failed (HTTP 502)"), which the client prefixes with the upstream's label and turns into a -32603 JsonRpcError.
 */
export class UpstreamFault extends Error {
  override readonly name = 'UpstreamFault';
}

/** Reads a whole body as UTF-8, refusing (and cancelling the stream) once it passes `limit` bytes. */
export async function readBoundedText(body: ReadableStream<Uint8Array> | null, limit: number): Promise<string> {
  const text = await readBodyText(body, limit);
  if (text === undefined) throw new UpstreamFault(`sent a body larger than ${limit} bytes`);
  return text;
}

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
 * The events of a `text/event-stream` body, in order (HTML Living Standard › Server-sent events › Interpreting an
 * event stream: lines end in CRLF, LF or CR; `data:` lines join with LF; a blank line dispatches; `:` starts a
 * comment; `id:` sets the last event ID unless it holds NULL). An event yields when it carried data or an id, so a
 * priming event (an id and no data) still moves the last event ID. One event may hold at most `limit` bytes of
 * text: the stream as a whole is unbounded (progress and listen streams run long), each event is not.
 */
export async function* readSseEvents(body: ReadableStream<Uint8Array> | null, limit: number): AsyncGenerator<SseEvent> {
  if (body === null) return;
  const reader = body.getReader();
  const decoder = new TextDecoder('utf-8');
  let pending = '';
  let data: string[] = [];
  let dataSize = 0;
  let id: string | undefined;
  let idSeen = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      pending += done ? decoder.decode() : decoder.decode(value, { stream: true });
      // A trailing CR may be the first half of CRLF: keep it until more arrives (or the stream ends).
      for (;;) {
        const match = /\r\n|\r|\n/.exec(pending);
        if (match === null || (match[0] === '\r' && match.index === pending.length - 1 && !done)) break;
        const line = pending.slice(0, match.index);
        pending = pending.slice(match.index + match[0].length);
        if (line === '') {
          if (data.length > 0 || idSeen) yield { data: data.join('\n'), id };
          data = [];
          dataSize = 0;
          idSeen = false;
          continue;
        }
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const text = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') {
          dataSize += text.length;
          if (dataSize > limit) throw new UpstreamFault(`sent an event larger than ${limit} bytes`);
          data.push(text);
        } else if (field === 'id' && !text.includes('\0')) {
          id = text;
          idSeen = true;
        }
      }
      if (pending.length > limit) throw new UpstreamFault(`sent an event line larger than ${limit} bytes`);
      if (done) break;
    }
    // A stream that ends without the final blank line still dispatches nothing (the standard discards it).
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

/**
 * The JSON-RPC response to a request an upstream sent the gateway (sampling, elicitation, roots, ping), from the
 * answer's outcome: its result, or its error (a JsonRpcError keeps its code and message; anything else is -32603).
 */
export function replyTo(id: unknown, answer: Promise<unknown>): Promise<Record<string, unknown>> {
  return answer.then(
    (result) => ({ jsonrpc: '2.0', id, result }),
    (error: unknown) => {
      const { code, message } =
        error instanceof JsonRpcError
          ? error
          : { code: ErrorCode.InternalError, message: error instanceof Error ? error.message : 'The request failed' };
      return { jsonrpc: '2.0', id, error: { code, message } };
    },
  );
}
