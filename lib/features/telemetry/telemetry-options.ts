// The router's `telemetry` option: its type, defaults and check (what a span may record beyond the conventions' defaults).

import { invalidOption, type OptionKeys } from '../../options/config-error';
import { OptionReader } from '../../options/option-reader';

/**
 * OpenTelemetry spans and metrics of the router (`@opentelemetry/api` must be installed and a provider registered,
 * e.g. by the NodeSDK; otherwise nothing is recorded). Arguments and results can hold personal data, so the
 * conventions make them opt-in.
 */
export interface TelemetryOptions {
  /** Record a tool call's arguments (`gen_ai.tool.call.arguments`, JSON). Defaults to `false`. */
  recordArguments?: boolean;
  /** Record a tool call's result (`gen_ai.tool.call.result`, JSON). Defaults to `false`. */
  recordResults?: boolean;
}

/** The telemetry settings after checking: internal. */
export interface ResolvedTelemetry {
  readonly recordArguments: boolean;
  readonly recordResults: boolean;
}

const KNOWN: OptionKeys<TelemetryOptions> = { recordArguments: true, recordResults: true };

/**
 * Checks the `telemetry` option once, at router creation.
 *
 * @returns the settings, or undefined for `telemetry: false`
 * @throws {McpConfigError} for an unknown key or a value that is not a boolean
 */
export function resolveTelemetry(telemetry: TelemetryOptions | boolean | undefined): ResolvedTelemetry | undefined {
  if (telemetry === false) return undefined;
  if (telemetry !== undefined && telemetry !== true && (typeof telemetry !== 'object' || telemetry === null))
    throw invalidOption('telemetry', '{ recordArguments?, recordResults? } or a boolean', telemetry);
  const read = OptionReader.of(telemetry === true ? undefined : telemetry, 'telemetry', KNOWN);
  return Object.freeze({
    recordArguments: read.boolean('recordArguments', false),
    recordResults: read.boolean('recordResults', false),
  });
}
