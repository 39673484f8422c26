// The OpenTelemetry setups of scenario 4's router servers: the API absent, installed but idle, or the SDK registered.

import Module from 'node:module';
import type { ExportedCounts } from './telemetry-sdk';

/**
 * `absent`: `@opentelemetry/api` cannot be resolved, as in an app that does not install it. `idle`: it is installed
 * and no provider is registered (an app that has the API through some other package). `disabled`: the API loaded
 * by the server itself and the router made with `telemetry: false` (a control: (t1)'s process without the router's
 * per-message check). `sdk`: a tracer and a meter provider registered as the NodeSDK registers them, spans batched
 * to an exporter that counts and drops them.
 */
export const TELEMETRY_MODES = ['absent', 'idle', 'disabled', 'sdk'] as const;
export type TelemetryMode = (typeof TELEMETRY_MODES)[number];

/** What a server of scenario 4 reports after its runs, so the harness can tell that each setup is what it claims. */
export interface TelemetryStats extends ExportedCounts {
  readonly mode: TelemetryMode;
  /** Whether any module of `@opentelemetry/api` was loaded in the process. */
  readonly apiLoaded: boolean;
}

/** Makes `@opentelemetry/api` unresolvable from here on: the router's optional `require` then fails as without it. */
function hideApi(): void {
  const loader = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
  const resolve = loader._resolveFilename;
  loader._resolveFilename = function resolveWithoutApi(this: unknown, request: string, ...rest: unknown[]): string {
    if (request === '@opentelemetry/api' || request.startsWith('@opentelemetry/api/')) {
      throw Object.assign(new Error(`Cannot find module '${request}'`), { code: 'MODULE_NOT_FOUND' });
    }
    return resolve.call(this, request, ...rest);
  };
}

function apiLoaded(): boolean {
  return Object.keys(require.cache).some((file) => /[\\/]@opentelemetry[\\/]api[\\/]/.test(file));
}

/** The router options a setup needs on top of its variant's. */
export function telemetryOption(mode: TelemetryMode): { telemetry?: false } {
  return mode === 'disabled' ? { telemetry: false } : {};
}

/**
 * Sets the process up for `mode`; call it before `mcpRouter()`, which looks for the API when it is created.
 *
 * @returns what the server reports to the harness after its runs
 */
export function setUpTelemetry(mode: TelemetryMode): () => Promise<TelemetryStats> {
  if (mode === 'absent') hideApi();
  if (mode === 'disabled') require('@opentelemetry/api');
  // Required only here: importing the SDK (and with it the API) at the top would load the API in every mode.
  const counts =
    mode === 'sdk'
      ? (require('./telemetry-sdk') as typeof import('./telemetry-sdk')).registerSdk()
      : async (): Promise<ExportedCounts> => ({ spans: 0, addSpans: 0, operations: 0 });
  return async () => ({ mode, apiLoaded: apiLoaded(), ...(await counts()) });
}
