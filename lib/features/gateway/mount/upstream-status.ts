// What mcp.upstream() returns: the handle of one mounted upstream, the status it tells, and the health its lists' loads make.

import type { Era } from '../../../core/versions';
import { Backoff } from '../shared/backoff';
import type { Skipped } from './upstream-report';

/** Retries of a failing upstream: from 1 s, doubling, to 60 s. */
const RETRY_BACKOFF = Object.freeze({ initialMs: 1_000, maxMs: 60_000 });

/** How an upstream is doing. */
export type UpstreamState = 'connecting' | 'healthy' | 'stale' | 'down' | 'removed';

/** What `status()` tells about one upstream. */
export interface UpstreamStatus {
  /** The upstream's name, as given to `mcp.upstream()`. */
  readonly name: string;
  /** The prefix its item names get (`fs` for `fs__read_file`), or undefined when it is mounted without one. */
  readonly prefix: string | undefined;
  /**
   * `connecting` until its first lists; `healthy` when its last fetch worked; `stale` while it fails within `graceMs`
   * (its last good lists are served); `down` after (its items are gone until it answers again); `removed`.
   */
  readonly state: UpstreamState;
  /** Its era and revision, once connected. */
  readonly era: Era | undefined;
  /** The MCP revision it negotiated (`2025-11-25`, …), once connected. */
  readonly protocolVersion: string | undefined;
  /** When its lists were last fetched whole (ISO 8601). */
  readonly lastSuccessAt: string | undefined;
  /** Why its last fetch failed (never its URL); undefined when it worked. */
  readonly error: string | undefined;
  /** How many of its items are mounted now. */
  readonly items: {
    /** Its tools mounted on this router. */
    readonly tools: number;
    /** Its prompts mounted on this router. */
    readonly prompts: number;
    /** Its resources mounted on this router. */
    readonly resources: number;
    /** Its resource templates mounted on this router. */
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
  readonly processes?:
    | {
        /** Processes running now, one per caller. */
        readonly running: number;
        /** The most it may run at once (`maxProcesses`). */
        readonly max: number;
      }
    | undefined;
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

/**
 * How a mount is doing, as the loads of its lists tell: `healthy` after one came whole; while they fail, `stale`
 * within `graceMs` of the last success (its last good lists are still served), `down` after; each failure waits
 * longer for its retry.
 */
export class UpstreamHealth {
  state: UpstreamState = 'connecting';
  #lastSuccess: number | undefined;
  #failingSince: number | undefined;
  #error: string | undefined;
  readonly #retries = new Backoff(RETRY_BACKOFF);

  constructor(private readonly graceMs: number) {}

  /** When its lists were last fetched whole (ISO 8601). */
  get lastSuccessAt(): string | undefined {
    return this.#lastSuccess === undefined ? undefined : new Date(this.#lastSuccess).toISOString();
  }

  /** Why its last load failed; undefined when it worked. */
  get error(): string | undefined {
    return this.#error;
  }

  /** A load brought its lists whole. */
  succeeded(): void {
    this.state = 'healthy';
    this.#lastSuccess = Date.now();
    this.#failingSince = undefined;
    this.#error = undefined;
    this.#retries.reset();
  }

  /** A load failed for `error`: the state it leaves (`stale` keeps the items, `down` drops them), and the wait before the retry. */
  failed(error: string): { readonly state: 'stale' | 'down'; readonly retryMs: number } {
    this.#error = error;
    this.#failingSince ??= Date.now();
    const stale = this.#lastSuccess !== undefined && Date.now() - this.#failingSince < this.graceMs;
    this.state = stale ? 'stale' : 'down';
    return { state: this.state as 'stale' | 'down', retryMs: this.#retries.next() };
  }
}
