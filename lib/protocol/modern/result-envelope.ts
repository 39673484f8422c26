// What every MCP 2026-07-28 result carries: resultType, serverInfo in _meta, and cache hints on the results that may be cached.

import type { CacheHint } from '../../registry/cache-hint';
import { META_KEYS } from './request-meta';
import { SERVER_INFO_FIELDS, shapeFields } from '../shaping';

/** Shapes one method's result for a 2026 request. */
export type ModernResultShaper = (result: Record<string, unknown>, cacheable: boolean) => Record<string, unknown>;

/**
 * Creates the shaper of one router's 2026 results, with what they share made once.
 *
 * - MCP 2026-07-28 (SEP-2322): every result has `resultType`; a handler's own (part 2: `input_required`) is kept.
 * - MCP 2026-07-28 basic › `_meta` (SHOULD): `io.modelcontextprotocol/serverInfo` in every result's `_meta`.
 * - MCP 2026-07-28 caching (MUST): the `complete` results of server/discover, the lists and resources/read carry
 *   `ttlMs` and `cacheScope`; the router's default unless the result set its own (a resource's `cache`).
 *
 * @param serverInfo - the router's serverInfo (an Implementation)
 * @param cache - the router's default hint (every page of a list gets it: all pages agree)
 * @example
 * ```ts
 * const shape = createModernShaper({ name: 'inventory', version: '1.0.0' }, { ttlMs: 0, scope: 'public' });
 * shape({ tools: [] }, true); // { ttlMs: 0, cacheScope: 'public', tools: [], resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': { … } } }
 * ```
 */
export function createModernShaper(
  serverInfo: Readonly<Record<string, unknown>>,
  cache: CacheHint,
): ModernResultShaper {
  const meta = Object.freeze({ [META_KEYS.serverInfo]: shapeFields(serverInfo, SERVER_INFO_FIELDS, '2026-07-28') });
  // One object literal per result, its shape known to V8 at once (adding members one by one cost a measurable 1%).
  return (result, cacheable) => {
    const own = result._meta;
    const _meta = own === undefined || own === null || typeof own !== 'object' ? meta : { ...own, ...meta };
    const resultType = result.resultType ?? 'complete';
    return cacheable
      ? { ttlMs: cache.ttlMs, cacheScope: cache.scope, ...result, resultType, _meta }
      : { ...result, resultType, _meta };
  };
}
