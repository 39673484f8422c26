// What the token verifiers share: the options both take, how they call the identity provider (URL, bounds), logging once per interval.

import type { OptionKeys } from '../../options/config-error';
import { OptionReader } from '../../options/option-reader';
import type { McpLogger } from '../../core/logger';
import { DEFAULT_TOKEN_CACHE_MAX } from '../../edge/security/token-cache';

/** How long a verifier waits for its identity provider by default: 5 s. */
export const DEFAULT_FETCH_TIMEOUT_MS = 5_000;
/** The largest answer a verifier reads by default: 64 KB. */
export const DEFAULT_FETCH_MAX_BYTES = 64 * 1024;

/** Why a call to the identity provider failed: logged by the caller, never sent to the client. */
export class VerifierFetchError extends Error {
  override readonly name = 'VerifierFetchError';
}

/** The options both verifiers take, under the same keys. */
export interface SharedVerifierOptions {
  audience?: string;
  cacheMax?: number;
  logger?: McpLogger;
}

/** {@link SharedVerifierOptions}, checked and defaulted. */
export interface SharedVerifierSettings {
  /** The configured audience; undefined: the URL of the MCP endpoint the request reached. */
  readonly audience: string | undefined;
  readonly cacheMax: number;
  readonly logger: McpLogger;
}

/** Where and within what bounds a verifier calls its identity provider. */
export interface FetchSettings {
  readonly url: URL;
  readonly timeoutMs: number;
  readonly maxBytes: number;
}

type Key<T> = Extract<keyof T, string>;

const SHARED_KEYS: OptionKeys<SharedVerifierOptions> = { audience: true, cacheMax: true, logger: true };

/**
 * Opens a verifier's options: unknown keys refused, and the options both verifiers take read.
 *
 * @param name - the verifier, as messages name its options: `'jwtVerifier'`
 * @throws {McpConfigError} for options that are not an object, an unknown key, or a bad shared one
 */
export function readVerifierOptions<T extends SharedVerifierOptions>(
  name: string,
  options: T,
  known: OptionKeys<T>,
): { readonly read: OptionReader<T>; readonly shared: SharedVerifierSettings } {
  const read = OptionReader.of(options, name, known);
  const { audience, cacheMax, logger } = read.options;
  const shared = OptionReader.of<SharedVerifierOptions>({ audience, cacheMax, logger }, name, SHARED_KEYS);
  return {
    read,
    shared: Object.freeze({
      audience: shared.string('audience', { nonEmpty: true }),
      cacheMax: shared.positiveInteger('cacheMax', DEFAULT_TOKEN_CACHE_MAX),
      logger: shared.raw('logger') ?? console,
    }),
  };
}

/**
 * The URL a verifier calls (https, or http on a loopback host for development: tokens and client secrets must not
 * cross a network in the clear, RFC 7662 §4, RFC 9700 §4.1) and the bounds of a call, under the verifier's keys.
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
