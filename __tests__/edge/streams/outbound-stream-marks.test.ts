// OutboundStream with a shared event store: a POST stream is marked open with its request ids before its first event, renewed while it runs, and finished after its responses.

import type { JsonRpcId, JsonRpcMessage } from '../../../lib/core/jsonrpc/types';
import { MemoryEventStore } from '../../../lib/edge/store/memory-event-store';
import { OutboundStream } from '../../../lib/edge/streams/outbound-stream';
import { STREAM_HEARTBEAT_MS, type EventStore } from '../../../lib/edge/store/session-stores';

const logger = { error: jest.fn(), warn: jest.fn() };

/** A memory store that logs every call, marks included, in order. */
class LoggingStore extends MemoryEventStore implements EventStore {
  readonly calls: string[] = [];
  override async append(
    sessionId: string,
    streamId: string,
    message: JsonRpcMessage | null,
    json?: string,
  ): Promise<string> {
    this.calls.push(
      message === null
        ? 'append priming'
        : `append ${'method' in message ? message.method : `response ${String(message.id)}`}`,
    );
    return super.append(sessionId, streamId, message, json);
  }
  async markStreamOpen(_sessionId: string, _streamId: string, requestIds: readonly JsonRpcId[]): Promise<void> {
    this.calls.push(`open ${JSON.stringify(requestIds)}`);
  }
  async markStreamFinished(): Promise<void> {
    this.calls.push('finished');
  }
}

afterEach(() => {
  jest.useRealTimers();
});

it('marks the stream open before its first event, renews the mark every heartbeat, and finishes it after the response', async () => {
  // The heartbeat is a timer: driven by fake time, so a loaded machine cannot drop or add a renewal (it did, in CI).
  jest.useFakeTimers();
  const events = new LoggingStore();
  const stream = new OutboundStream({ sessionId: 's', events, requestIds: [3, 'x'] }, logger);
  await stream.prime(1000);
  await stream.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: 1 } });
  await jest.advanceTimersByTimeAsync(STREAM_HEARTBEAT_MS * 2 + 200);
  await stream.send({ jsonrpc: '2.0', id: 3, result: {} });
  await stream.end();
  expect(events.calls).toEqual([
    'open [3,"x"]',
    'append priming',
    'append notifications/progress',
    'open [3,"x"]',
    'open [3,"x"]',
    'append response 3',
    'finished',
  ]);
  // No renewal after the end.
  await jest.advanceTimersByTimeAsync(STREAM_HEARTBEAT_MS + 100);
  expect(events.calls.at(-1)).toBe('finished');
});

it('marks nothing for a stream without requests (a GET stream), nor with a store that has no marks', async () => {
  const events = new LoggingStore();
  const stream = new OutboundStream({ sessionId: 's', events }, logger);
  await stream.prime(1000);
  await stream.end();
  expect(events.calls).toEqual(['append priming']);
  const plain = new OutboundStream({ sessionId: 's', events: new MemoryEventStore(), requestIds: [1] }, logger);
  await plain.prime(1000);
  await plain.end();
  expect(logger.error).not.toHaveBeenCalled();
});
