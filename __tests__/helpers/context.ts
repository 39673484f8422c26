// Builds dispatch environments and handler contexts for tests of the pure layers.

import { NO_STREAM, StreamedClientRequests } from '../../lib/core/protocol/client-requests';
import { HandlerContext, type DispatchEnvironment } from '../../lib/core/protocol/handler-context';
import type { RequestContext } from '../../lib/core/registry/request-context';
import type { ProtocolVersion } from '../../lib/core/versions';

/** An environment as the transport builds it for a stateless request on `protocolVersion`. */
export function testEnv(
  protocolVersion: ProtocolVersion = '2025-11-25',
  extra: Partial<DispatchEnvironment> = {},
): DispatchEnvironment {
  return {
    era: '2025',
    signal: new AbortController().signal,
    sessionId: undefined,
    auth: undefined,
    client: { protocolVersion, clientCapabilities: {}, clientInfo: undefined, logLevel: undefined, subscriptions: [] },
    channel: NO_STREAM,
    clientRequests: new StreamedClientRequests(NO_STREAM),
    inflight: undefined,
    headers: {},
    clientAddress: () => undefined,
    ...extra,
  };
}

/** A handler context for request `requestId` (nothing can be streamed: a JSON reply). */
export function testContext(
  protocolVersion: ProtocolVersion = '2025-11-25',
  requestId: string | number = 1,
): RequestContext {
  const env = testEnv(protocolVersion);
  return new HandlerContext(
    { jsonrpc: '2.0', id: requestId, method: 'test' },
    env,
    { client: env.client },
    new AbortController(),
    1_000,
  );
}
