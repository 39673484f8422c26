// One mounted upstream: its lists fetched, cached and refreshed, its items kept in the router's registry, its health told by status().

import type { McpObserver } from '../../../core/observe/observer';
import { JsonRpcError } from '../../../core/jsonrpc/errors';
import type { McpLogger } from '../../../core/logger';
import type { Registry } from '../../../core/registry/registry';
import { declaresUiExtension, UI_EXTENSION } from '../../../core/registry/ui-link';
import { namingFor } from './prefixed-names';
import { forwardedHeaders } from './upstream-call';
import type { UpstreamClient, UpstreamTransport } from '../shared/upstream-client';
import { UpstreamFollower } from './upstream-follow';
import { itemBuilders, type UpstreamSource } from './upstream-items';
import { fetchUpstreamLists, syncWarnings } from './upstream-lists';
import type { ResolvedUpstream } from './upstream-options';
import { SkippedReport, SyncWarnings } from './upstream-report';
import { UpstreamHealth, type UpstreamHandle, type UpstreamStatus } from './upstream-status';
import {
  type ItemBuilders,
  type ItemSet,
  applyLists,
  emptyItemSet,
  itemCounts,
  type ListedItems,
} from './upstream-sync';
import { openTransport } from './upstream-transport';

// The handle's types live with its status; callers import them from here, where the handle is made.
export type { UpstreamHandle, UpstreamState, UpstreamStatus } from './upstream-status';

/** The least and most time between two refreshes driven by an upstream's 2026 `ttlMs`. */
const MIN_TTL_REFRESH_MS = 5_000;
const MAX_TTL_REFRESH_MS = 60 * 60_000;
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
  /** The router's observer: a CLIENT span per forwarded call; undefined: nothing observes. */
  readonly telemetry?: McpObserver | undefined;
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
export function mountUpstream(options: ResolvedUpstream, env: MountEnvironment): UpstreamHandle {
  return new MountedUpstream(options, env);
}

/** One mount: its client, the items it holds in the registry, its health, and the one load of its lists at a time. */
class MountedUpstream implements UpstreamHandle {
  readonly #options: ResolvedUpstream;
  readonly #env: MountEnvironment;
  readonly #transport: UpstreamTransport;
  readonly #builders: ItemBuilders;
  readonly #follower: UpstreamFollower;
  readonly #warnings: SyncWarnings;
  readonly #health: UpstreamHealth;
  /**
   * The gateway's own credentials for the upstream (`headers`, called without a caller), as last resolved: the
   * handshake, the lists, the notification stream and the session's DELETE carry them.
   */
  #ownHeaders: Record<string, string>;
  #items: ItemSet = emptyItemSet();
  /** What its last lists did not mount, and whether they were cut. */
  #lastReport = new SkippedReport();
  #listsCut = false;
  #loading: Promise<void> | undefined;
  #followUp: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #publishAfter: Promise<unknown> | undefined;
  #firstAttemptOver = false;

  constructor(options: ResolvedUpstream, env: MountEnvironment) {
    this.#options = options;
    this.#env = env;
    this.#health = new UpstreamHealth(options.graceMs);
    this.#ownHeaders = typeof options.headers === 'function' ? {} : { ...options.headers };
    this.#publishAfter = env.publishAfter;
    this.#warnings = new SyncWarnings(env.logger);
    this.#transport = openTransport(options, {
      logger: env.logger,
      clientInfo: env.clientInfo,
      ownHeaders: () => this.#ownHeaders,
      onProcessChange: () => void this.#sync(),
    });
    const naming = namingFor(options.prefix, options.tools === false ? {} : options.tools.rename);
    const { client, pool } = this.#transport;
    const source: UpstreamSource = {
      client,
      clientFor: pool && ((ctx) => pool.clientFor(ctx)),
      options,
      naming,
      telemetry: env.telemetry,
      logger: env.logger,
    };
    this.#builders = itemBuilders(source, env.group, env.nameOf);
    this.#follower = new UpstreamFollower(this.#client, naming, {
      onListChanged: () => this.#schedule(CHANGE_DEBOUNCE_MS),
      onResourceUpdated: (uri) => env.notifyResourceUpdated(uri),
    });
    const { registry } = env;
    // What it may bring is declared from now on, so a client that connected before its lists came may still use them.
    registry.offer({
      tools: options.tools !== false,
      prompts: options.prompts,
      resources: options.resources,
      completions: options.prompts || options.resources,
    });
    // Our lists and lookups wait for the first lists, but never longer than listTimeoutMs; a stdio upstream started on
    // first use spawns when the router serves its first request.
    const firstLists = (): Promise<unknown> => Promise.race([this.#sync(), delay(options.listTimeoutMs)]);
    if (options.stdio?.start === 'first-use') registry.trackOnFirstUse(firstLists);
    else registry.track(firstLists());
  }

  status(): UpstreamStatus {
    const { pool } = this.#transport;
    const { stdio } = this.#options;
    return Object.freeze({
      name: this.#options.name,
      prefix: this.#options.prefix,
      state: this.#health.state,
      era: this.#client.era,
      protocolVersion: this.#client.protocolVersion,
      lastSuccessAt: this.#health.lastSuccessAt,
      error: this.#health.error,
      items: itemCounts(this.#items),
      skipped: this.#lastReport.entries,
      skippedCount: this.#lastReport.count,
      listsCut: this.#listsCut,
      processes: pool && stdio && { running: pool.size, max: stdio.maxProcesses },
    });
  }

  async refresh(): Promise<UpstreamStatus> {
    await this.#sync();
    return this.status();
  }

  async remove(): Promise<void> {
    if (this.#health.state === 'removed') return;
    this.#health.state = 'removed';
    clearTimeout(this.#timer);
    this.#env.registry.batch(() => this.#dropAll());
    this.#follower.close();
    this.#firstAttemptDone();
    await this.#transport.close();
    this.#env.onRemoved();
  }

  get #client(): UpstreamClient {
    return this.#transport.client;
  }

  #schedule(ms: number): void {
    clearTimeout(this.#timer);
    if (this.#health.state !== 'removed') this.#timer = setTimeout(() => void this.#sync(), ms).unref();
  }

  #firstAttemptDone(): void {
    if (this.#firstAttemptOver) return;
    this.#firstAttemptOver = true;
    this.#env.onFirstAttempt?.();
  }

  #apply(lists: ListedItems, report: SkippedReport, cut: boolean): void {
    const { registry } = this.#env;
    this.#items = applyLists(registry, this.#items, lists, this.#builders, report);
    // SEP-1865 Capability Negotiation: an upstream serving apps makes this router one, so hosts know to look.
    const tools = [...this.#items.tools.values()].map(({ item }) => item);
    if (declaresUiExtension(this.#client.capabilities ?? {}) || tools.some((tool) => tool.ui))
      registry.declareExtension(UI_EXTENSION);
    this.#lastReport = report;
    this.#listsCut = cut;
    // Each warning is logged once while it lasts.
    this.#warnings.report(
      syncWarnings(
        this.#options,
        lists,
        tools.map((tool) => tool.name),
        report,
        cut,
      ),
    );
  }

  #dropAll(): void {
    applyLists(this.#env.registry, this.#items, { tools: [], prompts: [], resources: [], templates: [] }, undefined);
    this.#items = emptyItemSet();
  }

  async #load(): Promise<void> {
    const options = this.#options;
    const limit = AbortSignal.timeout(options.listTimeoutMs);
    try {
      const report = new SkippedReport();
      this.#ownHeaders = await forwardedHeaders(options, undefined, false, this.#env.logger);
      const { lists, cut, ttlMs } = await fetchUpstreamLists(this.#client, options, this.#ownHeaders, limit, report);
      // A name two unprefixed upstreams list is the one mounted first's, even before that one has listed.
      if (this.#publishAfter !== undefined) await this.#publishAfter.then(() => (this.#publishAfter = undefined));
      if (this.#health.state === 'removed') return;
      this.#env.registry.batch(() => this.#apply(lists, report, cut));
      this.#health.succeeded();
      this.#follower.follow(this.#items.resources.keys());
      // MCP 2026-07-28 caching: a list is fresh for its ttlMs; with a notification stream, or without a ttlMs,
      // list_changed and refresh() renew it.
      if (ttlMs !== undefined && !this.#follower.listening)
        this.#schedule(Math.min(Math.max(ttlMs, MIN_TTL_REFRESH_MS), MAX_TTL_REFRESH_MS));
    } catch (err) {
      if (this.#health.state !== 'removed') this.#failed(err, limit);
    } finally {
      this.#firstAttemptDone();
    }
  }

  /** A load failed: its last good items stay for graceMs, then drop out; it is retried with backoff. */
  #failed(err: unknown, limit: AbortSignal): void {
    const { name: label, listTimeoutMs } = this.#options;
    // The client reports our time limit as a cancelled request: the signal tells that it was the limit.
    const error = limit.aborted
      ? `Upstream "${label}" did not list within ${listTimeoutMs} ms`
      : err instanceof JsonRpcError
        ? err.message
        : `Upstream "${label}" failed`;
    const { state, retryMs } = this.#health.failed(error);
    // A failing upstream never fails our lists: its last good items stay for graceMs, then drop out until it is back.
    const { tools, prompts, resources, templates } = this.#items;
    if (state === 'down' && tools.size + prompts.size + resources.size + templates.size > 0)
      this.#env.registry.batch(() => this.#dropAll());
    this.#env.logger.warn(
      new Error(error),
      `mcpRouter: upstream '${label}' lists could not be fetched; retrying in ${retryMs / 1000} s`,
    );
    this.#schedule(retryMs);
  }

  /**
   * One load at a time. A refresh asked for during a load (a list_changed that came meanwhile) is one more load
   * after it, shared by everyone who asked, and what they wait for: they see the lists as they are after it.
   */
  #sync(): Promise<void> {
    if (this.#health.state === 'removed') return Promise.resolve();
    if (this.#loading !== undefined) {
      this.#followUp ??= this.#loading.then(() => {
        this.#followUp = undefined;
        return this.#sync();
      });
      return this.#followUp;
    }
    clearTimeout(this.#timer);
    this.#loading = this.#load().finally(() => {
      this.#loading = undefined;
    });
    return this.#loading;
  }
}
