// The request classifier (protocol/classify.ts): what the headers refuse, what the body is, what is refused whatever the session.

import { createClassifier, type ClassifiedPost } from '../../../lib/core/protocol/classify';

// The 2025 era alone: what every router answered before the 2026 era (classify-modern.test.ts has the rest).
const classifier = createClassifier({ maxBatchLength: 3, eras: ['2025'] });
const verdict = (headerVersion?: '2025-11-25' | '2025-03-26') =>
  ({ ok: true, headerVersion, deferredHeader: undefined }) as const;
const ping = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'ping' });
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25' } };

function served(body: unknown, headerVersion?: '2025-11-25' | '2025-03-26'): ClassifiedPost {
  const classified = classifier.body(body, verdict(headerVersion));
  if (!classified.ok) throw new Error(`refused: ${JSON.stringify(classified.error)}`);
  return classified.post;
}

describe('classifier: headers', () => {
  it.each([undefined, '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'])(
    'accepts MCP-Protocol-Version %p and passes it on',
    (version) => {
      expect(classifier.headers({ protocolVersion: version })).toEqual({
        ok: true,
        headerVersion: version,
        deferredHeader: undefined,
      });
    },
  );

  it.each<[string | string[]]>([['2026-07-28'], ['1999-01-01'], [''], [' 2025-11-25'], [['2025-11-25', '2025-06-18']]])(
    'refuses %p with 400 -32000 naming the revisions spoken',
    (version) => {
      const verdict = classifier.headers({ protocolVersion: version });
      expect(verdict).toEqual({
        ok: false,
        status: 400,
        error: {
          jsonrpc: '2.0',
          id: null,
          error: {
            code: -32000,
            message: `Bad Request: unsupported MCP-Protocol-Version '${String(version)}'; supported: 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05`,
          },
        },
      });
    },
  );
});

describe('classifier: body', () => {
  it.each<[string, unknown, ClassifiedPost['kind'], boolean]>([
    ['initialize', INIT, 'initialize', true],
    ['a request', ping(7), 'request', true],
    ['a notification', { jsonrpc: '2.0', method: 'notifications/initialized' }, 'notification', false],
    ['a response', { jsonrpc: '2.0', id: 3, result: {} }, 'response', false],
    ['an error response', { jsonrpc: '2.0', id: 3, error: { code: -1, message: 'no' } }, 'response', false],
  ])('%s: kind %s, holds requests %s, 2025 era', (_label, body, kind, holdsRequests) => {
    const post = served(body, '2025-11-25');
    expect(post).toEqual({ kind, era: '2025', headerVersion: '2025-11-25', holdsRequests, messages: body });
  });

  it('a batch: its elements parsed one by one (an invalid one becomes its own error), holding requests when one has an id', () => {
    const post = served([
      ping(1),
      { jsonrpc: '1.0', id: 2, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/x' },
    ]);
    expect(post.kind).toBe('batch');
    expect(post.headerVersion).toBeUndefined();
    expect(post.holdsRequests).toBe(true);
    expect(post.messages).toEqual([
      { ok: true, message: ping(1) },
      {
        ok: false,
        error: {
          jsonrpc: '2.0',
          id: 2,
          error: { code: -32600, message: 'Invalid Request: "jsonrpc" must be exactly "2.0"' },
        },
      },
      { ok: true, message: { jsonrpc: '2.0', method: 'notifications/x' } },
    ]);
    expect(
      served([
        { jsonrpc: '2.0', method: 'notifications/x' },
        { jsonrpc: '2.0', id: 9, result: {} },
      ]).holdsRequests,
    ).toBe(false);
  });

  it.each<[string, unknown, unknown, string]>([
    ['an empty batch', [], null, 'Invalid Request: an empty batch'],
    [
      'a batch past maxBatchLength',
      [ping(1), ping(2), ping(3), ping(4)],
      null,
      'Invalid Request: a batch holds at most 3 messages',
    ],
    ['a batch holding initialize', [ping(1), INIT], null, 'Invalid Request: initialize must not be part of a batch'],
    ['a non-object', 42, null, 'Invalid Request: a JSON-RPC message must be a JSON object'],
    [
      'a bad method, id echoed',
      { jsonrpc: '2.0', id: 'x', method: 5 },
      'x',
      'Invalid Request: "method" must be a non-empty string',
    ],
  ])('refuses %s with 400 -32600 whatever the session', (_label, body, id, message) => {
    expect(classifier.body(body, verdict('2025-03-26'))).toEqual({
      ok: false,
      status: 400,
      error: { jsonrpc: '2.0', id, error: { code: -32600, message } },
    });
  });

  it('is pure: the same body classified twice gives equal answers, and the body is not changed', () => {
    const body = [ping(1), ping(2)];
    const copy = structuredClone(body);
    expect(classifier.body(body, verdict())).toEqual(classifier.body(body, verdict()));
    expect(body).toEqual(copy);
  });
});
