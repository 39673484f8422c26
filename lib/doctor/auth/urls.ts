// The URLs an OAuth client derives from an MCP endpoint and an issuer, in the order clients try them, and what a URL may name.

import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Where a host is, seen from a hosted client: this machine, a private network, or the internet. */
export type Reach = 'loopback' | 'internal' | 'public';

/** ipaddr.js ranges no hosted client reaches (RFC 1918, RFC 4193, RFC 6598, link-local). */
const INTERNAL_RANGES = new Set(['private', 'uniqueLocal', 'carrierGradeNat', 'linkLocal', 'unspecified']);
/** Names only a private resolver answers: a container's service name has no dot; these suffixes are reserved or conventional. */
const INTERNAL_SUFFIXES = ['.internal', '.local', '.lan', '.localdomain', '.home.arpa', '.svc', '.cluster.local'];

/** Where `hostname` (as `URL.hostname` spells it) points. */
export function reachOf(hostname: string): Reach {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return 'loopback';
  if (isIP(host) !== 0) {
    let address = ipaddr.parse(host);
    if (address instanceof ipaddr.IPv6 && address.isIPv4MappedAddress()) address = address.toIPv4Address();
    const range = address.range();
    if (range === 'loopback') return 'loopback';
    return INTERNAL_RANGES.has(range) ? 'internal' : 'public';
  }
  return !host.includes('.') || INTERNAL_SUFFIXES.some((suffix) => host.endsWith(suffix)) ? 'internal' : 'public';
}

/** `text` as an absolute URL, or undefined. */
export function parseUrl(text: unknown): URL | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/**
 * Why a client would not use `url` for OAuth, or undefined when it may: MCP authorization › Communication Security
 * (every authorization server endpoint over HTTPS; OAuth 2.1 §1.5 lets loopback use http).
 */
export function insecureReason(url: URL): string | undefined {
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:')
    return reachOf(url.hostname) === 'loopback' ? undefined : 'plain http on a non-loopback host';
  return `the ${url.protocol} scheme`;
}

/** The path without its trailing slash, as the SDK clients strip it before building a well-known URL. */
const trimmedPath = (url: URL): string => (url.pathname.endsWith('/') ? url.pathname.slice(0, -1) : url.pathname);

/** The two RFC 9728 §3.1 well-known URLs of a resource's metadata: path-inserted, then the root (the SDK's fallback). */
export function resourceMetadataUrls(endpoint: URL): { readonly pathForm: string; readonly rootForm: string } {
  const pathForm = new URL(`/.well-known/oauth-protected-resource${trimmedPath(endpoint)}`, endpoint.origin);
  pathForm.search = endpoint.search;
  return { pathForm: pathForm.href, rootForm: new URL('/.well-known/oauth-protected-resource', endpoint.origin).href };
}

/** One place an authorization server's metadata is looked for, and which document format is expected there. */
export interface DiscoveryUrl {
  readonly url: string;
  readonly kind: 'oauth' | 'oidc';
}

/**
 * Where clients look for an issuer's metadata, in the order the SDK clients try them (MCP 2025-11-25 authorization ›
 * Authorization Server Metadata Discovery): RFC 8414 path-inserted, OpenID Connect path-inserted, OpenID Connect
 * path-appended; for an issuer without a path, the two root forms.
 */
export function serverMetadataUrls(issuer: URL): DiscoveryUrl[] {
  const path = trimmedPath(issuer);
  const at = (text: string): string => new URL(text, issuer.origin).href;
  if (path === '') {
    return [
      { url: at('/.well-known/oauth-authorization-server'), kind: 'oauth' },
      { url: at('/.well-known/openid-configuration'), kind: 'oidc' },
    ];
  }
  return [
    { url: at(`/.well-known/oauth-authorization-server${path}`), kind: 'oauth' },
    { url: at(`/.well-known/openid-configuration${path}`), kind: 'oidc' },
    { url: at(`${path}/.well-known/openid-configuration`), kind: 'oidc' },
  ];
}

/**
 * Whether a client that used `endpoint` accepts metadata naming `resource`: the SDK clients' check (same origin, and
 * the resource's path a prefix of the endpoint's, segment by segment).
 */
export function resourceCovers(resource: URL, endpoint: URL): boolean {
  if (resource.origin !== endpoint.origin) return false;
  const withSlash = (path: string): string => (path.endsWith('/') ? path : `${path}/`);
  return withSlash(endpoint.pathname).startsWith(withSlash(resource.pathname));
}

/** The endpoint as a resource identifier: without its fragment (RFC 8707 §2). */
export function resourceOf(endpoint: URL): URL {
  const resource = new URL(endpoint.href);
  resource.hash = '';
  return resource;
}
