// TaskRunner: the live side of MCP tasks: starts an admitted call as a task, runs it past its HTTP request, records its outcome and cancellation (its asks: task-asks.ts).

import { randomUUID } from 'node:crypto';
import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors';
import type { McpLogger } from '../../logger';
import type { Era } from '../../versions';
import type { ResolvedTasks } from './task-options';
import { isTerminal, TaskLimitError, type TaskRecord } from './task-store';
import type { CallRoute } from '../call-line';
import { NO_STREAM } from '../client-requests';
import { answerAsks, taskAsker, withoutAsks, type ChangeTask, type LiveTask } from './task-asks';

/** The router's task settings, resolved once (the `tasks` option): the store, `ttlMs`, `pollIntervalMs`. */
export type TaskSettings = ResolvedTasks;

/** What starts a task: who owns it, the era it speaks, and the tool. */
export interface TaskStart {
  readonly owner: string;
  readonly era: Era;
  readonly name: string;
  /** A 2025 client's `task.ttl`: honoured up to the router's `ttlMs` (MCP 2025-11-25 tasks: receivers MAY override it). */
  readonly requestedTtlMs: number | undefined;
}

/** A task made of a running call: its record, and the route the call's effects take from now on. */
export interface StartedTask {
  readonly record: TaskRecord;
  readonly route: CallRoute;
}

/** How instances sharing a task store tell each other of cancelled tasks (a message bus; see sessions/shared-store.ts). */
export interface TaskCancels {
  /** Tells the other instances that `taskId` was cancelled. Never throws. */
  announce(taskId: string): void;
  /** Hears the cancellations of the other instances until the returned function is called. */
  hear(listener: (taskId: string) => void): () => void;
}

/**
 * Runs the tasks of one router. The records live in the {@link TaskStore}; the running handlers, their aborts and
 * their pending asks live here, so `tasks/cancel` and `tasks/update` take effect on the process that runs the task
 * (a shared store still serves `tasks/get` from any).
 */
export class TaskRunner {
  private readonly live = new Map<string, LiveTask>();
  /** {@link TaskRunner.change}, as the task's asks write their state (task-asks.ts). */
  private readonly changeTask: ChangeTask = (live, change) => this.change(live, change);
  private readonly stopHearing: () => void;

  /**
   * @param cancels - how instances sharing a task store tell each other of a cancelled task (the instance that runs
   *   it aborts it at once); undefined in one process
   */
  constructor(
    readonly settings: TaskSettings,
    private readonly logger: McpLogger,
    private readonly cancels?: TaskCancels,
  ) {
    this.stopHearing = cancels?.hear((taskId) => this.cancelledElsewhere(taskId)) ?? (() => undefined);
  }

  /** A task this process runs was cancelled through another instance: the record says so already; the work stops. */
  private cancelledElsewhere(taskId: string): void {
    const live = this.live.get(taskId);
    if (live === undefined) return;
    live.record = {
      ...withoutAsks(live.record),
      status: 'cancelled',
      statusMessage: 'The task was cancelled by request.',
      lastUpdatedAt: Date.now(),
    };
    void this.settle(live, live.record).finally(() =>
      live.abort.abort(new Error('the task was cancelled (tasks/cancel)')),
    );
  }

  /**
   * What the call pipeline's task hook runs (call-line.ts): makes a call that is already running a task. Creates the
   * task (readable by `tasks/get` before this resolves: SEP-2663 "durably created"), records what `outcome` settles to
   * as its result, and gives the call the task's route: detached from the HTTP request (the caller hanging up does
   * not abort it), no stream, the task's asks, progress into its status.
   *
   * @throws {JsonRpcError} -32603 when the store's bounds refuse another task
   */
  async startTask(start: TaskStart, outcome: () => Promise<Record<string, unknown>>): Promise<StartedTask> {
    const live = await this.create(start);
    const route: CallRoute = {
      abort: live.abort,
      channel: NO_STREAM,
      clientRequests: taskAsker(live, this.changeTask),
      askEndsCall: false,
      progress: (progress, total, message) => this.report(live, progress, total, message),
    };
    void this.run(live, outcome);
    return { record: live.record, route };
  }

  private async create(start: TaskStart): Promise<LiveTask> {
    const now = Date.now();
    const requested = start.requestedTtlMs;
    const ttlMs =
      requested !== undefined && Number.isInteger(requested) && requested > 0
        ? Math.min(requested, this.settings.ttlMs)
        : this.settings.ttlMs;
    const record: TaskRecord = {
      taskId: randomUUID(),
      owner: start.owner,
      era: start.era,
      method: 'tools/call',
      name: start.name,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs,
      pollIntervalMs: this.settings.pollIntervalMs,
    };
    try {
      await this.settings.store.create(record);
    } catch (err) {
      if (err instanceof TaskLimitError)
        throw new JsonRpcError(ErrorCode.InternalError, `Cannot start a task: ${err.message}`, { limit: err.limit });
      throw err;
    }
    let finish = (): void => undefined;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const live: LiveTask = {
      record,
      abort: new AbortController(),
      waiters: new Map(),
      asked: 0,
      writes: Promise.resolve(),
      done,
      finish,
    };
    this.live.set(record.taskId, live);
    // Timers take at most 2^31 − 1 ms (about 24.8 days); a longer TTL is cut to that for the work, not the record.
    live.expiry = setTimeout(() => void this.expire(live), Math.min(ttlMs, 2_147_483_647));
    live.expiry.unref();
    return live;
  }

  /** The TTL ran out while the work still ran: stop it and let go of it (the store drops the record by its TTL). */
  private async expire(live: LiveTask): Promise<void> {
    if (isTerminal(live.record.status) || this.live.get(live.record.taskId) !== live) return;
    live.abort.abort(new Error('the task outlived its ttl'));
    await this.settle(live, {
      ...withoutAsks(live.record),
      status: 'failed',
      statusMessage: 'The task outlived its time to live.',
      lastUpdatedAt: Date.now(),
    });
  }

  /** The task, or undefined when it is unknown, expired or another owner's (all look the same: not found). */
  get(taskId: string, owner: string): Promise<TaskRecord | undefined> {
    return this.settings.store.get(taskId, owner);
  }

  /** The owner's tasks (2025 `tasks/list`). */
  list(owner: string): Promise<TaskRecord[]> {
    return this.settings.store.list(owner);
  }

  /**
   * Cancels a task that is not finished: it becomes `cancelled` at once and its handler's `ctx.signal` aborts.
   * A finished task is returned unchanged (each era answers that in its own way).
   */
  async cancel(taskId: string, owner: string): Promise<TaskRecord | undefined> {
    const record = await this.get(taskId, owner);
    if (record === undefined || isTerminal(record.status)) return record;
    const live = this.live.get(taskId);
    const cancelled: TaskRecord = {
      ...withoutAsks(live?.record ?? record),
      status: 'cancelled',
      statusMessage: 'The task was cancelled by request.',
      lastUpdatedAt: Date.now(),
    };
    if (live === undefined) {
      // Finished meanwhile (on the instance that runs it): what it became is the answer, not `cancelled`.
      if (!(await this.settings.store.put(cancelled))) return this.get(taskId, owner);
      this.cancels?.announce(taskId);
      return cancelled;
    }
    await this.settle(live, cancelled);
    live.abort.abort(new Error('the task was cancelled (tasks/cancel)'));
    return cancelled;
  }

  /**
   * SEP-2663 tasks/update: answers outstanding asks by key. Keys not outstanding (never asked, or answered) are
   * ignored; a partial set is accepted; the task goes back to `working` once none remain. An answer to an outstanding
   * ask that is not a result of its method refuses the whole update (-32602, as a 2026 retry's would be), and no
   * answer of it is taken.
   *
   * @returns false when the task is not found
   * @throws {JsonRpcError} -32602 for a malformed answer
   */
  async answer(taskId: string, owner: string, responses: Record<string, unknown>): Promise<boolean> {
    const record = await this.get(taskId, owner);
    if (record === undefined) return false;
    const live = this.live.get(taskId);
    if (live === undefined || isTerminal(live.record.status)) return true;
    await answerAsks(live, responses, this.changeTask);
    return true;
  }

  /** Settles when the task is terminal, or at once when it does not run here (2025 `tasks/result` blocks on it). */
  async whenDone(taskId: string, signal: AbortSignal): Promise<void> {
    const live = this.live.get(taskId);
    if (live === undefined) return;
    await new Promise<void>((resolve) => {
      signal.addEventListener('abort', () => resolve(), { once: true });
      void live.done.then(resolve);
    });
  }

  /** Aborts every running task (the router's `close()`), then closes the store. */
  async close(): Promise<void> {
    this.stopHearing();
    for (const live of this.live.values()) {
      clearTimeout(live.expiry);
      live.abort.abort(new Error('the server is closing'));
    }
    this.live.clear();
    await this.settings.store.close?.();
  }

  private async run(live: LiveTask, work: () => Promise<Record<string, unknown>>): Promise<void> {
    let outcome: Partial<TaskRecord>;
    try {
      outcome = { status: 'completed', result: await work() };
    } catch (err) {
      // SEP-2663 Task Execution Errors: a JSON-RPC error makes the task `failed`, with the error inlined.
      const error = err instanceof JsonRpcError ? err : new JsonRpcError(ErrorCode.InternalError, 'Internal error');
      if (!(err instanceof JsonRpcError))
        this.logger.error(err, `mcpRouter: task ${live.record.taskId} (${live.record.name}) failed`);
      outcome = {
        status: 'failed',
        statusMessage: error.message,
        error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) },
      };
    }
    // Cancelled (or dropped) meanwhile: terminal states never change (SEP-2663 Task Status).
    if (isTerminal(live.record.status)) return;
    await this.settle(live, { ...withoutAsks(live.record), ...outcome, lastUpdatedAt: Date.now() });
  }

  /** Records a terminal state and lets go of the live task: its pending asks fail, waiters of `done` wake. */
  private async settle(live: LiveTask, record: TaskRecord): Promise<void> {
    clearTimeout(live.expiry);
    await this.change(live, record);
    this.live.delete(record.taskId);
    for (const waiter of live.waiters.values())
      waiter.reject(new Error(`ctx: the task is ${record.status}, its ask was abandoned`));
    live.waiters.clear();
    live.finish();
  }

  /** Applies a change to the live record and writes it, after the task's earlier writes. */
  private change(live: LiveTask, change: Partial<TaskRecord> | TaskRecord): Promise<void> {
    live.record = { ...live.record, ...change, lastUpdatedAt: Date.now() };
    const record = live.record;
    const write = live.writes.then(() => this.settings.store.put(record));
    live.writes = write.catch(() => undefined);
    return write.then(
      (kept) => {
        // Expired or evicted while running: nobody can read its result any more, so the work stops.
        if (!kept && !isTerminal(record.status)) live.abort.abort(new Error('the task expired'));
      },
      (err: unknown) => this.logger.error(err, `mcpRouter: the task store failed to save task ${record.taskId}`),
    );
  }

  private report(
    live: LiveTask,
    progress: number,
    total: number | undefined,
    message: string | undefined,
  ): Promise<void> {
    if (isTerminal(live.record.status)) return Promise.resolve();
    const amount = total === undefined ? `${progress}` : `${progress}/${total}`;
    return this.change(live, {
      statusMessage: message === undefined ? `progress ${amount}` : `${message} (${amount})`,
    });
  }
}
