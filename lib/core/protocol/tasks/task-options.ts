// The router's `tasks` option: checked and defaulted once, at boot (a bad value throws McpConfigError naming it).

import {
  invalidOption,
  isPositiveInteger,
  McpConfigError,
  rejectUnknownKeys,
  type OptionKeys,
} from '../../../options/config-error';
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

/**
 * @param shared - the router's `store`'s tasks: the default of `tasks.store`
 * @throws {McpConfigError} for an unknown key or a bad value, naming `tasks.<key>`
 */
export function resolveTasks(options: TaskOptions | undefined, shared?: SharedTasks): ResolvedTasks {
  if (options !== undefined && (typeof options !== 'object' || options === null))
    throw invalidOption('tasks', 'an object', options);
  const given = options ?? {};
  rejectUnknownKeys(given, KNOWN, 'tasks.');
  const {
    store,
    ttlMs = DEFAULT_TASK_TTL_MS,
    pollIntervalMs = DEFAULT_TASK_POLL_INTERVAL_MS,
    max,
    maxPerPrincipal,
  } = given;
  if (!isPositiveInteger(ttlMs)) throw invalidOption('tasks.ttlMs', 'a positive number of milliseconds', ttlMs);
  if (!isPositiveInteger(pollIntervalMs))
    throw invalidOption('tasks.pollIntervalMs', 'a positive number of milliseconds', pollIntervalMs);
  if (max !== undefined && !isPositiveInteger(max)) throw invalidOption('tasks.max', 'a positive integer', max);
  if (maxPerPrincipal !== undefined && !isPositiveInteger(maxPerPrincipal))
    throw invalidOption('tasks.maxPerPrincipal', 'a positive integer', maxPerPrincipal);
  if (store !== undefined) {
    const methods = ['create', 'get', 'put', 'list'] as const;
    if (typeof store !== 'object' || store === null || methods.some((name) => typeof store[name] !== 'function')) {
      throw invalidOption('tasks.store', 'a TaskStore (create, get, put, list)', store);
    }
    if (max !== undefined || maxPerPrincipal !== undefined) {
      throw new McpConfigError(
        'ERR_MCP_INVALID_OPTION',
        "tasks.max and tasks.maxPerPrincipal bound the default store: with your own 'tasks.store', set its bounds there",
      );
    }
  }
  return Object.freeze({
    store: store ?? shared?.({ max, maxPerPrincipal, ttlMs }) ?? new MemoryTaskStore({ max, maxPerPrincipal }),
    ttlMs,
    pollIntervalMs,
  });
}
