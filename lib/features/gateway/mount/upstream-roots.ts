// The `roots` option of mcp.upstream(): the roots the gateway itself gives an upstream that asks outside any call.

import { isObject } from '../../../core/jsonrpc/types';
import { OptionReader } from '../../../options/option-reader';
import type { UpstreamRoot } from '../shared/upstream-client';

export type { UpstreamRoot } from '../shared/upstream-client';

const KNOWN_ROOT: { [K in keyof Required<UpstreamRoot>]: true } = { uri: true, name: true };

/** The options that hold `roots`: what {@link resolveRoots} reads. */
interface WithRoots {
  roots?: readonly UpstreamRoot[];
}

/**
 * The `roots` option of an upstream, checked and frozen: each entry `{ uri, name? }` with a `file://` URL.
 *
 * @param item - the upstream, as messages name it (`upstream 'fs'`)
 * @throws {McpConfigError} naming `roots` or `roots[i].<key>` for a value of the wrong shape, an unknown key or a URI
 *   that is not a `file://` URL
 */
export function resolveRoots(upstream: OptionReader<WithRoots>, item: string): readonly UpstreamRoot[] {
  const roots = upstream.array('roots', isObject, "an array of { uri: 'file://…', name? }") ?? [];
  return Object.freeze(
    roots.map((root, index) => {
      const read = OptionReader.of(root as Partial<UpstreamRoot>, `roots[${index}]`, KNOWN_ROOT, { item });
      const uri = read.raw('uri');
      if (!isFileUrl(uri)) throw read.invalid('uri', 'a file:// URL (MCP roots are file:// URIs)');
      const name = read.string('name');
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
