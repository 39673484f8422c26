// A stdio upstream's process kept alive: a new one after each exit, no sooner than a jittered backoff allows, behind one UpstreamClient.

import { ErrorCode, JsonRpcError } from '../../../core/jsonrpc/errors';
import type { McpLogger } from '../../../core/logger';
import type { Era } from '../../../core/versions';
import { Backoff } from '../shared/backoff';
import type {
  UpstreamClient,
  UpstreamListener,
  UpstreamListenOptions,
  UpstreamRequestOptions,
} from '../shared/upstream-client';

/** Restarts of a process that exited: from 1 s, doubling, to 60 s. */
export const FIRST_RESTART_MS = 1_000;
export const MAX_RESTART_MS = 60_000;
/** A process that ran this long was healthy: its next restart waits the first delay again. */
export const HEALTHY_RUN_MS = 60_000;

/** What a supervisor needs: how to start one process, and whom to tell. */
export interface StdioSupervisorOptions {
  /** How errors and logs name the upstream. */
  readonly label: string;
  readonly logger: McpLogger;
  /**
   * Makes the client of a new process (it spawns on its first request). It must call `onExit` once, when the
   * process ends or cannot be started, with why (never an env value).
   */
  start(onExit: (why: string) => void): UpstreamClient;
  /** Told when a process exited (the shared upstream refreshes at once, so status() tells it). */
  readonly onExited?: () => void;
  /** Told when a restart is allowed again after an exit: the shared upstream refreshes its lists, which starts it. */
  readonly onRestartDue?: () => void;
}

/**
 * Keeps one process of an upstream: started by the first request, and after it exits, started again by the next
 * request once the restart delay has passed (1 s doubling to 60 s, jittered; back to 1 s after a healthy minute).
 * Until then requests fail at once, saying why it exited: a crash loop costs one process per delay, never a storm.
 *
 * @example
 * ```ts
 * const client = new RestartSupervisor({ label: 'fs', logger, start: (onExit) => createStdioUpstreamClient({ …, onExit }) });
 * await client.request('tools/list', undefined);
 * ```
 */
export class RestartSupervisor implements UpstreamClient {
  /** No session id: a stdio server's one pipe is its session. */
  readonly sessionId = undefined;
  readonly #options: StdioSupervisorOptions;
  #current: UpstreamClient | undefined;
  /** The last process's client, for era and capabilities while it is down. */
  #last: UpstreamClient | undefined;
  #startedAt = 0;
  #notBefore = 0;
  /** Jittered: processes that crashed together do not restart together. */
  readonly #restarts = new Backoff({ initialMs: FIRST_RESTART_MS, maxMs: MAX_RESTART_MS, jitter: true });
  /** Why its last process ended; undefined while one runs or before any did. */
  #lastExit: string | undefined;
  #closed = false;
  #timer: NodeJS.Timeout | undefined;
  /** The gateway's listeners: each is attached to every new process in turn. */
  readonly #listeners = new Map<UpstreamListenOptions, UpstreamListener | undefined>();

  constructor(options: StdioSupervisorOptions) {
    this.#options = options;
  }

  get era(): Era | undefined {
    return (this.#current ?? this.#last)?.era;
  }

  get protocolVersion(): string | undefined {
    return (this.#current ?? this.#last)?.protocolVersion;
  }

  get capabilities(): Readonly<Record<string, unknown>> | undefined {
    return (this.#current ?? this.#last)?.capabilities;
  }

  async request(
    method: string,
    params: Record<string, unknown> | undefined,
    requestOptions?: UpstreamRequestOptions,
  ): Promise<unknown> {
    return this.#running().request(method, params, requestOptions);
  }

  notify(method: string, params?: Record<string, unknown>): Promise<void> {
    return this.#running().notify(method, params);
  }

  listen(listenOptions: UpstreamListenOptions): UpstreamListener {
    this.#listeners.set(listenOptions, this.#current?.listen(listenOptions));
    return {
      update: (uris) => this.#listeners.get(listenOptions)?.update(uris),
      close: () => {
        this.#listeners.get(listenOptions)?.close();
        this.#listeners.delete(listenOptions);
      },
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    for (const listener of this.#listeners.values()) listener?.close();
    this.#listeners.clear();
    const client = this.#current;
    this.#current = undefined;
    await client?.close();
  }

  /** The running process's client, starting one when allowed. */
  #running(): UpstreamClient {
    const { label } = this.#options;
    if (this.#closed) throw new JsonRpcError(ErrorCode.InternalError, `Upstream "${label}" is closed`);
    if (this.#current !== undefined) return this.#current;
    const wait = this.#notBefore - Date.now();
    if (wait > 0)
      throw new JsonRpcError(
        ErrorCode.InternalError,
        `Upstream "${label}" is down (${this.#lastExit ?? 'exited'}); next start in ${Math.ceil(wait / 1000)} s`,
      );
    this.#startedAt = Date.now();
    this.#lastExit = undefined;
    const client: UpstreamClient = this.#options.start((why) => this.#exited(client, why));
    this.#current = client;
    this.#last = client;
    for (const listenOptions of this.#listeners.keys())
      this.#listeners.set(listenOptions, client.listen(listenOptions));
    return client;
  }

  /** A process ended: its listeners are detached, and the next start waits the restart delay. */
  #exited(client: UpstreamClient, why: string): void {
    if (client !== this.#current) return;
    this.#current = undefined;
    void client.close().catch(() => undefined);
    for (const [listenOptions, listener] of this.#listeners) {
      listener?.close();
      this.#listeners.set(listenOptions, undefined);
    }
    if (this.#closed) return;
    this.#lastExit = why;
    if (Date.now() - this.#startedAt >= HEALTHY_RUN_MS) this.#restarts.reset();
    const wait = this.#restarts.next();
    this.#notBefore = Date.now() + wait;
    this.#options.logger.warn(
      new Error(
        `mcpRouter: upstream '${this.#options.label}' process ${why}; restarting in ${(wait / 1000).toFixed(1)} s`,
      ),
    );
    clearTimeout(this.#timer);
    const due = this.#options.onRestartDue;
    if (due !== undefined) {
      this.#timer = setTimeout(() => {
        // The wait is over when the timer says so: a timer may fire a millisecond before Date.now() reaches
        // #notBefore, and a start refused then ("next start in 1 s") would wait for the next caller.
        this.#notBefore = 0;
        due();
      }, wait).unref();
    }
    this.#options.onExited?.();
  }
}
