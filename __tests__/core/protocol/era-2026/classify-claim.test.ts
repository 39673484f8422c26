// The classifier with the 2026 era served (protocol/classify.ts): the body decides, headers cross-check, refusals echo the id.

import { createClassifier, type Classification, type HeaderVerdict } from '../../../../lib/core/protocol/classify';

const MODERN = '2026-07-28';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const VERSION = 'io.modelcontextprotocol/protocolVersion';
const meta = (extra: Record<string, unknown> = {}) => ({ [VERSION]: MODERN, [CAPS]: {}, ...extra });
const request = (method: string, _meta: Record<string, unknown> | null = meta(), id: number | string = 7) => ({
  jsonrpc: '2.0',
  id,
  method,
  params: _meta === null ? {} : { _meta },
});

const both = createClassifier({ maxBatchLength: 10, eras: ['2025', '2026'] });
const modernOnly = createClassifier({ maxBatchLength: 10, eras: ['2026'] });

/** Classifies as the transport does; without `methodHeader` the body is classified as a caller without HTTP would have it. */
function classify(classifier: typeof both, body: unknown, header?: string, methodHeader?: string): Classification {
  const verdict = classifier.headers({ protocolVersion: header }) as HeaderVerdict;
  if (!verdict.ok) throw new Error(`headers refused: ${JSON.stringify(verdict.error)}`);
  const headers =
    methodHeader === undefined ? undefined : { 'mcp-protocol-version': header, 'mcp-method': methodHeader };
  return classifier.body(body, verdict, headers);
}

function refusal(classification: Classification): {
  status: number;
  id: unknown;
  code: number;
  message: string;
  data: unknown;
} {
  if (classification.ok) throw new Error(`served: ${JSON.stringify(classification.post)}`);
  const { error } = classification.error;
  return {
    status: classification.status,
    id: classification.error.id,
    code: error.code,
    message: error.message,
    data: error.data,
  };
}

describe('classifier (both eras): headers', () => {
  it.each([MODERN, '2027-01-01', 'v999.0.0', '1999-01-01'])(
    'defers %s to the body (a claim may name it): no session is looked up for it',
    (header) => {
      expect(both.headers({ protocolVersion: header })).toEqual({
        ok: true,
        headerVersion: undefined,
        deferredHeader: header,
      });
    },
  );

  it.each(['2027-01-01', 'v999.0.0', '1999-01-01', 'latest'])(
    'without a claim, or with a body that cannot be read, %s is refused 400 -32000 as the 2025 path always did',
    (header) => {
      expect(refusal(classify(both, { jsonrpc: '2.0', id: 1, method: 'ping' }, header))).toMatchObject({
        status: 400,
        id: null,
        code: -32000,
      });
      expect(both.unreadable({ ok: true, headerVersion: undefined, deferredHeader: header })).toMatchObject({
        status: 400,
        error: { error: { code: -32000 } },
      });
    },
  );

  it('a duplicated header is refused before the body', () => {
    expect(both.headers({ protocolVersion: [MODERN, MODERN] })).toMatchObject({
      ok: false,
      status: 400,
      error: { error: { code: -32000 } },
    });
    expect(both.unreadable({ ok: true, headerVersion: undefined, deferredHeader: MODERN })).toBeUndefined();
  });

  it('a 2025-only router refuses 2026-07-28 as before (a dual-era client falls back to initialize)', () => {
    const classifier = createClassifier({ maxBatchLength: 10, eras: ['2025'] });
    expect(classifier.headers({ protocolVersion: MODERN })).toMatchObject({
      ok: false,
      status: 400,
      error: { error: { code: -32000 } },
    });
    // And a claim in the body is not looked at: the request is served on the 2025 path.
    expect(
      classifier.body(request('tools/list'), { ok: true, headerVersion: undefined, deferredHeader: undefined }),
    ).toMatchObject({ ok: true, post: { era: '2025' } });
  });
});

describe('classifier (both eras): a modern claim', () => {
  it('is served as a 2026 request with its envelope read (clientInfo is optional)', () => {
    const body = request('tools/list', meta({ 'io.modelcontextprotocol/logLevel': 'info' }));
    const classified = classify(both, body, MODERN, 'tools/list');
    expect(classified).toEqual({
      ok: true,
      post: {
        kind: 'request',
        era: '2026',
        headerVersion: undefined,
        holdsRequests: true,
        messages: body,
        envelope: { protocolVersion: MODERN, clientCapabilities: {}, clientInfo: undefined, logLevel: 'info' },
      },
    });
  });

  it('keeps only the known capabilities and clientInfo strings (bounded as a session would)', () => {
    const body = request(
      'tools/list',
      meta({
        [CAPS]: { sampling: {}, mine: { x: 1 } },
        'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1', icons: [] },
      }),
    );
    const classified = classify(both, body, MODERN);
    expect(classified.ok && classified.post.envelope).toEqual({
      protocolVersion: MODERN,
      clientCapabilities: { sampling: {} },
      clientInfo: { name: 'c', version: '1' },
      logLevel: undefined,
    });
  });

  it.each<[string, Record<string, unknown>, number, RegExp]>([
    ['no clientCapabilities', { [VERSION]: MODERN }, -32602, /clientCapabilities/],
    ['clientCapabilities not an object', meta({ [CAPS]: 'all' }), -32602, /clientCapabilities/],
    ['a version that is not a string', { [VERSION]: 20260728, [CAPS]: {} }, -32602, /protocolVersion/],
    [
      'clientInfo without a version',
      meta({ 'io.modelcontextprotocol/clientInfo': { name: 'c' } }),
      -32602,
      /clientInfo/,
    ],
    ['an unknown log level', meta({ 'io.modelcontextprotocol/logLevel': 'loud' }), -32602, /logLevel/],
    [
      'capabilities too large to hold',
      meta({ [CAPS]: { experimental: { blob: 'x'.repeat(5_000) } } }),
      -32602,
      /capabilities/,
    ],
  ])('with %s: 400 %d, id echoed', (_label, envelope, code, message) => {
    const answer = refusal(classify(both, request('tools/list', envelope, 'abc'), MODERN));
    expect(answer).toMatchObject({ status: 400, id: 'abc', code });
    expect(answer.message).toMatch(message);
  });

  it.each<[string, string | undefined, string | undefined]>([
    ['the header names another revision', '2025-11-25', 'tools/list'],
    ['Mcp-Method names another method', MODERN, 'prompts/list'],
    ['Mcp-Method differs in case (values are case-sensitive)', MODERN, 'TOOLS/LIST'],
  ])('when %s: 400 -32020', (_label, header, methodHeader) => {
    expect(refusal(classify(both, request('tools/list'), header, methodHeader))).toMatchObject({
      status: 400,
      id: 7,
      code: -32020,
    });
  });

  it.each([['2025-11-25'], ['2027-01-01'], ['v999.0.0']])(
    'naming %s, a revision not served: 400 -32022 with data.supported and data.requested',
    (version) => {
      const answer = refusal(
        classify(
          both,
          request('tools/list', { [VERSION]: version, [CAPS]: {} }),
          version === '2025-11-25' ? undefined : version,
        ),
      );
      expect(answer).toMatchObject({
        status: 400,
        id: 7,
        code: -32022,
        data: { supported: [MODERN], requested: version },
      });
    },
  );

  it('an initialize with a valid modern envelope is a modern request (then answered -32601 by the dispatcher)', () => {
    expect(classify(both, request('initialize'), MODERN)).toMatchObject({
      ok: true,
      post: { kind: 'request', era: '2026' },
    });
  });

  it('an initialize whose envelope is malformed is the 2025 handshake', () => {
    expect(classify(both, request('initialize', { [VERSION]: MODERN }))).toMatchObject({
      ok: true,
      post: { kind: 'initialize', era: '2025' },
    });
  });

  it('a notification with a claim is a 2026 notification (answered 202)', () => {
    expect(
      classify(both, { jsonrpc: '2.0', method: 'notifications/x', params: { _meta: meta() } }, MODERN),
    ).toMatchObject({ ok: true, post: { kind: 'notification', era: '2026', holdsRequests: false } });
  });

  it('a batch holding a claim is refused whole: 400 -32600', () => {
    expect(refusal(classify(both, [request('tools/list')]))).toMatchObject({ status: 400, code: -32600 });
  });
});

describe('classifier (both eras): no claim', () => {
  it('under a modern header, a request lacks its envelope: 400 -32602 naming the keys', () => {
    const answer = refusal(classify(both, request('tools/list', null), MODERN));
    expect(answer).toMatchObject({ status: 400, id: 7, code: -32602 });
    expect(answer.message).toMatch(/io\.modelcontextprotocol\/protocolVersion/);
  });

  it('under a modern header, initialize disagrees with it: 400 -32020', () => {
    expect(
      refusal(
        classify(
          both,
          { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25' } },
          MODERN,
        ),
      ),
    ).toMatchObject({ status: 400, id: 1, code: -32020 });
  });

  it('under a modern header, a notification is a 2026 one, and a posted response is refused', () => {
    expect(classify(both, { jsonrpc: '2.0', method: 'notifications/initialized' }, MODERN)).toMatchObject({
      ok: true,
      post: { era: '2026', kind: 'notification' },
    });
    expect(refusal(classify(both, { jsonrpc: '2.0', id: 1, result: {} }, MODERN))).toMatchObject({
      status: 400,
      code: -32600,
    });
  });

  it.each<[string, unknown, string | undefined]>([
    [
      'initialize',
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25' } },
      undefined,
    ],
    ['a request under a 2025 header', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, '2025-11-25'],
    ['a request without a header', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, undefined],
    ['a batch', [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }], undefined],
  ])('%s stays on the 2025 path', (_label, body, header) => {
    expect(classify(both, body, header)).toMatchObject({ ok: true, post: { era: '2025' } });
  });
});

describe('classifier (modern only)', () => {
  it('initialize: 400 -32022 naming the revisions served and the one asked for', () => {
    const answer = refusal(
      classify(modernOnly, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25' } }),
    );
    expect(answer).toMatchObject({
      status: 400,
      id: 1,
      code: -32022,
      data: { supported: [MODERN], requested: '2025-11-25' },
    });
  });

  it('a request without a claim: 400 -32022 (requested: the header, when sent)', () => {
    expect(refusal(classify(modernOnly, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, '2025-06-18'))).toMatchObject({
      code: -32022,
      data: { supported: [MODERN], requested: '2025-06-18' },
    });
    expect(refusal(classify(modernOnly, { jsonrpc: '2.0', id: 2, method: 'tools/list' }))).toMatchObject({
      code: -32022,
      data: { supported: [MODERN] },
    });
  });

  it('batches and posted responses: 400 -32600; notifications: accepted', () => {
    expect(refusal(classify(modernOnly, [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }]))).toMatchObject({
      status: 400,
      code: -32600,
    });
    expect(refusal(classify(modernOnly, { jsonrpc: '2.0', id: 1, result: {} }))).toMatchObject({
      status: 400,
      code: -32600,
    });
    expect(classify(modernOnly, { jsonrpc: '2.0', method: 'notifications/initialized' })).toMatchObject({
      ok: true,
      post: { era: '2026', kind: 'notification' },
    });
  });

  it('a modern claim is served', () => {
    expect(classify(modernOnly, request('tools/list'), MODERN, 'tools/list')).toMatchObject({
      ok: true,
      post: { era: '2026', kind: 'request' },
    });
  });
});
