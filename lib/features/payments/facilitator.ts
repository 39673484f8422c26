// x402Facilitator: a small HTTP client of an x402 facilitator's /verify, /settle and /supported (x402 v2 §7), on fetch.

import {
  invalidOption,
  isPositiveInteger,
  McpConfigError,
  rejectUnknownKeys,
  type OptionKeys,
} from '../../options/config-error';
import { isObject } from '../../core/jsonrpc/types';
import { readBoundedText } from '../../edge/outbound/bounded-text';
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
} from '../../core/observe/semconv';
import { NO_OBSERVER, type ChildSpan, type McpObserver } from '../../core/observe/observer';
import {
  FacilitatorError,
  type FacilitatorCallOptions,
  type PaymentFacilitator,
  type PaymentPayload,
  type PaymentRequirements,
  type SettleResponse,
  type VerifyResponse,
} from './x402-types';

/** Options of {@link x402Facilitator}. */
export interface X402FacilitatorOptions {
  /** The facilitator's base URL (`https://x402.org/facilitator`): `/verify`, `/settle` and `/supported` are under it. */
  url: string;
  /** Headers sent with every call (an API key), or a function returning them per call. Defaults to none. */
  headers?: Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);
  /** Longest one call may take before it fails. Defaults to `10000` ms. */
  timeoutMs?: number;
}

/** The kinds of payment a facilitator supports (`GET /supported`). */
export interface SupportedResponse {
  /** One entry per x402 version, scheme and network the facilitator handles. */
  kinds: Array<{
    /** The x402 protocol version of this kind. */
    x402Version: number;
    /** The payment scheme: `exact`, …. */
    scheme: string;
    /** The chain, as a CAIP-2 id (`eip155:8453`). */
    network: string;
    /** What the scheme needs besides, on this network (a fee payer, …). */
    extra?: Record<string, unknown>;
  }>;
  [key: string]: unknown;
}

/** A {@link PaymentFacilitator} over HTTP, with `supported()` as well. */
export interface X402Facilitator extends PaymentFacilitator {
  /** Asks the facilitator which schemes and networks it can verify and settle (`GET /supported`). */
  supported(options?: FacilitatorCallOptions): Promise<SupportedResponse>;
}

const KNOWN: OptionKeys<X402FacilitatorOptions> = { url: true, headers: true, timeoutMs: true };
const DEFAULT_TIMEOUT_MS = 10_000;
/** Answers larger than this are not read: a facilitator's JSON is a few hundred bytes. */
const MAX_ANSWER_BYTES = 65_536;

/**
 * The facilitator client behind `x402Facilitator()` of `express-mcp-router/x402` (lib/x402.ts documents it), its calls
 * observed by `observer`: the facilitator is made apart from any router, so the entry point gives it its own.
 *
 * @param observer - observes each call as a CLIENT span `x402 {path}`. Defaults to {@link NO_OBSERVER}.
 * @throws {McpConfigError} for a missing or non-http(s) `url`, bad `headers` or `timeoutMs`, or an unknown option
 */
export function x402Facilitator(options: X402FacilitatorOptions, observer: McpObserver = NO_OBSERVER): X402Facilitator {
  if (!isObject(options))
    throw new McpConfigError('ERR_MCP_INVALID_OPTION', 'x402Facilitator() needs an options object: { url }');
  rejectUnknownKeys(options, KNOWN, 'x402Facilitator.');
  const { url, headers, timeoutMs = DEFAULT_TIMEOUT_MS } = options;
  let base: URL;
  try {
    base = new URL(url);
  } catch {
    throw invalidOption('x402Facilitator.url', 'an absolute http(s) URL', url);
  }
  if (base.protocol !== 'https:' && base.protocol !== 'http:')
    throw invalidOption('x402Facilitator.url', 'an absolute http(s) URL', url);
  if (
    headers !== undefined &&
    typeof headers !== 'function' &&
    !(isObject(headers) && Object.values(headers).every((value) => typeof value === 'string'))
  ) {
    throw invalidOption('x402Facilitator.headers', 'an object of string values or a function returning one', headers);
  }
  if (!isPositiveInteger(timeoutMs))
    throw invalidOption('x402Facilitator.timeoutMs', 'a positive number of milliseconds', timeoutMs);
  const root = base.href.endsWith('/') ? base.href : `${base.href}/`;
  const port = base.port === '' ? (base.protocol === 'https:' ? 443 : 80) : Number(base.port);

  /** A CLIENT span `x402 {path}` per call, its trace context sent as W3C headers (traceparent, tracestate, baggage). */
  function call(
    path: 'verify' | 'settle' | 'supported',
    body: unknown,
    signal: AbortSignal | undefined,
  ): Promise<Record<string, unknown>> {
    const attributes = {
      [ATTR_HTTP_REQUEST_METHOD]: body === undefined ? 'GET' : 'POST',
      [ATTR_SERVER_ADDRESS]: base.hostname,
      [ATTR_SERVER_PORT]: port,
    };
    return observer.childSpan('client', `x402 ${path}`, attributes, (span) => exchange(path, body, signal, span));
  }

  async function exchange(
    path: 'verify' | 'settle' | 'supported',
    body: unknown,
    signal: AbortSignal | undefined,
    span: ChildSpan,
  ): Promise<Record<string, unknown>> {
    const what = `Payment facilitator /${path}`;
    const extra = typeof headers === 'function' ? await headers() : headers;
    const traceHeaders: Record<string, string> = {};
    span.inject(traceHeaders);
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
    let response: Response;
    let text: string;
    try {
      try {
        response = await fetch(new URL(path, root), {
          method: body === undefined ? 'GET' : 'POST',
          headers: {
            accept: 'application/json',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...traceHeaders,
            ...extra,
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: controller.signal,
          redirect: 'error',
        });
      } catch {
        throw failed('is unreachable');
      }
      try {
        text = await readCapped(response);
      } catch (err) {
        if (err instanceof FacilitatorError) throw new FacilitatorError(`${what} gave a malformed answer (too large)`);
        throw failed('broke off its answer');
      }
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', cancel);
    }
    span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, response.status);
    // A facilitator answers a refused payment with 400 and a verify/settle body (x402 v2 §7): read those, not 5xx.
    if (response.status >= 500 || (response.status >= 300 && response.status !== 400))
      throw new FacilitatorError(`${what} answered HTTP ${response.status}`);
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      throw new FacilitatorError(`${what} gave a malformed answer (not JSON)`);
    }
    if (!isObject(answer)) throw new FacilitatorError(`${what} gave a malformed answer (not an object)`);
    return answer;
  }

  const request = (payload: PaymentPayload, requirements: PaymentRequirements) => ({
    x402Version: payload.x402Version,
    paymentPayload: payload,
    paymentRequirements: requirements,
  });
  return Object.freeze({
    async verify(
      payload: PaymentPayload,
      requirements: PaymentRequirements,
      callOptions?: FacilitatorCallOptions,
    ): Promise<VerifyResponse> {
      return checkVerify(await call('verify', request(payload, requirements), callOptions?.signal));
    },
    async settle(
      payload: PaymentPayload,
      requirements: PaymentRequirements,
      callOptions?: FacilitatorCallOptions,
    ): Promise<SettleResponse> {
      return checkSettle(await call('settle', request(payload, requirements), callOptions?.signal));
    },
    async supported(callOptions?: FacilitatorCallOptions): Promise<SupportedResponse> {
      const answer = await call('supported', undefined, callOptions?.signal);
      if (!Array.isArray(answer.kinds))
        throw new FacilitatorError('Payment facilitator /supported gave a malformed answer (no kinds)');
      return answer as SupportedResponse;
    },
  });
}

/**
 * A response's text, read up to {@link MAX_ANSWER_BYTES}: a facilitator that streams without end cannot fill memory.
 *
 * @throws {FacilitatorError} past the cap (the caller words it)
 */
async function readCapped(response: Response): Promise<string> {
  const text = await readBoundedText(response.body, MAX_ANSWER_BYTES);
  if (text === undefined) throw new FacilitatorError('too large');
  return text;
}

const optionalString = (value: unknown): boolean => value === undefined || typeof value === 'string';

/**
 * A `/verify` answer, checked: `isValid` a boolean, the rest strings when present.
 *
 * @throws {FacilitatorError} for any other shape
 */
export function checkVerify(answer: unknown): VerifyResponse {
  if (
    !isObject(answer) ||
    typeof answer.isValid !== 'boolean' ||
    !optionalString(answer.invalidReason) ||
    !optionalString(answer.payer)
  ) {
    throw new FacilitatorError('Payment facilitator /verify gave a malformed answer');
  }
  return answer as unknown as VerifyResponse;
}

/**
 * A `/settle` answer, checked: `success` a boolean; a successful one names its `transaction` and `network`.
 *
 * @throws {FacilitatorError} for any other shape
 */
export function checkSettle(answer: unknown): SettleResponse {
  const ok =
    isObject(answer) &&
    typeof answer.success === 'boolean' &&
    optionalString(answer.errorReason) &&
    optionalString(answer.payer) &&
    optionalString(answer.amount) &&
    (answer.success
      ? typeof answer.transaction === 'string' && answer.transaction !== '' && typeof answer.network === 'string'
      : optionalString(answer.transaction) && optionalString(answer.network));
  if (!ok) throw new FacilitatorError('Payment facilitator /settle gave a malformed answer');
  // The settlement goes to the client (_meta["x402/payment-response"]): only its x402 fields, never what else a
  // facilitator adds to its answer.
  const settled: Record<string, unknown> = {};
  for (const field of SETTLE_FIELDS) if (answer[field] !== undefined) settled[field] = answer[field];
  return settled as unknown as SettleResponse;
}

/** The fields of an x402 v2 SettlementResponse. */
const SETTLE_FIELDS = ['success', 'errorReason', 'payer', 'transaction', 'network', 'amount'] as const;
