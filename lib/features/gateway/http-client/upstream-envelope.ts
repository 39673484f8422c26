// What the upstream client puts around a message: a 2025 session's headers, or a 2026 request's headers and `_meta` envelope.

import { SESSION_ID_HEADER } from '../../../edge/http/mcp-headers';
import { isObject } from '../../../core/jsonrpc/types';
import {
  encodeHeaderValue,
  METHOD_HEADER,
  NAME_HEADER,
  NAME_SOURCE,
  PROTOCOL_VERSION_HEADER,
} from '../../../core/protocol/era-2026/request-headers';
import { META_KEYS } from '../../../core/protocol/era-2026/request-meta';
import { PROTOCOL_VERSIONS_2026, type Version2026 } from '../../../core/versions';

/** The 2026 revision the client speaks: the newest of the 2026 era. */
export const PROTOCOL_VERSION_2026: Version2026 = PROTOCOL_VERSIONS_2026[0];

/** What the headers of a 2025 session carry. */
export interface SessionState {
  readonly protocolVersion: string;
  readonly sessionId: string | undefined;
}

/** Headers the protocol sets, which a request's own headers never replace. */
const PROTOCOL_HEADERS: ReadonlySet<string> = new Set([
  PROTOCOL_VERSION_HEADER,
  SESSION_ID_HEADER,
  METHOD_HEADER,
  NAME_HEADER,
  'content-type',
  'accept',
]);

/** True for a header each hop sets itself (MCP transports: version, session, method, name, resumption; the media types). */
export function isProtocolHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return PROTOCOL_HEADERS.has(lower) || lower.startsWith('mcp-') || lower === 'last-event-id';
}

/**
 * The operator's headers for the upstream, as a fresh copy with lower-case names and without protocol headers: the
 * client writes those itself (a static object naming one is refused at boot; a function's result is filtered here).
 */
export function clientHeaders(headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const copy: Record<string, string> = {};
  if (headers === undefined) return copy;
  for (const [name, value] of Object.entries(headers)) if (!isProtocolHeader(name)) copy[name.toLowerCase()] = value;
  return copy;
}

/** `base` (a fresh copy of the client's headers, written to) with a 2025 session's protocol headers. */
export function sessionHeaders(base: Record<string, string>, current: SessionState): Record<string, string> {
  // MCP 2025-06-18 transports › Protocol Version Header: sent on every request after initialize.
  base[PROTOCOL_VERSION_HEADER] = current.protocolVersion;
  if (current.sessionId !== undefined) base[SESSION_ID_HEADER] = current.sessionId;
  return base;
}

/** `base` (a fresh copy, written to) with a 2026 request's headers: the revision, `Mcp-Method`, and `Mcp-Name` mirroring the body's field. */
export function headers2026(
  base: Record<string, string>,
  method: string,
  params: Record<string, unknown> | undefined,
): Record<string, string> {
  base[PROTOCOL_VERSION_HEADER] = PROTOCOL_VERSION_2026;
  base[METHOD_HEADER] = method;
  const field = Object.hasOwn(NAME_SOURCE, method) ? NAME_SOURCE[method] : undefined;
  const name = field === undefined ? undefined : params?.[field];
  if (typeof name === 'string') base[NAME_HEADER] = encodeHeaderValue(name);
  return base;
}

/** MCP 2026-07-28: every request carries the client's state in `params._meta`, beside what the caller put there. */
export function params2026(
  params: Record<string, unknown> | undefined,
  clientInfo: { readonly name: string; readonly version: string },
  capabilities: Record<string, unknown> = {},
): Record<string, unknown> {
  const meta = isObject(params?._meta) ? params._meta : {};
  return {
    ...params,
    _meta: {
      ...meta,
      [META_KEYS.protocolVersion]: PROTOCOL_VERSION_2026,
      [META_KEYS.clientCapabilities]: capabilities,
      [META_KEYS.clientInfo]: clientInfo,
      // MCP 2026-07-28 logging: a server sends log messages only for a request whose `_meta` sets a level. The
      // gateway asks for all of them; relaying them through the caller's ctx.log applies the caller's own level.
      [META_KEYS.logLevel]: 'debug',
    },
  };
}

/** The client's headers with a request's own on top (they replace the client's of the same name), protocol headers kept. */
export function withRequestHeaders(
  headers: Record<string, string>,
  own: Record<string, string> | undefined,
): Record<string, string> {
  if (own === undefined) return headers;
  const merged: Record<string, string> = {};
  const replaced = new Set(Object.keys(own).map((name) => name.toLowerCase()));
  for (const [name, value] of Object.entries(headers))
    if (PROTOCOL_HEADERS.has(name.toLowerCase()) || !replaced.has(name.toLowerCase())) merged[name] = value;
  for (const [name, value] of Object.entries(own)) if (!PROTOCOL_HEADERS.has(name.toLowerCase())) merged[name] = value;
  return merged;
}
