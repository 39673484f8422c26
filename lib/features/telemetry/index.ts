// The telemetry feature: OpenTelemetry spans and metrics of every request, call, session and upstream request, when @opentelemetry/api is installed.

import type { RouterFeature } from '../../edge/feature';
import { createTelemetry } from './telemetry';
import { resolveTelemetry, type ResolvedTelemetry, type TelemetryOptions } from './telemetry-options';

/** The router's options the telemetry feature reads. */
export interface TelemetryRouterOptions {
  readonly telemetry?: TelemetryOptions | boolean;
}

/** Observes the router through OpenTelemetry's API (`telemetry: false` turns it off); it adds nothing to `mcp`. */
export const telemetryFeature: RouterFeature<TelemetryRouterOptions, ResolvedTelemetry | undefined, object> = {
  key: 'telemetry',
  resolve: (options) => resolveTelemetry(options.telemetry),
  observer: (config) => createTelemetry(config),
  install: () => ({ api: {} }),
};
