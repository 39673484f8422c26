// Cache hints of MCP 2026-07-28 results (ttlMs, cacheScope): the option shape, checked once, for the router and each resource.

import type { OptionKeys } from '../../options/config-error';
import { OptionReader } from '../../options/option-reader';

/** Who may reuse a cached result: any client (`'public'`), or only the credentials that fetched it (`'private'`). */
export type CacheScope = 'public' | 'private';

/** How long a 2026 client may reuse a result, and who may. */
export interface CacheHintOptions {
  /** Milliseconds the result stays fresh (an integer ≥ 0; 0: fetch again each time). */
  ttlMs?: number;
  /** `'public'` or `'private'`. */
  scope?: CacheScope;
}

/** Every {@link CacheScope}. */
const CACHE_SCOPES: readonly CacheScope[] = ['public', 'private'];

/** The keys of a `cache` option. */
export const CACHE_HINT_KEYS: OptionKeys<CacheHintOptions> = { ttlMs: true, scope: true };

/** A cache hint after checking: what goes on the wire as `ttlMs` and `cacheScope`. */
export interface CacheHint {
  readonly ttlMs: number;
  readonly scope: CacheScope;
}

/**
 * Checks a `cache` option (the router's, or one resource's override of it).
 *
 * @param path - the option as messages name it (`cache`)
 * @param item - the resource it belongs to, named first in messages (`resource 'docs://readme'`); undefined: the router's
 * @returns a frozen copy, or undefined when absent
 * @throws {McpConfigError} `ERR_MCP_UNKNOWN_OPTION` for a key it does not have; `ERR_MCP_INVALID_OPTION` unless it is `{ ttlMs?, scope? }` with an integer ≥ 0 and a known scope
 */
export function checkCacheHint(value: unknown, path: string, item?: string): Readonly<CacheHintOptions> | undefined {
  if (value === undefined) return undefined;
  const read = OptionReader.of(value as CacheHintOptions, path, CACHE_HINT_KEYS, { item });
  const ttlMs = read.raw('ttlMs');
  // MCP 2026-07-28 caching: ttlMs is an integer ≥ 0.
  if (ttlMs !== undefined && (!Number.isSafeInteger(ttlMs) || ttlMs < 0))
    throw read.invalid('ttlMs', 'an integer number of milliseconds ≥ 0');
  const scope = read.raw('scope') === undefined ? undefined : read.oneOf('scope', CACHE_SCOPES, 'public');
  const hint: CacheHintOptions = {};
  if (ttlMs !== undefined) hint.ttlMs = ttlMs;
  if (scope !== undefined) hint.scope = scope;
  return Object.freeze(hint);
}

/** A resource's own hint as result fields (`ttlMs`, `cacheScope`): only what it sets; the router's default fills the rest. */
export function cacheFields(hint: Readonly<CacheHintOptions>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  if (hint.ttlMs !== undefined) fields.ttlMs = hint.ttlMs;
  if (hint.scope !== undefined) fields.cacheScope = hint.scope;
  return fields;
}
