// McpTelemetry: SERVER spans and the operation/session histograms of the MCP semantic conventions, trace context from `_meta`.

import type {
  Attributes,
  Context,
  Histogram,
  Link,
  Meter,
  MeterProvider,
  Span,
  TextMapGetter,
  TextMapSetter,
  Tracer,
  TracerProvider,
} from '@opentelemetry/api';
import type { JsonRpcId, JsonRpcResponse } from '../jsonrpc/types';
import { loadOpenTelemetryApi, type OtelApi } from './load-api';
import { bounded, errorTypeOf, ORIGINAL_OF, targetOf } from './message-attributes';
import * as semconv from './semconv';
import type { ResolvedTelemetry } from './telemetry-options';

/** What the dispatcher knows of the request around a message: its revision, session and HTTP client. */
export interface TelemetryScene {
  readonly protocolVersion: string;
  readonly sessionId: string | undefined;
  /** The HTTP client's address; undefined without HTTP (then no network.* attributes either). */
  readonly clientAddress: () => string | undefined;
  /** The HTTP version (`'1.1'`, `'2.0'`); undefined without HTTP. */
  readonly networkProtocolVersion?: string | undefined;
  /**
   * Whether a tool (tools/call) or prompt (prompts/get) of that name is registered. Only those names go on the
   * histogram: a name the client made up would add an attribute set per name, so metrics memory would grow with what
   * clients send. Without it (no registry at hand), none do.
   */
  readonly registered?: (method: string, name: string) => boolean;
  /**
   * Whether the router knows a method (its method table, the notifications MCP lets a client send). Only those are
   * named, in `mcp.method.name` and span names; any other is `_OTHER`, its name kept on the span alone, cut short: a
   * client sending made-up methods must not add a series or a span name per method. Without it, none is named.
   */
  readonly knownMethod?: (method: string) => boolean;
}

/** One JSON-RPC request or notification as telemetry sees it. */
export interface TracedMessage {
  readonly method: string;
  /** Absent for a notification. */
  readonly id?: JsonRpcId;
  readonly params?: Readonly<Record<string, unknown>>;
}

/** One message being served in its SERVER span. */
export interface TracedOperation {
  /** Runs `fn` inside the span's context, so the handler's own spans nest under it. */
  run<T>(fn: () => T): T;
  /** Ends the span from the response (null: cancelled, no response sent) and records the duration; later calls do nothing. */
  end(response: JsonRpcResponse | null): void;
  /** Ends the span for a value thrown while serving. */
  fail(err: unknown): void;
}

/** A child span as its owner sees it (a no-op one when nothing records). */
export interface ChildSpan {
  /** Writes the span's trace context into a `_meta` object (SEP-414: trace context goes in `params._meta`). */
  inject(meta: Record<string, unknown>): void;
  setAttribute(key: string, value: string | number): void;
  /** Marks the call failed: `error.type` and status ERROR (the same rule as the SERVER spans). */
  fail(errorType: string): void;
}

interface Instruments {
  readonly operation: Histogram;
  readonly session: Histogram;
}

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
/** The instrumentation scope of every span and metric: this package (OpenTelemetry: the library, not the app). */
const INSTRUMENTATION_SCOPE = 'express-mcp-router';
/**
 * Where every copy of `@opentelemetry/api` 1.x keeps what is registered (its global-utils: one symbol per major
 * version, so that copies in different packages share registrations). The peer range is ^1.3.0, so always this one.
 */
export const API_GLOBALS = Symbol.for('opentelemetry.js.api.1');
/**
 * Where OpenTelemetry's HTTP instrumentation keeps the route of the request being served (@opentelemetry/core
 * `setRPCMetadata`, a `createContextKey` of this description); it names the HTTP server span at its end.
 */
const RPC_METADATA_KEY = 'OpenTelemetry SDK Context Key RPC_METADATA';
const NO_SPAN: ChildSpan = Object.freeze({
  inject: () => undefined,
  setAttribute: () => undefined,
  fail: () => undefined,
});

/** Node says '2.0' for HTTP/2; the conventions' network.protocol.version says '2' (and '1.1', '1.0' as they are). */
function conventionalHttpVersion(version: string): string {
  return version === '2.0' ? '2' : version === '3.0' ? '3' : version;
}

/** Opt-in attributes as JSON text: a value JSON cannot hold (a cycle, a BigInt) must not fail the call it describes. */
function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'undefined';
  } catch {
    return '"[unserialisable]"';
  }
}

/**
 * The telemetry of one router. Built only when `@opentelemetry/api` is installed; `live()` then tells, per request and
 * for the price of two calls, whether a tracer or meter provider is registered, so nothing is built when none is.
 *
 * @example
 * ```ts
 * const telemetry = createTelemetry({ recordArguments: false, recordResults: false });
 * const response = telemetry?.live() ? await telemetry.serve(request, scene, () => answer(request)) : await answer(request);
 * ```
 */
export class McpTelemetry {
  /** The API's no-op provider, what a proxy delegates to until a provider is registered. */
  private readonly noopTracerProvider: TracerProvider;
  private readonly noopMeter: Meter;
  private readonly rpcMetadataKey: symbol;
  /** The meter provider the instruments were made from (a registration replaces it). */
  private meterProvider: MeterProvider | undefined;
  private instruments: Instruments | undefined;
  /** The registered tracer provider our tracer came from (a registration replaces it), and that tracer. */
  private tracerSource: TracerProvider | undefined;
  private cachedTracer: Tracer | undefined;

  // Private: the published types must not name @opentelemetry/api (an optional peer), so only createTelemetry builds one.
  private constructor(
    private readonly api: OtelApi,
    private readonly settings: ResolvedTelemetry,
  ) {
    this.noopTracerProvider = new api.ProxyTracerProvider().getDelegate();
    this.noopMeter = api.createNoopMeter();
    this.rpcMetadataKey = api.createContextKey(RPC_METADATA_KEY);
  }

  /** See {@link createTelemetry}. */
  static create(settings: ResolvedTelemetry | undefined): McpTelemetry | undefined {
    const api = settings && loadOpenTelemetryApi();
    return api && settings && new McpTelemetry(api, settings);
  }

  /** Whether anything would be recorded now: a tracer provider or a meter provider is registered. */
  live(): boolean {
    // Nothing registered at all (no SDK started): one property read, the whole cost per message of tracing off.
    if ((globalThis as Record<symbol, unknown>)[API_GLOBALS] === undefined) return false;
    const provider = this.api.trace.getTracerProvider();
    const tracing =
      !(provider instanceof this.api.ProxyTracerProvider) || provider.getDelegate() !== this.noopTracerProvider;
    return tracing || this.currentInstruments() !== undefined;
  }

  /**
   * Serves one request or notification inside a SERVER span named `{mcp.method.name} {target}` (mcp.md), its parent
   * the trace context of `params._meta` (SEP-414) or else the active (HTTP) context, and records its duration.
   */
  async serve(
    message: TracedMessage,
    scene: TelemetryScene,
    run: () => Promise<JsonRpcResponse | null>,
  ): Promise<JsonRpcResponse | null> {
    const operation = this.begin(message, scene);
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
  begin(message: TracedMessage, scene: TelemetryScene): TracedOperation {
    const { api } = this;
    const started = performance.now();
    // Only what the router knows names a series or a span: made-up methods are _OTHER (see `knownMethod`).
    const known = scene.knownMethod?.(message.method) === true;
    const method = known ? message.method : semconv.OTHER;
    const target = known ? targetOf(message.method, message.params) : undefined;
    const metricAttributes: Attributes = {
      [semconv.ATTR_MCP_METHOD_NAME]: method,
      [semconv.ATTR_MCP_PROTOCOL_VERSION]: scene.protocolVersion,
    };
    // A tool or prompt name is named (span name, histogram) once registered (see `registered`); a resource URI never
    // (mcp.md: span name `{mcp.method.name}` without a low-cardinality target; URIs stay off the histogram).
    const nameable = target !== undefined && target.key !== semconv.ATTR_MCP_RESOURCE_URI ? target : undefined;
    let named = nameable !== undefined && scene.registered?.(message.method, nameable.value) === true;
    const clientAddress = scene.clientAddress();
    if (clientAddress !== undefined) {
      // Streamable HTTP runs over TCP (MCP transports).
      metricAttributes[semconv.ATTR_NETWORK_TRANSPORT] = 'tcp';
      metricAttributes[semconv.ATTR_NETWORK_PROTOCOL_NAME] = 'http';
      if (scene.networkProtocolVersion !== undefined)
        metricAttributes[semconv.ATTR_NETWORK_PROTOCOL_VERSION] = conventionalHttpVersion(scene.networkProtocolVersion);
    }
    const attributes: Attributes = { ...metricAttributes };
    if (!known) attributes[semconv.ATTR_MCP_METHOD_NAME_ORIGINAL] = bounded(message.method);
    if (nameable !== undefined && !named) {
      attributes[nameable.key] = semconv.OTHER;
      attributes[ORIGINAL_OF[nameable.key]!] = bounded(nameable.value);
    } else if (target !== undefined) {
      attributes[target.key] = bounded(target.value);
    }
    if (message.id !== undefined) attributes[semconv.ATTR_JSONRPC_REQUEST_ID] = bounded(String(message.id));
    if (message.method === 'tools/call') {
      attributes[semconv.ATTR_GEN_AI_OPERATION_NAME] = semconv.OPERATION_EXECUTE_TOOL;
      if (this.settings.recordArguments)
        attributes[semconv.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = json(message.params?.arguments ?? {});
    }
    if (scene.sessionId !== undefined) attributes[semconv.ATTR_MCP_SESSION_ID] = scene.sessionId;
    if (clientAddress !== undefined) attributes[semconv.ATTR_CLIENT_ADDRESS] = clientAddress;

    const { parent, links } = this.parentOf(message.params?._meta);
    const name = named ? `${method} ${nameable!.value}` : method;
    const span = this.tracer().startSpan(name, { kind: api.SpanKind.SERVER, attributes, links }, parent);
    const context = api.trace.setSpan(parent, span);
    let ended = false;
    const finish = (errorType: string | undefined, response: JsonRpcResponse | null): void => {
      if (ended) return;
      ended = true;
      // Asked again at the end: a gateway's upstream tools may have loaded during the call.
      if (nameable !== undefined && !named && scene.registered?.(message.method, nameable.value) === true) {
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
        finish(this.settle(span, message, response), response);
      },
      fail: (err) => {
        span.recordException(err instanceof Error ? err : String(err));
        finish(err instanceof Error ? err.name : 'Error', null);
      },
    };
  }

  /** Records a 2025 session's lifetime on `mcp.server.session.duration`. */
  sessionEnded(durationMs: number, protocolVersion: string | undefined, reason: string): void {
    const attributes: Attributes = {
      [semconv.ATTR_NETWORK_TRANSPORT]: 'tcp',
      [semconv.ATTR_NETWORK_PROTOCOL_NAME]: 'http',
    };
    if (protocolVersion !== undefined) attributes[semconv.ATTR_MCP_PROTOCOL_VERSION] = protocolVersion;
    // A session the server gave up on (evicted) ended in error; deleted, expired or closed with the router did not.
    if (reason === 'evicted') attributes[semconv.ATTR_ERROR_TYPE] = reason;
    this.currentInstruments()?.session.record(durationMs / 1000, attributes);
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
    const context =
      kind === 'internal'
        ? api.trace.setSpan(parent, span).deleteValue(this.rpcMetadataKey)
        : api.trace.setSpan(parent, span);
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
    const provider = this.api.trace.getTracerProvider();
    const source = provider instanceof this.api.ProxyTracerProvider ? provider.getDelegate() : provider;
    if (source !== this.tracerSource || this.cachedTracer === undefined) {
      this.tracerSource = source;
      this.cachedTracer = provider.getTracer(INSTRUMENTATION_SCOPE);
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

  /** The span's outcome from the response: error.type and rpc.response.status_code (mcp.md), the opt-in result. */
  private settle(span: Span, message: TracedMessage, response: JsonRpcResponse | null): string | undefined {
    // MCP cancellation: a cancelled request gets no response.
    if (response === null) return message.id === undefined ? undefined : semconv.ERROR_TYPE_CANCELLED;
    if ('error' in response) {
      // The span keeps the code as it came (cut short); error.type is bounded like the histogram's attributes.
      span.setAttribute(semconv.ATTR_RPC_RESPONSE_STATUS_CODE, bounded(String(response.error.code)));
      return errorTypeOf(response.error.code);
    }
    if (message.method !== 'tools/call') return undefined;
    if (this.settings.recordResults) span.setAttribute(semconv.ATTR_GEN_AI_TOOL_CALL_RESULT, json(response.result));
    // mcp.md: a CallToolResult with isError: true is a failed call, error.type "tool_error".
    return (response.result as { isError?: unknown }).isError === true ? semconv.ERROR_TYPE_TOOL_ERROR : undefined;
  }

  private currentInstruments(): Instruments | undefined {
    const provider = this.api.metrics.getMeterProvider();
    if (provider === this.meterProvider) return this.instruments;
    this.meterProvider = provider;
    const meter = provider.getMeter(INSTRUMENTATION_SCOPE);
    const advice = { explicitBucketBoundaries: [...semconv.DURATION_BUCKETS_S] };
    this.instruments =
      meter === this.noopMeter
        ? undefined
        : {
            operation: meter.createHistogram(semconv.METRIC_SERVER_OPERATION_DURATION, {
              unit: 's',
              description: 'Duration of the MCP requests served',
              advice,
            }),
            session: meter.createHistogram(semconv.METRIC_SERVER_SESSION_DURATION, {
              unit: 's',
              description: 'Duration of the MCP sessions',
              advice,
            }),
          };
    return this.instruments;
  }
}

/**
 * The router's telemetry: undefined when turned off (`telemetry: false`) or when `@opentelemetry/api` is not
 * installed, so the dispatcher's per-message cost is then one comparison.
 *
 * @param settings - the resolved `telemetry` option; undefined when it is `false`
 * @example
 * ```ts
 * const telemetry = createTelemetry({ recordArguments: false, recordResults: false });
 * createDispatcher(registry, { ...config, telemetry });
 * ```
 */
export function createTelemetry(settings: ResolvedTelemetry | undefined): McpTelemetry | undefined {
  return McpTelemetry.create(settings);
}
