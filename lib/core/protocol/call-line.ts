// One call's line to its caller: where its signal, notifications, asks and progress go (the request, or the task it became), and the pipeline's task hook that moves it.

import type { ClientChannel, ClientRequests } from './client-requests';

/** Where a call's effects go while it runs: the request that carried it, or the task it became. */
export interface CallRoute {
  /** Whose `signal` aborts the call: the request's (cancellation, the caller gone) or the task's (tasks/cancel, its TTL). */
  readonly abort: { readonly signal: AbortSignal };
  /** Notifications (progress, logs) and the stream; a task's reaches nothing (its request has ended). */
  readonly channel: ClientChannel;
  /** How the call asks the client: the request's strategy, a 2026 call's `input_required` round, or the task's asks. */
  readonly clientRequests: ClientRequests;
  /** An ask ends the call with `input_required` and its retry runs the call again (a 2026 call's round). */
  readonly askEndsCall: boolean;
  /** Where progress goes instead of `notifications/progress`: a task's status (SEP-2663); undefined on a request. */
  readonly progress?: (progress: number, total?: number, message?: string) => Promise<void>;
}

/** What the task hook made of a call: the route its effects take from now on, and the handle its caller gets. */
export interface TaskTurn {
  readonly route: CallRoute;
  readonly handle: Record<string, unknown>;
}

/**
 * The call pipeline's task hook (MCP tasks), the one way a call becomes a task: set on the call's line by the
 * pipeline (call-pipeline.ts, around what the TaskRunner supplies) for a call that may run as one, and fired once at
 * the call's run entry: the tool's task start (registry/tool-chain.ts) or the handler's `ctx.continueAsTask()`.
 * Resolves undefined when the call goes on plainly.
 */
export type TaskHook = () => Promise<TaskTurn | undefined>;

/**
 * The line of one call, beside the context its handler holds (which reads its effects through it). It starts on the
 * request's route; a call that becomes a task moves here, in one place, to the task's, so the handler's context keeps
 * working and never changes.
 */
export class CallLine {
  private hook: TaskHook | undefined;
  private madeTask: ((handle: Record<string, unknown>) => void) | undefined;

  constructor(private current: CallRoute) {}

  /** Where the call's effects go now. */
  get route(): CallRoute {
    return this.current;
  }

  /**
   * Sets the call's {@link TaskHook}.
   *
   * @returns the task's handle, once the call became a task (the line is on the task's route by then); never
   *   settles for a call that stays plain
   */
  onTaskStart(hook: TaskHook): Promise<Record<string, unknown>> {
    this.hook = hook;
    return new Promise((resolve) => (this.madeTask = resolve));
  }

  /** Fires the task hook, once: true when the call became a task, false when it goes on plainly (`ctx.continueAsTask()`). */
  async continueAsTask(): Promise<boolean> {
    const hook = this.hook;
    // Once: a second call finds the call already a task (or one that never could be).
    this.hook = undefined;
    const turn = hook === undefined ? undefined : await hook();
    if (turn === undefined) return false;
    this.current = turn.route;
    this.madeTask?.(turn.handle);
    return true;
  }
}
