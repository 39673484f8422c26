// The limits on one upstream request: the caller's abort, the client's time limit and close(), each mapped to its -32603.

import { JsonRpcError } from '../../../core/jsonrpc/errors';
import { LazyAbort, type AbortSource } from '../../../core/protocol/abort';
import { CredentialsRefusedError, upstreamError } from '../shared/upstream-wire';
import { UpstreamFault } from './http-body';

/** Why a request's signal fired: the caller, the time limit, or close(). */
export type AbortCause = 'cancelled' | 'timeout' | 'closed';

/** What the limits of one client's requests are. */
export interface RequestLimits {
  /** How errors name the upstream. */
  readonly label: string;
  /** The most one request (with its whole SSE reply) may take, in milliseconds. */
  readonly timeoutMs: number;
  /** close() calls each of these: each aborts one request in flight. */
  readonly inFlight: Set<() => void>;
}

/**
 * Runs `work` under a signal that fires on the caller's abort, the time limit, or close(), and maps what it throws:
 * the cause of an abort, an {@link UpstreamFault} with the upstream's label, a JsonRpcError as it is, anything else
 * as "failed" (never a message that may hold the URL).
 *
 * @param onAbort - told the cause once, when the signal fires (a 2025 upstream is then sent notifications/cancelled)
 */
export async function withLimits<T>(
  limits: RequestLimits,
  signal: AbortSource | undefined,
  work: (signal: AbortSource) => Promise<T>,
  onAbort?: (cause: AbortCause) => void,
): Promise<T> {
  const { label, timeoutMs, inFlight } = limits;
  // No AbortSignal (an EventTarget) per request: the POST listens to this abort directly.
  const controller = new LazyAbort();
  let cause: AbortCause | undefined;
  const abort = (why: AbortCause): void => {
    if (cause !== undefined) return;
    cause = why;
    controller.abort();
    onAbort?.(why);
  };
  const timer = setTimeout(() => abort('timeout'), timeoutMs);
  const onCallerAbort = (): void => abort('cancelled');
  if (signal?.aborted) abort('cancelled');
  signal?.addEventListener('abort', onCallerAbort, { once: true });
  const abortOnClose = (): void => abort('closed');
  inFlight.add(abortOnClose);
  try {
    return await work(controller);
  } catch (error) {
    if (cause === 'timeout') throw upstreamError(label, `did not answer within ${timeoutMs} ms`);
    if (cause === 'cancelled') throw upstreamError(label, 'request was cancelled');
    if (cause === 'closed') throw upstreamError(label, 'client was closed');
    if (error instanceof UpstreamFault)
      throw error.refused === undefined
        ? upstreamError(label, error.message)
        : new CredentialsRefusedError(label, error.message, error.refused);
    if (error instanceof JsonRpcError) throw error;
    throw upstreamError(label, 'failed');
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onCallerAbort);
    inFlight.delete(abortOnClose);
  }
}
