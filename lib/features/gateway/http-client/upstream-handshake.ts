// How the upstream client connects: a 2026 server/discover probe, else a 2025 initialize; and the statuses no message makes sense of.

import { isObject } from '../../../core/jsonrpc/types';
import type { AbortSource } from '../../../core/protocol/abort';
import { eraOf, isVersion2025, LATEST_PROTOCOL_VERSION_2025, type Era } from '../../../core/versions';
import { PROTOCOL_VERSION_2026, headers2026, params2026, sessionHeaders } from './upstream-envelope';
import { exchange, type ExchangeOutcome } from './upstream-exchange';
import { resultOrThrow } from '../shared/upstream-wire';
import { UpstreamFault } from './http-body';
import type { UpstreamConnections } from './http-post';

/** What a handshake established. */
export interface UpstreamConnection {
  readonly era: Era;
  readonly protocolVersion: string;
  readonly sessionId: string | undefined;
  readonly capabilities: Readonly<Record<string, unknown>>;
}

/** One way of connecting, under the request limits' abort. */
export type Handshake = (signal: AbortSource) => Promise<UpstreamConnection>;

/** What a handshake needs of its client. */
export interface HandshakeContext {
  readonly url: URL;
  /** The client's pool of keep-alive connections. */
  readonly connections: UpstreamConnections;
  readonly label: string;
  readonly clientInfo: { readonly name: string; readonly version: string };
  /** The capabilities declared in a 2025 `initialize`. */
  readonly capabilities: Record<string, unknown>;
  /** A fresh copy of the client's headers. */
  baseHeaders(): Record<string, string>;
  nextId(): number;
  /** Told of each 401/403. */
  readonly onCredentialsRefused: ((status: number) => void) | undefined;
}

/** The statuses no message makes sense of: credentials refused (the operator is told), upstream failure. */
export function checkStatus(
  outcome: ExchangeOutcome,
  onCredentialsRefused: ((status: number) => void) | undefined,
): void {
  if (outcome.status === 401 || outcome.status === 403) {
    onCredentialsRefused?.(outcome.status);
    throw new UpstreamFault(`refused the gateway's credentials (HTTP ${outcome.status})`, outcome.status);
  }
  if (outcome.status >= 500) throw new UpstreamFault(`failed (HTTP ${outcome.status})`);
}

/**
 * Whether a 2025 upstream says the session is gone: 404 (MCP transports › Session Management), or the 400 "No valid
 * session ID" that servers built on the SDK v1 examples answer instead, after a restart.
 */
export function isLostSession(outcome: ExchangeOutcome): boolean {
  if (outcome.status === 404) return true;
  if (outcome.status !== 400 || outcome.kind !== 'response' || !isObject(outcome.message.error)) return false;
  const message = outcome.message.error.message;
  return typeof message === 'string' && /session/i.test(message);
}

/** MCP 2026-07-28 › server/discover: a DiscoverResult lists the revisions served; ours must be among them. */
function isDiscoverResult(outcome: ExchangeOutcome): outcome is Extract<ExchangeOutcome, { kind: 'response' }> {
  if (outcome.kind !== 'response' || outcome.status !== 200 || !isObject(outcome.message.result)) return false;
  const versions = outcome.message.result.supportedVersions;
  return Array.isArray(versions) && versions.includes(PROTOCOL_VERSION_2026);
}

/** A 2025 `initialize` then `notifications/initialized`: the session the upstream opened (MCP 2025-11-25 lifecycle). */
export async function initialize(context: HandshakeContext, signal: AbortSource): Promise<UpstreamConnection> {
  const { url, label, clientInfo, connections } = context;
  const body = {
    jsonrpc: '2.0',
    id: context.nextId(),
    method: 'initialize',
    params: { protocolVersion: LATEST_PROTOCOL_VERSION_2025, capabilities: context.capabilities, clientInfo },
  };
  const outcome = await exchange({ url, connections, headers: context.baseHeaders(), body, signal });
  checkStatus(outcome, context.onCredentialsRefused);
  if (outcome.kind !== 'response')
    throw new UpstreamFault(`answered initialize with HTTP ${outcome.status} and no MCP message`);
  const result = resultOrThrow(outcome.message, label);
  const version = isObject(result) ? result.protocolVersion : undefined;
  // MCP 2025-11-25 lifecycle › Version Negotiation: a revision the client does not speak means disconnect.
  if (!isVersion2025(version))
    throw new UpstreamFault('answered initialize with a protocol version the gateway does not speak');
  const capabilities = isObject(result) && isObject(result.capabilities) ? result.capabilities : {};
  const established: UpstreamConnection = {
    era: eraOf(version),
    protocolVersion: version,
    sessionId: outcome.sessionId,
    capabilities,
  };
  const initialized = await exchange({
    url,
    connections,
    headers: sessionHeaders(context.baseHeaders(), established),
    body: { jsonrpc: '2.0', method: 'notifications/initialized' },
    signal,
  });
  checkStatus(initialized, context.onCredentialsRefused);
  if (initialized.status >= 300)
    throw new UpstreamFault(`refused notifications/initialized (HTTP ${initialized.status})`);
  return established;
}

/** Probes with a 2026 `server/discover`; an upstream that does not answer with a DiscoverResult gets {@link initialize}. */
export async function discoverOrInitialize(
  context: HandshakeContext,
  signal: AbortSource,
): Promise<UpstreamConnection> {
  const body = {
    jsonrpc: '2.0',
    id: context.nextId(),
    method: 'server/discover',
    params: params2026(undefined, context.clientInfo),
  };
  const headers = headers2026(context.baseHeaders(), 'server/discover', undefined);
  const probe = await exchange({ url: context.url, connections: context.connections, headers, body, signal });
  checkStatus(probe, context.onCredentialsRefused);
  if (isDiscoverResult(probe)) {
    const capabilities =
      isObject(probe.message.result) && isObject(probe.message.result.capabilities)
        ? probe.message.result.capabilities
        : {};
    return {
      era: eraOf(PROTOCOL_VERSION_2026),
      protocolVersion: PROTOCOL_VERSION_2026,
      sessionId: undefined,
      capabilities,
    };
  }
  // Not a 2026 server: 400 -32022 (a 2026 server without our revision), 404 / -32601 (no server/discover), or a
  // 2025-only server's 400 (a request without a session). MCP 2026-07-28 › Backward Compatibility: try initialize.
  return initialize(context, signal);
}
