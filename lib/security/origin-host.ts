// DNS-rebinding guard: a browser Origin must be allowed, and a server reached on loopback must be addressed as loopback.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../jsonrpc/errors';
import { sendHttpError } from '../transport/http-error';

/** True for the names and addresses of this machine's loopback interface. */
export function isLoopbackHost(hostname: string): boolean {
  let host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  // IPv4-mapped IPv6: ::ffff:127.0.0.1, which URL parsing spells ::ffff:7f00:1.
  if (host.startsWith('::ffff:')) host = host.slice(7);
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host) || /^7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(host);
}

/** True when the connection arrived on a loopback address (IPv4, IPv6, or IPv4-mapped IPv6). */
function arrivedOnLoopback(req: IncomingMessage): boolean {
  return isLoopbackHost(req.socket.localAddress ?? '');
}

/** The host name of a `Host` header (`example.com:8080` → `example.com`, `[::1]:3000` → `[::1]`). */
function hostnameOf(host: string): string {
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : (host.split(':')[0] ?? '');
}

function originHostname(origin: string): string | undefined {
  try {
    return new URL(origin).hostname;
  } catch {
    return undefined;
  }
}

/**
 * Creates the guard. Requests without `Origin` (non-browser clients) pass the Origin check; a browser
 * page may call only from a localhost origin (MCP 2025-11-25 transports: an invalid Origin MUST get 403).
 * A server reached on a loopback address answers only to a loopback `Host`, so a rebound public name
 * cannot reach it (MCP transports › Security Warning).
 *
 * @example
 * ```ts
 * router.use(createOriginHostGuard());
 * ```
 */
export function createOriginHostGuard() {
  return function mcpOriginHostGuard(req: IncomingMessage, res: ServerResponse, next: () => void): void {
    const { origin, host } = req.headers;
    if (origin !== undefined) {
      const hostname = originHostname(origin);
      if (hostname === undefined || !isLoopbackHost(hostname)) {
        sendHttpError(res, 403, ErrorCode.ServerError, `Forbidden: Origin '${origin}' is not allowed`);
        return;
      }
    }
    if (arrivedOnLoopback(req) && !isLoopbackHost(hostnameOf(host ?? ''))) {
      sendHttpError(res, 403, ErrorCode.ServerError, `Forbidden: Host '${host ?? ''}' is not allowed for a server on loopback`);
      return;
    }
    next();
  };
}
