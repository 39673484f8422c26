// The Host header as an RFC 3986 authority: the one parser the Host checks and every URL built from a request use; the 400 and 403 a Host gets.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIPv6 } from 'node:net';
import { ErrorCode } from '../../core/jsonrpc/errors';
import { sendHttpError } from './http-error';
import { trustsPeerAsProxy } from '../express-host';

/** A well-formed `Host`: its host (an IPv6 literal keeps its brackets, as `URL#hostname` spells it) and port. */
export interface HostAuthority {
  readonly hostname: string;
  readonly port: number | undefined;
}

/**
 * RFC 9110 §7.2: `Host = uri-host [ ":" port ]`, with `uri-host` from RFC 3986 §3.2.2. Stricter than RFC 3986
 * on purpose: a reg-name is letters, digits, `-`, `.` and `_` only (no percent-encoding, no sub-delims such as
 * `!$&'()*+,;=`), an IP literal is `[IPv6]` without a zone (RFC 6874's `%25` is for URIs a browser never sends)
 * and no IPvFuture, and a port is 1 to 5 digits. No userinfo, path, query, fragment or whitespace can pass, so
 * a URL built as `scheme://<Host><path>` names the host the Host header names, and no other.
 */
const AUTHORITY = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::[0-9]{1,5})?$/;

/**
 * Parses a `Host` header value.
 *
 * @returns the host and port, or undefined for anything but the authority grammar above (an empty value, `a@b`,
 *   `a/b`, `a:`, `a:65536`, `::1` without brackets, `[fe80::1%25eth0]`, …)
 * @example
 * ```ts
 * parseHostHeader('[::1]:3000'); // { hostname: '[::1]', port: 3000 }
 * parseHostHeader('127.0.0.1:45333@evil.example'); // undefined
 * ```
 */
export function parseHostHeader(value: string): HostAuthority | undefined {
  if (!isWellFormed(value)) return undefined;
  // Well formed, a port is what follows the last ':' outside brackets.
  const colon = value.indexOf(':', value.lastIndexOf(']') + 1);
  return colon < 0
    ? { hostname: value, port: undefined }
    : { hostname: value.slice(0, colon), port: Number(value.slice(colon + 1)) };
}

/**
 * Whether a `Host` value is well formed: the one reading of the grammar above, which allocates nothing (the front door
 * asks it of every request).
 */
function isWellFormed(value: string): boolean {
  if (!AUTHORITY.test(value)) return false;
  const close = value.lastIndexOf(']');
  const colon = value.indexOf(':', close + 1);
  // Five digits compare as text as they do as numbers.
  if (colon >= 0 && value.length - colon === 6 && value.slice(colon + 1) > '65535') return false;
  return close < 0 || isIPv6(value.slice(1, close));
}

/** True when the request carries more than one `Host` line (Node keeps the first in `req.headers` and drops the rest). */
function hasRepeatedHost(req: IncomingMessage): boolean {
  const raw = req.rawHeaders;
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length === 4 && name.toLowerCase() === 'host' && ++count > 1) return true;
  }
  return false;
}

/**
 * The host a request names, as sent: the first `X-Forwarded-Host` value when Express trusts the proxy that sent it
 * (`trust proxy`, the way `req.hostname` reads it), else `Host`. Behind a proxy that passes the public name only in
 * `X-Forwarded-Host`, that name is the one clients used: URLs, the grammar check and `allowedHosts` all read it.
 */
export function requestHostHeader(req: IncomingMessage): string | undefined {
  const forwarded = forwardedHostOf(req);
  return forwarded ?? req.headers.host;
}

/** A header's first comma-separated value, trimmed (a proxy appends its hop to what it was sent), or undefined. */
export function firstHeaderValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  if (typeof value !== 'string') return undefined;
  const comma = value.indexOf(',');
  return (comma < 0 ? value : value.slice(0, comma)).trim();
}

/**
 * A forwarding header's first value when Express trusts the peer that sent it (as `req.hostname` and `req.protocol`
 * read `X-Forwarded-Host` and `X-Forwarded-Proto`), else undefined. The header is looked at first: most requests
 * have none, and the trust check is not asked.
 */
function trustedForwarded(req: IncomingMessage, name: 'x-forwarded-host' | 'x-forwarded-proto'): string | undefined {
  if (req.headers[name] === undefined || !trustsPeerAsProxy(req)) return undefined;
  return firstHeaderValue(req, name);
}

const forwardedHostOf = (req: IncomingMessage): string | undefined => trustedForwarded(req, 'x-forwarded-host');

/** The trusted `X-Forwarded-Proto` ({@link trustedForwarded}): Express takes any text there; a URL's scheme is only `http` or `https` here. */
const forwardedProtoOf = (req: IncomingMessage): string | undefined => trustedForwarded(req, 'x-forwarded-proto');

const SCHEMES = /^https?$/i;

/**
 * The scheme the client used, as URLs name it: Express's `req.protocol` (the trusted `X-Forwarded-Proto`, else the
 * connection's) when it is `http` or `https`, in lower case, else the connection's. The front door refuses any
 * other forwarded value with 400 before a URL is made.
 */
export function requestScheme(req: IncomingMessage): 'http' | 'https' {
  const { protocol } = req as { protocol?: unknown };
  if (typeof protocol === 'string' && SCHEMES.test(protocol)) return protocol.toLowerCase() as 'http' | 'https';
  return (req.socket as { encrypted?: boolean } | undefined)?.encrypted === true ? 'https' : 'http';
}

/**
 * The request's host ({@link requestHostHeader}) when it is present and well formed, else undefined: what a URL
 * built from a request names. The front door has refused a malformed one before any route runs; this keeps one out
 * of a URL all the same.
 */
export function requestHost(req: IncomingMessage): string | undefined {
  const host = requestHostHeader(req);
  return host !== undefined && isWellFormed(host) ? host : undefined;
}

/**
 * Answers 400 (a JSON-RPC error body) to a request whose `Host` is malformed or repeated, and says whether it did.
 * RFC 9112 §3.2: a server MUST answer 400 to a request with more than one Host line or an invalid Host value. A
 * request without Host passes (HTTP/1.0; Node answers an HTTP/1.1 one 400 itself): the `allowedHosts` check and
 * the URLs built from requests treat it as they always did.
 *
 * @example
 * ```ts
 * router.use((req, res, next) => rejectMalformedHost(req, res) || next());
 * ```
 */
export function rejectMalformedHost(req: IncomingMessage, res: ServerResponse): boolean {
  const proto = forwardedProtoOf(req);
  if (proto !== undefined && !SCHEMES.test(proto)) {
    sendHttpError(res, 400, ErrorCode.ServerError, `Bad Request: the X-Forwarded-Proto header must be http or https`);
    return true;
  }
  const { host } = req.headers;
  const forwarded = forwardedHostOf(req);
  if (host === undefined && forwarded === undefined) return false;
  const header = forwarded !== undefined && !isWellFormed(forwarded) ? 'X-Forwarded-Host' : 'Host';
  if (header === 'Host' && (host === undefined || isWellFormed(host)) && !hasRepeatedHost(req)) return false;
  sendHttpError(
    res,
    400,
    ErrorCode.ServerError,
    `Bad Request: the ${header} header must be one host[:port] (a name of letters, digits, '-', '.', '_', or an [IPv6] address; a port of up to 5 digits, at most 65535)`,
  );
  return true;
}

/** Answers 403 to a request whose `Host` the `allowedHosts` decision refuses, and says whether it did. */
export function rejectUnexpectedHost(
  isAllowedHost: (req: IncomingMessage) => boolean,
  req: IncomingMessage,
  res: ServerResponse,
): boolean {
  if (isAllowedHost(req)) return false;
  const forwarded = forwardedHostOf(req);
  const named = forwarded === undefined ? `Host '${req.headers.host ?? ''}'` : `X-Forwarded-Host '${forwarded}'`;
  sendHttpError(res, 403, ErrorCode.ServerError, `Forbidden: ${named} is not allowed (option 'allowedHosts')`);
  return true;
}

/**
 * The Host check of a document built from the Host (RFC 9728 and RFC 8414 metadata), wherever it is mounted: a
 * malformed or repeated Host is 400, an unexpected one 403, as at the MCP endpoint. Served at the app's root the
 * document is outside the router's front door, yet it names the Host's origin: a rebound public name must not get a
 * document that sends clients to it. Answers and returns true when it refused.
 *
 * @example
 * ```ts
 * if (rejectHostOfDocument(isAllowedHost, req, res)) return;
 * ```
 */
export function rejectHostOfDocument(
  isAllowedHost: (req: IncomingMessage) => boolean,
  req: IncomingMessage,
  res: ServerResponse,
): boolean {
  return rejectMalformedHost(req, res) || rejectUnexpectedHost(isAllowedHost, req, res);
}
