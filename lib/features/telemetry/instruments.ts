// The router's two histograms (mcp.server.operation.duration, mcp.server.session.duration), made once per meter provider.

import type { Histogram, MeterProvider } from '@opentelemetry/api';
import type { OtelApi } from './load-api';
import type { OtelProbe } from './otel-internals';
import * as semconv from '../../core/observe/semconv';

/** The histograms of the MCP semantic conventions for servers. */
export interface Instruments {
  readonly operation: Histogram;
  readonly session: Histogram;
}

/** The instrumentation scope of every span and metric: this package (OpenTelemetry: the library, not the app). */
export const INSTRUMENTATION_SCOPE = 'express-mcp-router';

/**
 * The histograms of the meter provider registered now, or undefined when none is: made again only when a
 * registration replaces the provider, so a recording costs one comparison.
 *
 * @example
 * ```ts
 * const instruments = createInstruments(api, probe);
 * instruments()?.operation.record(0.012, attributes);
 * ```
 */
export function createInstruments(api: OtelApi, probe: OtelProbe): () => Instruments | undefined {
  let meterProvider: MeterProvider | undefined;
  let instruments: Instruments | undefined;
  return () => {
    const provider = api.metrics.getMeterProvider();
    if (provider === meterProvider) return instruments;
    meterProvider = provider;
    const meter = provider.getMeter(INSTRUMENTATION_SCOPE);
    const advice = { explicitBucketBoundaries: [...semconv.DURATION_BUCKETS_S] };
    instruments = probe.isNoopMeter(meter)
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
    return instruments;
  };
}
