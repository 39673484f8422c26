// DNS-rebinding guard and the `origins` / `allowedHosts` policy: a browser Origin must be allowed, a Host must be expected.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { invalidOption, McpConfigError } from '../../options/config-error';
import { ErrorCode } from '../../core/jsonrpc/errors';
import { sendHttpError } from '../http/http-error';
import { parseHostHeader, rejectUnexpectedHost, requestHostHeader } from '../http/host-header';

/** The `origins` option: `'*'`, a list of origins (`https://app.example.com`), or a predicate. */
export type OriginsOption = '*' | readonly string[] | ((origin: string) => boolean);

/** How loopback hosts and local addresses are usually spelt: answered without the parsing below. */
const COMMON_LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '[::1]', '::ffff:127.0.0.1']);

/** True for the names and addresses of this machine's loopback interface. */
export function isLoopbackHost(hostname: string): boolean {
  // The guard asks twice per request (the local address, the Host header); most ask about these spellings.
  if (COMMON_LOOPBACK.has(hostname)) return true;
  let host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  // IPv4-mapped IPv6: ::ffff:127.0.0.1, which URL parsing spells ::ffff:7f00:1.
  if (host.startsWith('::ffff:')) host = host.slice(7);
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '::1' ||
    /^127(\.\d{1,3}){3}$/.test(host) ||
    /^7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(host)
  );
}

function originHostname(origin: string): string | undefined {
  try {
    return new URL(origin).hostname;
  } catch {
    return undefined;
  }
}

/**
 * Turns the `origins` option into a predicate, once. Default: localhost origins only (any port), so a page
 * on another site cannot drive a local server; `'*'` opens the endpoint to every browser origin.
 *
 * @throws {McpConfigError} for a list entry that is not an origin (`scheme://host[:port]`)
 */
export function createOriginMatcher(origins: OriginsOption | undefined): (origin: string) => boolean {
  if (origins === undefined) return (origin) => isLoopbackHost(originHostname(origin) ?? '');
  if (origins === '*') return () => true;
  if (typeof origins === 'function') {
    // A predicate may throw on what browsers really send (`Origin: null`, say, with `new URL(origin)`):
    // an origin it cannot judge is not allowed, so the page gets the 403, not a 500.
    return (origin) => {
      try {
        return origins(origin) === true;
      } catch {
        return false;
      }
    };
  }
  if (!Array.isArray(origins)) throw invalidOption('origins', "'*', an array of origins, or a function", origins);
  const allowed = new Set(
    origins.map((origin) => {
      const parsed = typeof origin === 'string' ? originHostname(origin) && new URL(origin).origin : undefined;
      if (parsed === undefined || parsed === 'null')
        throw new McpConfigError(
          'ERR_MCP_INVALID_OPTION',
          `option 'origins' has ${JSON.stringify(origin)}, which is not an origin like 'https://app.example.com'`,
        );
      return parsed;
    }),
  );
  return (origin) => allowed.has(origin.toLowerCase());
}

/** The host name of a `Host` header (`example.com:8080` → `example.com`, `[::1]:3000` → `[::1]`); '' when malformed. */
function hostnameOf(host: string): string {
  return parseHostHeader(host)?.hostname ?? '';
}

/**
 * Turns `allowedHosts` into a predicate over the request's host (`Host`, or the `X-Forwarded-Host` of a proxy Express
 * trusts). Default: a server reached on a loopback address answers only to a loopback host, or to the host of
 * `publicUrl` (the operator's own name for it), so a rebound public name cannot reach it (MCP transports › Security
 * Warning); `false` turns the check off; a list names the accepted hosts (with or without port).
 *
 * @param publicHost - the host of the `publicUrl` option, when set
 */
export function createHostMatcher(
  allowedHosts: readonly string[] | false | undefined,
  publicHost?: string,
): (req: IncomingMessage) => boolean {
  if (allowedHosts === false) return () => true;
  if (allowedHosts === undefined) {
    const own = publicHost?.toLowerCase();
    return (req) => {
      if (!isLoopbackHost(req.socket.localAddress ?? '')) return true;
      const host = (requestHostHeader(req) ?? '').toLowerCase();
      return isLoopbackHost(hostnameOf(host)) || (own !== undefined && (host === own || hostnameOf(host) === own));
    };
  }
  const allowed = new Set(allowedHosts.map((host) => host.toLowerCase()));
  return (req) => {
    const host = (requestHostHeader(req) ?? '').toLowerCase();
    return allowed.has(host) || allowed.has(hostnameOf(host));
  };
}

/**
 * Whether a request's Host names this server on the operator's word, so that a URL made from it (an issuer, a
 * resource, a DPoP `htu`) may be what a signed assertion or proof is checked against: the Host is listed in
 * `allowedHosts`, or the server is reached on a loopback address (the default then admits loopback Hosts only).
 * Otherwise — `allowedHosts: false`, or the default on a public address — any Host passes the front door, and a URL
 * made from it names whatever server the client wants (an assertion made for another server would pass its `aud`
 * check here: RFC 7523 §3, RFC 9449 §4.3).
 *
 * @example
 * ```ts
 * const isVouchedHost = createHostVouch(config.allowedHosts);
 * const audience = options.issuer ?? (isVouchedHost(req) ? issuerOf(req) : undefined);
 * ```
 */
export function createHostVouch(
  allowedHosts: readonly string[] | false | undefined,
): (req: IncomingMessage) => boolean {
  if (allowedHosts === false) return () => false;
  if (allowedHosts !== undefined) return createHostMatcher(allowedHosts);
  return (req) =>
    isLoopbackHost(req.socket.localAddress ?? '') && isLoopbackHost(hostnameOf(requestHostHeader(req) ?? ''));
}

/**
 * Creates the guard: a request whose `Origin` is present and not allowed gets 403 (MCP 2025-11-25 transports:
 * MUST), and so does one whose `Host` is not expected. Requests without `Origin` (non-browser clients) pass.
 *
 * @example
 * ```ts
 * router.use(createOriginHostGuard(createOriginMatcher(undefined), createHostMatcher(undefined)));
 * ```
 */
export function createOriginHostGuard(
  isAllowedOrigin: (origin: string) => boolean,
  isAllowedHost: (req: IncomingMessage) => boolean,
) {
  return function mcpOriginHostGuard(req: IncomingMessage, res: ServerResponse, next: () => void): void {
    const { origin } = req.headers;
    if (origin !== undefined && !isAllowedOrigin(origin)) {
      sendHttpError(res, 403, ErrorCode.ServerError, `Forbidden: Origin '${origin}' is not allowed (option 'origins')`);
      return;
    }
    if (!rejectUnexpectedHost(isAllowedHost, req, res)) next();
  };
}
