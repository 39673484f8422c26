// The method-table contract shared by every protocol module, and the param readers they use.

import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors';
import { isObject, type JsonRpcParams } from '../../jsonrpc/types';
import { mayUse, type AccessRule } from '../../registry/access';
import type { Collection } from '../../registry/collection';
import type { RequestContext } from '../../registry/request-context';
import type { OfferedFeatures } from '../../registry/registry';
import type { Era } from '../../versions';
import type { CallLine } from '../call-line';
import type { ClientState, ClientUpdate } from '../handler-context';

/**
 * Serves one JSON-RPC method: params in, result out; throws {@link JsonRpcError} to answer with an error. It reads the
 * client state it is given and never changes it: a method that changes it (initialize, logging/setLevel,
 * resources/(un)subscribe) returns a {@link ClientUpdate}, synchronously, for the transport to keep. `line` is the
 * call's line, for the call pipeline's task hook (tools/call); other methods ignore it.
 */
export type MethodHandler = (
  params: JsonRpcParams,
  ctx: RequestContext,
  client: ClientState,
  line: CallLine,
) => Promise<Record<string, unknown>> | Record<string, unknown> | ClientUpdate;

/**
 * A method, as data: the eras that serve it (written with era-policy.ts's `SESSION_ERAS`, `STATELESS_ERAS`, `ALL_ERAS`), and the server capability that must have been offered for it to exist.
 * The dispatcher answers -32601 for a method not served in the request's era, or whose capability was never declared.
 */
export interface MethodEntry {
  readonly eras: readonly Era[];
  readonly capability?: keyof OfferedFeatures;
  /** MCP 2026-07-28 caching: its complete results carry `ttlMs` and `cacheScope` (discover, the lists, resources/read). */
  readonly cacheable?: true;
  readonly run: MethodHandler;
}

/** Methods by name. */
export type MethodTable = Readonly<Record<string, MethodEntry>>;

/** @throws {JsonRpcError} -32602 unless `params[key]` is a non-empty string */
export function requireString(params: JsonRpcParams, key: string): string {
  const value = params[key];
  if (typeof value !== 'string' || value === '') {
    throw new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: '${key}' must be a non-empty string`);
  }
  return value;
}

/** @throws {JsonRpcError} -32602 unless `params[key]` is absent or an object */
export function optionalObject(params: JsonRpcParams, key: string): Record<string, unknown> | undefined {
  const value = params[key];
  if (value === undefined) return undefined;
  if (!isObject(value)) throw new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: '${key}' must be an object`);
  return value;
}

/**
 * One page of a paginated list (MCP pagination): `{ [key]: entries, nextCursor? }`, without the items the
 * caller may not use (they look exactly like items that do not exist).
 *
 * @param toEntry - turns an item into its wire entry for this request's revision; undefined leaves it out (an
 *   MCP Apps app-only tool, for a client that does not render apps)
 * @param loading - first loads to wait for (an upstream's lists: `registry.loaded()`), bounded by their makers
 */
export async function listPage<T extends { readonly access: AccessRule | undefined }>(
  collection: Collection<T>,
  params: JsonRpcParams,
  pageSize: number,
  key: string,
  toEntry: (item: T) => unknown,
  ctx: RequestContext,
  loading?: Promise<void>,
): Promise<Record<string, unknown>> {
  if (loading !== undefined) await loading;
  const page = collection.page(params.cursor, pageSize);
  const entries: unknown[] = [];
  for (const item of page.items) {
    // The access rule the item's chain applies to calls (registry/access.ts): what a caller may not use is not listed.
    if (item.access !== undefined && !(await mayUse(item.access, ctx))) continue;
    const entry = toEntry(item);
    if (entry !== undefined) entries.push(entry);
  }
  const result: Record<string, unknown> = { [key]: entries };
  if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
  return result;
}
