// The `roots` option of mcp.upstream(): the roots the gateway itself gives an upstream that asks outside any call.

import { invalidOption, rejectUnknownKeys } from '../../../options/config-error';
import type { UpstreamRoot } from '../shared/upstream-client';

export type { UpstreamRoot } from '../shared/upstream-client';

const KNOWN_ROOT: { [K in keyof Required<UpstreamRoot>]: true } = { uri: true, name: true };

/**
 * The `roots` option of upstream `label`, checked and frozen: each entry `{ uri, name? }` with a `file://` URL.
 *
 * @throws {McpConfigError} naming `<label>.roots[i]…` for a value of the wrong shape, an unknown key or a URI that
 *   is not a `file://` URL
 */
export function resolveRoots(roots: unknown, label: string): readonly UpstreamRoot[] {
  if (roots === undefined) return Object.freeze([]);
  if (!Array.isArray(roots)) throw invalidOption(`${label}.roots`, "an array of { uri: 'file://…', name? }", roots);
  return Object.freeze(
    roots.map((root: unknown, index) => {
      const option = `${label}.roots[${index}]`;
      if (typeof root !== 'object' || root === null || Array.isArray(root))
        throw invalidOption(option, "{ uri: 'file://…', name? }", root);
      rejectUnknownKeys(root, KNOWN_ROOT, `roots[${index}].`, { item: label });
      const { uri, name } = root as Record<string, unknown>;
      if (!isFileUrl(uri)) throw invalidOption(`${option}.uri`, 'a file:// URL (MCP roots are file:// URIs)', uri);
      if (name !== undefined && typeof name !== 'string') throw invalidOption(`${option}.name`, 'a string', name);
      return Object.freeze(name === undefined ? { uri } : { uri, name });
    }),
  );
}

function isFileUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    return new URL(value).protocol === 'file:';
  } catch {
    return false;
  }
}
