// Per-principal stdio processes: one per authenticated subject, spawned with env(ctx) on its first call, bounded (LRU) and ended when idle.

import { ErrorCode, JsonRpcError } from '../../../core/jsonrpc/errors';
import type { RequestContext } from '../../../core/registry/request-context';
import { STOP_GRACE_MS } from './child-process';
import type { RestartSupervisor } from './restart-supervisor';
import type { CallerPool, UpstreamClient } from '../shared/upstream-client';

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
  start(ctx: RequestContext): Promise<RestartSupervisor>;
}

interface Entry {
  readonly client: Promise<RestartSupervisor>;
  /** Requests given this entry and not yet settled (counted from before the process exists). */
  busy: number;
  lastUsed: number;
}

/**
 * The processes alive, an ended one counted until it has exited, never more than `max`: a start takes room (waiting,
 * oldest first, for an ended process to exit, within {@link ROOM_WAIT_MS}) and an exit gives it back.
 */
class ProcessRoom {
  #alive = 0;
  readonly #waiting: { grant(): void; refuse(error: JsonRpcError): void }[] = [];

  constructor(
    private readonly max: number,
    private readonly tooMany: () => JsonRpcError,
  ) {}

  /** Resolves once a process may start (counted from then on), or rejects after ROOM_WAIT_MS. */
  take(): Promise<void> {
    if (this.#alive < this.max && this.#waiting.length === 0) {
      this.#alive++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: () => {
          clearTimeout(timer);
          this.#alive++;
          resolve();
        },
        refuse: (error: JsonRpcError) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
        reject(this.tooMany());
      }, ROOM_WAIT_MS).unref();
      this.#waiting.push(waiter);
    });
  }

  /** A process has exited (or was never made): its room goes to the oldest waiting start. */
  give(): void {
    this.#alive--;
    this.#waiting.shift()?.grant();
  }

  /** Refuses every start still waiting. */
  refuseAll(error: JsonRpcError): void {
    for (const waiter of this.#waiting.splice(0)) waiter.refuse(error);
  }
}

/**
 * The pool of an upstream with `processes: 'per-principal'`. A caller without an authenticated subject, or one over
 * `maxProcesses` while every process is busy, gets a JSON-RPC error at once. A process ended to make room counts
 * until it has exited: the new one starts then (within {@link ROOM_WAIT_MS}, else the same error), so the processes
 * alive never outnumber `maxProcesses`.
 *
 * @example
 * ```ts
 * const pool = new ProcessPool({ label: 'git', maxProcesses: 10, idleTimeoutMs: 600_000, start: async (ctx) => new RestartSupervisor({ … }) });
 * await pool.clientFor(ctx).request('tools/call', { name: 'git_status', arguments: {} });
 * ```
 */
export class ProcessPool implements CallerPool {
  readonly #options: ProcessPoolOptions;
  /** By subject, least recently used first (a use moves an entry to the end). */
  readonly #entries = new Map<string, Entry>();
  readonly #room: ProcessRoom;
  /** One timer for every idle process: it fires at the earliest idle deadline. */
  #sweeper: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: ProcessPoolOptions) {
    this.#options = options;
    this.#room = new ProcessRoom(options.maxProcesses, () => this.#tooMany());
  }

  /** How many processes it holds now (starting, running or restarting). */
  get size(): number {
    return this.#entries.size;
  }

  /** A client that sends each request to the caller's own process (spawned on the first). */
  clientFor(ctx: RequestContext): Pick<UpstreamClient, 'request'> {
    return {
      request: async (method, params, requestOptions) => {
        const entry = this.#acquire(ctx);
        try {
          const client = await entry.client;
          return await client.request(method, params, requestOptions);
        } finally {
          entry.busy--;
          entry.lastUsed = Date.now();
          this.#scheduleSweep();
        }
      },
    };
  }

  /** Ends every process. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#sweeper);
    this.#room.refuseAll(this.#closedError());
    const all = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.all(all.map((entry) => entry.client.then((client) => client.close()).catch(() => undefined)));
  }

  #tooMany(): JsonRpcError {
    const { label, maxProcesses } = this.#options;
    return new JsonRpcError(
      ErrorCode.ServerError,
      `Upstream "${label}" has too many processes: all ${maxProcesses} (maxProcesses) are busy with other callers; try again shortly`,
    );
  }

  #closedError(): JsonRpcError {
    return new JsonRpcError(ErrorCode.InternalError, `Upstream "${this.#options.label}" is closed`);
  }

  /** The caller's supervised process, started once there is room; a start that fails gives its room back. */
  #start(ctx: RequestContext): Promise<RestartSupervisor> {
    return this.#room.take().then(() => {
      const started = this.#options.start(ctx);
      started.catch(() => this.#room.give());
      return started;
    });
  }

  /** Ends an entry's process; its room is given back once the process has exited (close() waits for that). */
  #end(subject: string, entry: Entry): void {
    this.#entries.delete(subject);
    void entry.client.then(
      (client) =>
        client
          .close()
          .catch(() => undefined)
          .finally(() => this.#room.give()),
      () => undefined,
    );
  }

  #sweep(): void {
    this.#sweeper = undefined;
    const now = Date.now();
    let next = Infinity;
    for (const [subject, entry] of this.#entries) {
      if (entry.busy > 0) continue;
      const deadline = entry.lastUsed + this.#options.idleTimeoutMs;
      if (deadline <= now) this.#end(subject, entry);
      else next = Math.min(next, deadline);
    }
    if (next !== Infinity && !this.#closed) this.#sweeper = setTimeout(() => this.#sweep(), next - now).unref();
  }

  #scheduleSweep(): void {
    if (this.#sweeper === undefined && !this.#closed)
      this.#sweeper = setTimeout(() => this.#sweep(), this.#options.idleTimeoutMs).unref();
  }

  /** The caller's entry, made (ending the least recently used idle one if full) or moved to the most recent end. */
  #acquire(ctx: RequestContext): Entry {
    const { label, maxProcesses } = this.#options;
    if (this.#closed) throw this.#closedError();
    const subject = ctx.auth?.subject;
    if (subject === undefined) {
      throw new JsonRpcError(
        ErrorCode.InvalidRequest,
        `Upstream "${label}" runs a process per principal, which needs an authenticated caller: configure the router's auth`,
      );
    }
    let entry = this.#entries.get(subject);
    if (entry !== undefined) {
      this.#entries.delete(subject);
    } else {
      if (this.#entries.size >= maxProcesses) {
        const idle = [...this.#entries].find(([, candidate]) => candidate.busy === 0);
        if (idle === undefined) throw this.#tooMany();
        this.#end(...idle);
      }
      const client = this.#start(ctx);
      entry = { client, busy: 0, lastUsed: Date.now() };
      const made = entry;
      // A process that could not be made (env(ctx) failed) is not kept: the next call tries again.
      client.catch(() => {
        if (this.#entries.get(subject) === made) this.#entries.delete(subject);
      });
    }
    this.#entries.set(subject, entry);
    entry.busy++;
    return entry;
  }
}
