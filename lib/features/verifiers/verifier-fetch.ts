// Outbound calls of the token verifiers (JWKS, introspection): the URL rule, their default bounds, and logging once per interval.

import { invalidOption } from '../../options/config-error';
import type { McpLogger } from '../../core/logger';

/** How long a verifier waits for its identity provider by default: 5 s. */
export const DEFAULT_FETCH_TIMEOUT_MS = 5_000;
/** The largest answer a verifier reads by default: 64 KB. */
export const DEFAULT_FETCH_MAX_BYTES = 64 * 1024;

/** Why a call to the identity provider failed: logged by the caller, never sent to the client. */
export class VerifierFetchError extends Error {
  override readonly name = 'VerifierFetchError';
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/**
 * The URL of `option`, checked at boot: https, or http on a loopback host (development only) — tokens and client
 * secrets must not cross a network in the clear (RFC 7662 §4, RFC 9700 §4.1).
 *
 * @throws {McpConfigError} `ERR_MCP_INVALID_OPTION` naming `option`
 */
export function checkProviderUrl(option: string, value: unknown): URL {
  const expected = 'an https URL (http only on 127.0.0.1, [::1] or localhost)';
  if (typeof value !== 'string' && !(value instanceof URL)) throw invalidOption(option, expected, value);
  const url = URL.canParse(String(value)) ? new URL(String(value)) : undefined;
  if (url?.protocol === 'https:' || (url?.protocol === 'http:' && LOOPBACK.test(url.hostname))) return url;
  throw invalidOption(option, expected, String(value));
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
