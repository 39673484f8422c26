// MemoryMessageBus: delivery by topic, unsubscribe, failing listeners, and no topic left behind.

import type { JsonRpcMessage } from '../../../lib/core/jsonrpc/types';
import { MemoryMessageBus, type MemoryMessageBusOptions } from '../../../lib/edge/store/memory-message-bus';
import { configError, rejection } from '../../helpers/errors';

const message = (n: number): JsonRpcMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { n } });

describe('MemoryMessageBus options', () => {
  it.each<[string, unknown, string, RegExp]>([
    [
      'onListenerError not a function',
      { onListenerError: 'log' },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'MemoryMessageBus\.onListenerError' must be a function, got "log"$/,
    ],
    [
      'a misspelt key',
      { onError: () => undefined },
      'ERR_MCP_UNKNOWN_OPTION',
      /^mcpRouter: unknown option 'MemoryMessageBus\.onError'\.$/,
    ],
    [
      'null options',
      null,
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'MemoryMessageBus' must be an object, got null$/,
    ],
  ])('rejects %s', (_label, options, code, pattern) => {
    const err = configError(() => new MemoryMessageBus(options as MemoryMessageBusOptions));
    expect(err.code).toBe(code);
    expect(err.message).toMatch(pattern);
  });

  it('rejects a listener that is not a function', async () => {
    const err = await rejection(new MemoryMessageBus().subscribe('t', 'nope' as unknown as () => void));
    expect(err).toBeInstanceOf(TypeError);
  });
});

describe('MemoryMessageBus delivery', () => {
  it('delivers to every listener of the topic, and to no other topic, before publish resolves', async () => {
    const bus = new MemoryMessageBus();
    const got: string[] = [];
    await bus.subscribe('a', (m) => got.push(`a1:${JSON.stringify(m)}`));
    await bus.subscribe('a', () => got.push('a2'));
    await bus.subscribe('b', () => got.push('b'));
    await bus.publish('a', message(1));
    expect(got).toEqual([`a1:${JSON.stringify(message(1))}`, 'a2']);
  });

  it('resolves when nobody listens', async () => {
    const bus = new MemoryMessageBus();
    await expect(bus.publish('nobody', message(1))).resolves.toBeUndefined();
    expect(bus.topicCount).toBe(0);
  });

  it('treats the same function subscribed twice as two subscriptions', async () => {
    const bus = new MemoryMessageBus();
    const listener = jest.fn();
    const first = await bus.subscribe('t', listener);
    await bus.subscribe('t', listener);
    await bus.publish('t', message(1));
    expect(listener).toHaveBeenCalledTimes(2);
    await first();
    await bus.publish('t', message(2));
    expect(listener).toHaveBeenCalledTimes(3);
  });
});

describe('MemoryMessageBus unsubscribe', () => {
  it('stops delivery, can be called twice, and removes the topic with its last listener', async () => {
    const bus = new MemoryMessageBus();
    const kept = jest.fn();
    const dropped = jest.fn();
    const unsubscribeKept = await bus.subscribe('t', kept);
    const unsubscribeDropped = await bus.subscribe('t', dropped);
    await unsubscribeDropped();
    await unsubscribeDropped();
    await bus.publish('t', message(1));
    expect(dropped).not.toHaveBeenCalled();
    expect(kept).toHaveBeenCalledTimes(1);
    expect(bus.topicCount).toBe(1);
    await unsubscribeKept();
    expect(bus.topicCount).toBe(0);
  });

  it('a stale unsubscribe does not remove a newer subscription to the same topic', async () => {
    const bus = new MemoryMessageBus();
    const stale = await bus.subscribe('t', () => undefined);
    await stale();
    const fresh = jest.fn();
    await bus.subscribe('t', fresh);
    await stale();
    await bus.publish('t', message(1));
    expect(fresh).toHaveBeenCalledTimes(1);
    expect(bus.topicCount).toBe(1);
  });

  it('a listener unsubscribed by an earlier one during a publish gets nothing; one added during it waits for the next', async () => {
    const bus = new MemoryMessageBus();
    const later = jest.fn();
    const added = jest.fn();
    let unsubscribeLater: () => Promise<void> = async () => undefined;
    await bus.subscribe('t', () => {
      void unsubscribeLater();
      void bus.subscribe('t', added);
    });
    unsubscribeLater = await bus.subscribe('t', later);
    await bus.publish('t', message(1));
    expect(later).not.toHaveBeenCalled();
    expect(added).not.toHaveBeenCalled();
  });

  it('leaves no topic behind after 1,000 subscribe/unsubscribe cycles', async () => {
    const bus = new MemoryMessageBus();
    for (let i = 0; i < 1000; i++) {
      const unsubscribe = await bus.subscribe(`request-${i}`, () => undefined);
      await bus.publish(`request-${i}`, message(i));
      await unsubscribe();
    }
    expect(bus.topicCount).toBe(0);
  });
});

describe('MemoryMessageBus failing listeners', () => {
  it('keeps delivering after a listener throws, resolves publish, and reports the error with its topic', async () => {
    const onListenerError = jest.fn();
    const bus = new MemoryMessageBus({ onListenerError });
    const failure = new Error('listener failed');
    const after = jest.fn();
    await bus.subscribe('t', () => {
      throw failure;
    });
    await bus.subscribe('t', after);
    await expect(bus.publish('t', message(1))).resolves.toBeUndefined();
    expect(after).toHaveBeenCalledWith(message(1));
    expect(onListenerError).toHaveBeenCalledWith(failure, 't');
  });

  it('reports an async listener that rejects', async () => {
    const onListenerError = jest.fn();
    const bus = new MemoryMessageBus({ onListenerError });
    const failure = new Error('async listener failed');
    await bus.subscribe('t', (async () => {
      throw failure;
    }) as () => void);
    await bus.publish('t', message(1));
    await new Promise(setImmediate);
    expect(onListenerError).toHaveBeenCalledWith(failure, 't');
  });

  it('swallows listener errors by default, and survives an onListenerError that throws', async () => {
    const throwing = (): void => {
      throw new Error('listener failed');
    };
    for (const bus of [new MemoryMessageBus(), new MemoryMessageBus({ onListenerError: throwing })]) {
      const after = jest.fn();
      await bus.subscribe('t', throwing);
      await bus.subscribe('t', after);
      await expect(bus.publish('t', message(1))).resolves.toBeUndefined();
      expect(after).toHaveBeenCalledTimes(1);
    }
  });
});
