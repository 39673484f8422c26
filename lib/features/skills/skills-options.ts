// The options of mcp.skills(), checked once at registration, and the limits SEP-2640 sets on what a skill may hold.

import { invalidOption, type OptionKeys } from '../../options/config-error';
import { OptionReader } from '../../options/option-reader';

/** What `mcp.skills()` takes: the folder, or these options. */
export interface SkillsOptions {
  /**
   * The folder that holds the skills: every folder under it with a `SKILL.md` is one skill, whose path below `dir`
   * is its `skill://` path (`dir/billing/refunds/SKILL.md` → `skill://billing/refunds/SKILL.md`). Required.
   */
  dir: string;
  /**
   * Whether clients may list a skill's folders with `resources/directory/read` (SEP-2640 `directoryRead`).
   * Defaults to `true`.
   */
  directoryRead?: boolean;
  /** The largest file a skill may hold, in bytes; a larger one fails at boot. Defaults to `1048576` (1 MiB). */
  maxFileBytes?: number;
}

/** `maxFileBytes` when not given: 1 MiB. */
export const DEFAULT_MAX_SKILL_FILE_BYTES = 1024 * 1024;
/** SEP-2640: servers SHOULD NOT serve a skill of more than 512 resource entries, SKILL.md included. */
export const MAX_FILES_PER_SKILL = 512;
/** SEP-2640: servers SHOULD NOT serve a skill whose files add up to more than 16 MiB. */
export const MAX_SKILL_BYTES = 16 * 1024 * 1024;

/** {@link SkillsOptions}, checked and defaulted. */
export type ResolvedSkillsOptions = Readonly<Required<SkillsOptions>>;

const KNOWN: OptionKeys<SkillsOptions> = { dir: true, directoryRead: true, maxFileBytes: true };
const MAX_FILE_BYTES_EXPECTED = `an integer from 1 to ${MAX_SKILL_BYTES} (16 MiB)`;

/**
 * @throws {McpConfigError} `ERR_MCP_UNKNOWN_OPTION` for a key it does not know, `ERR_MCP_INVALID_OPTION` for a bad value
 */
export function resolveSkillsOptions(input: string | SkillsOptions): ResolvedSkillsOptions {
  const given: unknown = typeof input === 'string' ? { dir: input } : input;
  if (typeof given !== 'object' || given === null) throw invalidOption('skills', 'a folder path or { dir, … }', given);
  const read = OptionReader.of(given as SkillsOptions, 'skills', KNOWN);
  const dir = read.string('dir', { nonEmpty: true, required: true });
  const directoryRead = read.boolean('directoryRead', true);
  const maxFileBytes = read.positiveInteger('maxFileBytes', DEFAULT_MAX_SKILL_FILE_BYTES, MAX_FILE_BYTES_EXPECTED);
  if (maxFileBytes > MAX_SKILL_BYTES) throw read.invalid('maxFileBytes', MAX_FILE_BYTES_EXPECTED);
  return Object.freeze({ dir, directoryRead, maxFileBytes });
}
