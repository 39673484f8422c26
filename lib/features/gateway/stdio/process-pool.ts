// Per-principal stdio processes: one per authenticated subject, spawned with env(ctx) on its first call, bounded (LRU) and ended when idle.

import { ErrorCode, JsonRpcError } from '../../../core/jsonrpc/errors';
import type { RequestContext } from '../../../core/registry/request-context';
import { STOP_GRACE_MS } from './child-process';
import type { SupervisedClient } from './restart-supervisor';
import type { UpstreamClient } from '../shared/upstream-client';

/** How long a start waits for an ended process to exit (SIGTERM, then SIGKILL after the grace) before it is refused. */
export const ROOM_WAIT_MS = STOP_GRACE_MS + 1_000;

/** What a pool needs: its bounds, and how to start a caller's supervised process. */
export interface ProcessPoolOptions {
  /** How errors name the upstream. */
  readonly label: string;
  /** The most processes at once. */
  readonly maxProcesses: number;
  /** A process without a request in flight for this long is ended, in ms. */
  readonly idleTimeoutMs: number;
  /** The supervised process of a caller (its environment comes from `ctx`); may reject (a bad env). */
  start(ctx: RequestContext): Promise<SupervisedClient>;
}

/** Where a caller's requests go. */
export interface ProcessPool {
  /** A client that sends each request to the caller's own process (spawned on the first). */
  clientFor(ctx: RequestContext): Pick<UpstreamClient, 'request'>;
  /** How many processes it holds now (starting, running or restarting). */
  readonly size: number;
  /** Ends every process. */
  close(): Promise<void>;
}

interface Entry {
  readonly client: Promise<SupervisedClient>;
  /** Requests given this entry and not yet settled (counted from before the process exists). */
  busy: number;
  lastUsed: number;
}

/**
 * Creates the pool of an upstream with `processes: 'per-principal'`. A caller without an authenticated subject, or
 * one over `maxProcesses` while every process is busy, gets a JSON-RPC error at once. A process ended to make room
 * counts until it has exited: the new one starts then (within {@link ROOM_WAIT_MS}, else the same error), so the
 * processes alive never outnumber `maxProcesses`.
 *
 * @example
 * ```ts
 * const pool = createProcessPool({ label: 'git', maxProcesses: 10, idleTimeoutMs: 600_000, start: async (ctx) => superviseStdio({ … }) });
 * await pool.clientFor(ctx).request('tools/call', { name: 'git_status', arguments: {} });
 * ```
 */
export function createProcessPool(options: ProcessPoolOptions): ProcessPool {
  const { label, maxProcesses, idleTimeoutMs } = options;
  /** By subject, least recently used first (a use moves an entry to the end). */
  const entries = new Map<string, Entry>();
  /** One timer for every idle process: it fires at the earliest idle deadline. */
  let sweeper: NodeJS.Timeout | undefined;
  let closed = false;
  /** Processes started and not yet exited (an ended one counts until its exit), at most maxProcesses. */
  let alive = 0;
  /** Starts waiting for room, oldest first. */
  const waiting: { grant(): void; refuse(error: JsonRpcError): void }[] = [];

  const tooMany = (): JsonRpcError =>
    new JsonRpcError(
      ErrorCode.ServerError,
      `Upstream "${label}" has too many processes: all ${maxProcesses} (maxProcesses) are busy with other callers; try again shortly`,
    );

  /** Resolves once a process may start (counted from then on), or rejects after ROOM_WAIT_MS. */
  function room(): Promise<void> {
    if (alive < maxProcesses && waiting.length === 0) {
      alive++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: () => {
          clearTimeout(timer);
          alive++;
          resolve();
        },
        refuse: (error: JsonRpcError) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        waiting.splice(waiting.indexOf(waiter), 1);
        reject(tooMany());
      }, ROOM_WAIT_MS).unref();
      waiting.push(waiter);
    });
  }

  /** A process has exited (or was never made): its room goes to the oldest waiting start. */
  function exited(): void {
    alive--;
    waiting.shift()?.grant();
  }

  /** The caller's supervised process, started once there is room; a start that fails gives its room back. */
  function start(ctx: RequestContext): Promise<SupervisedClient> {
    return room().then(() => {
      const started = options.start(ctx);
      started.catch(exited);
      return started;
    });
  }

  /** Ends an entry's process; its room is given back once the process has exited (close() waits for that). */
  function end(subject: string, entry: Entry): void {
    entries.delete(subject);
    void entry.client.then(
      (client) =>
        client
          .close()
          .catch(() => undefined)
          .finally(exited),
      () => undefined,
    );
  }

  function sweep(): void {
    sweeper = undefined;
    const now = Date.now();
    let next = Infinity;
    for (const [subject, entry] of entries) {
      if (entry.busy > 0) continue;
      const deadline = entry.lastUsed + idleTimeoutMs;
      if (deadline <= now) end(subject, entry);
      else next = Math.min(next, deadline);
    }
    if (next !== Infinity && !closed) sweeper = setTimeout(sweep, next - now).unref();
  }

  function scheduleSweep(): void {
    if (sweeper === undefined && !closed) sweeper = setTimeout(sweep, idleTimeoutMs).unref();
  }

  /** The caller's entry, made (ending the least recently used idle one if full) or moved to the most recent end. */
  function acquire(ctx: RequestContext): Entry {
    if (closed) throw new JsonRpcError(ErrorCode.InternalError, `Upstream "${label}" is closed`);
    const subject = ctx.auth?.subject;
    if (subject === undefined) {
      throw new JsonRpcError(
        ErrorCode.InvalidRequest,
        `Upstream "${label}" runs a process per principal, which needs an authenticated caller: configure the router's auth`,
      );
    }
    let entry = entries.get(subject);
    if (entry !== undefined) {
      entries.delete(subject);
    } else {
      if (entries.size >= maxProcesses) {
        const idle = [...entries].find(([, candidate]) => candidate.busy === 0);
        if (idle === undefined) throw tooMany();
        end(...idle);
      }
      const client = start(ctx);
      entry = { client, busy: 0, lastUsed: Date.now() };
      const made = entry;
      // A process that could not be made (env(ctx) failed) is not kept: the next call tries again.
      client.catch(() => {
        if (entries.get(subject) === made) entries.delete(subject);
      });
    }
    entries.set(subject, entry);
    entry.busy++;
    return entry;
  }

  return {
    clientFor(ctx) {
      return {
        async request(method, params, requestOptions) {
          const entry = acquire(ctx);
          try {
            const client = await entry.client;
            return await client.request(method, params, requestOptions);
          } finally {
            entry.busy--;
            entry.lastUsed = Date.now();
            scheduleSweep();
          }
        },
      };
    },
    get size() {
      return entries.size;
    },
    async close() {
      closed = true;
      clearTimeout(sweeper);
      const closedError = new JsonRpcError(ErrorCode.InternalError, `Upstream "${label}" is closed`);
      for (const waiter of waiting.splice(0)) waiter.refuse(closedError);
      const all = [...entries.values()];
      entries.clear();
      await Promise.all(all.map((entry) => entry.client.then((client) => client.close()).catch(() => undefined)));
    },
  };
}
