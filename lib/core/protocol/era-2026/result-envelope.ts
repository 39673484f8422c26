// What every MCP 2026-07-28 result carries: resultType, serverInfo in _meta, and cache hints on the results that may be cached.

import type { CacheHint } from '../../registry/cache-hint';
import { META_KEYS } from './request-meta';
import { SERVER_INFO_FIELDS, shapeFields } from '../shaping';

/** Shapes one method's result for a 2026 request. */
export type ResultShaper2026 = (result: Record<string, unknown>, cacheable: boolean) => Record<string, unknown>;

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
 * const shape = createShaper2026({ name: 'inventory', version: '1.0.0' }, { ttlMs: 0, scope: 'public' });
 * shape({ tools: [] }, true); // { ttlMs: 0, cacheScope: 'public', tools: [], resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': { … } } }
 * ```
 */
export function createShaper2026(serverInfo: Readonly<Record<string, unknown>>, cache: CacheHint): ResultShaper2026 {
  const meta = Object.freeze({ [META_KEYS.serverInfo]: shapeFields(serverInfo, SERVER_INFO_FIELDS, '2026-07-28') });
  return (result, cacheable) => {
    const own = result._meta;
    const _meta = own === undefined || own === null || typeof own !== 'object' ? meta : { ...own, ...meta };
    const resultType = result.resultType ?? 'complete';
    // An own `__proto__` key (a JSON.parse'd upstream result) must stay a key: a spread defines it, Object.assign would
    // set the prototype instead.
    if (Object.hasOwn(result, '__proto__'))
      return cacheable
        ? { ttlMs: cache.ttlMs, cacheScope: cache.scope, ...result, resultType, _meta }
        : { ...result, resultType, _meta };
    // The same members in the same order as those literals, without their spread: V8 builds `{ ...result, … }` on a
    // slow path, Object.assign onto a fresh literal on a fast one.
    const shaped: Record<string, unknown> = Object.assign(
      cacheable ? { ttlMs: cache.ttlMs, cacheScope: cache.scope } : {},
      result,
    );
    shaped.resultType = resultType;
    shaped._meta = _meta;
    return shaped;
  };
}
