// The router's `tasks` option: checked and defaulted once, at boot (a bad value throws McpConfigError naming it).

import type { OptionKeys } from '../../../options/config-error';
import { OptionReader } from '../../../options/option-reader';
import { MemoryTaskStore } from './memory-task-store';
import type { TaskStore } from './task-store';

/** Default `tasks.ttlMs`: a task and its result are kept one hour from its creation. */
export const DEFAULT_TASK_TTL_MS = 60 * 60 * 1000;
/** Default `tasks.pollIntervalMs`: the polling interval suggested to clients. */
export const DEFAULT_TASK_POLL_INTERVAL_MS = 1000;

/** The `tasks` option of `mcpRouter()`: how long-running tool calls (tools with `task`) are kept. */
export interface TaskOptions {
  /**
   * Where tasks are kept. Defaults to a {@link MemoryTaskStore} bounded by `max` and `maxPerPrincipal`
   * (set those on your own store instead when you pass one).
   */
  store?: TaskStore;
  /** How long a task and its result are kept from its creation, then dropped; also the most a 2025 client's `task.ttl` gets. Defaults to {@link DEFAULT_TASK_TTL_MS}. */
  ttlMs?: number;
  /** The polling interval suggested to clients (`pollIntervalMs`; 2025: `pollInterval`). Defaults to {@link DEFAULT_TASK_POLL_INTERVAL_MS}. */
  pollIntervalMs?: number;
  /** The default store's bound on all tasks kept. Defaults to 10,000 (`DEFAULT_MAX_TASKS`). */
  max?: number;
  /** The default store's bound on the tasks of one principal (one token, or one anonymous 2025 session). Defaults to 1,000. */
  maxPerPrincipal?: number;
}

/** The `tasks` option after checking: internal. */
export interface ResolvedTasks {
  readonly store: TaskStore;
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
}

const KNOWN: OptionKeys<TaskOptions> = {
  store: true,
  ttlMs: true,
  pollIntervalMs: true,
  max: true,
  maxPerPrincipal: true,
};

/** Makes the task store of a shared `store` (the router's), given the bounds. */
export type SharedTasks = (settings: {
  readonly max: number | undefined;
  readonly maxPerPrincipal: number | undefined;
  readonly ttlMs: number;
}) => TaskStore;

/** Whether `value` has the methods of a {@link TaskStore}. */
function isTaskStore(value: unknown): value is TaskStore {
  if (typeof value !== 'object' || value === null) return false;
  const store = value as Record<string, unknown>;
  return ['create', 'get', 'put', 'list'].every((name) => typeof store[name] === 'function');
}

/**
 * @param shared - the router's `store`'s tasks: the default of `tasks.store`
 * @throws {McpConfigError} for an unknown key or a bad value, naming `tasks.<key>`
 */
export function resolveTasks(options: TaskOptions | undefined, shared?: SharedTasks): ResolvedTasks {
  const read = OptionReader.of(options, 'tasks', KNOWN);
  const ttlMs = read.milliseconds('ttlMs', DEFAULT_TASK_TTL_MS);
  const pollIntervalMs = read.milliseconds('pollIntervalMs', DEFAULT_TASK_POLL_INTERVAL_MS);
  const max = read.positiveInteger('max');
  const maxPerPrincipal = read.positiveInteger('maxPerPrincipal');
  const store = read.raw('store');
  if (store !== undefined) {
    if (!isTaskStore(store)) throw read.invalid('store', 'a TaskStore (create, get, put, list)');
    // tasks.max and tasks.maxPerPrincipal bound the default store only.
    const bound = max !== undefined ? 'max' : maxPerPrincipal !== undefined ? 'maxPerPrincipal' : undefined;
    if (bound !== undefined) throw read.invalid(bound, "left out with your own 'tasks.store': set its bounds there");
  }
  return Object.freeze({
    store: store ?? shared?.({ max, maxPerPrincipal, ttlMs }) ?? new MemoryTaskStore({ max, maxPerPrincipal }),
    ttlMs,
    pollIntervalMs,
  });
}
