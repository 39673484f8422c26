// How a mount reaches its upstream: a Streamable HTTP client for a `url`, or the processes of a stdio `command`.

import type { McpLogger } from '../../../core/logger';
import { createUpstreamClient } from '../http-client/streamable-http-client';
import type { UpstreamClient } from '../shared/upstream-client';
import type { ProcessPool } from '../stdio/process-pool';
import { stdioProcesses } from '../stdio/upstream-processes';
import { RELAYED_CAPABILITIES } from './upstream-call';
import type { ResolvedUpstream } from './upstream-options';

/** An upstream's client, and with `processes: 'per-principal'` the pool of its callers' processes. */
export interface UpstreamTransport {
  /** What the gateway's own requests (handshake, lists, notifications) and shared calls go through. */
  readonly client: UpstreamClient;
  /** Per principal: where a caller's requests go. */
  readonly pool: ProcessPool | undefined;
  /** Ends the client (and every process). */
  close(): Promise<void>;
}

/** What a transport asks of its mount. */
export interface TransportHooks {
  readonly logger: McpLogger;
  readonly clientInfo: { readonly name: string; readonly version: string };
  /** The gateway's own credentials for the upstream (`headers`, called without a caller), as last resolved. */
  ownHeaders(): Record<string, string>;
  /** A stdio process exited, or may start again: the mount refreshes, so status() tells it and the lists come back. */
  onProcessChange(): void;
}

/**
 * Connects nothing yet: an HTTP client connects on its first request, a stdio process spawns on it. The gateway
 * declares to every upstream the capabilities it relays to its callers.
 */
export function openTransport(options: ResolvedUpstream, hooks: TransportHooks): UpstreamTransport {
  const { logger, clientInfo } = hooks;
  const capabilities = RELAYED_CAPABILITIES as Record<string, unknown>;
  if (options.stdio !== undefined) {
    const stdio = stdioProcesses(options, options.stdio, {
      logger,
      clientInfo,
      capabilities,
      onExited: hooks.onProcessChange,
      onRestartDue: hooks.onProcessChange,
    });
    return { client: stdio.shared, pool: stdio.pool, close: () => stdio.close() };
  }
  const label = options.name;
  const client = createUpstreamClient({
    url: options.url!,
    label,
    timeoutMs: options.timeoutMs,
    clientInfo,
    capabilities,
    headers: () => hooks.ownHeaders(),
    roots: options.roots,
    // MCP authorization: an upstream's challenge is about our credentials, not the caller's: logged, never passed on.
    onCredentialsRefused: (status) =>
      logger.error(
        new Error(
          `mcpRouter: upstream '${label}' refused the gateway's credentials (HTTP ${status}); check its 'headers'`,
        ),
      ),
  });
  return { client, pool: undefined, close: () => client.close() };
}
