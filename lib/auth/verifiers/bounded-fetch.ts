// Outbound calls of the token verifiers (JWKS, introspection): the URL rule, a timeout and a size bound, and logging once per interval.

import { invalidOption } from '../../errors';
import type { McpLogger } from '../../logger';

/** How long a verifier waits for its identity provider by default: 5 s. */
export const DEFAULT_FETCH_TIMEOUT_MS = 5_000;
/** The largest answer a verifier reads by default: 64 KB. */
export const DEFAULT_FETCH_MAX_BYTES = 64 * 1024;

/** Why a call to the identity provider failed: logged by the caller, never sent to the client. */
export class VerifierFetchError extends Error {
  override readonly name = 'VerifierFetchError';
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/**
 * The URL of `option`, checked at boot: https, or http on a loopback host (development only) — tokens and client
 * secrets must not cross a network in the clear (RFC 7662 §4, RFC 9700 §4.1).
 *
 * @throws {McpConfigError} `ERR_MCP_INVALID_OPTION` naming `option`
 */
export function checkProviderUrl(option: string, value: unknown): URL {
  const expected = 'an https URL (http only on 127.0.0.1, [::1] or localhost)';
  if (typeof value !== 'string' && !(value instanceof URL)) throw invalidOption(option, expected, value);
  const url = URL.canParse(String(value)) ? new URL(String(value)) : undefined;
  if (url?.protocol === 'https:' || (url?.protocol === 'http:' && LOOPBACK.test(url.hostname))) return url;
  throw invalidOption(option, expected, String(value));
}

/** A response's status, headers and body text, the body read up to a size bound. */
export interface BoundedResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/**
 * Fetches `url`, giving up after `timeoutMs` (the body included) and aborting as soon as the body passes
 * `maxBytes`, so a hanging or endless provider costs neither a request's time nor the server's memory.
 * Redirects are refused: a verifier talks to the URL it was configured with, never one an answer names.
 *
 * @throws {VerifierFetchError} on timeout, size, network failure or a redirect
 */
export async function boundedFetch(url: URL, init: RequestInit, timeoutMs: number, maxBytes: number): Promise<BoundedResponse> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new VerifierFetchError(`no answer within ${timeoutMs} ms`)), timeoutMs);
  timer.unref();
  try {
    const response = await fetch(url, { ...init, redirect: 'error', signal: controller.signal });
    const declared = Number(response.headers.get('content-length') ?? 0);
    if (declared > maxBytes) throw new VerifierFetchError(`the answer is larger than ${maxBytes} bytes`);
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of response.body ?? []) {
      size += chunk.byteLength;
      if (size > maxBytes) throw new VerifierFetchError(`the answer is larger than ${maxBytes} bytes`);
      chunks.push(chunk);
    }
    return { status: response.status, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') };
  } catch (err) {
    if (controller.signal.aborted && controller.signal.reason instanceof VerifierFetchError) throw controller.signal.reason;
    throw err instanceof VerifierFetchError ? err : new VerifierFetchError(`request failed: ${(err as Error).message}`);
  } finally {
    clearTimeout(timer);
    // Stops the download of a body left unread (too large, or a throw while reading it).
    controller.abort();
  }
}

/**
 * A warning that reaches the logger at most once per `intervalMs`: an identity provider that is down must not
 * write one line per request.
 */
export function throttledWarn(logger: McpLogger, intervalMs: number, now: () => number = () => Date.now()): (err: unknown, message: string) => void {
  let last = -Infinity;
  return (err, message) => {
    if (now() - last < intervalMs) return;
    last = now();
    logger.warn(err, message);
  };
}
