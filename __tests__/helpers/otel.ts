// Test helpers: an OpenTelemetry SDK registered for one test file (in-memory spans and metrics), and removed after.

import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { MeterProvider, MetricReader, type HistogramMetricData } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';

/** A metric reader that is read on demand. */
class TestMetricReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

/** The SDK of one test file: what NodeSDK sets up (W3C propagators, AsyncLocalStorage context, a tracer and a meter provider). */
export interface TestOtel {
  readonly exporter: InMemorySpanExporter;
  /** Spans ended so far. */
  spans(): ReadableSpan[];
  /** The one ended span of that name. */
  span(name: string): ReadableSpan;
  /** The data points of a histogram, by metric name. */
  histogram(name: string): Promise<HistogramMetricData['dataPoints']>;
  /** Unregisters everything (trace.disable, context.disable, …). */
  stop(): Promise<void>;
}

/** Registers a BasicTracerProvider with an InMemorySpanExporter and a MeterProvider with a reader read on demand. */
export function startOtel(): TestOtel {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new TestMetricReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  return {
    exporter,
    spans: () => exporter.getFinishedSpans(),
    span(name) {
      const found = exporter.getFinishedSpans().filter((span) => span.name === name);
      if (found.length !== 1)
        throw new Error(
          `expected one span '${name}', found ${found.length}: ${exporter
            .getFinishedSpans()
            .map((span) => span.name)
            .join(', ')}`,
        );
      return found[0]!;
    },
    async histogram(name) {
      const { resourceMetrics } = await reader.collect();
      const metric = resourceMetrics.scopeMetrics
        .flatMap((scope) => scope.metrics)
        .find((candidate) => candidate.descriptor.name === name);
      return (metric as HistogramMetricData | undefined)?.dataPoints ?? [];
    },
    async stop() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
      trace.disable();
      metrics.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/**
 * An SDK for each test of the file: registered before each test, removed after it. Read through the returned
 * object, which always speaks for the current test's SDK.
 */
export function useOtel(): Omit<TestOtel, 'stop'> {
  let current: TestOtel | undefined;
  beforeEach(() => {
    current = startOtel();
  });
  afterEach(async () => {
    await current?.stop();
    current = undefined;
  });
  const now = (): TestOtel => {
    if (current === undefined) throw new Error('useOtel: the SDK is registered in beforeEach; use it inside a test');
    return current;
  };
  return {
    get exporter() {
      return now().exporter;
    },
    spans: () => now().spans(),
    span: (name) => now().span(name),
    histogram: (name) => now().histogram(name),
  };
}
