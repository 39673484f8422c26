// The protocol half of subscriptions/listen: the honoured filter, what a stream lets through (never progress or logs), the stamps.

import {
  forListenStream,
  listenAcknowledgment,
  listenCompletion,
  readListenFilter,
  type ListenFilter,
} from '../../../lib/edge/listen/listen-protocol';
import { JsonRpcError } from '../../../lib/core/jsonrpc/errors';

const EVERYTHING = { tools: true, prompts: true, resources: true, completions: false, tasks: false };
const ID_KEY = 'io.modelcontextprotocol/subscriptionId';

describe('readListenFilter', () => {
  it('keeps the requested kinds the server offers, drops the rest and duplicate URIs', () => {
    const requested = {
      notifications: {
        toolsListChanged: true,
        promptsListChanged: true,
        resourcesListChanged: false,
        resourceSubscriptions: ['a://1', 'a://1', 'a://2'],
        unknownKind: true,
      },
    };
    expect(readListenFilter(requested, EVERYTHING, 32)).toEqual({
      toolsListChanged: true,
      promptsListChanged: true,
      resourceSubscriptions: ['a://1', 'a://2'],
    });
    expect(readListenFilter(requested, { ...EVERYTHING, prompts: false, resources: false }, 32)).toEqual({
      toolsListChanged: true,
    });
    expect(readListenFilter({ notifications: {} }, EVERYTHING, 32)).toEqual({});
  });

  it.each([
    [{}],
    [{ notifications: null }],
    [{ notifications: [] }],
    [{ notifications: { promptsListChanged: 1 } }],
    [{ notifications: { resourceSubscriptions: 'a://1' } }],
    [{ notifications: { resourceSubscriptions: [''] } }],
    [{ notifications: { resourceSubscriptions: ['a', 'b', 'c'] } }],
  ])('refuses %j with -32602', (params) => {
    expect(() => readListenFilter(params, EVERYTHING, 2)).toThrow(JsonRpcError);
    try {
      readListenFilter(params, EVERYTHING, 2);
    } catch (err) {
      expect((err as JsonRpcError).code).toBe(-32602);
    }
  });
});

describe('forListenStream', () => {
  const filter: ListenFilter = { toolsListChanged: true, resourceSubscriptions: ['a://1'] };
  const uris = new Set(filter.resourceSubscriptions);

  it('stamps what was requested, without changing the notification it was given', () => {
    const updated = { jsonrpc: '2.0' as const, method: 'notifications/resources/updated', params: { uri: 'a://1' } };
    expect(forListenStream(3, filter, uris, updated)).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri: 'a://1', _meta: { [ID_KEY]: 3 } },
    });
    expect(updated.params).toEqual({ uri: 'a://1' });
    expect(forListenStream('s', filter, uris, { jsonrpc: '2.0', method: 'notifications/tools/list_changed' })).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { [ID_KEY]: 's' } },
    });
  });

  it.each([
    ['a list change not requested', { jsonrpc: '2.0' as const, method: 'notifications/prompts/list_changed' }],
    [
      'an update of a URI not listed',
      { jsonrpc: '2.0' as const, method: 'notifications/resources/updated', params: { uri: 'a://2' } },
    ],
    [
      'progress',
      { jsonrpc: '2.0' as const, method: 'notifications/progress', params: { progressToken: 1, progress: 1 } },
    ],
    [
      'a log message',
      { jsonrpc: '2.0' as const, method: 'notifications/message', params: { level: 'info', data: 'x' } },
    ],
  ])('lets through nothing for %s', (_label, notification) => {
    expect(forListenStream(1, filter, uris, notification)).toBeUndefined();
  });
});

describe('the acknowledgment and the completion', () => {
  it('carry the subscription id', () => {
    expect(listenAcknowledgment(1, { toolsListChanged: true })).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: { [ID_KEY]: 1 }, notifications: { toolsListChanged: true } },
    });
    expect(listenCompletion('x')).toEqual({
      jsonrpc: '2.0',
      id: 'x',
      result: { resultType: 'complete', _meta: { [ID_KEY]: 'x' } },
    });
  });
});
