// One caller's request forwarded to an upstream: its headers and _meta, the upstream's progress, logs and asks relayed to the caller, input_required rounds answered.

import { stateful } from '../../../core/era-policy';
import { ErrorCode, JsonRpcError } from '../../../core/jsonrpc/errors';
import { isObject } from '../../../core/jsonrpc/types';
import { META_KEYS, RESERVED_META_PREFIX } from '../../../core/protocol/era-2026/request-meta';
import { PAYMENT_HEADER_NAMES, PAYMENT_META_KEYS } from '../../../core/registry/payment-ledger';
import { UI_EXTENSION, UI_MIME_TYPE } from '../../../core/registry/ui-link';
import { LOG_LEVELS, type LogLevel, type RequestContext } from '../../../core/registry/request-context';
import {
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_UPSTREAM_NAME,
  META_TRACE_KEYS,
} from '../../../core/observe/semconv';
import { describeMessage } from '../../../core/observe/message-attributes';
import { callAbortOf } from '../../../core/protocol/handler-context';
import type { ChildSpan, McpObserver } from '../../../core/observe/observer';
import type { McpLogger } from '../../../core/logger';
import type { UpstreamClient, UpstreamMessage, UpstreamRequestOptions, UpstreamRoot } from '../shared/upstream-client';
import { clientHeaders } from '../http-client/upstream-envelope';
import type { ResolvedUpstream } from './upstream-options';
import { rootsResult, runOperatorFunction } from '../shared/upstream-wire';
import { asCaller } from './upstream-auth';

/**
 * MCP Apps (SEP-1865 Capability Negotiation), declared to upstreams as a host does: the gateway keeps an upstream's
 * app-only tools from its callers without the extension itself, so it is shown them all.
 */
export const APPS_CAPABILITIES: Readonly<Record<string, unknown>> = Object.freeze({
  extensions: { [UI_EXTENSION]: { mimeTypes: [UI_MIME_TYPE] } },
});

/** What the gateway can answer for its callers, declared to upstreams (2025 initialize, 2026 `_meta`): it relays each ask. */
export const RELAYED_CAPABILITIES: Readonly<Record<string, unknown>> = Object.freeze({
  sampling: {},
  elicitation: { form: {}, url: {} },
  roots: {},
  ...APPS_CAPABILITIES,
});

/** The `_meta` keys of the MCP 2026-07-28 envelope: each hop sends its own (the upstream client sets the gateway's). */
const ENVELOPE_META = RESERVED_META_PREFIX;
const SERVER_INFO_META = META_KEYS.serverInfo;
/** Most input_required rounds one forwarded call may take: an upstream that keeps asking ends the call. */
const MAX_INPUT_ROUNDS = 8;

/** The caller's `_meta` as forwarded: the progress token, a payment, trace context…, without the caller's envelope. */
export function forwardedMeta(
  meta: Readonly<Record<string, unknown>> | undefined,
  paidHere: boolean,
): Record<string, unknown> | undefined {
  if (meta === undefined) return undefined;
  // A tool with local guards is paid here, not upstream: the payment a local guard consumed is not passed on.
  const kept = Object.entries(meta).filter(
    ([key]) => !key.startsWith(ENVELOPE_META) && !(paidHere && (PAYMENT_META_KEYS as readonly string[]).includes(key)),
  );
  return kept.length === 0 ? undefined : Object.fromEntries(kept);
}

/**
 * The upstream's credentials for this caller, and the caller's headers on the allow-list (never its own
 * credentials), but for a call paid here the x402 payment headers: a payment pays for one call, the local one.
 * What a `headers` function throws (a token exchange's error may quote a secret) goes to `logger.error` only: the
 * caller gets -32603 `Upstream "<name>" could not be called: its headers function failed`.
 */
export async function forwardedHeaders(
  options: ResolvedUpstream,
  ctx: RequestContext | undefined,
  paidHere = false,
  logger?: McpLogger,
): Promise<Record<string, string>> {
  const headers: Record<string, string> = {};
  if (ctx !== undefined) {
    for (const name of options.forwardHeaders) {
      if (paidHere && (PAYMENT_HEADER_NAMES as readonly string[]).includes(name)) continue;
      const value = ctx.headers[name];
      if (typeof value === 'string') headers[name] = value;
      else if (Array.isArray(value)) headers[name] = value.join(', ');
    }
  }
  const { headers: own } = options;
  const given =
    typeof own === 'function'
      ? await runOperatorFunction(
          options.name,
          'headers',
          'could not be called: its headers function failed',
          logger,
          () => own(ctx),
        )
      : own;
  // The operator's headers by the same rule as the client's own (a function's protocol headers are dropped).
  return { ...headers, ...clientHeaders(given) };
}

/** Relays an upstream's notification about the caller's request: its progress and its log messages. */
function relay(ctx: RequestContext, message: UpstreamMessage): void {
  const params = isObject(message.params) ? message.params : {};
  if (message.method === 'notifications/progress' && typeof params.progress === 'number') {
    // The upstream echoes the caller's own token (forwarded verbatim): ctx.progress sends it, or nothing without one.
    void ctx
      .progress(
        params.progress,
        typeof params.total === 'number' ? params.total : undefined,
        typeof params.message === 'string' ? params.message : undefined,
      )
      .catch(() => undefined);
  } else if (message.method === 'notifications/message' && LOG_LEVELS.includes(params.level as LogLevel)) {
    void ctx
      .log(params.level as LogLevel, params.data, typeof params.logger === 'string' ? params.logger : undefined)
      .catch(() => undefined);
  }
}

/**
 * Asks the caller what an upstream asks the gateway (MCP: sampling, elicitation, roots), under `key` in a 2026 round.
 * With `fixedRoots` (a connection every caller shares), `roots/list` is answered with them and never asked.
 */
function ask(
  ctx: RequestContext,
  method: string,
  params: Record<string, unknown> | undefined,
  fixedRoots: readonly UpstreamRoot[] | undefined,
  key?: string,
): Promise<unknown> {
  if (method === 'roots/list' && fixedRoots !== undefined) return Promise.resolve(rootsResult(fixedRoots));
  const options = key === undefined ? undefined : { key };
  if (method === 'sampling/createMessage')
    return ctx.sample((params ?? {}) as Parameters<RequestContext['sample']>[0], options);
  if (method === 'elicitation/create')
    return ctx.elicit((params ?? {}) as Parameters<RequestContext['elicit']>[0], options);
  if (method === 'roots/list') return ctx.listRoots(options);
  return Promise.reject(
    new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: the gateway does not relay ${method}`),
  );
}

/**
 * The roots a `roots/list` asked during a call is answered with, when the connection serves every caller: a
 * `'shared'` stdio process or a 2025 session. A client's roots are the server's for the connection (MCP client
 * features › Roots: the server uses them as the client's boundaries, and server-filesystem makes them its allowed
 * directories for the whole process), so one caller's answer would set every caller's: it gets the upstream's `roots`
 * option instead. Undefined (relayed to the caller) where the connection is the caller's alone: its own process
 * (`'per-principal'`), or a 2026 request, whose answers come with that request only (MCP 2026-07-28 input_required).
 */
function fixedRootsOf(target: UpstreamTarget): readonly UpstreamRoot[] | undefined {
  if (target.clientFor !== undefined) return undefined;
  const era = target.client.era;
  if (target.options.stdio === undefined && era !== undefined && !stateful(era)) return undefined;
  return target.options.roots;
}

/** The options of one forwarded request: the caller's signal, headers and capabilities, and the relays. */
async function callerRequestOptions(
  target: UpstreamTarget,
  ctx: RequestContext,
  extraHeaders: Record<string, string> | undefined,
  paidHere: boolean,
  authorization: string | undefined,
): Promise<UpstreamRequestOptions> {
  const headers = { ...(await forwardedHeaders(target.options, ctx, paidHere, target.logger)), ...extraHeaders };
  // With `auth`, the caller's exchanged token replaces any `authorization` the operator's headers gave.
  if (authorization !== undefined) headers.authorization = authorization;
  return {
    signal: callAbortOf(ctx),
    headers,
    capabilities: RELAYED_CAPABILITIES as Record<string, unknown>,
    onMessage: (message) => relay(ctx, message),
    onRequest: (method, params) => ask(ctx, method, params, fixedRootsOf(target)),
  };
}

/** Removes what belongs to the upstream hop from a result (its 2026 result type and cache hints: ours are our own). */
function ownResult(result: unknown, label: string): Record<string, unknown> {
  if (!isObject(result))
    throw new JsonRpcError(ErrorCode.InternalError, `Upstream "${label}" sent a result that is not an object`);
  // A 2025 result has nothing of the hop: it is passed on as parsed, not copied.
  if (!('resultType' in result || 'ttlMs' in result || 'cacheScope' in result || isObject(result._meta))) return result;
  const { resultType: _type, ttlMs: _ttl, cacheScope: _scope, ...rest } = result;
  // The upstream's serverInfo (MCP 2026-07-28 results' `_meta`) names it, not us: the caller gets ours.
  if (isObject(rest._meta) && SERVER_INFO_META in rest._meta) {
    const { [SERVER_INFO_META]: _info, ...meta } = rest._meta;
    if (Object.keys(meta).length === 0) delete rest._meta;
    else rest._meta = meta;
  }
  return rest;
}

/** Where a caller's request goes: the upstream's client and options, and the router's observer (a CLIENT span per call). */
export interface UpstreamTarget {
  readonly client: UpstreamClient;
  /** The caller's own client, when each caller has its own process (`processes: 'per-principal'`); else `client`. */
  readonly clientFor?: ((ctx: RequestContext) => Pick<UpstreamClient, 'request'>) | undefined;
  readonly options: ResolvedUpstream;
  readonly telemetry?: McpObserver | undefined;
  /** Where what a `headers` function threw is logged. */
  readonly logger?: McpLogger | undefined;
}

/**
 * Forwards a caller's request in a CLIENT span named like the upstream's SERVER span (`{mcp.method.name} {target}`),
 * with the upstream's name and address; the span's trace context replaces the caller's in the forwarded `_meta`
 * (SEP-414), so the upstream's span is its child.
 */
export async function forwardRequest(
  target: UpstreamTarget,
  method: string,
  params: Record<string, unknown>,
  ctx: RequestContext,
  extraHeaders?: Record<string, string>,
  paidHere = false,
): Promise<Record<string, unknown>> {
  const { telemetry, options } = target;
  const client = target.clientFor?.(ctx) ?? target.client;
  const send = (sent: Record<string, unknown>, authorization?: string): Promise<Record<string, unknown>> =>
    exchange(client, target, method, sent, ctx, () =>
      callerRequestOptions(target, ctx, extraHeaders, paidHere, authorization),
    );
  const { auth } = options;
  const forward = (sent: Record<string, unknown>): Promise<Record<string, unknown>> =>
    auth === undefined || options.stdio !== undefined
      ? send(sent)
      : asCaller(options.name, auth, ctx, (authorization) => send(sent, authorization));
  if (telemetry === undefined) return forward(params);
  const { name, attributes } = describeMessage(method, params);
  const spanAttributes: Record<string, string | number> = { ...attributes, [ATTR_UPSTREAM_NAME]: options.name };
  // A stdio upstream has no network address to name.
  if (options.url !== undefined) {
    const url = new URL(options.url);
    spanAttributes[ATTR_SERVER_ADDRESS] = url.hostname;
    spanAttributes[ATTR_SERVER_PORT] = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  }
  return telemetry.childSpan('client', name, spanAttributes, (span) => forward(withTraceContext(params, span)));
}

/** `params` with the current span's trace context in `_meta` instead of the caller's (unchanged when nothing records). */
function withTraceContext(params: Record<string, unknown>, span: Pick<ChildSpan, 'inject'>): Record<string, unknown> {
  const meta: Record<string, unknown> = isObject(params._meta) ? { ...params._meta } : {};
  const before = META_TRACE_KEYS.map((key) => meta[key]);
  span.inject(meta);
  if (META_TRACE_KEYS.every((key, index) => meta[key] === before[index])) return params;
  return { ...params, _meta: meta };
}

/**
 * Sends a caller's request upstream and resolves with its result. A 2026 upstream's `input_required` result is
 * answered by asking the caller each of its inputRequests (ctx.elicit…, under the upstream's own keys, so a 2026
 * caller's retry answers them) and retrying with the answers and the upstream's requestState (MCP 2026-07-28 MRTR).
 */
async function exchange(
  client: Pick<UpstreamClient, 'request'>,
  target: UpstreamTarget,
  method: string,
  params: Record<string, unknown>,
  ctx: RequestContext,
  optionsFor: () => Promise<UpstreamRequestOptions>,
): Promise<Record<string, unknown>> {
  const { options } = target;
  const requestOptions = await optionsFor();
  let sent = params;
  for (let round = 0; ; round++) {
    const result = await client.request(method, sent, requestOptions);
    if (!isObject(result) || result.resultType !== 'input_required') return ownResult(result, options.name);
    if (round === MAX_INPUT_ROUNDS)
      throw new JsonRpcError(
        ErrorCode.InternalError,
        `Upstream "${options.name}" asked for input more than ${MAX_INPUT_ROUNDS} times`,
      );
    const requests = isObject(result.inputRequests) ? Object.entries(result.inputRequests) : [];
    const answers = await Promise.all(
      requests.map(async ([key, request]) => {
        const { method: asked, params: askedParams } = isObject(request) ? request : {};
        const answer = ask(
          ctx,
          String(asked),
          isObject(askedParams) ? askedParams : undefined,
          fixedRootsOf(target),
          key,
        );
        return [key, await answer] as const;
      }),
    );
    const { inputResponses: _previous, requestState: _state, ...rest } = params;
    sent = {
      ...rest,
      inputResponses: Object.fromEntries(answers),
      ...(result.requestState === undefined ? {} : { requestState: result.requestState }),
    };
  }
}
