// One facilitator call made by a guard: bounded by its timeout and ended by the tool call's cancellation.

import { FacilitatorError } from './x402-types';

/**
 * Runs `run` (a `verify` or `settle` of any facilitator), bounded by `timeoutMs` and ended by the call's
 * cancellation (`ctx.signal` as it is now), even when the facilitator ignores the signal it is given. A call
 * cancelled already asks nothing: a settle sent now would charge for a result the client never gets.
 *
 * @throws {FacilitatorError} timed out, cancelled, or failed (what a custom facilitator throws may hold its URL or
 *   answer: only a FacilitatorError's message is known safe, any other becomes `Payment facilitator failed`)
 */
export async function askFacilitator<T>(
  what: 'verify' | 'settle',
  ctx: { readonly signal: AbortSignal },
  timeoutMs: number,
  run: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let cancel: (() => void) | undefined;
  const ended = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(new FacilitatorError(`Payment facilitator ${what} timed out after ${timeoutMs} ms`));
      controller.abort();
    }, timeoutMs);
    cancel = () => {
      reject(new FacilitatorError(`Payment facilitator ${what} was cancelled`));
      controller.abort();
    };
  });
  const { signal } = ctx;
  if (signal.aborted) {
    clearTimeout(timer);
    throw new FacilitatorError(`Payment facilitator ${what} was cancelled`);
  }
  signal.addEventListener('abort', cancel as () => void, { once: true });
  try {
    return await Promise.race([run(controller.signal), ended]);
  } catch (err) {
    throw err instanceof FacilitatorError ? err : new FacilitatorError('Payment facilitator failed');
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', cancel as () => void);
  }
}
