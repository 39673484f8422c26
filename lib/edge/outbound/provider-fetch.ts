// Calls to an identity provider or a client's key set: the URL and bounds of a call read from options, its failure, and warnings logged once per interval.

import type { OptionReader } from '../../options/option-reader';
import type { McpLogger } from '../../core/logger';

/** How long a call to a provider waits by default: 5 s. */
export const DEFAULT_FETCH_TIMEOUT_MS = 5_000;
/** The largest answer read by default: 64 KB. */
export const DEFAULT_FETCH_MAX_BYTES = 64 * 1024;

/** Why a call to a provider failed: logged by the caller, never sent to the client. */
export class ProviderFetchError extends Error {
  override readonly name = 'ProviderFetchError';
}

/** Where and within what bounds the router calls a provider. */
export interface FetchSettings {
  readonly url: URL;
  readonly timeoutMs: number;
  readonly maxBytes: number;
}

type Key<T> = Extract<keyof T, string>;

/**
 * The URL the router calls (https, or http on a loopback host for development: tokens and client secrets must not
 * cross a network in the clear, RFC 7662 §4, RFC 9700 §4.1) and the bounds of a call, under the option's keys.
 *
 * @throws {McpConfigError} `ERR_MCP_INVALID_OPTION` naming the key at fault
 */
export function readFetchSettings<T extends object>(
  read: OptionReader<T>,
  keys: { readonly url: Key<T>; readonly timeoutMs: Key<T>; readonly maxBytes: Key<T> },
): FetchSettings {
  return Object.freeze({
    url: read.url(keys.url, { https: true, required: true }),
    timeoutMs: read.milliseconds(keys.timeoutMs, DEFAULT_FETCH_TIMEOUT_MS),
    maxBytes: read.positiveInteger(keys.maxBytes, DEFAULT_FETCH_MAX_BYTES),
  });
}

/**
 * A warning that reaches the logger at most once per `intervalMs`: an identity provider that is down must not
 * write one line per request.
 */
export function throttledWarn(
  logger: McpLogger,
  intervalMs: number,
  now: () => number = () => Date.now(),
): (err: unknown, message: string) => void {
  let last = -Infinity;
  return (err, message) => {
    if (now() - last < intervalMs) return;
    last = now();
    logger.warn(err, message);
  };
}
