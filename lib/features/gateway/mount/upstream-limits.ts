// What one upstream may contribute to the router's lists: the `limits` option, the caps of one entry, and the byte budget of all its lists.

import type { OptionKeys } from '../../../options/config-error';
import type { OptionReader } from '../../../options/option-reader';
import { isObject } from '../../../core/jsonrpc/types';
import { MAX_SKIPPED_REPORTED, type Skipped, type SkippedReport } from './upstream-report';
import { ID_FIELD, SKIPPED_KIND, type ListedItems } from './upstream-sync';

/** Default `limits.maxDescriptionBytes`: a description a model reads, not a document. */
export const DEFAULT_MAX_DESCRIPTION_BYTES = 8 * 1024;
/** Default `limits.maxSchemaBytes`: an input or output schema. */
export const DEFAULT_MAX_SCHEMA_BYTES = 64 * 1024;
/** Default `limits.maxItemBytes`: one entry as JSON, every field counted (title, annotations, icons, `_meta`, …). */
export const DEFAULT_MAX_ITEM_BYTES = 256 * 1024;
/** Default `limits.maxListBytes`: all of one upstream's entries together. */
export const DEFAULT_MAX_LIST_BYTES = 2 * 1024 * 1024;
/** Most entries read from one of an upstream's lists, whatever their size. */
export const MAX_LIST_ENTRIES = 5_000;

/**
 * What one upstream may contribute, in bytes of UTF-8 JSON. An entry over an item cap is not mounted and is reported in
 * `status().skipped`; lists over `maxListBytes` in all are cut there, with one warning.
 */
export interface UpstreamLimitsOptions {
  /** The most bytes of an item's `description`, and of each prompt argument's. Defaults to `8192` (8 KB). */
  maxDescriptionBytes?: number;
  /** The most bytes of a tool's `inputSchema`, and of its `outputSchema`, as JSON. Defaults to `65536` (64 KB). */
  maxSchemaBytes?: number;
  /** The most bytes of one list entry as JSON, all its fields counted. Defaults to `262144` (256 KB). */
  maxItemBytes?: number;
  /**
   * The most bytes of all its list entries together, as JSON: tools first, then prompts, resources and resource
   * templates; what does not fit is cut. Defaults to `2097152` (2 MB).
   */
  maxListBytes?: number;
}

/** The limits after checking: internal. */
export type ResolvedLimits = Readonly<Required<UpstreamLimitsOptions>>;

/** The keys of an upstream's `limits` option. */
export const UPSTREAM_LIMITS_KEYS: OptionKeys<UpstreamLimitsOptions> = {
  maxDescriptionBytes: true,
  maxSchemaBytes: true,
  maxItemBytes: true,
  maxListBytes: true,
};
const BYTES = 'a positive integer number of bytes';

/** The options that hold `limits`: what {@link resolveLimits} reads. */
interface WithLimits {
  limits?: UpstreamLimitsOptions;
}

/**
 * The `limits` option of an upstream, checked and defaulted.
 *
 * @throws {McpConfigError} naming `limits.<key>` for an unknown key, or a value that is not a positive integer
 */
export function resolveLimits(upstream: OptionReader<WithLimits>): ResolvedLimits {
  const read = upstream.nested('limits', UPSTREAM_LIMITS_KEYS);
  return Object.freeze({
    maxDescriptionBytes: read.positiveInteger('maxDescriptionBytes', DEFAULT_MAX_DESCRIPTION_BYTES, BYTES),
    maxSchemaBytes: read.positiveInteger('maxSchemaBytes', DEFAULT_MAX_SCHEMA_BYTES, BYTES),
    maxItemBytes: read.positiveInteger('maxItemBytes', DEFAULT_MAX_ITEM_BYTES, BYTES),
    maxListBytes: read.positiveInteger('maxListBytes', DEFAULT_MAX_LIST_BYTES, BYTES),
  });
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '');
}

/** Why an entry is over one of its caps; or its size in bytes of JSON. The cheap checks come first: a 3 MB description is told by its length. */
function measure(
  entry: Record<string, unknown>,
  limits: ResolvedLimits,
): { readonly reason: string } | { readonly bytes: number } {
  const over = (what: string, bytes: number, option: keyof ResolvedLimits): { reason: string } => ({
    reason: `${what} is ${bytes} bytes, over limits.${option} (${limits[option]})`,
  });
  if (typeof entry.description === 'string') {
    const bytes = Buffer.byteLength(entry.description);
    if (bytes > limits.maxDescriptionBytes) return over('its description', bytes, 'maxDescriptionBytes');
  }
  for (const field of ['inputSchema', 'outputSchema'] as const) {
    if (entry[field] === undefined) continue;
    const bytes = jsonBytes(entry[field]);
    if (bytes > limits.maxSchemaBytes) return over(`its ${field}`, bytes, 'maxSchemaBytes');
  }
  for (const argument of Array.isArray(entry.arguments) ? entry.arguments.filter(isObject) : []) {
    const bytes = typeof argument.description === 'string' ? Buffer.byteLength(argument.description) : 0;
    if (bytes > limits.maxDescriptionBytes)
      return over(`argument '${String(argument.name).slice(0, 64)}' description`, bytes, 'maxDescriptionBytes');
  }
  const bytes = jsonBytes(entry);
  return bytes > limits.maxItemBytes
    ? { reason: `it is ${bytes} bytes of JSON, over limits.maxItemBytes (${limits.maxItemBytes})` }
    : { bytes };
}

type ListKind = keyof ListedItems;
type Sized = { readonly entry: Record<string, unknown>; readonly bytes: number };

/**
 * The entries of one sync as they are read, page by page: an entry over its caps is reported and dropped at once, and a
 * list stops being read once it alone fills the budget, so what is held never grows past the caps (and one page).
 */
export class ListIntake {
  readonly #taken: Record<ListKind, Sized[]> = { tools: [], prompts: [], resources: [], templates: [] };
  readonly #bytes: Record<ListKind, number> = { tools: 0, prompts: 0, resources: 0, templates: 0 };
  readonly #full: Record<ListKind, boolean> = { tools: false, prompts: false, resources: false, templates: false };
  /** Entries over their caps, by kind (the lists are read at once): reported in kind order, whichever answered first. */
  readonly #skipped: Record<ListKind, Skipped[]> = { tools: [], prompts: [], resources: [], templates: [] };
  readonly #skippedCount: Record<ListKind, number> = { tools: 0, prompts: 0, resources: 0, templates: 0 };

  constructor(private readonly limits: ResolvedLimits) {}

  /** Whether more of that list is worth reading. */
  wants(kind: ListKind): boolean {
    return !this.#full[kind];
  }

  /** Takes one entry of a list: kept, reported as over its caps, or left out once the list is full. */
  take(kind: ListKind, entry: Record<string, unknown>): void {
    if (this.#full[kind]) return;
    const measured = measure(entry, this.limits);
    if ('reason' in measured) {
      if (this.#skipped[kind].length < MAX_SKIPPED_REPORTED)
        this.#skipped[kind].push({
          kind: SKIPPED_KIND[kind],
          name: String(entry[ID_FIELD[kind]]),
          reason: measured.reason,
        });
      this.#skippedCount[kind]++;
      return;
    }
    if (
      this.#bytes[kind] + measured.bytes > this.limits.maxListBytes ||
      this.#taken[kind].length === MAX_LIST_ENTRIES
    ) {
      this.#full[kind] = true;
      return;
    }
    this.#bytes[kind] += measured.bytes;
    this.#taken[kind].push({ entry, bytes: measured.bytes });
  }

  /**
   * The lists within `maxListBytes` in all (tools, then prompts, resources, templates), and whether any was cut; the
   * entries over their caps go to `report`, in the same order.
   */
  lists(report: SkippedReport): { readonly lists: ListedItems; readonly cut: boolean } {
    const lists: ListedItems = { tools: [], prompts: [], resources: [], templates: [] };
    let cut = Object.values(this.#full).some(Boolean);
    let budget = this.limits.maxListBytes;
    for (const kind of ['tools', 'prompts', 'resources', 'templates'] as const) {
      for (const { kind: named, name, reason } of this.#skipped[kind]) report.add(named, name, reason);
      report.addUnlisted(this.#skippedCount[kind] - this.#skipped[kind].length);
      for (const { entry, bytes } of this.#taken[kind]) {
        if (bytes > budget) {
          cut = true;
          budget = 0;
          break;
        }
        budget -= bytes;
        lists[kind].push(entry);
      }
      // Cut there: a list left unfinished leaves nothing for the lists after it.
      if (this.#full[kind]) budget = 0;
    }
    return { lists, cut };
  }
}
