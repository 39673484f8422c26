// x402Facilitator: a small HTTP client of an x402 facilitator's /verify, /settle and /supported (x402 v2 §7), on fetch.

import type { OptionKeys } from '../../options/config-error';
import { OptionReader } from '../../options/option-reader';
import { isObject } from '../../core/jsonrpc/types';
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
import { answerOf, sendToFacilitator } from './facilitator-exchange';

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

type FacilitatorPath = 'verify' | 'settle' | 'supported';

/**
 * The facilitator client behind `x402Facilitator()` of `express-mcp-router/x402` (lib/x402.ts documents it), its calls
 * observed by `observer`: the facilitator is made apart from any router, so the entry point gives it its own.
 *
 * @param observer - observes each call as a CLIENT span `x402 {path}`. Defaults to {@link NO_OBSERVER}.
 * @throws {McpConfigError} for a missing or non-http(s) `url`, bad `headers` or `timeoutMs`, or an unknown option
 */
export function x402Facilitator(options: X402FacilitatorOptions, observer: McpObserver = NO_OBSERVER): X402Facilitator {
  const read = OptionReader.of(options, 'x402Facilitator', KNOWN);
  const base = read.url('url', { required: true });
  const headers = read.raw('headers');
  if (headers !== undefined && typeof headers !== 'function' && !isStringRecord(headers))
    throw read.invalid('headers', 'an object of string values or a function returning one');
  const timeoutMs = read.milliseconds('timeoutMs', DEFAULT_TIMEOUT_MS);
  const root = base.href.endsWith('/') ? base.href : `${base.href}/`;
  const port = base.port === '' ? (base.protocol === 'https:' ? 443 : 80) : Number(base.port);

  /** A CLIENT span `x402 {path}` per call, its trace context sent as W3C headers (traceparent, tracestate, baggage). */
  function call(
    path: FacilitatorPath,
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
    path: FacilitatorPath,
    body: unknown,
    signal: AbortSignal | undefined,
    span: ChildSpan,
  ): Promise<Record<string, unknown>> {
    const what = `Payment facilitator /${path}`;
    const extra = typeof headers === 'function' ? await headers() : headers;
    const traceHeaders: Record<string, string> = {};
    span.inject(traceHeaders);
    const { status, text } = await sendToFacilitator({
      what,
      url: new URL(path, root),
      body,
      headers: {
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...traceHeaders,
        ...extra,
      },
      timeoutMs,
      signal,
    });
    span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
    return answerOf(what, status, text);
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

const isStringRecord = (value: unknown): boolean =>
  isObject(value) && Object.values(value).every((item) => typeof item === 'string');

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
