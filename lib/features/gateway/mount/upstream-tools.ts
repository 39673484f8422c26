// The `tools` option of mcp.upstream(): which upstream tools are mounted (include, exclude) and under which names (rename).

import { invalidOption, rejectUnknownKeys, type OptionKeys } from '../../../options/config-error';

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

function checkMatchers(value: unknown, option: string): readonly NameMatcher[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string' || item instanceof RegExp))
    throw invalidOption(option, 'an array of names and regular expressions', value);
  return Object.freeze([...(value as NameMatcher[])]);
}

/**
 * The `tools` option of upstream `label`, checked: `false` mounts none; `true` or absent mounts all under their names.
 *
 * @throws {McpConfigError} naming the option, for a value of the wrong shape or an unknown key
 */
export function resolveTools(tools: unknown, label: string): Required<UpstreamToolsOptions> | false {
  if (tools === false) return false;
  if (tools === undefined || tools === true) return { include: [], exclude: [], rename: {} };
  if (typeof tools !== 'object' || tools === null)
    throw invalidOption(`${label}.tools`, 'a boolean or { include, exclude, rename }', tools);
  rejectUnknownKeys(tools, UPSTREAM_TOOLS_KEYS, 'tools.', { item: label });
  const { include, exclude, rename = {} } = tools as UpstreamToolsOptions;
  if (
    typeof rename !== 'object' ||
    rename === null ||
    !Object.values(rename).every((to) => typeof to === 'string' && /^[A-Za-z0-9_.-]{1,128}$/.test(to))
  ) {
    throw invalidOption(
      `${label}.tools.rename`,
      'an object of upstream name → new name (1–128 characters of A-Z a-z 0-9 _ . -)',
      rename,
    );
  }
  return {
    include: checkMatchers(include, `${label}.tools.include`),
    exclude: checkMatchers(exclude, `${label}.tools.exclude`),
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
