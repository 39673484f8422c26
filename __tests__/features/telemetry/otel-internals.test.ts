// Pins what lib/features/telemetry/otel-internals.ts reads of OpenTelemetry beyond its documented API, against the installed versions.

import * as api from '@opentelemetry/api';
import { getRPCMetadata, RPCType, setRPCMetadata } from '@opentelemetry/core';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { API_GLOBALS, probeOpenTelemetry } from '../../../lib/features/telemetry/otel-internals';

describe('OpenTelemetry internals (otel-internals.ts)', () => {
  const probe = probeOpenTelemetry(api);

  afterEach(() => {
    api.trace.disable();
    api.metrics.disable();
  });

  it('finds nothing registered in a fresh process, and a registration on the API 1.x global symbol', async () => {
    expect(probe.anythingRegistered()).toBe(false);
    const provider = new BasicTracerProvider();
    api.trace.setGlobalTracerProvider(provider);
    expect(probe.anythingRegistered()).toBe(true);
    expect((globalThis as Record<symbol, unknown>)[API_GLOBALS]).toMatchObject({ trace: expect.anything() });
    await provider.shutdown();
  });

  it("tells a registered tracer provider from the API's no-op one behind the global proxy", async () => {
    expect(probe.tracingRegistered()).toBe(false);
    const provider = new BasicTracerProvider();
    api.trace.setGlobalTracerProvider(provider);
    expect(probe.tracingRegistered()).toBe(true);
    expect(probe.tracerSource()).toBe(provider);
    api.trace.disable();
    expect(probe.tracingRegistered()).toBe(false);
    await provider.shutdown();
  });

  it('knows the no-op meter the API hands out while no meter provider is registered, and no other', async () => {
    expect(probe.isNoopMeter(api.metrics.getMeterProvider().getMeter('x'))).toBe(true);
    const provider = new MeterProvider();
    api.metrics.setGlobalMeterProvider(provider);
    expect(probe.isNoopMeter(api.metrics.getMeterProvider().getMeter('x'))).toBe(false);
    await provider.shutdown();
  });

  it("removes @opentelemetry/core's route holder (RPC metadata) from a context, and nothing else", () => {
    const key = api.createContextKey('other');
    const holder = {
      type: RPCType.HTTP,
      route: '/mcp',
      span: api.trace.wrapSpanContext(api.INVALID_SPAN_CONTEXT),
    } as const;
    const context = setRPCMetadata(api.ROOT_CONTEXT.setValue(key, 1), holder);
    expect(getRPCMetadata(context)).toBe(holder);
    const stripped = probe.withoutRouteHolder(context);
    expect(getRPCMetadata(stripped)).toBeUndefined();
    expect(stripped.getValue(key)).toBe(1);
  });
});
