// Completers for prompt arguments and template variables, and the shape of their answer.

import { checkFunction } from './definition';
import type { RequestContext } from './request-context';

/** What `completion/complete` answers (MCP: at most 100 values). */
export interface CompletionResult {
  /** The suggested values, best first; at most 100 are sent. */
  values: string[];
  /** How many matches exist in all, when more than `values` holds. */
  total?: number;
  /** Whether more matches exist than were sent. */
  hasMore?: boolean;
}

/** Context of a completion: the values of the other arguments the user already filled in (MCP 2025-06-18). */
export interface CompletionContext {
  /** The other arguments' values so far, by name. */
  readonly arguments: Readonly<Record<string, string>>;
}

/**
 * Suggests values for one argument from what the user typed so far.
 *
 * @example
 * ```ts
 * const complete: Completer = (prefix) => ['alice', 'bob'].filter((n) => n.startsWith(prefix));
 * ```
 */
export type Completer = (
  value: string,
  context: CompletionContext,
  ctx: RequestContext,
) => readonly string[] | CompletionResult | Promise<readonly string[] | CompletionResult>;

/** MCP completion: `values` MUST NOT exceed 100 items. */
export const MAX_COMPLETION_VALUES = 100;

/** @throws {McpConfigError} when `completer` is given but is not a function */
export function checkCompleter(completer: unknown, label: string): asserts completer is Completer | undefined {
  checkFunction(completer, label, 'completer', true);
}

/** A completer's answer, cut to 100 values with `total`/`hasMore` telling what was cut. */
export function toCompletionResult(output: readonly string[] | CompletionResult): CompletionResult {
  const all = Array.isArray(output) ? output : (output as CompletionResult).values;
  const values = all.filter((value): value is string => typeof value === 'string');
  const result: CompletionResult = { values: values.slice(0, MAX_COMPLETION_VALUES) };
  if (!Array.isArray(output)) {
    const { total, hasMore } = output as CompletionResult;
    if (total !== undefined) result.total = total;
    if (hasMore !== undefined) result.hasMore = hasMore;
  }
  if (values.length > MAX_COMPLETION_VALUES) {
    result.total = Math.max(result.total ?? 0, values.length);
    result.hasMore = true;
  }
  return result;
}
