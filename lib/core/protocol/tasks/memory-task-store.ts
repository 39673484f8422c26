// MemoryTaskStore: the default TaskStore, keeping tasks in this process, bounded per principal and in total, swept after their TTL.

import type { OptionKeys } from '../../../options/config-error';
import { OptionReader } from '../../../options/option-reader';
import { isTerminal, TaskLimitError, type TaskRecord, type TaskStore } from './task-store';

/** Default `max`: tasks one store keeps. */
export const DEFAULT_MAX_TASKS = 10_000;
/** Default `maxPerPrincipal`: tasks one owner may have, a tenth of the default `max`. */
export const DEFAULT_MAX_TASKS_PER_PRINCIPAL = 1_000;
/** Default `sweepIntervalMs`: how often expired tasks are dropped. */
export const DEFAULT_TASK_SWEEP_INTERVAL_MS = 60_000;

/** Options of {@link MemoryTaskStore}. */
export interface MemoryTaskStoreOptions {
  /** The most tasks kept; when full, a new task first evicts the oldest finished one, else is refused. Defaults to {@link DEFAULT_MAX_TASKS}. */
  max?: number;
  /** The most tasks of one owner (principal); as `max`, but per owner. Defaults to {@link DEFAULT_MAX_TASKS_PER_PRINCIPAL}. */
  maxPerPrincipal?: number;
  /** How often expired tasks are dropped. Defaults to {@link DEFAULT_TASK_SWEEP_INTERVAL_MS}. */
  sweepIntervalMs?: number;
  /** The clock, in ms since the epoch (tests inject one). Defaults to `Date.now`. */
  now?: () => number;
}

const KNOWN_OPTIONS: OptionKeys<MemoryTaskStoreOptions> = {
  max: true,
  maxPerPrincipal: true,
  sweepIntervalMs: true,
  now: true,
};

/** A deep copy of the plain data a record holds: the store never shares objects with its callers (as a serialising store would not). */
function copyRecord(record: TaskRecord): TaskRecord {
  return structuredClone(record);
}

/**
 * Keeps tasks in this process, in insertion order (a Map), with an index of each owner's task ids. A task past its
 * TTL is not found at once and dropped by a sweep (one unref'd timer, only while tasks exist). Bounds: when the store
 * or an owner is full, the oldest finished task of that scope is evicted; if every one is still running the new task
 * is refused with {@link TaskLimitError}, so memory never grows with what clients send.
 *
 * @example
 * ```ts
 * const mcp = mcpRouter({ name: 'jobs', version: '1.0.0', tasks: { store: new MemoryTaskStore({ maxPerPrincipal: 20 }) } });
 * ```
 */
export class MemoryTaskStore implements TaskStore {
  private readonly tasks = new Map<string, TaskRecord>();
  private readonly byOwner = new Map<string, Set<string>>();
  private readonly max: number;
  private readonly maxPerPrincipal: number;
  private readonly sweepIntervalMs: number;
  private readonly now: () => number;
  private sweeper: NodeJS.Timeout | undefined;

  /** @throws {McpConfigError} for an unknown option or a bad value */
  constructor(options: MemoryTaskStoreOptions = {}) {
    const read = OptionReader.of(options, 'MemoryTaskStore', KNOWN_OPTIONS);
    this.max = read.positiveInteger('max', DEFAULT_MAX_TASKS);
    this.maxPerPrincipal = read.positiveInteger('maxPerPrincipal', DEFAULT_MAX_TASKS_PER_PRINCIPAL);
    this.sweepIntervalMs = read.milliseconds('sweepIntervalMs', DEFAULT_TASK_SWEEP_INTERVAL_MS);
    this.now = read.fn('now') ?? Date.now;
  }

  /** How many tasks are kept (expired ones until the sweep): for tests and metrics. */
  get size(): number {
    return this.tasks.size;
  }

  async create(record: TaskRecord): Promise<void> {
    const owned = this.byOwner.get(record.owner) ?? new Set<string>();
    if (owned.size >= this.maxPerPrincipal && !this.evictOne(owned)) throw new TaskLimitError('maxPerPrincipal');
    if (this.tasks.size >= this.max && !this.evictOne(this.tasks.keys())) throw new TaskLimitError('max');
    this.tasks.set(record.taskId, copyRecord(record));
    owned.add(record.taskId);
    this.byOwner.set(record.owner, owned);
    this.startSweeping();
  }

  async get(taskId: string, owner: string): Promise<TaskRecord | undefined> {
    const record = this.tasks.get(taskId);
    if (record === undefined || record.owner !== owner || this.expired(record)) return undefined;
    return copyRecord(record);
  }

  async put(record: TaskRecord): Promise<boolean> {
    const held = this.tasks.get(record.taskId);
    if (held === undefined || held.owner !== record.owner || this.expired(held)) return false;
    this.tasks.set(record.taskId, copyRecord(record));
    return true;
  }

  async list(owner: string): Promise<TaskRecord[]> {
    const ids = this.byOwner.get(owner);
    if (ids === undefined) return [];
    return [...ids]
      .map((id) => this.tasks.get(id))
      .filter((record): record is TaskRecord => record !== undefined && !this.expired(record))
      .map(copyRecord);
  }

  close(): void {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  /** Drops every task past its TTL; the timer calls it (tests may too). */
  sweep(): void {
    for (const record of this.tasks.values()) {
      if (this.expired(record)) this.forget(record);
    }
    if (this.tasks.size === 0) this.close();
  }

  private expired(record: TaskRecord): boolean {
    return this.now() >= record.createdAt + record.ttlMs;
  }

  /** Evicts the oldest expired or finished task among `ids`; false when all of them are still running. */
  private evictOne(ids: Iterable<string>): boolean {
    for (const id of ids) {
      const record = this.tasks.get(id);
      if (record !== undefined && (this.expired(record) || isTerminal(record.status))) {
        this.forget(record);
        return true;
      }
    }
    return false;
  }

  private forget(record: TaskRecord): void {
    this.tasks.delete(record.taskId);
    const owned = this.byOwner.get(record.owner);
    owned?.delete(record.taskId);
    if (owned?.size === 0) this.byOwner.delete(record.owner);
  }

  private startSweeping(): void {
    if (this.sweeper !== undefined) return;
    this.sweeper = setInterval(() => this.sweep(), this.sweepIntervalMs);
    this.sweeper.unref();
  }
}
