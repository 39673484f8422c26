// MemoryTaskStore: owner isolation, bounds (per principal and in total), TTL expiry and the sweep, copies in and out.

import { McpConfigError, MemoryTaskStore, type TaskRecord } from '../../../../lib';
import { resolveTasks } from '../../../../lib/core/protocol/tasks/task-options';

let clock = 1_000_000;
const now = (): number => clock;

function task(taskId: string, owner: string, extra: Partial<TaskRecord> = {}): TaskRecord {
  return {
    taskId,
    owner,
    era: '2026',
    method: 'tools/call',
    name: 'job',
    status: 'working',
    createdAt: clock,
    lastUpdatedAt: clock,
    ttlMs: 1000,
    pollIntervalMs: 100,
    ...extra,
  };
}

beforeEach(() => {
  clock = 1_000_000;
});

describe('MemoryTaskStore', () => {
  it('finds a task for its owner only: another owner gets undefined, as for an unknown id', async () => {
    const store = new MemoryTaskStore({ now });
    await store.create(task('t1', 'principal:alice'));
    expect((await store.get('t1', 'principal:alice'))?.taskId).toBe('t1');
    expect(await store.get('t1', 'principal:bob')).toBeUndefined();
    expect(await store.get('nope', 'principal:alice')).toBeUndefined();
    expect(await store.put({ ...task('t1', 'principal:bob'), status: 'cancelled' })).toBe(false);
    expect((await store.get('t1', 'principal:alice'))?.status).toBe('working');
    expect(await store.list('principal:bob')).toEqual([]);
    store.close();
  });

  it('bounds the tasks of one principal: a finished one is evicted first, else the new task is refused', async () => {
    const store = new MemoryTaskStore({ now, maxPerPrincipal: 2 });
    await store.create(task('a', 'p'));
    await store.create(task('b', 'p'));
    await expect(store.create(task('c', 'p'))).rejects.toMatchObject({
      name: 'TaskLimitError',
      limit: 'maxPerPrincipal',
    });
    // Another principal is not affected.
    await store.create(task('x', 'q'));
    await store.put({ ...task('a', 'p'), status: 'completed', result: { content: [] } });
    await store.create(task('c', 'p'));
    expect(await store.get('a', 'p')).toBeUndefined();
    expect((await store.list('p')).map((record) => record.taskId)).toEqual(['b', 'c']);
    store.close();
  });

  it('bounds the tasks of the whole store', async () => {
    const store = new MemoryTaskStore({ now, max: 2 });
    await store.create(task('a', 'p'));
    await store.create(task('b', 'q'));
    await expect(store.create(task('c', 'r'))).rejects.toMatchObject({ limit: 'max' });
    expect(store.size).toBe(2);
    store.close();
  });

  it('forgets a task at createdAt + ttlMs, and the sweep drops it', async () => {
    const store = new MemoryTaskStore({ now });
    await store.create(task('t', 'p', { ttlMs: 500 }));
    clock += 499;
    expect(await store.get('t', 'p')).toBeDefined();
    clock += 1;
    expect(await store.get('t', 'p')).toBeUndefined();
    expect(await store.put(task('t', 'p'))).toBe(false);
    expect(store.size).toBe(1);
    store.sweep();
    expect(store.size).toBe(0);
    // An expired task also frees its owner's place without a sweep.
    const bounded = new MemoryTaskStore({ now, maxPerPrincipal: 1 });
    await bounded.create(task('old', 'p', { ttlMs: 10 }));
    clock += 10;
    await bounded.create(task('new', 'p'));
    expect((await bounded.list('p')).map((record) => record.taskId)).toEqual(['new']);
    bounded.close();
  });

  it('sweeps on its own timer, which stops when the store is empty', async () => {
    jest.useFakeTimers();
    try {
      const store = new MemoryTaskStore({ sweepIntervalMs: 1000 });
      await store.create(task('t', 'p', { createdAt: Date.now(), ttlMs: 1500 }));
      jest.advanceTimersByTime(1000);
      expect(store.size).toBe(1);
      jest.advanceTimersByTime(1000);
      expect(store.size).toBe(0);
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it('copies records in and out: callers never change what the store holds', async () => {
    const store = new MemoryTaskStore({ now });
    const record = task('t', 'p', { result: { content: [{ type: 'text', text: 'a' }] } });
    await store.create(record);
    (record.result as { content: unknown[] }).content.push('mutated');
    const read = await store.get('t', 'p');
    (read?.result as { content: unknown[] }).content.push('again');
    expect((await store.get('t', 'p'))?.result).toEqual({ content: [{ type: 'text', text: 'a' }] });
    store.close();
  });

  it('refuses bad options with McpConfigError', () => {
    expect(() => new MemoryTaskStore({ max: 0 })).toThrow(McpConfigError);
    expect(() => new MemoryTaskStore({ maxPerPrincipal: 1.5 })).toThrow(/maxPerPrincipal/);
    expect(() => new MemoryTaskStore({ sweepInterval: 5 } as never)).toThrow(
      /unknown option 'MemoryTaskStore\.sweepInterval'/,
    );
  });
});

describe('the tasks option', () => {
  it('defaults to a memory store, one hour and a 1 s poll interval', () => {
    const resolved = resolveTasks(undefined);
    expect(resolved).toMatchObject({ ttlMs: 3_600_000, pollIntervalMs: 1000 });
    expect(resolved.store).toBeInstanceOf(MemoryTaskStore);
  });

  it('names the option it refuses', () => {
    expect(() => resolveTasks({ ttlMs: -1 })).toThrow(/tasks\.ttlMs/);
    expect(() => resolveTasks({ pollIntervalMs: 'fast' as never })).toThrow(/tasks\.pollIntervalMs/);
    expect(() => resolveTasks({ ttl: 5 } as never)).toThrow(/unknown option 'tasks\.ttl'/);
    expect(() => resolveTasks({ store: {} as never })).toThrow(/tasks\.store/);
    expect(() => resolveTasks({ store: new MemoryTaskStore(), max: 5 })).toThrow(/set its bounds there/);
  });
});
