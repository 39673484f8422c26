// One mounted upstream: its lists fetched, cached and refreshed, its items kept in the router's registry, its health told by status().

import type { McpTelemetry } from '../../telemetry/telemetry';
import { JsonRpcError } from '../../../core/jsonrpc/errors';
import type { McpLogger } from '../../../core/logger';
import type { Registry } from '../../../core/registry/registry';
import { declaresUiExtension, forwardedUiLink, UI_EXTENSION } from '../../../core/registry/ui-link';
import { Backoff } from '../shared/backoff';
import { badName, namingFor } from './prefixed-names';
import { forwardedHeaders, RELAYED_CAPABILITIES } from './upstream-call';
import { createUpstreamClient } from '../http-client/streamable-http-client';
import type { UpstreamClient } from '../shared/upstream-client';
import { UpstreamFollower } from './upstream-follow';
import {
  promptDefinition,
  resourceDefinition,
  templateDefinition,
  toolDefinition,
  type UpstreamSource,
} from './upstream-items';
import { fetchUpstreamLists, syncWarnings } from './upstream-lists';
import type { ResolvedUpstream } from './upstream-options';
import { SkippedReport, SyncWarnings } from './upstream-report';
import type { UpstreamHandle, UpstreamState, UpstreamStatus } from './upstream-status';
import { type ItemSet, applyLists, emptyItemSet, itemCounts, type ListedItems } from './upstream-sync';
import { stdioProcesses } from '../stdio/upstream-processes';

// The handle's types live with its status; callers import them from here, where the handle is made.
export type { UpstreamHandle, UpstreamState, UpstreamStatus } from './upstream-status';

/** The least and most time between two refreshes driven by an upstream's 2026 `ttlMs`. */
const MIN_TTL_REFRESH_MS = 5_000;
const MAX_TTL_REFRESH_MS = 60 * 60_000;
/** Retries of a failing upstream: from 1 s, doubling, to 60 s. */
const RETRY_BACKOFF = Object.freeze({ initialMs: 1_000, maxMs: 60_000 });
/** Notifications of a burst of changes lead to one refresh. */
const CHANGE_DEBOUNCE_MS = 100;

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
  /** How reasons name the upstream mounted as `group`: `upstream 'a'`. */
  readonly nameOf: (group: number) => string;
  /** The router's telemetry: a CLIENT span per forwarded call; undefined without. */
  readonly telemetry?: McpTelemetry | undefined;
  /** Its items are held back (not listed, not callable) until this settles: see gateway.ts. */
  readonly publishAfter?: Promise<unknown> | undefined;
  /** Called once its first list attempt is over (lists applied, failed, timed out), or on removal before. */
  readonly onFirstAttempt?: () => void;
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
          capabilities: RELAYED_CAPABILITIES as Record<string, unknown>,
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
      roots: options.roots,
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
    logger,
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
  const retries = new Backoff(RETRY_BACKOFF);
  let publishAfter = env.publishAfter;
  let firstAttemptOver = (): void => {
    firstAttemptOver = () => undefined;
    env.onFirstAttempt?.();
  };
  const follower = new UpstreamFollower(upstream, naming, {
    onListChanged: () => schedule(CHANGE_DEBOUNCE_MS),
    onResourceUpdated: (uri) => env.notifyResourceUpdated(uri),
  });

  function schedule(ms: number): void {
    clearTimeout(timer);
    if (state !== 'removed') timer = setTimeout(() => void refresh(), ms).unref();
  }

  function apply(lists: ListedItems, report: SkippedReport, cut: boolean): void {
    items = applyLists(
      registry,
      items,
      lists,
      {
        tool: (entry, headerParamsOf) => toolDefinition(source, entry, headerParamsOf),
        toolUi: (entry) => forwardedUiLink(entry._meta, naming.uri),
        prompt: (entry) => promptDefinition(source, entry),
        resource: (entry) => resourceDefinition(source, entry),
        template: (entry) => templateDefinition(source, entry),
        name: naming.name,
        checkName: badName,
        group: env.group,
        holderName: env.nameOf,
      },
      report,
    );
    // SEP-1865 Capability Negotiation: an upstream serving apps makes this router one, so hosts know to look.
    if (declaresUiExtension(upstream.capabilities ?? {}) || [...items.tools.values()].some(({ item }) => item.ui))
      registry.declareExtension(UI_EXTENSION);
    lastReport = report;
    listsCut = cut;
    const mountedTools = [...items.tools.values()].map(({ item }) => item.name);
    // Each warning is logged once while it lasts.
    warnings.report(syncWarnings(options, lists, mountedTools, report, cut));
  }

  function dropAll(): void {
    applyLists(registry, items, { tools: [], prompts: [], resources: [], templates: [] }, undefined);
    items = emptyItemSet();
  }

  async function load(): Promise<void> {
    const limit = AbortSignal.timeout(options.listTimeoutMs);
    try {
      const report = new SkippedReport();
      ownHeaders = await forwardedHeaders(options, undefined, false, logger);
      const { lists, cut, ttlMs } = await fetchUpstreamLists(upstream, options, ownHeaders, limit, report);
      // A name two unprefixed upstreams list is the one mounted first's, even before that one has listed.
      if (publishAfter !== undefined) await publishAfter.then(() => (publishAfter = undefined));
      if (state === 'removed') return;
      registry.batch(() => apply(lists, report, cut));
      state = 'healthy';
      lastSuccess = Date.now();
      failingSince = undefined;
      error = undefined;
      retries.reset();
      follower.follow(items.resources.keys());
      // MCP 2026-07-28 caching: a list is fresh for its ttlMs; with a notification stream, or without a ttlMs,
      // list_changed and refresh() renew it.
      if (ttlMs !== undefined && !follower.listening)
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
      const retryMs = retries.next();
      logger.warn(
        new Error(error),
        `mcpRouter: upstream '${label}' lists could not be fetched; retrying in ${retryMs / 1000} s`,
      );
      schedule(retryMs);
    } finally {
      firstAttemptOver();
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
      follower.close();
      firstAttemptOver();
      await (stdio ?? upstream).close();
      env.onRemoved();
    },
  };
}
