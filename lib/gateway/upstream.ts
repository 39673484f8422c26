// One mounted upstream: its lists fetched, cached and refreshed, its items kept in the router's registry, its health told by status().

import type { McpTelemetry } from '../telemetry/telemetry';
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import { isObject } from '../jsonrpc/types';
import type { McpLogger } from '../logger';
import type { Registry } from '../registry/registry';
import type { Era } from '../versions';
import { badName, namingFor, PORTABLE_NAME_LENGTH } from './naming';
import { forwardedHeaders, RELAYED_CAPABILITIES } from './upstream-call';
import { createUpstreamClient, type UpstreamClient } from './upstream-client';
import type { UpstreamListener } from './upstream-events';
import {
  promptDefinition,
  resourceDefinition,
  templateDefinition,
  toolDefinition,
  type UpstreamSource,
} from './upstream-items';
import { ListIntake, MAX_LIST_ENTRIES } from './upstream-limits';
import { type Skipped, SkippedReport, summarised, SyncWarnings } from './upstream-report';
import { type ItemSet, applyLists, emptyItemSet, itemCounts, type ListedItems } from './upstream-sync';
import { isToolMounted, type ResolvedUpstream } from './upstream-options';
import { stdioProcesses } from './upstream-stdio';

/** How an upstream is doing. */
export type UpstreamState = 'connecting' | 'healthy' | 'stale' | 'down' | 'removed';

/** What `status()` tells about one upstream. */
export interface UpstreamStatus {
  readonly name: string;
  readonly prefix: string | undefined;
  /**
   * `connecting` until its first lists; `healthy` when its last fetch worked; `stale` while it fails within `graceMs`
   * (its last good lists are served); `down` after (its items are gone until it answers again); `removed`.
   */
  readonly state: UpstreamState;
  /** Its era and revision, once connected. */
  readonly era: Era | undefined;
  readonly protocolVersion: string | undefined;
  /** When its lists were last fetched whole (ISO 8601). */
  readonly lastSuccessAt: string | undefined;
  /** Why its last fetch failed (never its URL); undefined when it worked. */
  readonly error: string | undefined;
  /** How many of its items are mounted now. */
  readonly items: {
    readonly tools: number;
    readonly prompts: number;
    readonly resources: number;
    readonly resourceTemplates: number;
  };
  /**
   * Items of its last lists that are not mounted, and why (a name taken by another item, an invalid name or schema,
   * over a `limits` cap): the first 100, names and reasons cut short.
   */
  readonly skipped: readonly Skipped[];
  /** How many items of its last lists are not mounted, listed in `skipped` or not. */
  readonly skippedCount: number;
  /** Whether its last lists were over `limits.maxListBytes` (or 5,000 entries of a kind) and were cut there. */
  readonly listsCut: boolean;
  /** A stdio upstream with `processes: 'per-principal'`: its callers' processes now (the lister not counted), and the bound. */
  readonly processes?: { readonly running: number; readonly max: number } | undefined;
}

/** Returned by `mcp.upstream()`. */
export interface UpstreamHandle {
  /** How it is doing now. */
  status(): UpstreamStatus;
  /** Fetches its lists now (as its `list_changed` would) and resolves with the status after. */
  refresh(): Promise<UpstreamStatus>;
  /** Takes its items off the router, stops listening and ends its session (DELETE). */
  remove(): Promise<void>;
}

/** The least and most time between two refreshes driven by an upstream's 2026 `ttlMs`. */
const MIN_TTL_REFRESH_MS = 5_000;
const MAX_TTL_REFRESH_MS = 60 * 60_000;
/** Retries of a failing upstream: from 1 s, doubling, to 60 s. */
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 60_000;
/** Most upstream resources the gateway subscribes to, so one upstream cannot make it hold without bound. */
const MAX_RESOURCE_SUBSCRIPTIONS = 100;
/** Notifications of a burst of changes lead to one refresh. */
const CHANGE_DEBOUNCE_MS = 100;
/** Most pages read from one list (each under the message cap); entries are capped by the upstream's `limits`. */
const MAX_PAGES = 100;

const LISTS = [
  { kind: 'tools', method: 'tools/list', field: 'tools' },
  { kind: 'prompts', method: 'prompts/list', field: 'prompts' },
  { kind: 'resources', method: 'resources/list', field: 'resources' },
  { kind: 'templates', method: 'resources/templates/list', field: 'resourceTemplates' },
] as const;

const LIST_CHANGED = new Set([
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
]);

/** What the router gives a mount. */
export interface MountEnvironment {
  readonly registry: Registry;
  readonly logger: McpLogger;
  readonly clientInfo: { readonly name: string; readonly version: string };
  /** Announces an upstream's resource update under its downstream URI. */
  readonly notifyResourceUpdated: (uri: string) => void;
  /** Called once the upstream is removed. */
  readonly onRemoved: () => void;
  /**
   * Where lists show its items: after the router's own and the upstreams mounted before it, whichever answers
   * first (1 for the first upstream mounted, and so on).
   */
  readonly group: number;
  /** The router's telemetry: a CLIENT span per forwarded call; undefined without. */
  readonly telemetry?: McpTelemetry | undefined;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/**
 * Mounts an upstream: connects lazily, fetches its lists now (our lists wait for them at most `listTimeoutMs`),
 * keeps them fresh (its `list_changed`, its 2026 `ttlMs`, `refresh()`), and serves a failing upstream's last good
 * lists for `graceMs` before its items drop out; it comes back by itself.
 */
export function mountUpstream(
  options: ResolvedUpstream,
  env: MountEnvironment,
  client?: UpstreamClient,
): UpstreamHandle {
  const { registry, logger } = env;
  const label = options.name;
  /**
   * The gateway's own credentials for the upstream (`headers`, called without a caller), as last resolved: the
   * handshake, the lists, the notification stream and the session's DELETE carry them.
   */
  let ownHeaders: Record<string, string> = typeof options.headers === 'function' ? {} : { ...options.headers };
  const stdio =
    client === undefined && options.stdio !== undefined
      ? stdioProcesses(options, options.stdio, {
          logger,
          clientInfo: env.clientInfo,
          onExited: () => void refresh(),
          onRestartDue: () => void refresh(),
        })
      : undefined;
  const upstream =
    client ??
    stdio?.shared ??
    createUpstreamClient({
      url: options.url!,
      label,
      timeoutMs: options.timeoutMs,
      clientInfo: env.clientInfo,
      capabilities: RELAYED_CAPABILITIES as Record<string, unknown>,
      headers: () => ownHeaders,
      // MCP authorization: an upstream's challenge is about our credentials, not the caller's: logged, never passed on.
      onCredentialsRefused: (status) =>
        logger.error(
          new Error(
            `mcpRouter: upstream '${label}' refused the gateway's credentials (HTTP ${status}); check its 'headers'`,
          ),
        ),
    });
  const pool = stdio?.pool;
  const naming = namingFor(options.prefix, options.tools === false ? {} : options.tools.rename);
  const source: UpstreamSource = {
    client: upstream,
    clientFor: pool && ((ctx) => pool.clientFor(ctx)),
    options,
    naming,
    telemetry: env.telemetry,
  };
  let items: ItemSet = emptyItemSet();
  let state: UpstreamState = 'connecting';
  let lastSuccess: number | undefined;
  let failingSince: number | undefined;
  let error: string | undefined;
  /** What its last lists did not mount, and whether they were cut. */
  let lastReport = new SkippedReport();
  let listsCut = false;
  const warnings = new SyncWarnings(logger);
  let loading: Promise<void> | undefined;
  let followUp: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let retryMs = FIRST_RETRY_MS;
  let listener: UpstreamListener | undefined;
  /** The URIs the listener subscribes to, joined: to update it only when they change. */
  let subscribed = '';

  function schedule(ms: number): void {
    clearTimeout(timer);
    if (state !== 'removed') timer = setTimeout(() => void refresh(), ms).unref();
  }

  /** Whether an entry of a kind is wanted: tools by `tools.include` / `exclude`. */
  function mounts(kind: keyof ListedItems, entry: Record<string, unknown>): boolean {
    return (
      kind !== 'tools' ||
      (options.tools !== false && typeof entry.name === 'string' && isToolMounted(options.tools, entry.name))
    );
  }

  /** One list, every page (until it fills the budget), within the list time limit, into `intake`. */
  async function fetchList(
    kind: keyof ListedItems,
    method: string,
    field: string,
    signal: AbortSignal,
    headers: Record<string, string>,
    intake: ListIntake,
  ): Promise<number | undefined> {
    let cursor: unknown;
    let ttlMs: number | undefined;
    for (let page = 0; page < MAX_PAGES && intake.wants(kind); page++) {
      let result: unknown;
      try {
        result = await upstream.request(method, cursor === undefined ? undefined : { cursor }, { signal, headers });
      } catch (err) {
        // A list the upstream does not serve (MCP: the capability is not declared) is empty, not a failure.
        if (err instanceof JsonRpcError && err.code === ErrorCode.MethodNotFound && page === 0) return ttlMs;
        throw err;
      }
      const listed = isObject(result) && Array.isArray(result[field]) ? result[field] : undefined;
      if (listed === undefined)
        throw new JsonRpcError(ErrorCode.InternalError, `Upstream "${label}" answered ${method} without '${field}'`);
      for (const entry of listed) if (isObject(entry) && mounts(kind, entry)) intake.take(kind, entry);
      if (isObject(result) && typeof result.ttlMs === 'number') ttlMs = Math.min(ttlMs ?? Infinity, result.ttlMs);
      cursor = isObject(result) ? result.nextCursor : undefined;
      if (typeof cursor !== 'string' || cursor === '') break;
    }
    return ttlMs;
  }

  /** Its lists, each entry within its caps and all within the budget; what was skipped is in `report`. */
  async function fetchAll(
    signal: AbortSignal,
    report: SkippedReport,
  ): Promise<{ lists: ListedItems; cut: boolean; ttlMs: number | undefined }> {
    const headers = await forwardedHeaders(options, undefined);
    ownHeaders = headers;
    const intake = new ListIntake(options.limits);
    const wanted = LISTS.filter(({ kind }) =>
      kind === 'tools' ? options.tools !== false : kind === 'prompts' ? options.prompts : options.resources,
    );
    const ttls = await Promise.all(
      wanted.map(({ kind, method, field }) => fetchList(kind, method, field, signal, headers, intake)),
    );
    const known = ttls.filter((ttl): ttl is number => ttl !== undefined);
    return { ...intake.lists(report), ttlMs: known.length === 0 ? undefined : Math.min(...known) };
  }

  function apply(lists: ListedItems, report: SkippedReport, cut: boolean): void {
    items = applyLists(
      registry,
      items,
      lists,
      {
        tool: (entry, headerParamsOf) => toolDefinition(source, entry, headerParamsOf),
        prompt: (entry) => promptDefinition(source, entry),
        resource: (entry) => resourceDefinition(source, entry),
        template: (entry) => templateDefinition(source, entry),
        name: naming.name,
        checkName: badName,
        group: env.group,
      },
      report,
    );
    lastReport = report;
    listsCut = cut;
    // One warning per problem and sync, each logged once while it lasts: an upstream's thousand bad entries are one line.
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
    const long = [...items.tools.values()]
      .map(({ item }) => item.name)
      .filter((name) => name.length > PORTABLE_NAME_LENGTH);
    if (long.length > 0) {
      const names = long.map((name) => `'${name}' (${name.length} characters)`);
      told.push(
        `${summarised(`mcpRouter: upstream '${label}' has tool names longer than ${PORTABLE_NAME_LENGTH} characters, which many clients refuse`, names)}; shorten them with tools.rename`,
      );
    }
    warnings.report(told);
  }

  function dropAll(): void {
    applyLists(registry, items, { tools: [], prompts: [], resources: [], templates: [] }, undefined);
    items = emptyItemSet();
  }

  /** The upstream's notifications: list changes refresh, resource updates go on under the downstream URI. */
  function onNotification(message: Record<string, unknown>): void {
    if (typeof message.method !== 'string') return;
    if (LIST_CHANGED.has(message.method)) {
      schedule(CHANGE_DEBOUNCE_MS);
    } else if (
      message.method === 'notifications/resources/updated' &&
      isObject(message.params) &&
      typeof message.params.uri === 'string'
    ) {
      env.notifyResourceUpdated(naming.uri(message.params.uri));
    }
  }

  /**
   * The upstream resources whose updates the gateway asks for: its listed static resources (at most
   * {@link MAX_RESOURCE_SUBSCRIPTIONS}), when it offers subscriptions (MCP resources › Subscriptions). Downstream,
   * only the callers subscribed to a resource hear of its updates.
   */
  function wantedUpdates(): string[] {
    const resources = upstream.capabilities?.resources;
    if (!isObject(resources) || resources.subscribe !== true) return [];
    return [...items.resources.keys()]
      .slice(0, MAX_RESOURCE_SUBSCRIPTIONS)
      .map((uri) => naming.originalUri(uri) ?? uri);
  }

  /**
   * Opens the notification stream once connected, when the upstream says its lists change (MCP: `listChanged`) or
   * offers resource subscriptions; keeps its subscriptions in step with the mounted resources.
   */
  function listenIfOffered(): void {
    if (state === 'removed') return;
    const capabilities = upstream.capabilities ?? {};
    const changes = ['tools', 'prompts', 'resources'].some(
      (kind) => isObject(capabilities[kind]) && (capabilities[kind] as Record<string, unknown>).listChanged === true,
    );
    const uris = wantedUpdates();
    const key = uris.join('\n');
    if (listener === undefined && (changes || uris.length > 0))
      listener = upstream.listen({ onNotification, resourceSubscriptions: uris });
    else if (listener !== undefined && key !== subscribed) listener.update(uris);
    subscribed = key;
  }

  async function load(): Promise<void> {
    const limit = AbortSignal.timeout(options.listTimeoutMs);
    try {
      const report = new SkippedReport();
      const { lists, cut, ttlMs } = await fetchAll(limit, report);
      if (state === 'removed') return;
      registry.batch(() => apply(lists, report, cut));
      state = 'healthy';
      lastSuccess = Date.now();
      failingSince = undefined;
      error = undefined;
      retryMs = FIRST_RETRY_MS;
      listenIfOffered();
      // MCP 2026-07-28 caching: a list is fresh for its ttlMs; with a notification stream, or without a ttlMs,
      // list_changed and refresh() renew it.
      if (ttlMs !== undefined && listener === undefined)
        schedule(Math.min(Math.max(ttlMs, MIN_TTL_REFRESH_MS), MAX_TTL_REFRESH_MS));
    } catch (err) {
      if (state === 'removed') return;
      // The client reports our time limit as a cancelled request: the signal tells that it was the limit.
      error = limit.aborted
        ? `Upstream "${label}" did not list within ${options.listTimeoutMs} ms`
        : err instanceof JsonRpcError
          ? err.message
          : `Upstream "${label}" failed`;
      failingSince ??= Date.now();
      // A failing upstream never fails our lists: its last good items stay for graceMs, then drop out until it is back.
      if (lastSuccess !== undefined && Date.now() - failingSince < options.graceMs) {
        state = 'stale';
      } else {
        if (items.tools.size + items.prompts.size + items.resources.size + items.templates.size > 0)
          registry.batch(dropAll);
        state = 'down';
      }
      logger.warn(
        new Error(error),
        `mcpRouter: upstream '${label}' lists could not be fetched; retrying in ${retryMs / 1000} s`,
      );
      schedule(retryMs);
      retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
    }
  }

  /**
   * One load at a time. A refresh asked for during a load (a list_changed that came meanwhile) is one more load
   * after it, shared by everyone who asked, and what they wait for: they see the lists as they are after it.
   */
  function refresh(): Promise<void> {
    if (state === 'removed') return Promise.resolve();
    if (loading !== undefined) {
      followUp ??= loading.then(() => {
        followUp = undefined;
        return refresh();
      });
      return followUp;
    }
    clearTimeout(timer);
    loading = load().finally(() => {
      loading = undefined;
    });
    return loading;
  }

  function status(): UpstreamStatus {
    return Object.freeze({
      name: label,
      prefix: options.prefix,
      state,
      era: upstream.era,
      protocolVersion: upstream.protocolVersion,
      lastSuccessAt: lastSuccess === undefined ? undefined : new Date(lastSuccess).toISOString(),
      error,
      items: itemCounts(items),
      skipped: lastReport.entries,
      skippedCount: lastReport.count,
      listsCut,
      processes: pool && options.stdio && { running: pool.size, max: options.stdio.maxProcesses },
    });
  }

  // What it may bring is declared from now on, so a client that connected before its lists came may still use them.
  registry.offer({
    tools: options.tools !== false,
    prompts: options.prompts,
    resources: options.resources,
    completions: options.prompts || options.resources,
  });
  // Our lists and lookups wait for the first lists, but never longer than listTimeoutMs; a stdio upstream started on
  // first use spawns when the router serves its first request.
  const firstLists = (): Promise<unknown> => Promise.race([refresh(), delay(options.listTimeoutMs)]);
  if (options.stdio?.start === 'first-use') registry.trackOnFirstUse(firstLists);
  else registry.track(firstLists());

  return {
    status,
    refresh: async () => {
      await refresh();
      return status();
    },
    remove: async () => {
      if (state === 'removed') return;
      state = 'removed';
      clearTimeout(timer);
      registry.batch(dropAll);
      listener?.close();
      await (stdio ?? upstream).close();
      env.onRemoved();
    },
  };
}
