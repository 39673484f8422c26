// What every MCP 2026-07-28 result carries: resultType, serverInfo in _meta, and cache hints on the results that may be cached.

import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import type { CacheHint } from '../registry/cache-hint';
import { META_KEYS } from './request-meta';
import { SERVER_INFO_FIELDS, shapeFields } from './shaping';

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

/**
 * A handler's or guard's JSON-RPC error as a 2026 request gets it. MCP 2026-07-28 (SEP-2164): a resource that does
 * not exist is -32602 with `data.uri`, and -32002 is never sent; a handler written for 2025 that throws -32002 (as
 * README's path check does) is answered in the 2026 form with the same message and data.
 */
export function modernError(error: JsonRpcError): JsonRpcError {
  return error.code === ErrorCode.ResourceNotFound
    ? new JsonRpcError(ErrorCode.InvalidParams, error.message, error.data)
    : error;
}
