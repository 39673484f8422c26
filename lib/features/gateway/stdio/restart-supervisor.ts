// A stdio upstream's process kept alive: a new one after each exit, no sooner than a jittered backoff allows, behind one UpstreamClient.

import { ErrorCode, JsonRpcError } from '../../../core/jsonrpc/errors';
import type { McpLogger } from '../../../core/logger';
import { Backoff } from '../shared/backoff';
import type {
  UpstreamClient,
  UpstreamListener,
  UpstreamListenOptions,
  UpstreamRequestOptions,
} from '../shared/upstream-client';

/** Restarts of a process that exited: from 1 s, doubling, to 60 s (issue 31 › Supervision). */
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

/** A supervised process: its client, and what the pool and status() read of it. */
export interface SupervisedClient extends UpstreamClient {
  /** Requests in flight now. */
  readonly busy: number;
  /** Why its last process ended; undefined while one runs or before any did. */
  readonly lastExit: string | undefined;
  /** How many processes it has started. */
  readonly starts: number;
}

/**
 * Keeps one process of an upstream: started by the first request, and after it exits, started again by the next
 * request once the restart delay has passed (1 s doubling to 60 s, jittered; back to 1 s after a healthy minute).
 * Until then requests fail at once, saying why it exited: a crash loop costs one process per delay, never a storm.
 *
 * @example
 * ```ts
 * const client = superviseStdio({ label: 'fs', logger, start: (onExit) => createStdioUpstreamClient({ …, onExit }) });
 * await client.request('tools/list', undefined);
 * ```
 */
export function superviseStdio(options: StdioSupervisorOptions): SupervisedClient {
  const { label, logger } = options;
  let current: UpstreamClient | undefined;
  /** The last process's client, for era and capabilities while it is down. */
  let last: UpstreamClient | undefined;
  let startedAt = 0;
  let notBefore = 0;
  // Jittered: processes that crashed together do not restart together.
  const restarts = new Backoff({ initialMs: FIRST_RESTART_MS, maxMs: MAX_RESTART_MS, jitter: true });
  let lastExit: string | undefined;
  let starts = 0;
  let busy = 0;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  /** The gateway's listeners: each is attached to every new process in turn. */
  const listeners = new Map<UpstreamListenOptions, UpstreamListener | undefined>();

  function exited(client: UpstreamClient, why: string): void {
    if (client !== current) return;
    current = undefined;
    void client.close().catch(() => undefined);
    for (const [listenOptions, listener] of listeners) {
      listener?.close();
      listeners.set(listenOptions, undefined);
    }
    if (closed) return;
    lastExit = why;
    if (Date.now() - startedAt >= HEALTHY_RUN_MS) restarts.reset();
    const wait = restarts.next();
    notBefore = Date.now() + wait;
    logger.warn(
      new Error(`mcpRouter: upstream '${label}' process ${why}; restarting in ${(wait / 1000).toFixed(1)} s`),
    );
    clearTimeout(timer);
    const due = options.onRestartDue;
    if (due !== undefined) {
      timer = setTimeout(() => {
        // The wait is over when the timer says so: a timer may fire a millisecond before Date.now() reaches
        // notBefore, and a start refused then ("next start in 1 s") would wait for the next caller.
        notBefore = 0;
        due();
      }, wait).unref();
    }
    options.onExited?.();
  }

  /** The running process's client, starting one when allowed. */
  function running(): UpstreamClient {
    if (closed) throw new JsonRpcError(ErrorCode.InternalError, `Upstream "${label}" is closed`);
    if (current !== undefined) return current;
    const wait = notBefore - Date.now();
    if (wait > 0)
      throw new JsonRpcError(
        ErrorCode.InternalError,
        `Upstream "${label}" is down (${lastExit ?? 'exited'}); next start in ${Math.ceil(wait / 1000)} s`,
      );
    starts++;
    startedAt = Date.now();
    lastExit = undefined;
    const client: UpstreamClient = options.start((why) => exited(client, why));
    current = client;
    last = client;
    for (const listenOptions of listeners.keys()) listeners.set(listenOptions, client.listen(listenOptions));
    return client;
  }

  async function request(
    method: string,
    params: Record<string, unknown> | undefined,
    requestOptions?: UpstreamRequestOptions,
  ): Promise<unknown> {
    const client = running();
    busy++;
    try {
      return await client.request(method, params, requestOptions);
    } finally {
      busy--;
    }
  }

  return {
    request,
    notify: (method, params) => running().notify(method, params),
    listen(listenOptions) {
      listeners.set(listenOptions, current?.listen(listenOptions));
      return {
        update(uris) {
          listeners.get(listenOptions)?.update(uris);
        },
        close() {
          listeners.get(listenOptions)?.close();
          listeners.delete(listenOptions);
        },
      };
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      for (const listener of listeners.values()) listener?.close();
      listeners.clear();
      const client = current;
      current = undefined;
      await client?.close();
    },
    get era() {
      return (current ?? last)?.era;
    },
    get protocolVersion() {
      return (current ?? last)?.protocolVersion;
    },
    sessionId: undefined,
    get capabilities() {
      return (current ?? last)?.capabilities;
    },
    get busy() {
      return busy;
    },
    get lastExit() {
      return lastExit;
    },
    get starts() {
      return starts;
    },
  };
}
