// An upstream's HTTP answer read within bounds: its media type, a whole body, its JSON, and the fault a transport failure or a non-MCP answer is.

import { readBoundedText as readBodyText } from '../../../edge/outbound/bounded-text';

/**
 * A transport failure or a non-MCP answer from an upstream. Its message is a phrase with no URL and no upstream body
 * ("failed (HTTP 502)"), which the client prefixes with the upstream's label and turns into a -32603 JsonRpcError.
 */
export class UpstreamFault extends Error {
  override readonly name = 'UpstreamFault';

  /** @param refused - the upstream's 401 or 403: it refused the credentials sent */
  constructor(
    message: string,
    readonly refused?: number,
  ) {
    super(message);
  }
}

/** Reads a whole body as UTF-8, refusing (and cancelling the stream) once it passes `limit` bytes. */
export async function readBoundedText(body: ReadableStream<Uint8Array> | null, limit: number): Promise<string> {
  const text = await readBodyText(body, limit);
  if (text === undefined) throw new UpstreamFault(`sent a body larger than ${limit} bytes`);
  return text;
}

/** `text` parsed as JSON; a fault naming `where` ("an event", "a body") when it is not. */
export function parseUpstreamJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UpstreamFault(`sent ${where} that is not JSON`);
  }
}

/** A response's media type, lowercased, without parameters: `text/event-stream`, `application/json`, or ''. */
export function mediaTypeOf(response: Response | string | undefined): string {
  const type = typeof response === 'object' ? response.headers.get('content-type') : response;
  return (type ?? '').split(';')[0]!.trim().toLowerCase();
}
