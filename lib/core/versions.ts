// Protocol revisions by era: which ones we speak, how they compare, how initialize negotiates one, what a bare request assumes.

/**
 * The revisions of MCP, by era, newest first. The 2025 era (2024-11-05 … 2025-11-25) has initialize and
 * sessions; the 2026 era (2026-07-28) has stateless requests that carry the client's state in `_meta`.
 */
export const VERSIONS_BY_ERA = Object.freeze({
  '2025': Object.freeze(['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const),
  '2026': Object.freeze(['2026-07-28'] as const),
});

/** A protocol era: the 2025 era (initialize and sessions) or the 2026 era (stateless requests). */
export type Era = '2025' | '2026';

/** A revision of MCP this package knows, served or not: what per-version tables (shaping, method eras) are written in. */
export type Revision = '2024-11-05' | '2025-03-26' | '2025-06-18' | '2025-11-25' | '2026-07-28';

/** `true` when A and B have the same members: keeps a union written out (for the reader and the API reference) equal to its list. */
type SameMembers<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;

true satisfies SameMembers<Era, keyof typeof VERSIONS_BY_ERA>;
true satisfies SameMembers<Revision, (typeof VERSIONS_BY_ERA)[Era][number]>;

/** The revisions `initialize` negotiates, newest first: the 2025 era's (the 2026 era has no initialize). */
export const PROTOCOL_VERSIONS_2025 = VERSIONS_BY_ERA['2025'];

/** A revision of the 2025 era: one `initialize` negotiates. */
export type ProtocolVersion = '2024-11-05' | '2025-03-26' | '2025-06-18' | '2025-11-25';

true satisfies SameMembers<ProtocolVersion, (typeof PROTOCOL_VERSIONS_2025)[number]>;

/** The revisions a 2026 request names in its `_meta`, newest first: the 2026 era's. */
export const PROTOCOL_VERSIONS_2026 = VERSIONS_BY_ERA['2026'];

/** One of {@link PROTOCOL_VERSIONS_2026}. */
export type Version2026 = (typeof PROTOCOL_VERSIONS_2026)[number];

/** True for a revision of the 2026 era this router serves. */
export function isVersion2026(value: unknown): value is Version2026 {
  return typeof value === 'string' && (PROTOCOL_VERSIONS_2026 as readonly string[]).includes(value);
}

/** The newest revision of the 2025 era: what `initialize` offers when a client asks for one we do not speak. */
export const LATEST_PROTOCOL_VERSION_2025: ProtocolVersion = PROTOCOL_VERSIONS_2025[0];

/**
 * MCP 2025-06-18 transports › Protocol Version Header: with no header and no other way to know,
 * the server SHOULD assume 2025-03-26.
 */
export const ASSUMED_PROTOCOL_VERSION: ProtocolVersion = '2025-03-26';

/** The last revision that allows JSON-RPC batches (2025-06-18 removed them). */
export const LAST_VERSION_WITH_BATCHES: ProtocolVersion = '2025-03-26';

/** Whether a request under `version` may be a JSON-RPC batch (MCP 2025-06-18 removed batching). */
export function allowsBatches(version: Revision): boolean {
  return version <= LAST_VERSION_WITH_BATCHES;
}

/** True for a revision of the 2025 era (one `initialize` negotiates). */
export function isVersion2025(value: unknown): value is ProtocolVersion {
  return typeof value === 'string' && (PROTOCOL_VERSIONS_2025 as readonly string[]).includes(value);
}

/** Each revision's era, made once: the classifier asks for every 2026 request. */
const ERA_OF_REVISION: ReadonlyMap<string, Era> = new Map(
  (Object.keys(VERSIONS_BY_ERA) as Era[]).flatMap((era) => VERSIONS_BY_ERA[era].map((version) => [version, era])),
);

/** The era a revision belongs to. */
export function eraOf(version: Revision): Era {
  return ERA_OF_REVISION.get(version) as Era;
}

/**
 * MCP lifecycle › Version Negotiation: answer with the requested revision when we speak it, else with the
 * newest one we speak (never with an error).
 */
export function negotiateVersion(requested: unknown): ProtocolVersion {
  return isVersion2025(requested) ? requested : LATEST_PROTOCOL_VERSION_2025;
}

/** True when `version` is `since` or newer (revisions are ISO dates, so text order is time order). */
export function isAtLeast(version: Revision, since: Revision): boolean {
  return version >= since;
}
