// One HTTP exchange with an x402 facilitator: bounded in time and size, cancellable, its answer a JSON object or a FacilitatorError.

import { isObject } from '../../core/jsonrpc/types';
import { readBoundedText } from '../../edge/outbound/bounded-text';
import { FacilitatorError } from './x402-types';

/** Answers larger than this are not read: a facilitator's JSON is a few hundred bytes. */
const MAX_ANSWER_BYTES = 65_536;

/** One call to a facilitator endpoint. */
export interface FacilitatorExchange {
  /** Names the endpoint in every message (`Payment facilitator /verify`), never its URL. */
  readonly what: string;
  readonly url: URL;
  /** The JSON body of a POST; a GET when undefined. */
  readonly body: unknown;
  readonly headers: Record<string, string>;
  readonly timeoutMs: number;
  /** The caller's cancellation. */
  readonly signal: AbortSignal | undefined;
}

/**
 * Sends the request and reads the answer's text, up to {@link MAX_ANSWER_BYTES}. Redirects are refused: the
 * payment goes to the facilitator configured, never to one an answer names.
 *
 * @throws {FacilitatorError} timed out, cancelled, unreachable, broken off or too large
 */
export async function sendToFacilitator(exchange: FacilitatorExchange): Promise<{ status: number; text: string }> {
  const { what, body, signal, timeoutMs } = exchange;
  // One controller for the timeout and the caller's signal, so the timeout is told apart from a cancellation.
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const cancel = (): void => controller.abort();
  if (signal?.aborted === true) cancel();
  else signal?.addEventListener('abort', cancel, { once: true });
  const failed = (fallback: string): FacilitatorError =>
    new FacilitatorError(
      timedOut
        ? `${what} timed out after ${timeoutMs} ms`
        : signal?.aborted === true
          ? `${what} was cancelled`
          : `${what} ${fallback}`,
    );
  try {
    let response: Response;
    try {
      response = await fetch(exchange.url, {
        method: body === undefined ? 'GET' : 'POST',
        headers: exchange.headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: controller.signal,
        redirect: 'error',
      });
    } catch {
      throw failed('is unreachable');
    }
    let text: string | undefined;
    try {
      text = await readBoundedText(response.body, MAX_ANSWER_BYTES);
    } catch {
      throw failed('broke off its answer');
    }
    if (text === undefined) throw new FacilitatorError(`${what} gave a malformed answer (too large)`);
    return { status: response.status, text };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', cancel);
  }
}

/**
 * The answer as a JSON object. A facilitator answers a refused payment with 400 and a verify/settle body (x402 v2
 * §7): that is read; any other status from 300 up is a failure.
 *
 * @throws {FacilitatorError} for such a status, or an answer that is not a JSON object
 */
export function answerOf(what: string, status: number, text: string): Record<string, unknown> {
  if (status >= 500 || (status >= 300 && status !== 400)) throw new FacilitatorError(`${what} answered HTTP ${status}`);
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    throw new FacilitatorError(`${what} gave a malformed answer (not JSON)`);
  }
  if (!isObject(answer)) throw new FacilitatorError(`${what} gave a malformed answer (not an object)`);
  return answer;
}
