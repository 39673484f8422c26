// How a mount reaches its upstream: a Streamable HTTP client for a `url`, or the processes of a stdio `command`.

import type { McpLogger } from '../../../core/logger';
import { createUpstreamClient } from '../http-client/streamable-http-client';
import type { UpstreamTransport } from '../shared/upstream-client';
import { stdioProcesses } from '../stdio/upstream-processes';
import { RELAYED_CAPABILITIES } from './upstream-call';
import { callerSessions } from './upstream-auth';
import type { ResolvedUpstream } from './upstream-options';

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
  if (options.stdio !== undefined)
    return stdioProcesses(options, options.stdio, {
      logger,
      clientInfo,
      capabilities,
      onExited: hooks.onProcessChange,
      onRestartDue: hooks.onProcessChange,
    });
  const label = options.name;
  const checkWhat =
    options.auth === undefined
      ? "check its 'headers'"
      : "check its 'headers' (the gateway's own requests) or the tokens its 'auth' exchanges (callers' requests, exchanged again once on 401)";
  const open = (headers: () => Record<string, string>) =>
    createUpstreamClient({
      url: options.url!,
      label,
      timeoutMs: options.timeoutMs,
      clientInfo,
      capabilities,
      headers,
      roots: options.roots,
      // MCP authorization: an upstream's challenge is about our credentials, not the caller's: logged, never passed on.
      onCredentialsRefused: (status) =>
        logger.error(
          new Error(`mcpRouter: upstream '${label}' refused the gateway's credentials (HTTP ${status}); ${checkWhat}`),
        ),
    });
  const client = open(() => hooks.ownHeaders());
  if (options.auth === undefined) return { client, pool: undefined, close: () => client.close() };
  // Called as the caller: a caller's session is opened with the gateway's own headers but for its token.
  const pool = callerSessions(client, (callerHeaders) =>
    open(() => {
      const { authorization: _own, ...own } = hooks.ownHeaders();
      return { ...own, ...callerHeaders() };
    }),
  );
  return { client, pool, close: async () => void (await Promise.all([client.close(), pool.close()])) };
}
