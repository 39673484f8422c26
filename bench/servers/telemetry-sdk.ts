// Scenario 4's `sdk` setup: a tracer and a meter provider registered as the NodeSDK does, exporters that count and drop.

import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  CompositePropagator,
  ExportResultCode,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
  type ExportResult,
} from '@opentelemetry/core';
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type HistogramMetricData,
  type PushMetricExporter,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';

const OPERATION_DURATION = 'mcp.server.operation.duration';

/** What the counting exporters saw, at the last flush. */
export interface ExportedCounts {
  /** Spans that reached the exporter. */
  readonly spans: number;
  /** Of those, SERVER spans named `tools/call add`. */
  readonly addSpans: number;
  /** The count of `mcp.server.operation.duration`, all attribute sets together. */
  readonly operations: number;
}

/** The SDK as NodeSDK sets it up, with exporters that count instead of sending. */
export function registerSdk(): () => Promise<ExportedCounts> {
  let spans = 0;
  let addSpans = 0;
  let operations = 0;
  const spanExporter: SpanExporter = {
    export(batch: ReadableSpan[], done: (result: ExportResult) => void) {
      spans += batch.length;
      for (const span of batch) if (span.name === 'tools/call add') addSpans++;
      done({ code: ExportResultCode.SUCCESS });
    },
    shutdown: async () => undefined,
  };
  const metricExporter: PushMetricExporter = {
    export(data: ResourceMetrics, done: (result: ExportResult) => void) {
      for (const metric of data.scopeMetrics.flatMap((scope) => scope.metrics)) {
        // Cumulative temporality (the default): every export carries the totals so far.
        if (metric.descriptor.name === OPERATION_DURATION)
          operations = (metric as HistogramMetricData).dataPoints.reduce((sum, point) => sum + point.value.count, 0);
      }
      done({ code: ExportResultCode.SUCCESS });
    },
    forceFlush: async () => undefined,
    shutdown: async () => undefined,
  };
  // The SDK's defaults: BatchSpanProcessor (512 per batch, every 5 s), metrics read every 60 s.
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(spanExporter)] });
  const meterProvider = new MeterProvider({
    readers: [new PeriodicExportingMetricReader({ exporter: metricExporter })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  return async () => {
    await tracerProvider.forceFlush();
    await meterProvider.forceFlush();
    return { spans, addSpans, operations };
  };
}
