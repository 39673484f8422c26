// A fetch Response body read whole as UTF-8, up to a byte limit: an answer from another server cannot fill memory.

/**
 * The body's text, or undefined once it passes `limit` bytes (the stream is cancelled then; the caller words the
 * error). Used for what this router reads from other servers: upstream MCP servers, x402 facilitators.
 *
 * @example
 * ```ts
 * const text = await readBoundedText(response.body, 65_536);
 * if (text === undefined) throw new Error('answer too large');
 * ```
 */
export async function readBoundedText(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
): Promise<string | undefined> {
  if (body === null) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
