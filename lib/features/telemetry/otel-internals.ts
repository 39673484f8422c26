// The one module that reads OpenTelemetry internals: the API's global registry and no-op singletons, and core's route-holder key.

import type { Context, Meter, TracerProvider } from '@opentelemetry/api';
import type { OtelApi } from './load-api';

/**
 * What this module relies on beyond the documented API, checked against `@opentelemetry/api` 1.3.0 to 1.9.x (the peer
 * range is ^1.3.0) and `@opentelemetry/core` 1.x and 2.x (pinned by `__tests__/features/telemetry/otel-internals.test.ts`):
 * - every 1.x copy of the API keeps what is registered on `globalThis[Symbol.for('opentelemetry.js.api.1')]` (its
 *   global-utils: one symbol per major version, so copies in different packages share registrations), and the
 *   property is absent until something registers;
 * - `trace.getTracerProvider()` is the API's global `ProxyTracerProvider`, whose `getDelegate()` is the provider
 *   registered, or else the API's one no-op tracer provider, the same one a fresh `ProxyTracerProvider` returns;
 * - `createNoopMeter()` returns the one no-op meter that the no-op meter provider hands out;
 * - `@opentelemetry/core`'s `setRPCMetadata` (the HTTP instrumentation's holder of the route, which names the HTTP
 *   server span at its end) keeps it under `createContextKey('OpenTelemetry SDK Context Key RPC_METADATA')`, and
 *   `createContextKey(description)` is `Symbol.for(description)`, so the key made here is the instrumentation's.
 */
export const API_GLOBALS = Symbol.for('opentelemetry.js.api.1');

/** The description `@opentelemetry/core` gives the context key of its RPC metadata (the HTTP route holder). */
export const RPC_METADATA_KEY = 'OpenTelemetry SDK Context Key RPC_METADATA';

/** What telemetry asks of OpenTelemetry that its documented API does not answer. */
export interface OtelProbe {
  /** Whether any copy of the API ever had anything registered: one property read, the fast path of telemetry off. */
  anythingRegistered(): boolean;
  /** The tracer provider behind the global proxy: the registered one, else the API's no-op one. */
  tracerSource(): TracerProvider;
  /** Whether a tracer provider is registered (the global proxy does not delegate to the no-op one). */
  tracingRegistered(): boolean;
  /** Whether `meter` is the API's no-op meter, i.e. no meter provider is registered. */
  isNoopMeter(meter: Meter): boolean;
  /** `context` without the HTTP instrumentation's route holder, so what runs in it cannot rename the HTTP span. */
  withoutRouteHolder(context: Context): Context;
}

/**
 * Reads the internals above once per router: the no-op singletons are taken when it is called.
 *
 * @param api - the app's `@opentelemetry/api` (load-api.ts)
 * @example
 * ```ts
 * const probe = probeOpenTelemetry(api);
 * if (probe.anythingRegistered() && probe.tracingRegistered()) startSpans();
 * ```
 */
export function probeOpenTelemetry(api: OtelApi): OtelProbe {
  const noopTracerProvider = new api.ProxyTracerProvider().getDelegate();
  const noopMeter = api.createNoopMeter();
  const rpcMetadataKey = api.createContextKey(RPC_METADATA_KEY);
  const tracerSource = (): TracerProvider => {
    const provider = api.trace.getTracerProvider();
    return provider instanceof api.ProxyTracerProvider ? provider.getDelegate() : provider;
  };
  return {
    anythingRegistered: () => (globalThis as Record<symbol, unknown>)[API_GLOBALS] !== undefined,
    tracerSource,
    tracingRegistered: () => tracerSource() !== noopTracerProvider,
    isNoopMeter: (meter) => meter === noopMeter,
    withoutRouteHolder: (context) => context.deleteValue(rpcMetadataKey),
  };
}
