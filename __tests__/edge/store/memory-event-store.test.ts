// MemoryEventStore: event ids, replay after Last-Event-ID, bounded buffers, stream limits and session isolation.

import type { JsonRpcMessage, JsonRpcNotification } from '../../../lib/core/jsonrpc/types';
import {
  MemoryEventStore,
  synchronousAppend,
  type MemoryEventStoreOptions,
} from '../../../lib/edge/store/memory-event-store';
import { configError, rejection } from '../../helpers/errors';

const note = (n: number): JsonRpcMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progress: n },
});

/** Appends `count` notifications (progress 1…count) to a stream and returns their ids. */
async function appendNotes(
  store: MemoryEventStore,
  sessionId: string,
  streamId: string,
  count: number,
): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 1; n <= count; n++) ids.push(await store.append(sessionId, streamId, note(n)));
  return ids;
}

/** The progress values of a replay, or undefined. */
async function replayed(
  store: MemoryEventStore,
  sessionId: string,
  lastEventId: string,
): Promise<unknown[] | undefined> {
  const replay = await store.replayAfter(sessionId, lastEventId);
  return replay?.events.map((event) =>
    event.message && 'params' in event.message ? event.message.params?.progress : event.message,
  );
}

describe('MemoryEventStore options', () => {
  it.each<[string, unknown, string, RegExp]>([
    [
      'maxEventsPerStream 0',
      { maxEventsPerStream: 0 },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'MemoryEventStore\.maxEventsPerStream' must be a positive integer, got 0$/,
    ],
    [
      'maxEventsPerStream 1.5',
      { maxEventsPerStream: 1.5 },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'MemoryEventStore\.maxEventsPerStream' must be a positive integer/,
    ],
    [
      "maxEventsPerStream '10'",
      { maxEventsPerStream: '10' },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'MemoryEventStore\.maxEventsPerStream' must be a positive integer, got "10"$/,
    ],
    [
      'maxStreamsPerSession -1',
      { maxStreamsPerSession: -1 },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'MemoryEventStore\.maxStreamsPerSession' must be a positive integer, got -1$/,
    ],
    [
      'maxStreamsPerSession Infinity',
      { maxStreamsPerSession: Infinity },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'MemoryEventStore\.maxStreamsPerSession' must be a positive integer/,
    ],
    [
      'a misspelt key',
      { maxEvents: 10 },
      'ERR_MCP_UNKNOWN_OPTION',
      /^mcpRouter: unknown option 'MemoryEventStore\.maxEvents'\.$/,
    ],
    [
      'null options',
      null,
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'MemoryEventStore' must be an object, got null$/,
    ],
  ])('rejects %s', (_label, options, code, message) => {
    const err = configError(() => new MemoryEventStore(options as MemoryEventStoreOptions));
    expect(err.code).toBe(code);
    expect(err.message).toMatch(message);
  });

  it('defaults to 1000 events per stream and 100 streams per session', async () => {
    const store = new MemoryEventStore();
    const ids = await appendNotes(store, 's', 'A', 1001);
    expect(await store.replayAfter('s', ids[0]!)).toMatchObject({ streamId: 'A' }); // event 2 is still held
    await store.append('s', 'A', note(1002));
    expect(await store.replayAfter('s', ids[0]!)).toBeUndefined(); // event 2 is gone
    for (let i = 1; i < 100; i++) await store.append('s', `S${i}`, null);
    expect(await store.replayAfter('s', ids[1000]!)).toBeDefined();
    await store.append('s', 'S100', null);
    expect(await store.replayAfter('s', ids[1000]!)).toBeUndefined();
  });
});

describe('MemoryEventStore ids', () => {
  it('numbers events <streamId>.<seq> from 1, separately per stream', async () => {
    const store = new MemoryEventStore();
    expect(await store.append('s', 'QUJD', note(1))).toBe('QUJD.1');
    expect(await store.append('s', 'QUJD', note(2))).toBe('QUJD.2');
    expect(await store.append('s', 'x-y_Z', null)).toBe('x-y_Z.1');
    expect(await store.append('s', 'QUJD', note(3))).toBe('QUJD.3');
    expect(await store.append('other', 'QUJD', note(1))).toBe('QUJD.1');
  });

  it.each(['', 'a.b', 'a b', 'a/b', 'a+b', 'a=', 'ä'])('rejects the non-base64url stream id %j', async (streamId) => {
    const err = await rejection(new MemoryEventStore().append('s', streamId, null));
    expect(err).toBeInstanceOf(TypeError);
    expect((err as Error).message).toMatch(/^MemoryEventStore: stream id must be base64url/);
  });
});

describe('MemoryEventStore replayAfter', () => {
  it('returns the stream and the events after the given one, and none after the last', async () => {
    const store = new MemoryEventStore();
    const ids = await appendNotes(store, 's', 'A', 4);
    await appendNotes(store, 's', 'B', 2);
    expect(await store.replayAfter('s', ids[1]!)).toEqual({
      streamId: 'A',
      events: [
        { id: 'A.3', message: note(3) },
        { id: 'A.4', message: note(4) },
      ],
    });
    expect(await store.replayAfter('s', ids[3]!)).toEqual({ streamId: 'A', events: [] });
    expect(await replayed(store, 's', 'B.1')).toEqual([2]);
  });

  it('stores priming events as message: null and replays them', async () => {
    const store = new MemoryEventStore();
    const priming = await store.append('s', 'A', null);
    await store.append('s', 'A', note(1));
    await store.append('s', 'A', null);
    expect(priming).toBe('A.1');
    expect(await store.replayAfter('s', priming)).toEqual({
      streamId: 'A',
      events: [
        { id: 'A.2', message: note(1) },
        { id: 'A.3', message: null },
      ],
    });
  });

  it.each(['', 'A', 'A.', '.1', 'A.0', 'A.01', 'A.-1', 'A.1.5', 'A.x', 'A.1 ', 'A..1', 'A.99999999999999999999'])(
    'answers undefined for the malformed id %j',
    async (lastEventId) => {
      const store = new MemoryEventStore();
      await appendNotes(store, 's', 'A', 3);
      expect(await store.replayAfter('s', lastEventId)).toBeUndefined();
    },
  );

  it('answers undefined for an unknown stream, an id never issued, and an unknown session', async () => {
    const store = new MemoryEventStore();
    await appendNotes(store, 's', 'A', 3);
    expect(await store.replayAfter('s', 'B.1')).toBeUndefined();
    expect(await store.replayAfter('s', 'A.4')).toBeUndefined();
    expect(await store.replayAfter('nobody', 'A.1')).toBeUndefined();
  });

  it("never replays another session's stream, even one with the same stream id", async () => {
    const store = new MemoryEventStore();
    const [theirs] = await appendNotes(store, 'them', 'T', 3);
    expect(await store.replayAfter('me', theirs!)).toBeUndefined();
    await appendNotes(store, 'me', 'T', 1);
    expect(await replayed(store, 'me', 'T.1')).toEqual([]);
    expect(await replayed(store, 'them', 'T.1')).toEqual([2, 3]);
  });

  it('copies messages in and out', async () => {
    const store = new MemoryEventStore();
    const params = { progress: 1 };
    await store.append('s', 'A', null);
    await store.append('s', 'A', { jsonrpc: '2.0', method: 'notifications/progress', params });
    params.progress = 99;
    const first = await store.replayAfter('s', 'A.1');
    expect(first?.events[0]?.message).toEqual(note(1));
    (first?.events[0]?.message as JsonRpcNotification).params!.progress = 42;
    expect(await replayed(store, 's', 'A.1')).toEqual([1]);
  });

  it('keeps the JSON text it is given (what the stream sent) instead of serialising the message again', async () => {
    const store = new MemoryEventStore();
    const sent = '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}';
    await store.append('s', 'A', null);
    await store.append('s', 'A', { jsonrpc: '2.0', id: 1, result: { not: 'what was sent' } }, sent);
    expect((await store.replayAfter('s', 'A.1'))?.events).toEqual([{ id: 'A.2', message: JSON.parse(sent) }]);
  });

  it('keeps a structured copy of a message that JSON cannot hold', async () => {
    const store = new MemoryEventStore();
    const result = { big: 10n };
    await store.append('s', 'A', null);
    await store.append('s', 'A', { jsonrpc: '2.0', id: 1, result });
    result.big = 0n;
    expect((await store.replayAfter('s', 'A.1'))?.events).toEqual([
      { id: 'A.2', message: { jsonrpc: '2.0', id: 1, result: { big: 10n } } },
    ]);
  });
});

describe('MemoryEventStore bounded buffers', () => {
  it('replays from an id whose successor is still held, and refuses one whose successors were dropped', async () => {
    const store = new MemoryEventStore({ maxEventsPerStream: 3 });
    await appendNotes(store, 's', 'A', 5); // holds A.3, A.4, A.5
    expect(await store.replayAfter('s', 'A.1')).toBeUndefined(); // A.2 is gone: replaying would skip it
    expect(await replayed(store, 's', 'A.2')).toEqual([3, 4, 5]); // nothing skipped
    expect(await replayed(store, 's', 'A.3')).toEqual([4, 5]);
    expect(await replayed(store, 's', 'A.5')).toEqual([]);
  });

  it('forgets the least recently written stream when a session opens one too many', async () => {
    const store = new MemoryEventStore({ maxStreamsPerSession: 2 });
    await appendNotes(store, 's', 'A', 1);
    await appendNotes(store, 's', 'B', 1);
    await appendNotes(store, 's', 'A', 1); // A written last: B is now the oldest
    await appendNotes(store, 's', 'C', 1);
    expect(await store.replayAfter('s', 'B.1')).toBeUndefined();
    expect(await replayed(store, 's', 'A.1')).toEqual([1]);
    expect(await replayed(store, 's', 'C.1')).toEqual([]);
    await appendNotes(store, 's', 'D', 1);
    expect(await store.replayAfter('s', 'A.1')).toBeUndefined();
  });

  it('keeps the order of writing when the same session and stream are written many times in a row', async () => {
    const store = new MemoryEventStore({ maxBytes: 3 * JSON.stringify(note(1)).length });
    await appendNotes(store, 'one', 'A', 1);
    await appendNotes(store, 'two', 'B', 1);
    await appendNotes(store, 'one', 'A', 1); // 'one' written last again: 'two' is now the oldest
    expect(store.appendSync('one', 'A', note(3), JSON.stringify(note(3)))).toBe('A.3'); // past maxBytes
    expect(await store.replayAfter('two', 'B.1')).toBeUndefined();
    expect(await replayed(store, 'one', 'A.1')).toEqual([1, 3]); // A.2 (appendNotes' first note again) and A.3
  });

  it('numbers a stream afresh when its session was deleted and written again', async () => {
    const store = new MemoryEventStore();
    await appendNotes(store, 's', 'A', 2);
    await store.deleteSession('s');
    expect(store.appendSync('s', 'A', null)).toBe('A.1');
    expect(store.bytes).toBe(0);
  });

  it("synchronousAppend offers appendSync only for a store whose append is the memory store's own", async () => {
    class Mirrored extends MemoryEventStore {
      override async append(...args: Parameters<MemoryEventStore['append']>): Promise<string> {
        return super.append(...args);
      }
    }
    expect(synchronousAppend(new Mirrored())).toBeUndefined();
    const store = new MemoryEventStore();
    expect(synchronousAppend(store)?.('s', 'A', null)).toBe('A.1');
    expect(await store.append('s', 'A', null)).toBe('A.2');
  });

  it('appendSync refuses a stream id that is not base64url, as append does', async () => {
    const store = new MemoryEventStore();
    expect(() => store.appendSync('s', 'a.b', null)).toThrow(TypeError);
    await expect(store.append('s', 'a b', null)).rejects.toThrow(TypeError);
  });

  it("counts streams per session: one session's streams never push out another's", async () => {
    const store = new MemoryEventStore({ maxStreamsPerSession: 1 });
    await appendNotes(store, 'one', 'A', 1);
    await appendNotes(store, 'two', 'B', 1);
    await appendNotes(store, 'two', 'C', 1);
    expect(await replayed(store, 'one', 'A.1')).toEqual([]);
    expect(await store.replayAfter('two', 'B.1')).toBeUndefined();
  });

  it('numbers a forgotten stream afresh if its id is written again (callers use fresh random stream ids)', async () => {
    const store = new MemoryEventStore({ maxStreamsPerSession: 1 });
    await appendNotes(store, 's', 'A', 3);
    await appendNotes(store, 's', 'B', 1);
    expect(await store.append('s', 'A', null)).toBe('A.1');
    expect(await store.replayAfter('s', 'A.3')).toBeUndefined();
  });
});

describe('MemoryEventStore bounded in size: what a client asks for cannot make the store hold more', () => {
  /** A message whose JSON text is about `size` characters: a large tool result, say. */
  const large = (size: number, tag: string): JsonRpcMessage => ({
    jsonrpc: '2.0',
    id: tag,
    result: { text: 'x'.repeat(size) },
  });

  it('past maxBytesPerSession, forgets the least recently written streams of that session first', async () => {
    const store = new MemoryEventStore({ maxBytesPerSession: 25_000 });
    const a = await store.append('s', 'A', large(10_000, 'a'));
    const b = await store.append('s', 'B', large(10_000, 'b'));
    await store.append('s', 'C', large(10_000, 'c'));
    expect(await store.replayAfter('s', a)).toBeUndefined();
    expect(await store.replayAfter('s', b)).toEqual({ streamId: 'B', events: [] });
    expect(store.bytes).toBeLessThanOrEqual(25_000);
  });

  it('then the oldest events of the stream being written, always keeping its newest', async () => {
    const store = new MemoryEventStore({ maxBytesPerSession: 25_000 });
    const ids = [];
    for (let n = 0; n < 5; n++) ids.push(await store.append('s', 'A', large(10_000, `a${n}`)));
    expect(await store.replayAfter('s', ids[2]!)).toMatchObject({ events: [{ id: ids[3] }, { id: ids[4] }] });
    expect(await store.replayAfter('s', ids[1]!)).toBeUndefined();
    // One event larger than the whole budget is still held: a client resuming right now needs it.
    const huge = await store.append('s', 'B', large(100_000, 'huge'));
    expect(await store.replayAfter('s', `${huge.split('.')[0]}.0`)).toBeUndefined();
    expect(store.bytes).toBeGreaterThan(100_000);
    expect(store.bytes).toBeLessThan(101_000);
  });

  it("past maxBytes, forgets the least recently written sessions' events, never the session being written", async () => {
    const store = new MemoryEventStore({ maxBytes: 50_000 });
    const first = await store.append('s1', 'A', large(20_000, '1'));
    const second = await store.append('s2', 'A', large(20_000, '2'));
    await store.append('s3', 'A', large(20_000, '3'));
    expect(await store.replayAfter('s1', first)).toBeUndefined();
    expect(await store.replayAfter('s2', second)).toEqual({ streamId: 'A', events: [] });
    expect(store.sessionCount).toBe(2);
    expect(store.bytes).toBeLessThanOrEqual(50_000);
  });

  it('counts what deleteSession and the count limits drop, so the size stays exact', async () => {
    const store = new MemoryEventStore({ maxEventsPerStream: 2, maxStreamsPerSession: 1 });
    await appendNotes(store, 's', 'A', 5);
    await appendNotes(store, 's', 'B', 5);
    await appendNotes(store, 't', 'A', 1);
    const one = JSON.stringify(note(1)).length;
    expect(store.bytes).toBe(3 * one);
    await store.deleteSession('s');
    expect(store.bytes).toBe(one);
    await store.deleteSession('t');
    expect(store.bytes).toBe(0);
  });

  it('defaults to 4 MiB per session and 64 MiB in all', async () => {
    const store = new MemoryEventStore();
    for (let n = 0; n < 5; n++) await store.append('s', `S${n}`, large(1024 * 1024, `${n}`));
    expect(store.bytes).toBeLessThanOrEqual(4 * 1024 * 1024);
    expect(store.bytes).toBeGreaterThan(3 * 1024 * 1024);
    for (let n = 0; n < 20; n++) await store.append(`t${n}`, 'A', large(4 * 1024 * 1024 - 100, `${n}`));
    expect(store.bytes).toBeLessThanOrEqual(64 * 1024 * 1024);
    expect(store.bytes).toBeGreaterThan(56 * 1024 * 1024);
  });

  it.each([
    ['maxBytesPerSession 0', { maxBytesPerSession: 0 }],
    ['maxBytes -1', { maxBytes: -1 }],
  ])('rejects %s at construction', (_label, options) => {
    expect(configError(() => new MemoryEventStore(options)).code).toBe('ERR_MCP_INVALID_OPTION');
  });
});

describe('MemoryEventStore deleteSession', () => {
  it("forgets every stream of the session and nothing of the others'", async () => {
    const store = new MemoryEventStore();
    await appendNotes(store, 'gone', 'A', 2);
    await appendNotes(store, 'gone', 'B', 2);
    await appendNotes(store, 'kept', 'A', 2);
    expect(store.sessionCount).toBe(2);
    await store.deleteSession('gone');
    await store.deleteSession('never-existed');
    expect(await store.replayAfter('gone', 'A.1')).toBeUndefined();
    expect(await store.replayAfter('gone', 'B.1')).toBeUndefined();
    expect(await replayed(store, 'kept', 'A.1')).toEqual([2]);
    expect(store.sessionCount).toBe(1);
  });
});
