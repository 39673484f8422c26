// Protocol revisions: which ones we speak, how initialize negotiates one, and what a request without one assumes.

import { SUPPORTED_PROTOCOL_VERSIONS, type ProtocolVersion } from '../registry/context';

export { SUPPORTED_PROTOCOL_VERSIONS, type ProtocolVersion };

/** The newest revision: offered when a client asks for one we do not speak. */
export const LATEST_PROTOCOL_VERSION: ProtocolVersion = SUPPORTED_PROTOCOL_VERSIONS[0];

/**
 * MCP 2025-06-18 transports › Protocol Version Header: with no header and no other way to know,
 * the server SHOULD assume 2025-03-26.
 */
export const ASSUMED_PROTOCOL_VERSION: ProtocolVersion = '2025-03-26';

/** The last revision that allows JSON-RPC batches (2025-06-18 removed them). */
export const LAST_VERSION_WITH_BATCHES: ProtocolVersion = '2025-03-26';

/** True for a revision this router speaks. */
export function isSupportedVersion(value: unknown): value is ProtocolVersion {
  return typeof value === 'string' && (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(value);
}

/**
 * MCP lifecycle › Version Negotiation: answer with the requested revision when we speak it, else with the
 * newest one we speak (never with an error).
 */
export function negotiateVersion(requested: unknown): ProtocolVersion {
  return isSupportedVersion(requested) ? requested : LATEST_PROTOCOL_VERSION;
}

/** True when `version` is `since` or newer (revisions are ISO dates, so text order is time order). */
export function isAtLeast(version: ProtocolVersion, since: ProtocolVersion): boolean {
  return version >= since;
}
