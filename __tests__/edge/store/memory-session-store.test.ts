// MemorySessionStore: options, copies, idle TTL (lazy and swept), LRU eviction, drop listeners and the one timer.

import { MemorySessionStore, type MemorySessionStoreOptions } from '../../../lib/edge/store/memory-session-store';
import { configError } from '../../helpers/errors';
import { sessionRecord } from '../../helpers/session-record';

const MINUTE = 60 * 1000;
const TTL = 10 * MINUTE;

/** A store and the drops it reported, as `id:reason`. */
function storeWithDrops(options: MemorySessionStoreOptions = {}): { store: MemorySessionStore; drops: string[] } {
  const store = new MemorySessionStore({ idleTtlMs: TTL, ...options });
  const drops: string[] = [];
  store.onDrop((id, reason) => drops.push(`${id}:${reason}`));
  return { store, drops };
}

async function setAll(store: MemorySessionStore, ...ids: string[]): Promise<void> {
  for (const id of ids) await store.set(sessionRecord(id));
}

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

describe('MemorySessionStore options', () => {
  it.each<[string, unknown, string, RegExp]>([
    [
      'idleTtlMs 0',
      { idleTtlMs: 0 },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'MemorySessionStore\.idleTtlMs' must be a positive integer, got 0$/,
    ],
    [
      'idleTtlMs -1',
      { idleTtlMs: -1 },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'MemorySessionStore\.idleTtlMs' must be a positive integer, got -1$/,
    ],
    [
      'idleTtlMs 1.5',
      { idleTtlMs: 1.5 },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'MemorySessionStore\.idleTtlMs' must be a positive integer/,
    ],
    [
      'idleTtlMs NaN',
      { idleTtlMs: NaN },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'MemorySessionStore\.idleTtlMs' must be a positive integer/,
    ],
    [
      'idleTtlMs Infinity',
      { idleTtlMs: Infinity },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'MemorySessionStore\.idleTtlMs' must be a positive integer/,
    ],
    [
      "idleTtlMs '60000'",
      { idleTtlMs: '60000' },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'MemorySessionStore\.idleTtlMs' must be a positive integer, got "60000"$/,
    ],
    [
      'max 0',
      { max: 0 },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'MemorySessionStore\.max' must be a positive integer, got 0$/,
    ],
    [
      'max 2.5',
      { max: 2.5 },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'MemorySessionStore\.max' must be a positive integer/,
    ],
    [
      'now not a function',
      { now: 123 },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'MemorySessionStore\.now' must be a function, got 123$/,
    ],
    [
      'a misspelt key',
      { idleTTLMs: 1000 },
      'ERR_MCP_UNKNOWN_OPTION',
      /^mcpRouter: unknown option 'MemorySessionStore\.idleTTLMs'\. Did you mean 'MemorySessionStore\.idleTtlMs'\?$/,
    ],
    [
      'null options',
      null,
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'MemorySessionStore' must be an object, got null$/,
    ],
  ])('rejects %s', (_label, options, code, message) => {
    const err = configError(() => new MemorySessionStore(options as MemorySessionStoreOptions));
    expect(err.code).toBe(code);
    expect(err.message).toMatch(message);
  });

  it('accepts undefined values as defaults and does not change the options object', () => {
    const options = Object.freeze({ idleTtlMs: undefined, max: 5 });
    expect(() => new MemorySessionStore(options)).not.toThrow();
  });

  it('defaults to a 30 minute idle TTL', async () => {
    const store = new MemorySessionStore();
    await store.set(sessionRecord('a'));
    jest.advanceTimersByTime(30 * MINUTE);
    expect(await store.get('a')).toBeDefined();
    jest.advanceTimersByTime(30 * MINUTE + 1);
    expect(await store.get('a')).toBeUndefined();
  });

  it('defaults to 10,000 sessions', async () => {
    const { store, drops } = storeWithDrops();
    for (let i = 0; i < 10_000; i++) await store.set(sessionRecord(`s${i}`));
    expect(drops).toEqual([]);
    await store.set(sessionRecord('one-more'));
    expect(drops).toEqual(['s0:evicted']);
    expect(store.size).toBe(10_000);
    await store.close();
  });

  it('uses the injected clock', async () => {
    let time = 1_000;
    const { store, drops } = storeWithDrops({ now: () => time });
    await store.set(sessionRecord('a'));
    time += TTL + 1;
    expect(await store.get('a')).toBeUndefined();
    expect(drops).toEqual(['a:expired']);
  });
});

describe('MemorySessionStore records', () => {
  it('returns what was saved, and undefined for an unknown id', async () => {
    const { store } = storeWithDrops();
    const saved = sessionRecord('a');
    await store.set(saved);
    expect(await store.get('a')).toEqual(saved);
    expect(await store.get('nope')).toBeUndefined();
  });

  it('stores a copy: changing the saved object afterwards changes nothing', async () => {
    const { store } = storeWithDrops();
    const subscriptions: string[] = [];
    const saved = { ...sessionRecord('a'), subscriptions };
    await store.set(saved);
    subscriptions.push('file:///x');
    saved.logLevel = 'debug';
    expect(await store.get('a')).toMatchObject({ subscriptions: [], logLevel: undefined });
  });

  it('returns a fresh top level: reassigning a field of what get returned changes nothing until it is saved', async () => {
    const { store } = storeWithDrops();
    await store.set(sessionRecord('a'));
    const first = (await store.get('a'))!;
    first.subscriptions = [...first.subscriptions, 'file:///x'];
    first.logLevel = 'debug';
    expect(await store.get('a')).toMatchObject({ subscriptions: [], logLevel: undefined });
    expect(await store.get('a')).not.toBe(await store.get('a'));
    await store.set(first);
    expect((await store.get('a'))?.subscriptions).toEqual(['file:///x']);
  });

  it('hands out frozen nested values, not copies: get costs the same whatever the client sent', async () => {
    const { store } = storeWithDrops();
    const clientCapabilities = {
      experimental: Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => [`k${i}`, { i }])),
    };
    await store.set({ ...sessionRecord('a'), clientCapabilities });
    const [first, second] = [(await store.get('a'))!, (await store.get('a'))!];
    // The same nested objects on every get: nothing was copied.
    expect(second.clientCapabilities).toBe(first.clientCapabilities);
    expect(second.subscriptions).toBe(first.subscriptions);
    expect(Object.isFrozen(first.clientCapabilities.experimental)).toBe(true);
    expect(() => (first.subscriptions as string[]).push('file:///x')).toThrow(TypeError);
    expect(() => {
      (first.clientCapabilities as { roots?: unknown }).roots = {};
    }).toThrow(TypeError);
    expect((await store.get('a'))?.subscriptions).toEqual([]);
  });

  it("copies a client's JSON exactly, a '__proto__' key included, as data and not as a prototype", async () => {
    const { store } = storeWithDrops();
    const clientInfo = JSON.parse('{"name":"c","__proto__":{"polluted":true},"tags":[["a"],{"b":null}]}') as Record<
      string,
      unknown
    >;
    await store.set({ ...sessionRecord('a'), clientInfo });
    const copy = (await store.get('a'))!.clientInfo!;
    expect(Object.keys(copy)).toEqual(['name', '__proto__', 'tags']);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect((copy as { polluted?: boolean }).polluted).toBeUndefined();
    expect(copy).toEqual(clientInfo);
    expect(copy.tags).not.toBe(clientInfo.tags);
  });

  it('delete resolves true for a known session and false after that, without calling drop listeners', async () => {
    const { store, drops } = storeWithDrops();
    await store.set(sessionRecord('a'));
    expect(await store.delete('a')).toBe(true);
    expect(await store.delete('a')).toBe(false);
    expect(await store.delete('never')).toBe(false);
    expect(await store.get('a')).toBeUndefined();
    expect(drops).toEqual([]);
  });

  it('touch of an unknown id does nothing', async () => {
    const { store } = storeWithDrops();
    await store.touch('nope');
    expect(store.size).toBe(0);
    expect(jest.getTimerCount()).toBe(0);
  });
});

describe('MemorySessionStore idle TTL', () => {
  it('keeps a session idle for exactly idleTtlMs and drops it 1 ms later', async () => {
    const { store, drops } = storeWithDrops();
    await store.set(sessionRecord('a'));
    jest.advanceTimersByTime(TTL);
    expect(drops).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(drops).toEqual(['a:expired']);
    expect(await store.get('a')).toBeUndefined();
  });

  it('answers undefined for an expired session before any sweep ran, and reports it once', async () => {
    const { store, drops } = storeWithDrops();
    await store.set(sessionRecord('a'));
    jest.setSystemTime(Date.now() + TTL + 1); // the clock moves, no timer runs
    expect(await store.get('a')).toBeUndefined();
    expect(drops).toEqual(['a:expired']);
    jest.runOnlyPendingTimers();
    expect(drops).toEqual(['a:expired']);
    expect(jest.getTimerCount()).toBe(0);
  });

  it.each(['touch', 'delete', 'set'] as const)(
    '%s of an expired, unswept session reports it as expired',
    async (method) => {
      const { store, drops } = storeWithDrops();
      await store.set(sessionRecord('a'));
      jest.setSystemTime(Date.now() + TTL + 1);
      if (method === 'set') await store.set(sessionRecord('a'));
      else if (method === 'delete') expect(await store.delete('a')).toBe(false);
      else await store.touch('a');
      expect(drops).toEqual(['a:expired']);
    },
  );

  it.each(['get', 'touch', 'set'] as const)('%s counts as activity and restarts the idle TTL', async (method) => {
    const { store, drops } = storeWithDrops();
    await setAll(store, 'active', 'idle');
    jest.advanceTimersByTime(TTL - 1);
    if (method === 'set') await store.set(sessionRecord('active'));
    else await store[method]('active');
    jest.advanceTimersByTime(TTL - 1);
    expect(drops).toEqual(['idle:expired']);
    expect(await store.get('active')).toBeDefined();
    jest.advanceTimersByTime(TTL + 1);
    expect(drops).toEqual(['idle:expired', 'active:expired']);
  });

  it('keeps a TTL longer than setTimeout allows (about 24.8 days) from firing early', async () => {
    const { store, drops } = storeWithDrops({ idleTtlMs: 40 * 24 * 60 * MINUTE });
    await store.set(sessionRecord('a'));
    jest.advanceTimersByTime(25 * 24 * 60 * MINUTE);
    expect(drops).toEqual([]);
    jest.advanceTimersByTime(15 * 24 * 60 * MINUTE + 1);
    expect(drops).toEqual(['a:expired']);
  });
});

describe('MemorySessionStore eviction', () => {
  it('evicts the least recently active session when a new one is added at the cap', async () => {
    const { store, drops } = storeWithDrops({ max: 3 });
    await setAll(store, 'a', 'b', 'c');
    await setAll(store, 'd');
    expect(drops).toEqual(['a:evicted']);
    expect(await store.get('a')).toBeUndefined();
    expect(store.size).toBe(3);
  });

  it.each(['get', 'touch', 'set'] as const)('%s moves a session away from eviction', async (method) => {
    const { store, drops } = storeWithDrops({ max: 3 });
    await setAll(store, 'a', 'b', 'c');
    if (method === 'set') await store.set(sessionRecord('a'));
    else await store[method]('a');
    await setAll(store, 'd', 'e');
    expect(drops).toEqual(['b:evicted', 'c:evicted']);
    expect(await store.get('a')).toBeDefined();
  });

  it('does not evict when an existing session is saved again at the cap', async () => {
    const { store, drops } = storeWithDrops({ max: 2 });
    await setAll(store, 'a', 'b', 'a', 'b');
    expect(drops).toEqual([]);
  });

  it('reports an already expired session at the cap as expired, not evicted', async () => {
    const { store, drops } = storeWithDrops({ max: 2 });
    await setAll(store, 'a', 'b');
    jest.setSystemTime(Date.now() + TTL + 1);
    await store.set(sessionRecord('c'));
    expect(drops).toEqual(['a:expired']);
  });
});

describe('MemorySessionStore drop listeners', () => {
  it('calls every listener, even after one throws', async () => {
    const { store, drops } = storeWithDrops({ max: 1 });
    const second: string[] = [];
    store.onDrop(() => {
      throw new Error('listener failed');
    });
    store.onDrop((id, reason) => second.push(`${id}:${reason}`));
    await setAll(store, 'a', 'b');
    jest.advanceTimersByTime(TTL + 1);
    expect(drops).toEqual(['a:evicted', 'b:expired']);
    expect(second).toEqual(drops);
  });

  it('sees the session gone when called', async () => {
    const store = new MemorySessionStore({ idleTtlMs: TTL });
    const seen: unknown[] = [];
    store.onDrop((id) => seen.push(store.size, id));
    await store.set(sessionRecord('a'));
    jest.advanceTimersByTime(TTL + 1);
    expect(seen).toEqual([0, 'a']);
  });
});

describe('MemorySessionStore timer', () => {
  it('runs no timer while empty and one while it holds sessions', async () => {
    const { store } = storeWithDrops();
    expect(jest.getTimerCount()).toBe(0);
    await setAll(store, 'a', 'b', 'c');
    expect(jest.getTimerCount()).toBe(1);
  });

  it('leaves no timer behind after 1,000 sessions are created and deleted', async () => {
    const { store } = storeWithDrops();
    for (let i = 0; i < 1000; i++) await store.set(sessionRecord(`s${i}`));
    expect(jest.getTimerCount()).toBe(1);
    for (let i = 0; i < 1000; i++) expect(await store.delete(`s${i}`)).toBe(true);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('leaves no timer behind once every session expired, and starts one again for a new session', async () => {
    const { store, drops } = storeWithDrops();
    await setAll(store, 'a');
    jest.advanceTimersByTime(TTL / 2);
    await setAll(store, 'b');
    jest.advanceTimersByTime(TTL / 2 + 1);
    expect(drops).toEqual(['a:expired']);
    expect(jest.getTimerCount()).toBe(1);
    jest.advanceTimersByTime(TTL / 2);
    expect(drops).toEqual(['a:expired', 'b:expired']);
    expect(jest.getTimerCount()).toBe(0);
    await setAll(store, 'c');
    expect(jest.getTimerCount()).toBe(1);
  });

  it('close() clears the timer and every record without calling listeners', async () => {
    const { store, drops } = storeWithDrops();
    await setAll(store, 'a', 'b');
    await store.close();
    expect(jest.getTimerCount()).toBe(0);
    expect(store.size).toBe(0);
    expect(await store.get('a')).toBeUndefined();
    jest.advanceTimersByTime(TTL * 2);
    expect(drops).toEqual([]);
  });

  it('unrefs its timer so it never keeps the process alive', async () => {
    const unref = jest.fn();
    const spy = jest.spyOn(global, 'setTimeout').mockReturnValue({ unref } as unknown as NodeJS.Timeout);
    try {
      await new MemorySessionStore().set(sessionRecord('a'));
      expect(unref).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
    }
  });
});
