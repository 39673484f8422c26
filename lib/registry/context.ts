// RequestContext: what every tool, resource, prompt and completion handler receives besides its arguments.

import type { JsonRpcId } from '../jsonrpc/types';

/** The protocol revisions this router speaks, newest first. */
export const SUPPORTED_PROTOCOL_VERSIONS = Object.freeze(['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const);

/** One of {@link SUPPORTED_PROTOCOL_VERSIONS}. */
export type ProtocolVersion = (typeof SUPPORTED_PROTOCOL_VERSIONS)[number];

/** Who is calling, as established by authentication. */
export interface AuthInfo {
  /** The principal (user or client) the token belongs to. */
  readonly subject: string;
  /** The scopes the token grants. */
  readonly scopes: readonly string[];
  /** When the token expires, in seconds since the epoch. */
  readonly expiresAt?: number;
  /** Any other claims the verifier chose to pass on. */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/**
 * Passed as the last argument to every handler. One is made per request and it is only valid while
 * that request runs.
 */
export interface RequestContext {
  /** The JSON-RPC id of the request being served. */
  readonly requestId: JsonRpcId;
  /** The protocol revision in force for this request (negotiated, or from `MCP-Protocol-Version`). */
  readonly protocolVersion: ProtocolVersion;
  /** Aborted when the request is cancelled or the caller goes away: pass it on to `fetch`, databases, timers. */
  readonly signal: AbortSignal;
  /** The MCP session, when the router keeps sessions. */
  readonly sessionId: string | undefined;
  /** The authenticated caller, when the router (or the host app) authenticates requests. */
  readonly auth: AuthInfo | undefined;
  /** The request's `_meta` object (e.g. `progressToken`), as sent. */
  readonly meta: Readonly<Record<string, unknown>> | undefined;
}
