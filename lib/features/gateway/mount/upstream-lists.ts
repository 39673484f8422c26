// An upstream's lists fetched whole (every page, within the caps), and the warnings one sync of them gives its operator.

import { ErrorCode, JsonRpcError } from '../../../core/jsonrpc/errors';
import { isObject } from '../../../core/jsonrpc/types';
import { PORTABLE_NAME_LENGTH } from './prefixed-names';
import { APPS_CAPABILITIES } from './upstream-call';
import type { UpstreamClient } from '../shared/upstream-client';
import { ListIntake, MAX_LIST_ENTRIES } from './upstream-limits';
import type { ResolvedUpstream } from './upstream-options';
import { summarised, type SkippedReport } from './upstream-report';
import type { ListedItems } from './upstream-sync';
import { isToolMounted } from './upstream-tools';

/** Most pages read from one list (each under the message cap); entries are capped by the upstream's `limits`. */
const MAX_PAGES = 100;

const LISTS = [
  { kind: 'tools', method: 'tools/list', field: 'tools' },
  { kind: 'prompts', method: 'prompts/list', field: 'prompts' },
  { kind: 'resources', method: 'resources/list', field: 'resources' },
  { kind: 'templates', method: 'resources/templates/list', field: 'resourceTemplates' },
] as const;

/** What one fetch of an upstream's lists brought. */
export interface FetchedLists {
  readonly lists: ListedItems;
  /** Whether they were over the caps and cut there. */
  readonly cut: boolean;
  /** The shortest 2026 `ttlMs` of its lists, if any gave one. */
  readonly ttlMs: number | undefined;
}

/** Whether an entry of a kind is wanted: tools by `tools.include` / `exclude`. */
function mounts(options: ResolvedUpstream, kind: keyof ListedItems, entry: Record<string, unknown>): boolean {
  return (
    kind !== 'tools' ||
    (options.tools !== false && typeof entry.name === 'string' && isToolMounted(options.tools, entry.name))
  );
}

/** One list, every page (until it fills the budget), into `intake`; resolves with its shortest `ttlMs`. */
async function fetchList(
  upstream: UpstreamClient,
  options: ResolvedUpstream,
  { kind, method, field }: (typeof LISTS)[number],
  signal: AbortSignal,
  headers: Record<string, string>,
  intake: ListIntake,
): Promise<number | undefined> {
  let cursor: unknown;
  let ttlMs: number | undefined;
  for (let page = 0; page < MAX_PAGES && intake.wants(kind); page++) {
    let result: unknown;
    try {
      // A 2026 upstream reads capabilities per request: the lists must hold the app-only tools the gateway hides itself.
      result = await upstream.request(method, cursor === undefined ? undefined : { cursor }, {
        signal,
        headers,
        capabilities: APPS_CAPABILITIES as Record<string, unknown>,
      });
    } catch (err) {
      // A list the upstream does not serve (MCP: the capability is not declared) is empty, not a failure.
      if (err instanceof JsonRpcError && err.code === ErrorCode.MethodNotFound && page === 0) return ttlMs;
      throw err;
    }
    const listed = isObject(result) && Array.isArray(result[field]) ? result[field] : undefined;
    if (listed === undefined)
      throw new JsonRpcError(
        ErrorCode.InternalError,
        `Upstream "${options.name}" answered ${method} without '${field}'`,
      );
    for (const entry of listed) if (isObject(entry) && mounts(options, kind, entry)) intake.take(kind, entry);
    if (isObject(result) && typeof result.ttlMs === 'number') ttlMs = Math.min(ttlMs ?? Infinity, result.ttlMs);
    cursor = isObject(result) ? result.nextCursor : undefined;
    if (typeof cursor !== 'string' || cursor === '') break;
  }
  return ttlMs;
}

/**
 * The upstream's lists that its options mount, each entry within its caps and all within the budget, requested with
 * the gateway's own `headers` under `signal`; what was skipped is recorded in `report`.
 */
export async function fetchUpstreamLists(
  upstream: UpstreamClient,
  options: ResolvedUpstream,
  headers: Record<string, string>,
  signal: AbortSignal,
  report: SkippedReport,
): Promise<FetchedLists> {
  const intake = new ListIntake(options.limits);
  const wanted = LISTS.filter(({ kind }) =>
    kind === 'tools' ? options.tools !== false : kind === 'prompts' ? options.prompts : options.resources,
  );
  const ttls = await Promise.all(wanted.map((list) => fetchList(upstream, options, list, signal, headers, intake)));
  const known = ttls.filter((ttl): ttl is number => ttl !== undefined);
  return { ...intake.lists(report), ttlMs: known.length === 0 ? undefined : Math.min(...known) };
}

/**
 * The warnings of one sync: guards naming tools the upstream does not list, entries not mounted, lists cut, tool
 * names longer than many clients take. One warning per problem: an upstream's thousand bad entries are one line.
 */
export function syncWarnings(
  options: ResolvedUpstream,
  lists: ListedItems,
  mountedTools: readonly string[],
  report: SkippedReport,
  cut: boolean,
): string[] {
  const label = options.name;
  const listedTools = new Set(lists.tools.map((entry) => entry.name));
  const told = Object.keys(options.guards)
    .filter((guarded) => !listedTools.has(guarded))
    .map(
      (guarded) =>
        `mcpRouter: upstream '${label}' guards name '${guarded}', which it does not list (guards are keyed by the upstream's own tool names)`,
    );
  const skippedWarning = report.warning(label);
  if (skippedWarning !== undefined) told.push(skippedWarning);
  if (cut)
    told.push(
      `mcpRouter: upstream '${label}' lists are over limits.maxListBytes (${options.limits.maxListBytes} bytes in all) or ${MAX_LIST_ENTRIES} entries of a kind: cut there (tools first, then prompts, resources, templates)`,
    );
  const long = mountedTools.filter((name) => name.length > PORTABLE_NAME_LENGTH);
  if (long.length > 0) {
    const names = long.map((name) => `'${name}' (${name.length} characters)`);
    told.push(
      `${summarised(`mcpRouter: upstream '${label}' has tool names longer than ${PORTABLE_NAME_LENGTH} characters, which many clients refuse`, names)}; shorten them with tools.rename`,
    );
  }
  return told;
}
