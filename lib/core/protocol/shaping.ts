// Per-version shaping: what the negotiated revision's schema lacks is not sent, whether it came later or was dropped (MCP lifecycle: MUST respect the negotiated version).

import { textContent, type ContentBlock } from '../registry/content';
import type { CallToolResult } from '../registry/tools';
import { isAtLeast, type Revision } from '../versions';

/** The revisions that have a field: from `since` (the one that introduced it) up to, not including, `until` (the first that dropped it). */
export interface FieldLife {
  readonly since?: Revision;
  readonly until?: Revision;
}

/** For each field that some revisions lack: when it lives. Fields not listed are in every revision. */
export type FieldLives = Readonly<Record<string, FieldLife>>;

export const TOOL_FIELDS: FieldLives = {
  title: { since: '2025-06-18' },
  outputSchema: { since: '2025-06-18' },
  annotations: { since: '2025-03-26' },
  icons: { since: '2025-11-25' },
  // MCP 2026-07-28 moved tasks to an extension: `execution.taskSupport` is gone from the tool.
  execution: { since: '2025-11-25', until: '2026-07-28' },
};
export const PROMPT_FIELDS: FieldLives = { title: { since: '2025-06-18' }, icons: { since: '2025-11-25' } };
export const RESOURCE_FIELDS: FieldLives = {
  title: { since: '2025-06-18' },
  icons: { since: '2025-11-25' },
  size: { since: '2025-03-26' },
};
export const SERVER_INFO_FIELDS: FieldLives = {
  title: { since: '2025-06-18' },
  description: { since: '2025-11-25' },
  icons: { since: '2025-11-25' },
  websiteUrl: { since: '2025-11-25' },
};

/** Whether `version` has a field that lives as `life` says. */
export function livesIn(life: FieldLife, version: Revision): boolean {
  return (
    (life.since === undefined || isAtLeast(version, life.since)) &&
    (life.until === undefined || !isAtLeast(version, life.until))
  );
}

/** `entry` without the fields `version` lacks; the same object when nothing has to go. */
export function shapeFields<T extends Readonly<Record<string, unknown>>>(
  entry: T,
  lives: FieldLives,
  version: Revision,
): T {
  let copy: Record<string, unknown> | undefined;
  for (const field in lives) {
    if (field in entry && !livesIn(lives[field] as FieldLife, version)) {
      copy ??= { ...entry };
      delete copy[field];
    }
  }
  return (copy ?? entry) as T;
}

/**
 * Caches shaped list entries per revision. Entries are frozen at registration, so a shaped copy stays
 * valid for as long as its entry lives; the WeakMap lets removed entries go.
 */
export function createEntryShaper(): (
  entry: Readonly<Record<string, unknown>>,
  lives: FieldLives,
  version: Revision,
) => Readonly<Record<string, unknown>> {
  const cache = new WeakMap<object, Map<Revision, Readonly<Record<string, unknown>>>>();
  return (entry, lives, version) => {
    let byVersion = cache.get(entry);
    if (byVersion === undefined) cache.set(entry, (byVersion = new Map()));
    let shaped = byVersion.get(version);
    if (shaped === undefined) byVersion.set(version, (shaped = shapeFields(entry, lives, version)));
    return shaped;
  };
}

/** A content block in a form `version` knows: audio (2025-03-26) and resource links (2025-06-18) become text before then. */
export function shapeContent(block: ContentBlock, version: Revision): ContentBlock {
  if (block.type === 'audio' && !isAtLeast(version, '2025-03-26')) {
    return textContent(`[${block.mimeType} audio omitted: protocol ${version} cannot carry audio]`);
  }
  if (block.type === 'resource_link' && !isAtLeast(version, '2025-06-18')) {
    return textContent(`Resource ${block.name}: ${block.uri}`);
  }
  return block;
}

/** A tool result in a form `version` knows (`structuredContent` arrived in 2025-06-18). */
export function shapeToolResult(result: CallToolResult, version: Revision): CallToolResult {
  if (isAtLeast(version, '2025-06-18')) return result;
  const { structuredContent: _dropped, ...rest } = result;
  return { ...rest, content: result.content.map((block) => shapeContent(block, version)) };
}
