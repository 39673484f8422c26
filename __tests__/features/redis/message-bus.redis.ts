// RedisMessageBus against a real redis-server: two connections are two instances; shared subscriptions, bad payloads, failing listeners, a Redis restart.

import type { JsonRpcMessage } from '../../../lib/core/jsonrpc/types';
import type { RedisConnection } from '../../../lib/features/redis/connection';
import { RedisMessageBus } from '../../../lib/features/redis/message-bus';
import { StoreUnavailableError } from '../../../lib/edge/store/shared-store';
import { Signal } from '../../helpers/events';
import { until } from '../../helpers/until';
import { useRedis } from './redis-server';

const redis = useRedis();
/** Told by every listener of this file's tests (and the error reporter the waits look at) at each call. */
const delivered = new Signal();

const message = (n: number): JsonRpcMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { n } });

function connect(commandTimeoutMs?: number): RedisConnection {
  return redis.connect({ prefix: 'bus-test:', commandTimeoutMs });
}

function instance(onListenerError?: (err: unknown, topic: string) => void): {
  bus: RedisMessageBus;
  connection: RedisConnection;
} {
  const connection = connect();
  return { bus: new RedisMessageBus(connection, onListenerError), connection };
}

/** How many connections Redis has subscribed to `channel`. */
async function subscribers(connection: RedisConnection, channel: string): Promise<number> {
  const reply = await connection.send<[string, number]>(['PUBSUB', 'NUMSUB', channel]);
  return Number(reply[1]);
}

describe('RedisMessageBus delivery between instances', () => {
  it('delivers a message published on A to the subscribers of B and of A, and to no other topic', async () => {
    const a = instance();
    const b = instance();
    const onA = jest.fn(delivered.notify);
    const onB = jest.fn(delivered.notify);
    const other = jest.fn();
    await a.bus.subscribe('answer-1', onA);
    await b.bus.subscribe('answer-1', onB);
    await b.bus.subscribe('answer-2', other);
    await a.bus.publish('answer-1', message(1));
    await delivered.when(
      () => onA.mock.calls.length === 1 && onB.mock.calls.length === 1,
      'onA.mock.calls.length === 1 && onB.mock.calls.length === 1',
    );
    expect(onA).toHaveBeenCalledWith(message(1));
    expect(onB).toHaveBeenCalledWith(message(1));
    // B dispatched the message to onB: a copy misrouted to another topic would have gone out in the same dispatch.
    expect(other).not.toHaveBeenCalled();
  });

  it('delivers whatever is published on any instance once subscribe has resolved (no window before SUBSCRIBE is confirmed)', async () => {
    const a = instance();
    const b = instance();
    for (let i = 0; i < 20; i++) {
      const heard = jest.fn(delivered.notify);
      await a.bus.subscribe(`request-${i}`, heard);
      // Published at once, through another connection: only a confirmed subscription can hear it.
      await b.bus.publish(`request-${i}`, message(i));
      await delivered.when(() => heard.mock.calls.length === 1, 'heard.mock.calls.length === 1');
    }
  });

  it('keeps messages of one topic in the order they were published', async () => {
    const a = instance();
    const b = instance();
    const heard: unknown[] = [];
    await b.bus.subscribe('t', (m) => {
      heard.push((m as unknown as { params: { n: number } }).params.n);
      delivered.notify();
    });
    for (let i = 0; i < 50; i++) await a.bus.publish('t', message(i));
    await delivered.when(() => heard.length === 50, 'heard.length === 50');
    expect(heard).toEqual([...Array(50).keys()]);
  });

  it('resolves publish when nobody listens', async () => {
    const a = instance();
    await expect(a.bus.publish('nobody', message(1))).resolves.toBeUndefined();
  });

  it('rejects a listener that is not a function', async () => {
    const a = instance();
    await expect(a.bus.subscribe('t', 'nope' as unknown as () => void)).rejects.toBeInstanceOf(TypeError);
  });
});

describe('RedisMessageBus shared subscriptions', () => {
  it('shares one Redis subscription between the listeners of a topic, and ends it with the last one', async () => {
    const a = instance();
    const channel = a.connection.key('bus', 't');
    const first = jest.fn(delivered.notify);
    const second = jest.fn(delivered.notify);
    const [unsubscribeFirst, unsubscribeSecond] = await Promise.all([
      a.bus.subscribe('t', first),
      a.bus.subscribe('t', second),
    ]);
    expect(a.bus.topicCount).toBe(1);
    expect(await subscribers(a.connection, channel)).toBe(1);
    await a.bus.publish('t', message(1));
    await delivered.when(
      () => first.mock.calls.length === 1 && second.mock.calls.length === 1,
      'first.mock.calls.length === 1 && second.mock.calls.length === 1',
    );
    await unsubscribeFirst();
    await unsubscribeFirst();
    expect(await subscribers(a.connection, channel)).toBe(1);
    await a.bus.publish('t', message(2));
    await delivered.when(() => second.mock.calls.length === 2, 'second.mock.calls.length === 2');
    expect(first).toHaveBeenCalledTimes(1);
    await unsubscribeSecond();
    expect(a.bus.topicCount).toBe(0);
    expect(await subscribers(a.connection, channel)).toBe(0);
  });

  it('treats the same function subscribed twice as two subscriptions', async () => {
    const a = instance();
    const listener = jest.fn(delivered.notify);
    const first = await a.bus.subscribe('t', listener);
    await a.bus.subscribe('t', listener);
    await a.bus.publish('t', message(1));
    await delivered.when(() => listener.mock.calls.length === 2, 'listener.mock.calls.length === 2');
    await first();
    await a.bus.publish('t', message(2));
    await delivered.when(() => listener.mock.calls.length === 3, 'listener.mock.calls.length === 3');
  });

  it('a topic subscribed again while its last unsubscribe is under way is heard', async () => {
    const a = instance();
    const b = instance();
    const stale = await a.bus.subscribe('t', () => undefined);
    const fresh = jest.fn(delivered.notify);
    const [, unsubscribeFresh] = await Promise.all([stale(), a.bus.subscribe('t', fresh)]);
    await stale();
    await b.bus.publish('t', message(1));
    await delivered.when(() => fresh.mock.calls.length === 1, 'fresh.mock.calls.length === 1');
    await unsubscribeFresh();
    expect(await subscribers(a.connection, a.connection.key('bus', 't'))).toBe(0);
  });

  it('leaves no topic and no channel behind after 200 subscribe/publish/unsubscribe cycles', async () => {
    const a = instance();
    for (let i = 0; i < 200; i++) {
      const unsubscribe = await a.bus.subscribe(`request-${i}`, () => undefined);
      await a.bus.publish(`request-${i}`, message(i));
      await unsubscribe();
    }
    expect(a.bus.topicCount).toBe(0);
    expect(await a.connection.send<unknown[]>(['PUBSUB', 'CHANNELS', 'bus-test:*'])).toEqual([]);
  });
});

describe('RedisMessageBus bad payloads and failing listeners', () => {
  it('drops payloads that are not a JSON object, and delivers the next good one', async () => {
    const a = instance();
    const heard = jest.fn(delivered.notify);
    const onListenerError = jest.fn();
    const b = instance(onListenerError);
    await b.bus.subscribe('t', heard);
    const channel = a.connection.key('bus', 't');
    for (const payload of ['not json', '42', 'null', '"text"', '[1,2]', '{"jsonrpc":"2.0"'])
      await a.connection.send(['PUBLISH', channel, payload]);
    await a.bus.publish('t', message(7));
    // The bad payloads went first on the same channel: handled before this one.
    await delivered.when(() => heard.mock.calls.length >= 1, 'heard.mock.calls.length >= 1');
    expect(heard.mock.calls).toEqual([[message(7)]]);
    expect(onListenerError).not.toHaveBeenCalled();
  });

  it('keeps delivering after a listener throws or rejects, and reports the error with its topic', async () => {
    const onListenerError = jest.fn(delivered.notify);
    const a = instance(onListenerError);
    const failure = new Error('listener failed');
    const after = jest.fn(delivered.notify);
    await a.bus.subscribe('t', () => {
      throw failure;
    });
    await a.bus.subscribe('t', (async () => {
      throw failure;
    }) as () => void);
    await a.bus.subscribe('t', after);
    await expect(a.bus.publish('t', message(1))).resolves.toBeUndefined();
    await delivered.when(
      () => after.mock.calls.length === 1 && onListenerError.mock.calls.length === 2,
      'after.mock.calls.length === 1 && onListenerError.mock.calls.length === 2',
    );
    expect(onListenerError).toHaveBeenCalledWith(failure, 't');
  });

  it('survives an onListenerError that throws', async () => {
    const a = instance(() => {
      throw new Error('reporter failed');
    });
    const after = jest.fn(delivered.notify);
    await a.bus.subscribe('t', () => {
      throw new Error('listener failed');
    });
    await a.bus.subscribe('t', after);
    await a.bus.publish('t', message(1));
    await a.bus.publish('t', message(2));
    await delivered.when(() => after.mock.calls.length === 2, 'after.mock.calls.length === 2');
  });
});

describe('RedisMessageBus outages', () => {
  it('rejects publish and subscribe with StoreUnavailableError while Redis is down, keeping no listener', async () => {
    const connection = connect(300);
    const bus = new RedisMessageBus(connection);
    await bus.publish('warm-up', message(0));
    await redis.stop(true);
    await expect(bus.publish('t', message(1))).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(bus.subscribe('t', () => undefined)).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(bus.topicCount).toBe(0);
  });

  it('is subscribed again by itself after Redis restarts: a message published afterwards on another instance is delivered', async () => {
    const a = instance();
    const b = instance();
    const heard = jest.fn(delivered.notify);
    await a.bus.subscribe('t', heard);
    await redis.stop(true);
    await redis.start();
    const channel = a.connection.key('bus', 't');
    // Nothing is kept while Redis was down: wait until A's subscriber connection has sent SUBSCRIBE again.
    await until(
      async () => (await subscribers(b.connection, channel).catch(() => 0)) === 1,
      '(await subscribers(b.connection, channel).catch(() => 0)) === 1',
      10_000,
    );
    await b.bus.publish('t', message(1));
    await delivered.when(() => heard.mock.calls.length === 1, 'heard.mock.calls.length === 1');
    expect(heard).toHaveBeenCalledWith(message(1));
  }, 20_000);
});
