// TaskStore: where long-running tasks (MCP tasks, both eras) are kept, as plain JSON records bound to their principal. (Its Redis side: redis/task-store.ts.)

import type { Era } from '../../versions';

/** A task's status (MCP 2025-11-25 tasks; SEP-2663 Task Status): the last three are terminal. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** The statuses after which a task never changes again (SEP-2663: "terminal — the task's state does not change"). */
export const TERMINAL_STATUSES: readonly TaskStatus[] = Object.freeze(['completed', 'failed', 'cancelled'] as const);

/** True for `completed`, `failed` and `cancelled`. */
export function isTerminal(status: TaskStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/** One server→client request a task waits on (SEP-2322 InputRequest): `elicitation/create`, `sampling/createMessage`, `roots/list`. */
export interface TaskInputRequest {
  /** The request the client must answer: `sampling/createMessage`, `elicitation/create` or `roots/list`. */
  readonly method: string;
  /** That request's params, as it is sent to the client. */
  readonly params?: Record<string, unknown>;
}

/**
 * One task, as stored: plain JSON only (a shared store serialises it). Times are ms since the epoch; the wire
 * forms (ISO 8601 `createdAt`, `ttlMs` or `ttl`) are made by the protocol layer for the caller's era.
 */
export interface TaskRecord {
  /** The task's id: random and unguessable, what the client polls with. */
  readonly taskId: string;
  /**
   * Who may see the task: the authenticated principal (`auth.subject`), else the 2025 session, else `''` for an
   * anonymous 2026 caller (whose only protection is the unguessable id). Another owner's task is "not found".
   */
  readonly owner: string;
  /** The era of the request that created it: its methods and wire form differ (2025-11-25 experimental tasks; SEP-2663). */
  readonly era: Era;
  /** The request it augments (`tools/call`: tasks augment only tool calls) and the tool's name. */
  readonly method: string;
  /** The name of the tool it runs. */
  readonly name: string;
  /** Where it is: `working`, `input_required`, `completed`, `failed` or `cancelled`. */
  readonly status: TaskStatus;
  /** A line for people about the status (why it failed, what it waits for). */
  readonly statusMessage?: string;
  /** When it was created, in ms since the epoch. */
  readonly createdAt: number;
  /** When its status or result last changed, in ms since the epoch. */
  readonly lastUpdatedAt: number;
  /** Kept this long after `createdAt`, then dropped (SEP-2663 Task: ttlMs "from creation"). */
  readonly ttlMs: number;
  /** How often the client is told to poll it, in ms. */
  readonly pollIntervalMs: number;
  /** The method's result, once `completed`. */
  readonly result?: Record<string, unknown>;
  /** The JSON-RPC error `{ code, message, data? }`, once `failed`. */
  readonly error?: Record<string, unknown>;
  /** The outstanding asks of an `input_required` task, by key. */
  readonly inputRequests?: Record<string, TaskInputRequest>;
}

/** Why a store refused a new task: the principal's or the store's limit. */
export class TaskLimitError extends Error {
  constructor(readonly limit: 'maxPerPrincipal' | 'max') {
    super(
      limit === 'max'
        ? 'too many tasks are in progress on this server; try again later'
        : 'this caller has too many tasks in progress; wait for some to finish',
    );
    this.name = 'TaskLimitError';
  }
}

/**
 * Keeps tasks. Every method is async so that a shared store (Redis) fits the same interface; the router holds the
 * live part (the running handler, its abort) itself, so a record is all a store ever sees.
 *
 * - `create` MUST make the task readable by `get` before it resolves (SEP-2663 Task Creation: durably created).
 * - `get`, `update` and `delete` take the owner: another owner's task is not found (same answer as an unknown id).
 * - A task past `createdAt + ttlMs` is gone: `get` returns undefined, and the store drops it in time.
 */
export interface TaskStore {
  /** @throws {TaskLimitError} when the owner or the store holds as many unfinished tasks as allowed */
  create(record: TaskRecord): Promise<void>;
  /** The task, or undefined when it is unknown, expired or another owner's. */
  get(taskId: string, owner: string): Promise<TaskRecord | undefined>;
  /** Replaces the task's record; resolves false when it is gone (expired, deleted). */
  put(record: TaskRecord): Promise<boolean>;
  /** The owner's live tasks, oldest first (2025 `tasks/list`). */
  list(owner: string): Promise<TaskRecord[]>;
  /** Stops timers; the router calls it from `close()`. */
  close?(): Promise<void> | void;
}
