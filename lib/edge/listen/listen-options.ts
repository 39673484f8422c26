// The router's `listen` option (MCP 2026-07-28 subscriptions/listen streams): checked and defaulted once, at boot.

import { invalidOption, type OptionKeys } from '../../options/config-error';
import { OptionReader } from '../../options/option-reader';
import { isObject } from '../../core/jsonrpc/types';
import { eraPolicy } from '../../core/era-policy';
import type { Era } from '../../core/versions';

// Every default of ListenOptions, written once. Not exported by the package.
/** Default `listen.maxStreamsPerPrincipal`: subscriptions/listen streams one caller may hold open at once. */
export const DEFAULT_MAX_LISTEN_STREAMS_PER_PRINCIPAL = 16;
/**
 * Default `listen.maxStreams`: subscriptions/listen streams open at once on one router. Each holds a socket, so a
 * file descriptor: 10,000 stays under the limits servers are commonly given (`ulimit -n` 65,536) with room for the rest.
 */
export const DEFAULT_MAX_LISTEN_STREAMS = 10_000;

/** The `listen` option of `mcpRouter()`: bounds of the MCP 2026-07-28 `subscriptions/listen` streams. */
export interface ListenOptions {
  /** Most streams one caller (principal, else client address) may hold open at once; one more → 429. Defaults to {@link DEFAULT_MAX_LISTEN_STREAMS_PER_PRINCIPAL}. */
  maxStreamsPerPrincipal?: number;
  /** Most streams open at once on this router, all callers together; one more → 503. Defaults to {@link DEFAULT_MAX_LISTEN_STREAMS}. */
  maxStreams?: number;
}

/** The `listen` option after checking: internal, frozen. */
export type ResolvedListen = Readonly<Required<ListenOptions>>;

const KNOWN: OptionKeys<ListenOptions> = { maxStreamsPerPrincipal: true, maxStreams: true };

/**
 * Checks the `listen` option and fills in its defaults.
 *
 * @returns undefined without listen streams: `listen: false`, or a router that does not serve the 2026 era
 * @throws {McpConfigError} `ERR_MCP_UNKNOWN_OPTION` for a key it does not know, `ERR_MCP_INVALID_OPTION` for a bad value
 */
export function resolveListen(
  listen: ListenOptions | false | undefined,
  eras: readonly Era[],
): ResolvedListen | undefined {
  if (listen !== undefined && listen !== false && !isObject(listen))
    throw invalidOption('listen', '{ maxStreamsPerPrincipal?, maxStreams? } or false', listen);
  const read = OptionReader.of<ListenOptions>(listen || undefined, 'listen', KNOWN);
  const maxStreamsPerPrincipal = read.positiveInteger(
    'maxStreamsPerPrincipal',
    DEFAULT_MAX_LISTEN_STREAMS_PER_PRINCIPAL,
  );
  const maxStreams = read.positiveInteger('maxStreams', DEFAULT_MAX_LISTEN_STREAMS);
  // Listen streams are of the eras that have subscriptions/listen (MCP 2026-07-28): a 2025-only router has none.
  const served = eras.some((era) => eraPolicy(era).listenStreams);
  return listen === false || !served ? undefined : Object.freeze({ maxStreamsPerPrincipal, maxStreams });
}
