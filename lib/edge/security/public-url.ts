// The router's public URLs, made in one place: the `publicUrl` option, else the URL the client used (behind a proxy Express trusts, its scheme and host); a warning once when they disagree.

import type { IncomingMessage } from 'node:http';
import type { McpLogger } from '../../core/logger';
import { trustsPeerAsProxy } from '../express-host';
import { firstHeaderValue, parseHostHeader, requestHost, requestScheme } from '../http/host-header';
import { createHostVouch, isLoopbackHost } from './origin-host';

/** What Express adds to a request that URLs are made from (the router always runs under Express). */
export type ExpressRequest = IncomingMessage & {
  protocol?: string;
  path?: string;
  baseUrl?: string;
  originalUrl?: string;
};

/** The URLs one router names in metadata, challenges and checks of signed claims. */
export interface PublicUrls {
  /** `publicUrl` (without a trailing slash), when set: every URL below is made from it. */
  readonly fixed: string | undefined;
  /** The public origin a request reached: `https://mcp.example.com`. */
  originOf(req: IncomingMessage): string;
  /** The MCP endpoint's path on that origin: `publicUrl`'s, else the mount path (`''` at the root). */
  endpointPathOf(req: IncomingMessage): string;
  /** The MCP endpoint's public URL: the resource of RFC 9728 and RFC 8707, and the issuer of the router's own server. */
  endpointOf(req: IncomingMessage): string;
  /** The public URL of the path the request asked for, without its query (a DPoP proof's `htu`, RFC 9449 §4.3). */
  requestUrlOf(req: IncomingMessage): string;
  /**
   * The endpoint's URL when a signed claim (an assertion's `aud`, a proof's `htu`) may be checked against it:
   * `publicUrl`, or made from a host the operator vouches for (`allowedHosts`, or loopback on loopback); else undefined.
   */
  vouchedEndpointOf(req: IncomingMessage): string | undefined;
  /**
   * The headers of a document about to name these URLs: `Vary` on the request headers they are made from, unless
   * `publicUrl` fixes them, so a shared cache never serves one host's document to another (RFC 9110 §12.5.5). Where
   * a document is sent, and only there, whether it names the URL clients used is checked (a warning, once).
   */
  documentHeaders(req: IncomingMessage): Readonly<Record<string, string>>;
}

/** What a URL made from the request depends on: the Host, and a trusted proxy's forwarded host and scheme. */
const VARY = Object.freeze({ Vary: 'Host, X-Forwarded-Host, X-Forwarded-Proto' });

/** Where a router's {@link PublicUrls} ride on a request, for the code that only has the request (token verifiers). */
const URLS = Symbol('mcpRouter.publicUrls');

/** The URLs made from the request alone: what code outside a router sees (no `publicUrl`, no warning). */
const DERIVED = createPublicUrls({ publicUrl: undefined, allowedHosts: undefined, logger: undefined });

/** Settings of {@link createPublicUrls}, from the router's checked options. */
export interface PublicUrlSettings {
  readonly publicUrl: string | undefined;
  readonly allowedHosts: readonly string[] | false | undefined;
  /** Where the one warning goes; none without it. */
  readonly logger: McpLogger | undefined;
}

/**
 * Creates a router's public URLs, once.
 *
 * @example
 * ```ts
 * const urls = createPublicUrls({ publicUrl: config.publicUrl, allowedHosts: config.allowedHosts, logger: config.logger });
 * urls.endpointOf(req); // 'https://mcp.example.com/mcp'
 * ```
 */
export function createPublicUrls(settings: PublicUrlSettings): PublicUrls {
  const fixed = settings.publicUrl;
  const fixedOrigin = fixed === undefined ? undefined : new URL(fixed).origin;
  const fixedPath = fixed === undefined ? undefined : new URL(fixed).pathname.replace(/\/$/, '');
  const isVouchedHost = createHostVouch(settings.allowedHosts);
  const notice = settings.logger && createMismatchNotice(settings.logger, fixed);
  const originOf = (req: IncomingMessage): string =>
    fixedOrigin ?? `${requestScheme(req)}://${requestHost(req) ?? 'localhost'}`;
  const endpointPathOf = (req: IncomingMessage): string => fixedPath ?? (req as ExpressRequest).baseUrl ?? '';
  const endpointOf = (req: IncomingMessage): string => fixed ?? `${originOf(req)}${endpointPathOf(req)}`;
  const headers = fixed === undefined ? VARY : Object.freeze({});
  return {
    fixed,
    originOf,
    endpointPathOf,
    endpointOf,
    requestUrlOf(req) {
      const { originalUrl, url, baseUrl } = req as ExpressRequest;
      const path = (originalUrl ?? url ?? '').split('?')[0] as string;
      // Behind `publicUrl`, the part of the path after the mount path sits under the public endpoint's path.
      return fixed === undefined ? `${originOf(req)}${path}` : `${fixed}${path.slice((baseUrl ?? '').length)}`;
    },
    vouchedEndpointOf: (req) => fixed ?? (isVouchedHost(req) ? endpointOf(req) : undefined),
    documentHeaders(req) {
      notice?.(req);
      return headers;
    },
  };
}

/** Lets the code that has only the request (token verifiers) use its router's URLs: the front door calls it first. */
export function carryPublicUrls(req: IncomingMessage, urls: PublicUrls): void {
  (req as unknown as Record<symbol, PublicUrls>)[URLS] = urls;
}

/** The URLs of the router serving a request, or those made from the request alone. */
export function publicUrlsOf(req: IncomingMessage): PublicUrls {
  return (req as unknown as Record<symbol, PublicUrls | undefined>)[URLS] ?? DERIVED;
}

/** The first value of a forwarding header, trusted or not, in lower case: what a proxy says the client used. */
const firstOf = (req: IncomingMessage, name: string): string | undefined => firstHeaderValue(req, name)?.toLowerCase();

/**
 * Warns once when the URLs the router names are not the ones clients use, so the metadata's `resource` will not
 * match (RFC 9728 §3.3, clients refuse it): a proxy sent `X-Forwarded-Proto`/`X-Forwarded-Host` that Express does
 * not trust, or `publicUrl` names another origin than the one a request's proxy (or a public Host) says it reached.
 */
function createMismatchNotice(logger: McpLogger, fixed: string | undefined): (req: IncomingMessage) => void {
  let warned = false;
  const fixedOrigin = fixed === undefined ? undefined : new URL(fixed).origin;
  return (req) => {
    if (warned) return;
    const proto = firstOf(req, 'x-forwarded-proto');
    const host = firstOf(req, 'x-forwarded-host');
    const message =
      fixedOrigin === undefined
        ? untrustedProxyMessage(req, proto, host)
        : publicUrlMessage(req, fixedOrigin, proto, host);
    if (message === undefined) return;
    warned = true;
    logger.warn(new Error(message), 'mcpRouter: the public URL');
  };
}

function untrustedProxyMessage(req: IncomingMessage, proto?: string, host?: string): string | undefined {
  if ((proto === undefined && host === undefined) || trustsPeerAsProxy(req)) return undefined;
  const scheme = requestScheme(req);
  const named = `${scheme}://${requestHost(req) ?? 'localhost'}`;
  const used = `${proto ?? scheme}://${host ?? requestHost(req) ?? 'localhost'}`;
  if (used.toLowerCase() === named.toLowerCase()) return undefined;
  return (
    `a request came through a proxy (X-Forwarded-Proto/X-Forwarded-Host: ${used}) that Express does not trust, so ` +
    `this router's metadata, challenges and issuer name ${named}, which clients of ${used} refuse. Set ` +
    `app.set('trust proxy', 1) (one proxy in front of the app) or the option 'publicUrl' (docs/deployment.md)`
  );
}

function publicUrlMessage(
  req: IncomingMessage,
  fixedOrigin: string,
  proto?: string,
  host?: string,
): string | undefined {
  const reached = host ?? requestHost(req);
  if (reached === undefined) return undefined;
  const used = `${proto ?? requestScheme(req)}://${reached}`;
  // Without forwarding headers, a loopback Host is a proxy's or a local check's, not a client's: nothing to compare.
  if (host === undefined && isLoopbackHost(parseHostHeader(reached)?.hostname ?? '')) return undefined;
  const origin = originOfUrl(used);
  if (origin === undefined || origin === fixedOrigin) return undefined;
  return (
    `requests reach this router as ${used}, but the option 'publicUrl' names ${fixedOrigin}: clients that connect ` +
    `to ${used} refuse its metadata (the resource must be the URL they use). Fix 'publicUrl' (docs/deployment.md)`
  );
}

/** The origin of a URL made of header values, or undefined when they make none. */
function originOfUrl(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
