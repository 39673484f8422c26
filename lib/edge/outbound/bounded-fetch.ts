// One outbound HTTP call bounded in time (body included) and size, redirects not followed: for calls to identity providers.

/** Why a bounded fetch gave no answer: no answer in time, an answer too large, or the connection failed. */
export class BoundedFetchError extends Error {
  override readonly name = 'BoundedFetchError';

  constructor(
    readonly reason: 'timeout' | 'too-large' | 'network',
    message: string,
  ) {
    super(message);
  }
}

/** A response's status, headers and body text, the body read up to a size bound. */
export interface BoundedResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/**
 * Fetches `url`, giving up after `timeoutMs` (the body included) and aborting as soon as the body passes
 * `maxBytes`, so a hanging or endless server costs neither a request's time nor the server's memory. A redirect is
 * returned as it is, never followed: the caller talks to the URL it was configured with, never one an answer names
 * (and credentials it sends must not travel elsewhere).
 *
 * @throws {BoundedFetchError} on timeout, size or network failure
 */
export async function boundedFetch(
  url: URL,
  init: RequestInit,
  timeoutMs: number,
  maxBytes: number,
): Promise<BoundedResponse> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new BoundedFetchError('timeout', `no answer within ${timeoutMs} ms`)),
    timeoutMs,
  );
  timer.unref();
  try {
    const response = await fetch(url, { ...init, redirect: 'manual', signal: controller.signal });
    const declared = Number(response.headers.get('content-length') ?? 0);
    if (declared > maxBytes) throw new BoundedFetchError('too-large', `the answer is larger than ${maxBytes} bytes`);
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of response.body ?? []) {
      size += chunk.byteLength;
      if (size > maxBytes) throw new BoundedFetchError('too-large', `the answer is larger than ${maxBytes} bytes`);
      chunks.push(chunk);
    }
    return { status: response.status, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') };
  } catch (err) {
    if (controller.signal.aborted && controller.signal.reason instanceof BoundedFetchError)
      throw controller.signal.reason;
    throw err instanceof BoundedFetchError
      ? err
      : new BoundedFetchError('network', `request failed: ${(err as Error).message}`);
  } finally {
    clearTimeout(timer);
    // Stops the download of a body left unread (too large, or a throw while reading it).
    controller.abort();
  }
}
