// Loads @opentelemetry/api if the app has it: an optional peer dependency, required once when a router is created.

import type * as OpenTelemetryApi from '@opentelemetry/api';

/** The `@opentelemetry/api` module. */
export type OtelApi = typeof OpenTelemetryApi;

/**
 * The app's `@opentelemetry/api`, or undefined when it is not installed. A `require` rather than an import: the
 * package is optional, and an app without it must load this router all the same.
 */
export function loadOpenTelemetryApi(): OtelApi | undefined {
  try {
    return require('@opentelemetry/api') as OtelApi;
  } catch {
    return undefined;
  }
}
