// Per-version shaping: what the negotiated revision's schema lacks is not sent (MCP 2025-06-18 lifecycle: MUST respect the negotiated version).

import { textContent, type ContentBlock } from '../registry/content';
import type { CallToolResult } from '../registry/tools';
import { isAtLeast, type ProtocolVersion } from '../versions';

/** For each field that some revisions lack: the revision that introduced it. */
export type FieldsSince = Readonly<Record<string, ProtocolVersion>>;

export const TOOL_FIELDS_SINCE: FieldsSince = {
  title: '2025-06-18',
  outputSchema: '2025-06-18',
  annotations: '2025-03-26',
  icons: '2025-11-25',
  execution: '2025-11-25',
};
export const PROMPT_FIELDS_SINCE: FieldsSince = { title: '2025-06-18', icons: '2025-11-25' };
export const RESOURCE_FIELDS_SINCE: FieldsSince = { title: '2025-06-18', icons: '2025-11-25', size: '2025-03-26' };
export const SERVER_INFO_FIELDS_SINCE: FieldsSince = {
  title: '2025-06-18',
  description: '2025-11-25',
  icons: '2025-11-25',
  websiteUrl: '2025-11-25',
};

/** `entry` without the fields `version` lacks; the same object when nothing has to go. */
export function shapeFields<T extends Readonly<Record<string, unknown>>>(entry: T, since: FieldsSince, version: ProtocolVersion): T {
  let copy: Record<string, unknown> | undefined;
  for (const field in since) {
    if (field in entry && !isAtLeast(version, since[field] as ProtocolVersion)) {
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
export function createEntryShaper(): (entry: Readonly<Record<string, unknown>>, since: FieldsSince, version: ProtocolVersion) => Readonly<Record<string, unknown>> {
  const cache = new WeakMap<object, Map<ProtocolVersion, Readonly<Record<string, unknown>>>>();
  return (entry, since, version) => {
    let byVersion = cache.get(entry);
    if (byVersion === undefined) cache.set(entry, (byVersion = new Map()));
    let shaped = byVersion.get(version);
    if (shaped === undefined) byVersion.set(version, (shaped = shapeFields(entry, since, version)));
    return shaped;
  };
}

/** A content block in a form `version` knows: audio (2025-03-26) and resource links (2025-06-18) become text before then. */
export function shapeContent(block: ContentBlock, version: ProtocolVersion): ContentBlock {
  if (block.type === 'audio' && !isAtLeast(version, '2025-03-26')) {
    return textContent(`[${block.mimeType} audio omitted: protocol ${version} cannot carry audio]`);
  }
  if (block.type === 'resource_link' && !isAtLeast(version, '2025-06-18')) {
    return textContent(`Resource ${block.name}: ${block.uri}`);
  }
  return block;
}

/** A tool result in a form `version` knows (`structuredContent` arrived in 2025-06-18). */
export function shapeToolResult(result: CallToolResult, version: ProtocolVersion): CallToolResult {
  if (isAtLeast(version, '2025-06-18')) return result;
  const { structuredContent: _dropped, ...rest } = result;
  return { ...rest, content: result.content.map((block) => shapeContent(block, version)) };
}
