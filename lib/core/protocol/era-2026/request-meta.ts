// The MCP 2026-07-28 per-request `_meta` envelope: its reserved keys, the claim that makes a request a 2026 one, and the client state read from it.

import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors';
import { isObject } from '../../jsonrpc/types';
import { LOG_LEVELS, type LogLevel } from '../../registry/request-context';
import { boundedCapabilities, boundedClientInfo } from '../client-data';

/** The prefix of the `_meta` keys MCP 2026-07-28 reserves (basic › `_meta`). */
export const RESERVED_META_PREFIX = 'io.modelcontextprotocol/';

/** The `_meta` keys MCP 2026-07-28 reserves (basic › `_meta`: the `io.modelcontextprotocol/` prefix). */
export const META_KEYS = Object.freeze({
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const);

/** What a 2026 request says about its client, checked and bounded: never remembered past the request (MCP 2026-07-28 M3). */
export interface RequestEnvelope {
  /** The revision the request is written in, as sent (its support is checked by the classifier). */
  readonly protocolVersion: string;
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
  readonly clientInfo: Readonly<Record<string, string>> | undefined;
  /** Log messages at this level or more severe go on the request's stream; none without it (MCP 2026-07-28 M4). */
  readonly logLevel: LogLevel | undefined;
}

/** The `_meta` object of a message's params, when there is one. */
export function metaOf(params: unknown): Record<string, unknown> | undefined {
  if (!isObject(params)) return undefined;
  const meta = params._meta;
  return isObject(meta) ? meta : undefined;
}

/** Whether a message claims the 2026 era: its `params._meta` holds the protocol-version key, whatever its value. */
export function claimsEra2026(message: Record<string, unknown>): boolean {
  const meta = metaOf(message.params);
  return meta !== undefined && Object.hasOwn(meta, META_KEYS.protocolVersion);
}

function malformed(key: string, problem: string): JsonRpcError {
  // MCP 2026-07-28 (per-request metadata): a missing or malformed envelope is -32602 on HTTP 400.
  return new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: _meta["${key}"] ${problem}`, { key });
}

/**
 * Reads the envelope of a message that claims the 2026 era.
 *
 * @returns the envelope, or the -32602 error naming the first key that is missing or malformed
 */
export function readEnvelope(params: unknown): RequestEnvelope | JsonRpcError {
  const meta = metaOf(params) ?? {};
  const protocolVersion = meta[META_KEYS.protocolVersion];
  if (typeof protocolVersion !== 'string' || protocolVersion === '')
    return malformed(META_KEYS.protocolVersion, 'must be a protocol version string');
  const capabilities = meta[META_KEYS.clientCapabilities];
  if (!isObject(capabilities))
    return malformed(META_KEYS.clientCapabilities, 'must be an object (the client capabilities, {} for none)');
  const info = meta[META_KEYS.clientInfo];
  // clientInfo is a SHOULD: absent is served; present, it is an Implementation (name and version).
  if (info !== undefined && !(isObject(info) && typeof info.name === 'string' && typeof info.version === 'string')) {
    return malformed(META_KEYS.clientInfo, 'must be an object with string name and version');
  }
  const logLevel = meta[META_KEYS.logLevel];
  if (logLevel !== undefined && !(LOG_LEVELS as readonly unknown[]).includes(logLevel)) {
    return malformed(META_KEYS.logLevel, `must be one of ${LOG_LEVELS.join(', ')}`);
  }
  try {
    // Bounded as a session's would be: what a client sends must not decide what the server holds, even for one request.
    return {
      protocolVersion,
      clientCapabilities: boundedCapabilities(capabilities),
      clientInfo: boundedClientInfo(info),
      logLevel: logLevel as LogLevel | undefined,
    };
  } catch (err) {
    return err as JsonRpcError;
  }
}
