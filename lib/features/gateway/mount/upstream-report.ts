// What one sync of an upstream's lists tells its operator: the entries not mounted (a bounded report) and the warnings, each logged once while it lasts.

import type { McpLogger } from '../../../core/logger';

/** An entry not mounted, and why. */
export interface Skipped {
  readonly kind: 'tool' | 'prompt' | 'resource' | 'resource template';
  /** The upstream's name (or URI) of it, cut short past {@link MAX_REPORTED_NAME} characters. */
  readonly name: string;
  readonly reason: string;
}

/** Most entries `status().skipped` lists: an upstream sending thousands of bad entries must not make the report grow with them. */
export const MAX_SKIPPED_REPORTED = 100;
/** Longest name and reason kept in the report: an upstream chooses both. */
const MAX_REPORTED_NAME = 128;
const MAX_REPORTED_REASON = 256;
/** Entries named in a summary warning. */
const NAMED_IN_WARNING = 5;

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** The entries of one sync that are not mounted: the first {@link MAX_SKIPPED_REPORTED}, and how many in all. */
export class SkippedReport {
  readonly #entries: Skipped[] = [];
  #count = 0;

  /** Records one entry not mounted (its name and reason cut short). */
  add(kind: Skipped['kind'], name: string, reason: string): void {
    this.#count++;
    if (this.#entries.length < MAX_SKIPPED_REPORTED)
      this.#entries.push(
        Object.freeze({ kind, name: cut(name, MAX_REPORTED_NAME), reason: cut(reason, MAX_REPORTED_REASON) }),
      );
  }

  /** Counts entries not mounted that are not listed (beyond what a caller kept of them). */
  addUnlisted(count: number): void {
    this.#count += count;
  }

  /** The first entries recorded. */
  get entries(): readonly Skipped[] {
    return Object.freeze([...this.#entries]);
  }

  /** How many were recorded, listed or not. */
  get count(): number {
    return this.#count;
  }

  /** One warning for all of them (undefined for none): the first few by name, and how many more. */
  warning(label: string): string | undefined {
    if (this.#count === 0) return undefined;
    const named = this.#entries
      .slice(0, NAMED_IN_WARNING)
      .map(({ kind, name, reason }) => `${kind} '${name}' is not mounted: ${reason}`);
    if (this.#count === 1) return `mcpRouter: upstream '${label}': ${named[0]}`;
    const more = this.#count - named.length;
    return `mcpRouter: upstream '${label}': ${this.#count} items are not mounted (status().skipped lists the first ${MAX_SKIPPED_REPORTED}): ${named.join('; ')}${more > 0 ? `; and ${more} more` : ''}`;
  }
}

/** A one-line warning naming the first few of `items` and how many more: `what` is the sentence before them. */
export function summarised(what: string, items: readonly string[]): string {
  const named = items.slice(0, NAMED_IN_WARNING).join(', ');
  return items.length > NAMED_IN_WARNING
    ? `${what}: ${named} and ${items.length - NAMED_IN_WARNING} more`
    : `${what}: ${named}`;
}

/**
 * Logs each warning of a sync that the previous sync did not log: a lasting problem is told once, not at every refresh,
 * and what is remembered is one sync's warnings, never a history.
 */
export class SyncWarnings {
  #previous: ReadonlySet<string> = new Set();

  constructor(private readonly logger: McpLogger) {}

  /** Logs those of `warnings` that are new since the last sync. */
  report(warnings: readonly string[]): void {
    for (const warning of warnings) if (!this.#previous.has(warning)) this.logger.warn(new Error(warning));
    this.#previous = new Set(warnings);
  }
}
