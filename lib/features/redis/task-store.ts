// RedisTaskStore: tasks shared by every instance of a router, each record a hash with a TTL, bounded per principal and in total by indexes in Redis. (The Redis side of protocol/tasks/task-store.ts: one concern at two layers.)

import { createHash } from 'node:crypto';
import type { SharedTaskSettings } from '../../edge/store/shared-store';
import { DEFAULT_MAX_TASKS, DEFAULT_MAX_TASKS_PER_PRINCIPAL } from '../../core/protocol/tasks/memory-task-store';
import {
  isTerminal,
  TaskLimitError,
  type TaskRecord,
  type TaskStatus,
  type TaskStore,
} from '../../core/protocol/tasks/task-store';
import type { RedisConnection } from './connection';
import { DROP, MARK_FINISHED, PUT, RESERVE, WRITE_NEW } from './task-scripts';

/** How many of a full scope's oldest entries are checked against their records before a task is refused. */
const HEAL_BATCH = 100;

/** One limit's index: the tasks holding a place (score: expiresAt) and those of them finished (evictable first). */
interface Scope {
  readonly live: string;
  readonly finished: string;
  readonly limit: number;
  readonly refusal: 'max' | 'maxPerPrincipal';
}

/**
 * Keeps tasks in Redis, so that a task started on one instance is polled, listed and cancelled through any other.
 *
 * Key layout (prefix `p`, default `mcp:`; every key has a TTL, so nothing outlives a crash):
 * - `p:task:{<taskId>}` — hash `owner`, `status`, `expiresAt`, `record` (the JSON record); PX the task's remaining
 *   lifetime, `createdAt + ttlMs` (never more than the router's `tasks.ttlMs`), set once at creation.
 * - `p:tasks:{o.<sha256(owner)>}:live` / `:finished` — sorted sets of the owner's task ids by expiresAt: `list`
 *   and `maxPerPrincipal`; the owner is hashed so any principal string (even `''`) makes one valid hash tag and no
 *   principal name appears in key names. TTL: the longest-lived entry's remaining lifetime.
 * - `p:tasks:{all}:live` / `:finished` — the same for the whole store: the global count for `max` (one slot in a
 *   Cluster: every create touches it, a fair price for a bound that holds across instances).
 *
 * Bounds hold across instances: a place is taken by a Lua script on the scope's keys (atomic), expired entries are
 * dropped first, then the finished task that expires first is evicted, else {@link TaskLimitError}. A task's keys
 * and its scopes' keys are in different slots, so creation is in steps (record, owner's place, store's place,
 * evictions); a step left undone by an outage leaves an index entry whose record is gone, which `list` drops, and
 * which a full scope checks (its oldest 100) before it refuses.
 *
 * @example
 * ```ts
 * const tasks = new RedisTaskStore(new RedisConnection({ url: process.env.REDIS_URL }), { max: undefined, maxPerPrincipal: 20, ttlMs: 3_600_000 });
 * const mcp = mcpRouter({ name: 'jobs', version: '1.0.0', tasks: { store: tasks } });
 * ```
 */
export class RedisTaskStore implements TaskStore {
  private readonly global: Scope;
  private readonly maxPerPrincipal: number;
  private readonly ttlMs: number;

  /**
   * @param connection - the router's Redis (all commands go through it)
   * @param settings - `max` and `maxPerPrincipal` (undefined: 10,000 and 1,000, as the memory store), and the
   *   router's `tasks.ttlMs`, the longest any task key lives
   */
  constructor(
    private readonly connection: RedisConnection,
    settings: SharedTaskSettings & { readonly ttlMs: number },
  ) {
    this.global = {
      live: connection.key('tasks', '{all}', 'live'),
      finished: connection.key('tasks', '{all}', 'finished'),
      limit: settings.max ?? DEFAULT_MAX_TASKS,
      refusal: 'max',
    };
    this.maxPerPrincipal = settings.maxPerPrincipal ?? DEFAULT_MAX_TASKS_PER_PRINCIPAL;
    this.ttlMs = settings.ttlMs;
  }

  async create(record: TaskRecord): Promise<void> {
    const now = Date.now();
    const expiresAt = Math.min(record.createdAt + record.ttlMs, record.createdAt + this.ttlMs);
    const lifetime = expiresAt - now;
    // Already past its TTL: it would be gone at once (as the memory store's get would say); nothing to keep.
    if (lifetime <= 0) return;
    const taskKey = this.taskKey(record.taskId);
    // The record first, then the places: a task counted is always one that exists (a refusal deletes it again).
    await this.connection.send(
      [
        'EVAL',
        WRITE_NEW,
        '1',
        taskKey,
        record.owner,
        record.status,
        String(expiresAt),
        JSON.stringify(record),
        String(lifetime),
      ],
      taskKey,
    );
    const owner = this.ownerScope(record.owner);
    const evicted: Array<{ id: string; from: Scope }> = [];
    try {
      const ownerEvicted = await this.reserve(owner, record.taskId, now, expiresAt, lifetime);
      if (ownerEvicted !== undefined) evicted.push({ id: ownerEvicted, from: owner });
      let globalEvicted: string | undefined;
      try {
        globalEvicted = await this.reserve(this.global, record.taskId, now, expiresAt, lifetime);
      } catch (err) {
        await this.release(owner, record.taskId);
        throw err;
      }
      if (globalEvicted !== undefined) evicted.push({ id: globalEvicted, from: this.global });
    } catch (err) {
      await this.dropTask(record.taskId).catch(() => undefined);
      throw err;
    }
    // Evicted tasks leave the other scope too; best effort: a failure leaves an entry `list` and the heal drop later.
    await Promise.all(evicted.map(({ id, from }) => this.evict(id, from).catch(() => undefined)));
  }

  async get(taskId: string, owner: string): Promise<TaskRecord | undefined> {
    const taskKey = this.taskKey(taskId);
    const [heldOwner, expiresAt, json] = await this.connection.send<Array<string | null>>(
      ['HMGET', taskKey, 'owner', 'expiresAt', 'record'],
      taskKey,
    );
    // Another owner's task is not found, as an unknown id is (TaskStore contract).
    if (heldOwner !== owner || json === null || json === undefined || Number(expiresAt) <= Date.now()) return undefined;
    return JSON.parse(json) as TaskRecord;
  }

  async put(record: TaskRecord): Promise<boolean> {
    const taskKey = this.taskKey(record.taskId);
    const kept = await this.connection.send<number>(
      ['EVAL', PUT, '1', taskKey, record.owner, record.status, JSON.stringify(record), String(Date.now())],
      taskKey,
    );
    if (kept !== 1) return false;
    if (isTerminal(record.status)) {
      // Now evictable in both scopes. Best effort: the write is done; a missed mark is found by the heal of a full scope.
      await Promise.all([
        this.markFinished(this.ownerScope(record.owner), record.taskId),
        this.markFinished(this.global, record.taskId),
      ]).catch(() => undefined);
    }
    return true;
  }

  async list(owner: string): Promise<TaskRecord[]> {
    const scope = this.ownerScope(owner);
    const ids = await this.connection.send<string[]>(
      ['ZRANGE', scope.live, `(${Date.now()}`, '+inf', 'BYSCORE'],
      scope.live,
    );
    const found = await Promise.all(ids.map(async (id) => ({ id, record: await this.get(id, owner) })));
    const gone = found.filter(({ record }) => record === undefined).map(({ id }) => id);
    // The index is pruned of tasks whose record is gone (expired, evicted, or a creation cut short by an outage).
    if (gone.length > 0) await this.release(scope, ...gone).catch(() => undefined);
    const records = found.map(({ record }) => record).filter((record): record is TaskRecord => record !== undefined);
    // Oldest first; ties (one millisecond) by id, so pages of a list stay stable.
    return records.sort(
      (a, b) => a.createdAt - b.createdAt || (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0),
    );
  }

  private taskKey(taskId: string): string {
    return this.connection.key('task', `{${taskId}}`);
  }

  private ownerScope(owner: string): Scope {
    const tag = `{o.${createHash('sha256').update(owner).digest('base64url')}}`;
    return {
      live: this.connection.key('tasks', tag, 'live'),
      finished: this.connection.key('tasks', tag, 'finished'),
      limit: this.maxPerPrincipal,
      refusal: 'maxPerPrincipal',
    };
  }

  /** Takes a place in `scope`, checking the scope's oldest entries once when it is full; the evicted task's id, if any. */
  private async reserve(
    scope: Scope,
    taskId: string,
    now: number,
    expiresAt: number,
    lifetime: number,
  ): Promise<string | undefined> {
    for (let attempt = 0; ; attempt++) {
      const reply = await this.connection.send<[number, string?]>(
        [
          'EVAL',
          RESERVE,
          '2',
          scope.live,
          scope.finished,
          String(now),
          taskId,
          String(expiresAt),
          String(scope.limit),
          String(lifetime),
        ],
        scope.live,
      );
      if (reply[0] === 1) return reply[1];
      if (attempt > 0 || !(await this.heal(scope))) throw new TaskLimitError(scope.refusal);
    }
  }

  /**
   * Brings a full scope's oldest entries in line with their records: gone ones leave, finished ones become
   * evictable (a mark missed in an outage). At most {@link HEAL_BATCH} lookups, so a full store does not turn each
   * refused create into thousands of commands. True when anything changed.
   */
  private async heal(scope: Scope): Promise<boolean> {
    const ids = await this.connection.send<string[]>(['ZRANGE', scope.live, '0', String(HEAL_BATCH - 1)], scope.live);
    const states = await Promise.all(
      ids.map(async (id) => ({
        id,
        status: await this.connection.send<string | null>(['HGET', this.taskKey(id), 'status'], this.taskKey(id)),
      })),
    );
    const gone = states.filter(({ status }) => status === null).map(({ id }) => id);
    const finished = states
      .filter(({ status }) => status !== null && isTerminal(status as TaskStatus))
      .map(({ id }) => id);
    if (gone.length > 0) await this.release(scope, ...gone);
    const marked = await Promise.all(finished.map((id) => this.markFinished(scope, id)));
    return gone.length > 0 || marked.some((changed) => changed);
  }

  /** Marks a task finished in `scope`; true when it was not marked before. */
  private async markFinished(scope: Scope, taskId: string): Promise<boolean> {
    const already = await this.connection.send<string | null>(['ZSCORE', scope.finished, taskId], scope.finished);
    if (already !== null) return false;
    return (
      (await this.connection.send<number>(
        ['EVAL', MARK_FINISHED, '2', scope.live, scope.finished, taskId],
        scope.live,
      )) === 1
    );
  }

  /** Frees the places of `taskIds` in `scope` (one slot: one command each key). */
  private async release(scope: Scope, ...taskIds: string[]): Promise<void> {
    await this.connection.send(['ZREM', scope.live, ...taskIds], scope.live);
    await this.connection.send(['ZREM', scope.finished, ...taskIds], scope.finished);
  }

  /** Deletes a task's record; its owner, or undefined when it was gone. */
  private async dropTask(taskId: string): Promise<string | undefined> {
    const taskKey = this.taskKey(taskId);
    return (await this.connection.send<string | null>(['EVAL', DROP, '1', taskKey], taskKey)) ?? undefined;
  }

  /** A task evicted from one scope: its record goes, and so does its place in the other scope. */
  private async evict(taskId: string, from: Scope): Promise<void> {
    const owner = await this.dropTask(taskId);
    if (from.refusal === 'maxPerPrincipal') await this.release(this.global, taskId);
    else if (owner !== undefined) await this.release(this.ownerScope(owner), taskId);
  }
}
