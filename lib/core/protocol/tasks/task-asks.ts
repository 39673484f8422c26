// A running task's asks of its client (SEP-2663 Task Update Requests): how its handler asks, and how tasks/update answers them, kept in `inputRequests`.

import { eraPolicy } from '../../era-policy';
import { isTerminal, type TaskInputRequest, type TaskRecord } from './task-store';
import { isAnswerTo, type ClientRequestMethod, type ClientRequests } from '../client-requests';
import { invalidAnswer } from '../era-2026/input-required';

/** One outstanding ask of a task: what was asked, and how its answer reaches the handler. */
export interface Waiter {
  /** What was asked: its answer must be a result of this method. */
  readonly method: ClientRequestMethod;
  resolve(answer: Record<string, unknown>): void;
  reject(error: Error): void;
}

/** A task running in this process: what only this process can do to it (abort it, answer its asks). */
export interface LiveTask {
  record: TaskRecord;
  readonly abort: AbortController;
  readonly waiters: Map<string, Waiter>;
  /** Key counter: SEP-2663 inputRequests keys are unique over a task's lifetime. */
  asked: number;
  /** The store writes of this task, in order (two asks made together must not overwrite each other). */
  writes: Promise<unknown>;
  /** Settles when the task reaches a terminal status (2025 `tasks/result` waits on it). */
  readonly done: Promise<void>;
  finish(): void;
  /** Aborts the work when the task outlives its TTL: nobody can read its result then, and a hung handler is let go. */
  expiry?: NodeJS.Timeout;
}

/** The prefix of an ask's key in `inputRequests`, by what it asks. */
const ASK_PREFIX: Readonly<Record<ClientRequestMethod, string>> = {
  'sampling/createMessage': 'sample',
  'elicitation/create': 'elicit',
  'roots/list': 'roots',
};

/** Applies a change to a live task's record and writes it, after the task's earlier writes (TaskRunner's). */
export type ChangeTask = (live: LiveTask, change: Partial<TaskRecord> | TaskRecord) => Promise<void>;

/**
 * How the task's handler asks the client. 2026 (SEP-2663 Task Update Requests): the ask becomes an entry of
 * `inputRequests`, the task turns `input_required`, and `tasks/update` answers it. 2025: refused, see README.
 */
export function taskAsker(live: LiveTask, change: ChangeTask): ClientRequests {
  return {
    request: (method, params, timeoutMs, signal) => {
      if (!eraPolicy(live.record.era).tasks.asksClient) {
        return Promise.reject(
          new Error(
            `ctx: ${method} is not available in a 2025 task (its request stream has ended); ask before starting the task, or use MCP 2026-07-28`,
          ),
        );
      }
      if (signal.aborted || isTerminal(live.record.status))
        return Promise.reject(new Error(`ctx: ${method} not sent, the task is no longer running`));
      const key = `${ASK_PREFIX[method]}-${++live.asked}`;
      const ask: TaskInputRequest = params === undefined ? { method } : { method, params };
      return new Promise<Record<string, unknown>>((resolve, reject) => {
        const giveUp = (why: string): void => {
          if (!live.waiters.delete(key)) return;
          const asks = { ...live.record.inputRequests };
          delete asks[key];
          void change(live, asksState(asks));
          reject(new Error(`ctx: ${why}`));
        };
        const timer = setTimeout(() => giveUp(`the client did not answer ${method} within ${timeoutMs} ms`), timeoutMs);
        const onAbort = (): void => giveUp(`${method} abandoned, the task was cancelled`);
        signal.addEventListener('abort', onAbort, { once: true });
        const settle = (): void => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
        };
        live.waiters.set(key, {
          method,
          resolve: (answer) => (settle(), resolve(answer)),
          reject: (err) => (settle(), reject(err)),
        });
        void change(live, asksState({ ...live.record.inputRequests, [key]: ask }));
      });
    },
  };
}

/**
 * SEP-2663 tasks/update on a live task: takes the answers to its outstanding asks. Every answer is checked before any
 * is taken: one that is not a result of what was asked refuses the whole update.
 *
 * @throws {JsonRpcError} -32602 for a malformed answer
 */
export async function answerAsks(
  live: LiveTask,
  responses: Record<string, unknown>,
  change: ChangeTask,
): Promise<void> {
  const answered: Array<[string, Waiter, Record<string, unknown>]> = [];
  for (const [key, response] of Object.entries(responses)) {
    const waiter = live.waiters.get(key);
    if (waiter === undefined) continue;
    // Checked before any is taken: one bad answer refuses the whole update.
    if (!isAnswerTo(waiter.method, response)) throw invalidAnswer(key, waiter.method);
    answered.push([key, waiter, response]);
  }
  if (answered.length === 0) return;
  const asks = { ...live.record.inputRequests };
  for (const [key] of answered) {
    live.waiters.delete(key);
    delete asks[key];
  }
  await change(live, asksState(asks));
  for (const [, waiter, response] of answered) waiter.resolve(response);
}

/** The status and `inputRequests` that go with these outstanding asks. */
export function asksState(asks: Record<string, TaskInputRequest>): Partial<TaskRecord> {
  return Object.keys(asks).length > 0
    ? { status: 'input_required', inputRequests: asks }
    : { status: 'working', inputRequests: undefined };
}

/** The record without `inputRequests` (a task that is not waiting has none). */
export function withoutAsks(record: TaskRecord): TaskRecord {
  const { inputRequests: _dropped, ...rest } = record;
  return rest;
}
