// RedisServerEventBus against a real redis-server: two connections are two instances; local delivery first, no double delivery, outages, bounded close.

import type { RedisConnection } from '../../../lib/features/redis/connection';
import { RedisServerEventBus } from '../../../lib/features/redis/server-event-bus';
import type { ServerEvent } from '../../../lib/edge/store/server-events';
import { StoreUnavailableError } from '../../../lib/edge/store/shared-store';
import { Signal } from '../../helpers/events';
import { until } from '../../helpers/until';
import { useRedis } from './redis-server';

const redis = useRedis();
/** Told by every listener of this file's tests at each event it hears. */
const delivered = new Signal();

const TOOLS_CHANGED: ServerEvent = { type: 'list_changed', list: 'tools' };
const UPDATED: ServerEvent = { type: 'resource_updated', uri: 'docs://a?b=é' };

function connect(commandTimeoutMs?: number): RedisConnection {
  return redis.connect({ prefix: 'events-test:', commandTimeoutMs });
}

function instance(options: { onListenerError?: (err: unknown) => void; commandTimeoutMs?: number } = {}): {
  bus: RedisServerEventBus;
  connection: RedisConnection;
} {
  const connection = connect(options.commandTimeoutMs);
  const bus = new RedisServerEventBus(connection, options.onListenerError);
  redis.closeAfter(bus);
  return { bus, connection };
}

async function ready(...instances: { bus: RedisServerEventBus }[]): Promise<void> {
  await Promise.all(instances.map(({ bus }) => bus.ready()));
}

/**
 * An event no test publishes otherwise: published by another instance after the events under test, it reaches each
 * subscribed instance after them (Redis delivers in the order it took the PUBLISHes), so hearing it means anything
 * else would have been heard by then.
 */
const MARKER: ServerEvent = { type: 'resource_updated', uri: 'marker://after' };

/** Publishes MARKER from `from` and waits until `heard` has it. */
async function markerHeard(from: { bus: RedisServerEventBus }, heard: jest.Mock): Promise<void> {
  await from.bus.publish(MARKER);
  await delivered.when(
    () => heard.mock.calls.some(([event]) => JSON.stringify(event) === JSON.stringify(MARKER)),
    'the marker',
  );
}

async function subscribers(connection: RedisConnection): Promise<number> {
  const reply = await connection.send<[string, number]>(['PUBSUB', 'NUMSUB', connection.key('events')]);
  return Number(reply[1]);
}

describe('RedisServerEventBus between instances', () => {
  it("gives A's event to A's listeners once, before publish returns, and to B's once, when it arrives", async () => {
    const a = instance();
    const b = instance();
    await ready(a, b);
    const onA = jest.fn(delivered.notify);
    const onB = jest.fn(delivered.notify);
    a.bus.subscribe(onA);
    b.bus.subscribe(onB);
    const published = a.bus.publish(TOOLS_CHANGED);
    expect(onA).toHaveBeenCalledTimes(1);
    expect(onB).not.toHaveBeenCalled();
    await published;
    await delivered.when(() => onB.mock.calls.length === 1, 'onB.mock.calls.length === 1');
    // A hears its own event back from Redis too (before B's marker): it must skip it.
    await markerHeard(b, onA);
    expect(onA.mock.calls).toEqual([[TOOLS_CHANGED], [MARKER]]);
    expect(onB).toHaveBeenCalledTimes(2);
    expect(onB).toHaveBeenCalledWith(TOOLS_CHANGED);
  });

  it("delivers B's events to A, both kinds through JSON and back, in order", async () => {
    const a = instance();
    const b = instance();
    await ready(a, b);
    const heard: ServerEvent[] = [];
    a.bus.subscribe((event) => {
      heard.push(event);
      delivered.notify();
    });
    const sent: ServerEvent[] = [
      TOOLS_CHANGED,
      UPDATED,
      { type: 'list_changed', list: 'prompts' },
      { type: 'list_changed', list: 'resources' },
    ];
    for (const event of sent) await b.bus.publish(event);
    await delivered.when(() => heard.length === sent.length, 'heard.length === sent.length');
    expect(heard).toEqual(sent);
  });

  it('hears an event published on another instance right after ready() resolved', async () => {
    for (let i = 0; i < 5; i++) {
      const a = instance();
      const b = instance();
      const heard = jest.fn(delivered.notify);
      a.bus.subscribe(heard);
      await a.bus.ready();
      await b.bus.publish(UPDATED);
      await delivered.when(() => heard.mock.calls.length === 1, 'heard.mock.calls.length === 1');
    }
  });

  it('stops delivering once unsubscribed; one function subscribed twice hears twice', async () => {
    const a = instance();
    const b = instance();
    await ready(a, b);
    const listener = jest.fn(delivered.notify);
    const first = a.bus.subscribe(listener);
    const second = a.bus.subscribe(listener);
    await b.bus.publish(TOOLS_CHANGED);
    await delivered.when(() => listener.mock.calls.length === 2, 'listener.mock.calls.length === 2');
    first();
    first();
    await b.bus.publish(TOOLS_CHANGED);
    await delivered.when(() => listener.mock.calls.length === 3, 'listener.mock.calls.length === 3');
    second();
    expect(a.bus.listenerCount).toBe(0);
    await a.bus.publish(TOOLS_CHANGED);
    await b.bus.publish(TOOLS_CHANGED);
    const marker = jest.fn(delivered.notify);
    a.bus.subscribe(marker);
    await markerHeard(b, marker);
    expect(listener).toHaveBeenCalledTimes(3);
  });

  it('reports a listener that throws, local or remote, and still delivers to the others', async () => {
    const onListenerError = jest.fn();
    const a = instance({ onListenerError });
    const b = instance();
    await ready(a, b);
    const after = jest.fn(delivered.notify);
    a.bus.subscribe(() => {
      throw new Error('listener bug');
    });
    a.bus.subscribe(after);
    await expect(a.bus.publish(UPDATED)).resolves.toBeUndefined();
    await b.bus.publish(UPDATED);
    await delivered.when(() => after.mock.calls.length === 2, 'after.mock.calls.length === 2');
    expect(onListenerError).toHaveBeenCalledTimes(2);
    expect(onListenerError).toHaveBeenCalledWith(new Error('listener bug'));
  });

  it('drops payloads on the channel that are not an event', async () => {
    const a = instance();
    await a.bus.ready();
    const heard = jest.fn(delivered.notify);
    const onListenerError = jest.fn();
    a.bus.subscribe(heard);
    const payloads = [
      'not json',
      'null',
      '[]',
      '{"event":{"type":"list_changed","list":"tools"}}',
      '{"origin":"x"}',
      '{"origin":"x","event":{"type":"list_changed","list":"users"}}',
      '{"origin":"x","event":{"type":"resource_updated","uri":5}}',
      '{"origin":"x","event":{"type":"other"}}',
    ];
    for (const payload of payloads) await a.connection.send(['PUBLISH', a.connection.key('events'), payload]);
    await a.connection.send([
      'PUBLISH',
      a.connection.key('events'),
      JSON.stringify({ origin: 'x', event: { ...UPDATED, extra: 1 } }),
    ]);
    // The bad payloads went first on the same channel: handled before this one.
    await delivered.when(() => heard.mock.calls.length >= 1, 'heard.mock.calls.length >= 1');
    expect(heard.mock.calls).toEqual([[UPDATED]]);
    expect(onListenerError).not.toHaveBeenCalled();
  });

  it('shares nothing with a router under another prefix', async () => {
    const a = instance();
    const other = redis.connect({ prefix: 'other-router:' });
    const otherBus = redis.closeAfter(new RedisServerEventBus(other));
    await ready(a, { bus: otherBus });
    const heard = jest.fn(delivered.notify);
    a.bus.subscribe(heard);
    await otherBus.publish(TOOLS_CHANGED);
    const b = instance();
    await ready(b);
    await markerHeard(b, heard);
    expect(heard.mock.calls).toEqual([[MARKER]]);
  });
});

describe('RedisServerEventBus missed events', () => {
  const envelope = (seq: number, event: ServerEvent): string => JSON.stringify({ origin: 'instance-x', seq, event });

  it('announces again every list it has seen change when an instance skipped a number, and nothing more while none is skipped', async () => {
    const a = instance();
    await a.bus.ready();
    const heard: ServerEvent[] = [];
    a.bus.subscribe((event) => {
      heard.push(event);
      delivered.notify();
    });
    await a.bus.publish({ type: 'list_changed', list: 'prompts' });
    const channel = a.connection.key('events');
    await a.connection.send(['PUBLISH', channel, envelope(1, TOOLS_CHANGED)]);
    await a.connection.send(['PUBLISH', channel, envelope(2, UPDATED)]);
    await a.connection.send(['PUBLISH', channel, envelope(5, UPDATED)]);
    await a.connection.send(['PUBLISH', channel, envelope(6, TOOLS_CHANGED)]);
    await a.connection.send(['PUBLISH', channel, envelope(9, TOOLS_CHANGED)]);
    const b = instance();
    await ready(b);
    const marker = jest.fn(delivered.notify);
    a.bus.subscribe(marker);
    await markerHeard(b, marker);
    expect(heard).toEqual([
      { type: 'list_changed', list: 'prompts' },
      TOOLS_CHANGED,
      UPDATED,
      // 3 and 4 were missed: both lists seen changing are announced again, then the event itself.
      { type: 'list_changed', list: 'prompts' },
      TOOLS_CHANGED,
      UPDATED,
      TOOLS_CHANGED,
      // 7 and 8 were missed: the event itself announces tools.
      { type: 'list_changed', list: 'prompts' },
      TOOLS_CHANGED,
      MARKER,
    ]);
  });

  it("recovers a list change whose PUBLISH failed: B's next event shows A the gap", async () => {
    const a = instance();
    const b = instance({ commandTimeoutMs: 300 });
    await ready(a, b);
    const heard: ServerEvent[] = [];
    a.bus.subscribe((event) => {
      heard.push(event);
      delivered.notify();
    });
    await b.bus.publish(TOOLS_CHANGED);
    await delivered.when(() => heard.length === 1, 'heard.length === 1');
    await redis.stop(true);
    await expect(b.bus.publish(TOOLS_CHANGED)).rejects.toBeInstanceOf(StoreUnavailableError);
    await redis.start();
    await until(
      async () => (await subscribers(b.connection).catch(() => 0)) === 2,
      '(await subscribers(b.connection).catch(() => 0)) === 2',
      10_000,
    );
    await b.bus.publish(UPDATED);
    await delivered.when(() => heard.length === 3, 'heard.length === 3');
    expect(heard).toEqual([TOOLS_CHANGED, TOOLS_CHANGED, UPDATED]);
  }, 20_000);
});

describe('RedisServerEventBus outages', () => {
  it('still delivers locally while Redis is down, and publish rejects with StoreUnavailableError', async () => {
    const a = instance({ commandTimeoutMs: 300 });
    await a.bus.ready();
    const heard = jest.fn(delivered.notify);
    a.bus.subscribe(heard);
    await redis.stop(true);
    const published = a.bus.publish(TOOLS_CHANGED);
    expect(heard).toHaveBeenCalledTimes(1);
    await expect(published).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('is subscribed again by itself after Redis restarts: an event published afterwards on another instance is delivered', async () => {
    const a = instance();
    const b = instance();
    await ready(a, b);
    const heard = jest.fn(delivered.notify);
    a.bus.subscribe(heard);
    await redis.stop(true);
    await redis.start();
    // Nothing is kept while Redis was down: wait until both subscriber connections have sent SUBSCRIBE again.
    await until(
      async () => (await subscribers(b.connection).catch(() => 0)) === 2,
      '(await subscribers(b.connection).catch(() => 0)) === 2',
      10_000,
    );
    await b.bus.publish(UPDATED);
    await delivered.when(() => heard.mock.calls.length === 1, 'heard.mock.calls.length === 1');
    expect(heard).toHaveBeenCalledWith(UPDATED);
  }, 20_000);

  it('made while Redis is down: ready() rejects, then the bus subscribes by itself once Redis is back', async () => {
    await redis.stop(true);
    const a = instance({ commandTimeoutMs: 300 });
    await expect(a.bus.ready()).rejects.toBeInstanceOf(StoreUnavailableError);
    const heard = jest.fn(delivered.notify);
    a.bus.subscribe(heard);
    await redis.start();
    await until(
      async () =>
        a.bus.ready().then(
          () => true,
          () => false,
        ),
      'a.bus.ready().then(() => true, () => false)',
      10_000,
    );
    const b = instance();
    await b.bus.publish(TOOLS_CHANGED);
    await delivered.when(() => heard.mock.calls.length === 1, 'heard.mock.calls.length === 1');
  }, 20_000);

  it('close() unsubscribes the channel, and a closed bus hears nothing more', async () => {
    const a = instance();
    const b = instance();
    await ready(a, b);
    const heard = jest.fn(delivered.notify);
    a.bus.subscribe(heard);
    expect(await subscribers(b.connection)).toBe(2);
    await a.bus.close();
    await a.bus.close();
    expect(await subscribers(b.connection)).toBe(1);
    await b.bus.publish(TOOLS_CHANGED);
    // A third instance hears B's event and then the marker: the closed bus would have heard them by then.
    const c = instance();
    await ready(c);
    const marker = jest.fn(delivered.notify);
    c.bus.subscribe(marker);
    await markerHeard(b, marker);
    expect(heard).not.toHaveBeenCalled();
  });

  it('close() ends within a bounded time when Redis is gone', async () => {
    const a = instance({ commandTimeoutMs: 500 });
    await a.bus.ready();
    await redis.stop(true);
    const started = Date.now();
    await a.bus.close();
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('close() ends at once while the bus is still trying to subscribe', async () => {
    await redis.stop(true);
    const a = instance({ commandTimeoutMs: 300 });
    await expect(a.bus.ready()).rejects.toBeInstanceOf(StoreUnavailableError);
    const started = Date.now();
    await a.bus.close();
    expect(Date.now() - started).toBeLessThan(500);
  });
});
