// SEP-2640 methods: skills/list, skills/get and resources/directory/read over a catalog fixed at boot.

import { ErrorCode, JsonRpcError } from '../../core/jsonrpc/errors';
import type { JsonRpcParams } from '../../core/jsonrpc/types';
import { ALL_ERAS } from '../../core/era-policy';
import { requireString, type MethodTable } from '../../core/protocol/methods/method-spec';
import type { SkillCatalog } from './catalog';

/** One page of `items` and, when more remain, the cursor of the next. */
interface ArrayPage<T> {
  readonly items: readonly T[];
  readonly nextCursor?: string;
}

const cursorOf = (listing: string, offset: number): string =>
  Buffer.from(`${listing}\n${offset}`).toString('base64url');

/**
 * A page of a list fixed at boot. The cursor names the listing it came from and an offset in it (MCP pagination:
 * opaque to the client); one of another listing, out of range or not issued in this form is refused.
 *
 * @param listing - what is paged: `skills`, or a folder's URI
 * @throws {JsonRpcError} -32602 for a cursor this listing did not issue
 */
function pageOf<T>(items: readonly T[], params: JsonRpcParams, pageSize: number, listing: string): ArrayPage<T> {
  const { cursor } = params;
  let start = 0;
  if (cursor !== undefined) {
    const text = typeof cursor === 'string' ? Buffer.from(cursor, 'base64url').toString() : '';
    const cut = text.lastIndexOf('\n');
    start = Number(text.slice(cut + 1));
    if (
      cut < 0 ||
      !Number.isSafeInteger(start) ||
      start < 1 ||
      start >= items.length ||
      cursorOf(listing, start) !== cursor
    )
      throw new JsonRpcError(
        ErrorCode.InvalidParams,
        'Invalid cursor: use the nextCursor of a previous read of this list',
      );
  }
  const end = start + pageSize;
  const page = items.slice(start, end);
  return end < items.length ? { items: page, nextCursor: cursorOf(listing, end) } : { items: page };
}

/** The result of a paged list: `{ [key]: items, nextCursor? }`. */
function listResult<T>(key: string, page: ArrayPage<T>): Record<string, unknown> {
  return page.nextCursor === undefined ? { [key]: page.items } : { [key]: page.items, nextCursor: page.nextCursor };
}

/**
 * The methods `mcp.skills()` adds, both eras. Their results may be cached by 2026 clients (MCP 2026-07-28 caching;
 * SEP-2640 skills/list and skills/get extend CacheableResult), and they need the resources capability the skills'
 * files are served under (SEP-2640: a server declaring the extension MUST declare resources).
 *
 * @param directoryRead - serve `resources/directory/read` (SEP-2640 `directoryRead`)
 */
export function skillMethods(catalog: SkillCatalog, pageSize: number, directoryRead: boolean): MethodTable {
  const byUri = new Map(catalog.skills.map((skill) => [skill.uri, skill]));
  const methods: Record<string, MethodTable[string]> = {
    // SEP-2640 skills/list: every skill's entry, whole on one page (an entry is never split).
    'skills/list': {
      eras: ALL_ERAS,
      capability: 'resources',
      cacheable: true,
      run: (params) => listResult('skills', pageOf(catalog.skills, params, pageSize, 'skills')),
    },
    // SEP-2640 skills/get: the entry of one skill by its SKILL.md URI; an unknown URI is -32602.
    'skills/get': {
      eras: ALL_ERAS,
      capability: 'resources',
      cacheable: true,
      run: (params) => {
        const uri = requireString(params, 'uri');
        const skill = byUri.get(uri);
        if (skill === undefined) throw new JsonRpcError(ErrorCode.InvalidParams, `Unknown skill: ${uri}`, { uri });
        return { skill };
      },
    },
  };
  if (directoryRead)
    // SEP-2640 resources/directory/read: a folder's direct children, subfolders as inode/directory; a URI that is not
    // a folder of a skill (a file, or nothing served) is -32602.
    methods['resources/directory/read'] = {
      eras: ALL_ERAS,
      capability: 'resources',
      cacheable: true,
      run: (params) => {
        const uri = requireString(params, 'uri');
        const children = catalog.directories.get(uri);
        if (children === undefined)
          throw new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: not a skill folder: ${uri}`, { uri });
        return listResult('resources', pageOf(children, params, pageSize, uri));
      },
    };
  return methods;
}
