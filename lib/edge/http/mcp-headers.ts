// Header names of the MCP Streamable HTTP transport (HTTP header names are case-insensitive; Node lowercases them).

// The headers a 2026 request's body is checked against are the protocol's (SEP-2243), named there.
export { METHOD_HEADER, NAME_HEADER, PROTOCOL_VERSION_HEADER } from '../../core/protocol/era-2026/request-headers';

/** The session header (MCP 2025-03-26 and later). */
export const SESSION_ID_HEADER = 'mcp-session-id';
/** Resumption header of a reconnecting SSE client. */
export const LAST_EVENT_ID_HEADER = 'last-event-id';

/** Request headers a browser client may send (CORS): MCP's own, plus what JSON, bearer auth and DPoP (RFC 9449) need. */
export const CORS_ALLOWED_HEADERS = Object.freeze([
  'Content-Type',
  'Accept',
  'Authorization',
  'DPoP',
  'Mcp-Session-Id',
  'MCP-Protocol-Version',
  'Last-Event-ID',
  'Mcp-Method',
  'Mcp-Name',
]);
/**
 * Response headers a browser client must be able to read (CORS): the session id, the auth challenge, the DPoP
 * nonce to retry with (RFC 9449 §8), and
 * when to come back after a 429 (`Retry-After`, and the IETF `RateLimit` / `RateLimit-Policy` fields).
 */
export const CORS_EXPOSED_HEADERS = Object.freeze([
  'Mcp-Session-Id',
  'WWW-Authenticate',
  'DPoP-Nonce',
  'Retry-After',
  'RateLimit',
  'RateLimit-Policy',
]);
