// Header names of the MCP Streamable HTTP transport (HTTP header names are case-insensitive; Node lowercases them).

/** Request header naming the protocol revision in force (MCP 2025-06-18 and later). */
export const PROTOCOL_VERSION_HEADER = 'mcp-protocol-version';
/** The session header (MCP 2025-03-26 and later). */
export const SESSION_ID_HEADER = 'mcp-session-id';
/** Resumption header of a reconnecting SSE client. */
export const LAST_EVENT_ID_HEADER = 'last-event-id';
