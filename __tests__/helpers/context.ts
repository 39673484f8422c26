// Builds dispatch environments and handler contexts for tests of the pure layers.

import { HandlerContext, NO_STREAM, type DispatchEnvironment } from '../../lib/protocol/handler-context';
import { isAtLeast } from '../../lib/versions';
import type { RequestContext } from '../../lib/registry/request-context';
import type { ProtocolVersion } from '../../lib/versions';

/** An environment as the transport builds it for a stateless request on `protocolVersion`. */
export function testEnv(protocolVersion: ProtocolVersion = '2025-11-25', extra: Partial<DispatchEnvironment> = {}): DispatchEnvironment {
  return {
    protocolVersion,
    batchesAllowed: !isAtLeast(protocolVersion, '2025-06-18'),
    signal: new AbortController().signal,
    sessionId: undefined,
    auth: undefined,
    peer: { protocolVersion, clientCapabilities: {}, clientInfo: undefined, logLevel: undefined, subscriptions: [] },
    channel: NO_STREAM,
    inflight: undefined,
    headers: {},
    ...extra,
  };
}

/** A handler context for request `requestId` (nothing can be streamed: a JSON reply). */
export function testContext(protocolVersion: ProtocolVersion = '2025-11-25', requestId: string | number = 1): RequestContext {
  return new HandlerContext({ jsonrpc: '2.0', id: requestId, method: 'test' }, testEnv(protocolVersion), new AbortController(), 1_000);
}
