// The `tools` option of mcp.upstream(): which upstream tools are mounted (include, exclude) and under which names (rename).

import { isObject } from '../../../core/jsonrpc/types';
import type { OptionKeys } from '../../../options/config-error';
import type { OptionReader } from '../../../options/option-reader';

/** Names of upstream items: exact names, or patterns. */
export type NameMatcher = string | RegExp;

/** Which of an upstream's tools are mounted, and under which names. */
export interface UpstreamToolsOptions {
  /** Only these (exact names or patterns); defaults to all. */
  include?: readonly NameMatcher[];
  /** Not these; applied after `include`. */
  exclude?: readonly NameMatcher[];
  /** Other names (before the prefix): `{ very_long_tool_name: 'short' }` → `fs__short`. */
  rename?: Readonly<Record<string, string>>;
}

/** The keys of an upstream's `tools` option. */
export const UPSTREAM_TOOLS_KEYS: OptionKeys<UpstreamToolsOptions> = {
  include: true,
  exclude: true,
  rename: true,
};

/** The options that hold `tools`: what {@link resolveTools} reads. */
interface WithTools {
  tools?: boolean | UpstreamToolsOptions;
}

const MATCHERS = 'an array of names and regular expressions';
/** A downstream tool name (before the prefix): MCP 2025-11-25 tools › Tool Names. */
const NEW_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

function isMatcher(value: unknown): value is NameMatcher {
  return typeof value === 'string' || value instanceof RegExp;
}

/**
 * The `tools` option of an upstream, checked: `false` mounts none; `true` or absent mounts all under their names.
 *
 * @throws {McpConfigError} naming the option, for a value of the wrong shape or an unknown key
 */
export function resolveTools(upstream: OptionReader<WithTools>): Required<UpstreamToolsOptions> | false {
  const tools = upstream.raw('tools');
  if (tools === false) return false;
  if (tools === undefined || tools === true) return { include: [], exclude: [], rename: {} };
  if (!isObject(tools)) throw upstream.invalid('tools', 'a boolean or { include, exclude, rename }');
  const read = upstream.nested('tools', UPSTREAM_TOOLS_KEYS);
  const rename: Readonly<Record<string, string>> = read.raw('rename', {});
  if (!isObject(rename) || !Object.values(rename).every((to) => typeof to === 'string' && NEW_NAME.test(to)))
    throw read.invalid('rename', 'an object of upstream name → new name (1–128 characters of A-Z a-z 0-9 _ . -)');
  return {
    include: read.array('include', isMatcher, MATCHERS) ?? [],
    exclude: read.array('exclude', isMatcher, MATCHERS) ?? [],
    rename: Object.freeze({ ...rename }),
  };
}

/** Whether an upstream tool is mounted under `tools.include` / `tools.exclude`. */
export function isToolMounted(tools: Required<UpstreamToolsOptions>, name: string): boolean {
  const matches = (matcher: NameMatcher): boolean =>
    typeof matcher === 'string'
      ? matcher === name
      : new RegExp(matcher.source, matcher.flags.replace(/[gy]/g, '')).test(name);
  return (tools.include.length === 0 || tools.include.some(matches)) && !tools.exclude.some(matches);
}
