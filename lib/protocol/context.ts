// Builds the RequestContext handed to every handler from the request and its environment.

import { isObject, type JsonRpcRequest } from '../jsonrpc/types';
import type { AuthInfo, ProtocolVersion, RequestContext } from '../registry/context';

/** What the transport knows about the HTTP request a message arrived in. */
export interface DispatchEnvironment {
  /** The revision in force: from `MCP-Protocol-Version`, the session, or the assumed default. */
  readonly protocolVersion: ProtocolVersion;
  /** Whether the client named the revision itself (a header), rather than it being assumed. */
  readonly versionFromHeader: boolean;
  /** Aborted when the work is no longer wanted (client gone, cancellation). */
  readonly signal: AbortSignal;
  readonly sessionId: string | undefined;
  readonly auth: AuthInfo | undefined;
}

/** The handler context for one request. */
export function createRequestContext(request: JsonRpcRequest, env: DispatchEnvironment): RequestContext {
  const meta = request.params?._meta;
  return {
    requestId: request.id,
    protocolVersion: env.protocolVersion,
    signal: env.signal,
    sessionId: env.sessionId,
    auth: env.auth,
    meta: isObject(meta) ? meta : undefined,
  };
}
