// The router's observer over OpenTelemetry: SERVER spans and the MCP conventions' histograms, trace context from `_meta`.

import type {
  Attributes,
  Context,
  Link,
  TextMapGetter,
  TextMapSetter,
  Tracer,
  TracerProvider,
} from '@opentelemetry/api';
import type { JsonRpcResponse } from '../../core/jsonrpc/types';
import { bounded, errorTypeOf } from '../../core/observe/message-attributes';
import type { MessageSetting, ObservedMessage } from '../../core/observe/observed-message';
import { NO_SPAN, type ChildSpan, type McpObserver, type ObservedOperation } from '../../core/observe/observer';
import * as semconv from '../../core/observe/semconv';
import { createInstruments, INSTRUMENTATION_SCOPE, type Instruments } from './instruments';
import { loadOpenTelemetryApi, type OtelApi } from './load-api';
import { probeOpenTelemetry, type OtelProbe } from './otel-internals';
import { planServerSpan, settleServerSpan } from './server-span';
import type { ResolvedTelemetry } from './telemetry-options';

// SEP-414: `_meta` is a plain object; only string values can be trace context.
const META_GETTER: TextMapGetter<Readonly<Record<string, unknown>>> = {
  keys: (meta) => Object.keys(meta),
  get: (meta, key) => {
    const value = meta[key];
    return typeof value === 'string' ? value : undefined;
  },
};
const META_SETTER: TextMapSetter<Record<string, unknown>> = {
  set: (meta, key, value) => {
    meta[key] = value;
  },
};

/**
 * The observer of one router over OpenTelemetry. Built only when `@opentelemetry/api` is installed; `live()` then
 * tells, per request and for the price of two calls, whether a tracer or meter provider is registered, so nothing is
 * built when none is. Not exported: the published types must not name `@opentelemetry/api` (an optional peer), so
 * callers hold it as an {@link McpObserver}.
 */
class OpenTelemetryObserver implements McpObserver {
  /** What the documented API does not tell (otel-internals.ts). */
  private readonly probe: OtelProbe;
  /** The histograms of the meter provider registered now, if any. */
  private readonly currentInstruments: () => Instruments | undefined;
  /** The registered tracer provider our tracer came from (a registration replaces it), and that tracer. */
  private tracerSource: TracerProvider | undefined;
  private cachedTracer: Tracer | undefined;

  constructor(
    private readonly api: OtelApi,
    private readonly settings: ResolvedTelemetry,
  ) {
    this.probe = probeOpenTelemetry(api);
    this.currentInstruments = createInstruments(api, this.probe);
  }

  /** Whether anything would be recorded now: a tracer provider or a meter provider is registered. */
  live(): boolean {
    // Nothing registered at all (no SDK started): one property read, the whole cost per message of tracing off.
    if (!this.probe.anythingRegistered()) return false;
    return this.probe.tracingRegistered() || this.currentInstruments() !== undefined;
  }

  /**
   * Serves one request or notification inside a SERVER span named `{mcp.method.name} {target}` (mcp.md), its parent
   * the trace context of `params._meta` (SEP-414) or else the active (HTTP) context, and records its duration.
   */
  async serve(
    message: ObservedMessage,
    setting: MessageSetting,
    run: () => Promise<JsonRpcResponse | null>,
  ): Promise<JsonRpcResponse | null> {
    const operation = this.begin(message, setting);
    let response: JsonRpcResponse | null;
    try {
      response = await operation.run(run);
    } catch (err) {
      operation.fail(err);
      throw err;
    }
    operation.end(response);
    return response;
  }

  /** Starts the SERVER span of a message served outside `serve` (a subscriptions/listen stream); its owner ends it. */
  begin(message: ObservedMessage, setting: MessageSetting): ObservedOperation {
    const { api } = this;
    const started = performance.now();
    const { method, nameable, metricAttributes, attributes, ...plan } = planServerSpan(
      message,
      setting,
      this.settings.recordArguments,
    );
    let { named } = plan;
    const { parent, links } = this.parentOf(message.params?._meta);
    const name = named ? `${method} ${nameable!.value}` : method;
    const span = this.tracer().startSpan(name, { kind: api.SpanKind.SERVER, attributes, links }, parent);
    const context = api.trace.setSpan(parent, span);
    let ended = false;
    const finish = (errorType: string | undefined, response: JsonRpcResponse | null): void => {
      if (ended) return;
      ended = true;
      // Asked again at the end: a gateway's upstream tools may have loaded during the call.
      if (nameable !== undefined && !named && setting.registered?.(message.method, nameable.value) === true) {
        named = true;
        span.updateName(`${method} ${nameable.value}`);
        span.setAttribute(nameable.key, nameable.value);
      }
      if (named) metricAttributes[nameable!.key] = nameable!.value;
      if (errorType !== undefined) {
        metricAttributes[semconv.ATTR_ERROR_TYPE] = errorType;
        span.setAttribute(semconv.ATTR_ERROR_TYPE, errorType);
        // One rule (OpenTelemetry "Recording errors", which mcp.md follows): error.type set ⇔ status ERROR.
        span.setStatus({
          code: api.SpanStatusCode.ERROR,
          ...(response !== null && 'error' in response ? { message: bounded(String(response.error.message)) } : {}),
        });
      }
      if (response !== null && 'error' in response)
        metricAttributes[semconv.ATTR_RPC_RESPONSE_STATUS_CODE] = errorTypeOf(response.error.code);
      span.end();
      this.currentInstruments()?.operation.record((performance.now() - started) / 1000, metricAttributes);
    };
    return {
      run: (fn) => api.context.with(context, fn),
      end: (response) => {
        // initialize: the revision is the one negotiated, in the result (the request's is the client's proposal).
        const negotiated =
          message.method === 'initialize' && response !== null && 'result' in response
            ? response.result.protocolVersion
            : undefined;
        if (typeof negotiated === 'string') {
          metricAttributes[semconv.ATTR_MCP_PROTOCOL_VERSION] = negotiated;
          span.setAttribute(semconv.ATTR_MCP_PROTOCOL_VERSION, negotiated);
        }
        finish(settleServerSpan(span, message, response, this.settings.recordResults), response);
      },
      fail: (err) => {
        span.recordException(err instanceof Error ? err : String(err));
        finish(err instanceof Error ? err.name : 'Error', null);
      },
    };
  }

  /** Records a 2025 session's lifetime on `mcp.server.session.duration`. */
  sessionEnded(durationMs: number, protocolVersion: string | undefined, reason: string): void {
    const instruments = this.currentInstruments();
    if (instruments === undefined) return;
    const attributes: Attributes = {
      [semconv.ATTR_NETWORK_TRANSPORT]: 'tcp',
      [semconv.ATTR_NETWORK_PROTOCOL_NAME]: 'http',
    };
    if (protocolVersion !== undefined) attributes[semconv.ATTR_MCP_PROTOCOL_VERSION] = protocolVersion;
    // A session the server gave up on (evicted) ended in error; deleted, expired or closed with the router did not.
    if (reason === 'evicted') attributes[semconv.ATTR_ERROR_TYPE] = reason;
    instruments.session.record(durationMs / 1000, attributes);
  }

  /**
   * Runs `run` inside a child span of the current one: CLIENT for a call this server makes for a request (an upstream
   * MCP server, a payment facilitator), INTERNAL for an in-process one (a bridged route). A thrown value fails it.
   */
  async childSpan<T>(
    kind: 'client' | 'internal',
    name: string,
    attributes: Readonly<Record<string, string | number>>,
    run: (span: ChildSpan) => Promise<T>,
  ): Promise<T> {
    if (!this.live()) return run(NO_SPAN);
    const { api } = this;
    const parent = api.context.active();
    const span = this.tracer().startSpan(
      name,
      { kind: kind === 'client' ? api.SpanKind.CLIENT : api.SpanKind.INTERNAL, attributes },
      parent,
    );
    // An in-process route runs inside the MCP POST's context: the Express instrumentation would record its route as
    // the POST's and rename the POST's HTTP span (`POST /users/:id` for a POST to /mcp). It gets no route holder.
    const inSpan = api.trace.setSpan(parent, span);
    const context = kind === 'internal' ? this.probe.withoutRouteHolder(inSpan) : inSpan;
    const child: ChildSpan = {
      inject: (meta) => api.propagation.inject(context, meta, META_SETTER),
      setAttribute: (key, value) => void span.setAttribute(key, value),
      fail: (errorType) => {
        span.setAttribute(semconv.ATTR_ERROR_TYPE, errorType);
        span.setStatus({ code: api.SpanStatusCode.ERROR });
      },
    };
    try {
      return await api.context.with(context, () => run(child));
    } catch (err) {
      child.fail(err instanceof Error ? err.name : 'Error');
      span.recordException(err instanceof Error ? err : String(err));
      throw err;
    } finally {
      span.end();
    }
  }

  /** Our tracer, asked of the provider once per registration rather than per span (getTracer builds a key and looks it up). */
  private tracer(): Tracer {
    const source = this.probe.tracerSource();
    if (source !== this.tracerSource || this.cachedTracer === undefined) {
      this.tracerSource = source;
      this.cachedTracer = this.api.trace.getTracerProvider().getTracer(INSTRUMENTATION_SCOPE);
    }
    return this.cachedTracer;
  }

  /** SEP-414: `_meta` trace context is the parent, and the HTTP request's span a link; else the active context is the parent. */
  private parentOf(meta: unknown): { readonly parent: Context; readonly links: Link[] } {
    const { api } = this;
    const active = api.context.active();
    if (
      typeof meta !== 'object' ||
      meta === null ||
      !semconv.META_TRACE_KEYS.some((key) => typeof (meta as Record<string, unknown>)[key] === 'string')
    )
      return { parent: active, links: [] };
    const carrier = meta as Readonly<Record<string, unknown>>;
    if (typeof carrier.traceparent !== 'string')
      return { parent: api.propagation.extract(active, carrier, META_GETTER), links: [] };
    const parent = api.propagation.extract(api.ROOT_CONTEXT, carrier, META_GETTER);
    const http = api.trace.getSpanContext(active);
    return { parent, links: http !== undefined && api.isSpanContextValid(http) ? [{ context: http }] : [] };
  }
}

/**
 * The router's observer over OpenTelemetry: undefined when turned off (`telemetry: false`) or when
 * `@opentelemetry/api` is not installed, so the dispatcher's per-message cost is then one comparison.
 *
 * @param settings - the resolved `telemetry` option; undefined when it is `false`
 * @example
 * ```ts
 * const telemetry = createTelemetry({ recordArguments: false, recordResults: false });
 * createDispatcher(registry, { ...config, telemetry });
 * const response = telemetry?.live() ? await telemetry.serve(request, setting, () => answer(request)) : await answer(request);
 * ```
 */
export function createTelemetry(settings: ResolvedTelemetry | undefined): McpObserver | undefined {
  const api = settings && loadOpenTelemetryApi();
  return api && settings && new OpenTelemetryObserver(api, settings);
}
