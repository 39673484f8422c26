// Cache hints of MCP 2026-07-28 results (ttlMs, cacheScope): the option shape, checked once, for the router and each resource.

import { McpConfigError, rejectUnknownKeys, type OptionKeys } from '../../options/config-error';
import { isObject } from '../jsonrpc/types';

/** Who may reuse a cached result: any client (`'public'`), or only the credentials that fetched it (`'private'`). */
export type CacheScope = 'public' | 'private';

/** How long a 2026 client may reuse a result, and who may. */
export interface CacheHintOptions {
  /** Milliseconds the result stays fresh (an integer ≥ 0; 0: fetch again each time). */
  ttlMs?: number;
  /** `'public'` or `'private'`. */
  scope?: CacheScope;
}

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
 * @param label - names the option in the error (`cache`, `resource 'docs://readme' cache`)
 * @returns a frozen copy, or undefined when absent
 * @throws {McpConfigError} `ERR_MCP_UNKNOWN_OPTION` for a key it does not have; `ERR_MCP_INVALID_OPTION` unless it is `{ ttlMs?, scope? }` with an integer ≥ 0 and a known scope
 */
export function checkCacheHint(value: unknown, label: string): Readonly<CacheHintOptions> | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value))
    throw new McpConfigError(
      'ERR_MCP_INVALID_OPTION',
      `${label} must be { ttlMs?, scope? }, got ${JSON.stringify(value)}`,
    );
  rejectUnknownKeys(value, CACHE_HINT_KEYS, `${label}.`);
  const { ttlMs, scope } = value as CacheHintOptions;
  // MCP 2026-07-28 caching: ttlMs is an integer ≥ 0.
  if (ttlMs !== undefined && (!Number.isSafeInteger(ttlMs) || ttlMs < 0))
    throw new McpConfigError(
      'ERR_MCP_INVALID_OPTION',
      `${label}.ttlMs must be an integer number of milliseconds ≥ 0, got ${JSON.stringify(ttlMs)}`,
    );
  if (scope !== undefined && scope !== 'public' && scope !== 'private')
    throw new McpConfigError(
      'ERR_MCP_INVALID_OPTION',
      `${label}.scope must be 'public' or 'private', got ${JSON.stringify(scope)}`,
    );
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
