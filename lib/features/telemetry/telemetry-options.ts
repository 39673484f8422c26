// The router's `telemetry` option: its type, defaults and check (what a span may record beyond the conventions' defaults).

import { invalidOption, McpConfigError } from '../../options/config-error';

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

/**
 * Checks the `telemetry` option once, at router creation.
 *
 * @returns the settings, or undefined for `telemetry: false`
 * @throws {McpConfigError} for an unknown key or a value that is not a boolean
 */
export function resolveTelemetry(telemetry: TelemetryOptions | boolean | undefined): ResolvedTelemetry | undefined {
  if (telemetry === false) return undefined;
  if (telemetry !== undefined && telemetry !== true && (typeof telemetry !== 'object' || telemetry === null)) {
    throw invalidOption('telemetry', '{ recordArguments?, recordResults? } or a boolean', telemetry);
  }
  const { recordArguments = false, recordResults = false, ...unknown } = typeof telemetry === 'object' ? telemetry : {};
  const extra = Object.keys(unknown)[0];
  if (extra !== undefined)
    throw new McpConfigError(
      'ERR_MCP_UNKNOWN_OPTION',
      `unknown option 'telemetry.${extra}'. Known: 'recordArguments', 'recordResults'`,
    );
  if (typeof recordArguments !== 'boolean')
    throw invalidOption('telemetry.recordArguments', 'a boolean', recordArguments);
  if (typeof recordResults !== 'boolean') throw invalidOption('telemetry.recordResults', 'a boolean', recordResults);
  return Object.freeze({ recordArguments, recordResults });
}
