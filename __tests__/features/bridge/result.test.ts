import { MAX_ERROR_BODY_BYTES, RESPONSE_BODY_URI, toToolResult } from '../../../lib/features/bridge/result';
import type { CapturedResponse } from '../../../lib/edge/host-routes/in-process';
import type { CallToolResult } from '../../../lib/core/registry/tools';
import { createSchemaValidator } from '../../../lib/core/schema/validator';

type Headers = CapturedResponse['headers'];

function response(status: number, headers: Headers = {}, body: string | Buffer = ''): CapturedResponse {
  return { status, headers, body: typeof body === 'string' ? Buffer.from(body, 'utf8') : body };
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };
const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });
const wrapped = (json: string, value: unknown): CallToolResult => ({
  content: [{ type: 'text', text: json }],
  structuredContent: { result: value },
});
const failure = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }], isError: true });
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]);
const NOT_UTF8 = Buffer.from([0xff, 0xfe, 0x00, 0x81]);

describe('toToolResult: 2xx JSON', () => {
  it.each<[string, CapturedResponse, CallToolResult]>([
    [
      'an object',
      response(200, JSON_HEADERS, '{"id":7,"name":"Ada"}'),
      { content: [{ type: 'text', text: '{"id":7,"name":"Ada"}' }], structuredContent: { id: 7, name: 'Ada' } },
    ],
    [
      'a pretty-printed object, sent compact',
      response(200, JSON_HEADERS, '{\n  "id": 7\n}\n'),
      { content: [{ type: 'text', text: '{"id":7}' }], structuredContent: { id: 7 } },
    ],
    [
      'a nested object on 201',
      response(201, JSON_HEADERS, '{"order":{"items":[1,2]}}'),
      {
        content: [{ type: 'text', text: '{"order":{"items":[1,2]}}' }],
        structuredContent: { order: { items: [1, 2] } },
      },
    ],
    [
      'an empty object',
      response(200, JSON_HEADERS, '{}'),
      { content: [{ type: 'text', text: '{}' }], structuredContent: {} },
    ],
    [
      'application/json without charset',
      response(200, { 'content-type': 'application/json' }, '{"a":1}'),
      { content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } },
    ],
    [
      'application/vnd.api+json',
      response(200, { 'content-type': 'application/vnd.api+json' }, '{"data":null}'),
      { content: [{ type: 'text', text: '{"data":null}' }], structuredContent: { data: null } },
    ],
    [
      'application/problem+json on 2xx',
      response(200, { 'content-type': 'application/problem+json' }, '{"a":1}'),
      { content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } },
    ],
    [
      'an upper-case Content-Type header and value',
      response(200, { 'Content-Type': 'Application/JSON' }, '{"a":1}'),
      { content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } },
    ],
    [
      'a Content-Type given as an array',
      response(200, { 'content-type': ['application/json', 'text/plain'] }, '{"a":1}'),
      { content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } },
    ],
    [
      'a UTF-8 byte-order mark',
      response(200, JSON_HEADERS, '\ufeff{"a":1}'),
      { content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } },
    ],
    [
      'non-ASCII text',
      response(200, JSON_HEADERS, '{"city":"Zürich 🇨🇭"}'),
      { content: [{ type: 'text', text: '{"city":"Zürich 🇨🇭"}' }], structuredContent: { city: 'Zürich 🇨🇭' } },
    ],
    // MCP: structuredContent is an object, so any other JSON body is sent as { result: body }.
    ['an array: wrapped', response(200, JSON_HEADERS, '[1, 2, 3]'), wrapped('[1,2,3]', [1, 2, 3])],
    ['an array of objects: wrapped', response(200, JSON_HEADERS, '[{"id":1}]'), wrapped('[{"id":1}]', [{ id: 1 }])],
    ['a number: wrapped', response(200, JSON_HEADERS, '42'), wrapped('42', 42)],
    ['a string: wrapped', response(200, JSON_HEADERS, '"ok"'), wrapped('"ok"', 'ok')],
    ['a boolean: wrapped', response(200, JSON_HEADERS, 'true'), wrapped('true', true)],
    ['null: wrapped', response(200, JSON_HEADERS, 'null'), wrapped('null', null)],
    ['unparseable JSON: the raw text', response(200, JSON_HEADERS, '{"id": 7,'), text('{"id": 7,')],
    [
      'JSON-looking text without a JSON type: text, not parsed',
      response(200, { 'content-type': 'text/plain' }, '{"a":1}'),
      text('{"a":1}'),
    ],
  ])('%s', (_label, captured, expected) => {
    expect(toToolResult(captured)).toStrictEqual(expected);
  });
});

describe('toToolResult: 2xx with wrapResult (an output schema that is not an object schema)', () => {
  it.each<[string, CapturedResponse, CallToolResult]>([
    ['an object is wrapped too', response(200, JSON_HEADERS, '{"a":1}'), wrapped('{"a":1}', { a: 1 })],
    ['an array', response(200, JSON_HEADERS, '[1]'), wrapped('[1]', [1])],
    ['a number', response(200, JSON_HEADERS, '42'), wrapped('42', 42)],
    // The schema says what the value is, so text is wrapped too, as a plain tool's string is.
    ['text/plain', response(200, { 'content-type': 'text/plain' }, 'hi'), wrapped('hi', 'hi')],
    [
      "text/html (Express's res.send(string))",
      response(200, { 'content-type': 'text/html; charset=utf-8' }, '<b>hi</b>'),
      wrapped('<b>hi</b>', '<b>hi</b>'),
    ],
    ['unparseable JSON stays text', response(200, JSON_HEADERS, '[1,'), text('[1,')],
    [
      'an image stays an image',
      response(200, { 'content-type': 'image/png' }, PNG),
      { content: [{ type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' }] },
    ],
    ['204 stays a note', response(204), text('Done (HTTP 204, no content)')],
  ])('%s', (_label, captured, expected) => {
    expect(toToolResult(captured, { wrapResult: true })).toStrictEqual(expected);
  });
});

describe('toToolResult: 2xx with validateOutput', () => {
  const validateOutput = createSchemaValidator().compile(
    { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'], additionalProperties: false },
    "tool 'add' outputSchema",
  );
  const prefix = "Tool 'add' returned output that does not match its outputSchema: ";

  it.each<[string, CapturedResponse, CallToolResult]>([
    [
      'a conforming object passes unchanged',
      response(200, JSON_HEADERS, '{"sum":3}'),
      { content: [{ type: 'text', text: '{"sum":3}' }], structuredContent: { sum: 3 } },
    ],
    [
      'a missing property',
      response(200, JSON_HEADERS, '{"total":3}'),
      failure(
        `${prefix}(root): must have required property 'sum'; (root): must NOT have additional properties 'total'`,
      ),
    ],
    ['a wrong type', response(200, JSON_HEADERS, '{"sum":"3"}'), failure(`${prefix}sum: must be number`)],
    [
      'an array',
      response(200, JSON_HEADERS, '[3]'),
      failure(
        `${prefix}(root): must have required property 'sum'; (root): must NOT have additional properties 'result'`,
      ),
    ],
    [
      'null',
      response(200, JSON_HEADERS, 'null'),
      failure(
        `${prefix}(root): must have required property 'sum'; (root): must NOT have additional properties 'result'`,
      ),
    ],
    [
      'unparseable JSON',
      response(200, JSON_HEADERS, '{"sum":'),
      failure(`${prefix}the response body is not valid JSON`),
    ],
    [
      'a text body',
      response(200, { 'content-type': 'text/plain' }, '3'),
      failure(`${prefix}the response is text/plain, not JSON`),
    ],
    ['an untyped body', response(200, {}, '3'), failure(`${prefix}the response is untyped, not JSON`)],
    [
      'an image',
      response(200, { 'content-type': 'image/png' }, PNG),
      failure(`${prefix}the response is image/png, not JSON`),
    ],
    ['a 204', response(204), failure(`${prefix}the response has no body`)],
    ['an empty 200', response(200, JSON_HEADERS), failure(`${prefix}the response has no body`)],
  ])('%s', (_label, captured, expected) => {
    expect(toToolResult(captured, { validateOutput, toolName: 'add' })).toStrictEqual(expected);
  });

  it('says "The tool" when no toolName is given', () => {
    expect(toToolResult(response(200, JSON_HEADERS, '[]'), { validateOutput })).toStrictEqual(
      failure(
        "The tool returned output that does not match its outputSchema: (root): must have required property 'sum'; (root): must NOT have additional properties 'result'",
      ),
    );
  });

  it.each<[string, CapturedResponse, CallToolResult]>([
    ['a 404 keeps its own message', response(404, {}, 'no such user'), failure('HTTP 404 Not Found: no such user')],
    [
      'a 500 keeps its own message',
      response(500, JSON_HEADERS, '{"sum":1}'),
      failure('HTTP 500: the operation failed on the server'),
    ],
    [
      'a 302 keeps its own message',
      response(302, { location: '/login' }),
      failure('HTTP 302 Found: redirects to /login (redirects are not followed)'),
    ],
  ])('does not check the output of a failure: %s', (_label, captured, expected) => {
    expect(toToolResult(captured, { validateOutput, toolName: 'add' })).toStrictEqual(expected);
  });
});

describe('toToolResult: 2xx text, binary and empty bodies', () => {
  it.each<[string, CapturedResponse, CallToolResult]>([
    ['text/plain', response(200, { 'content-type': 'text/plain' }, 'hello'), text('hello')],
    [
      'text/html with charset',
      response(200, { 'content-type': 'text/html; charset=utf-8' }, '<p>hi</p>'),
      text('<p>hi</p>'),
    ],
    ['text/csv, whitespace kept', response(200, { 'content-type': 'text/csv' }, 'a,b\n1,2\n'), text('a,b\n1,2\n')],
    [
      'text/markdown with non-ASCII',
      response(200, { 'content-type': 'text/markdown' }, '# Café ☕'),
      text('# Café ☕'),
    ],
    ['application/xml', response(200, { 'content-type': 'application/xml' }, '<a/>'), text('<a/>')],
    ['application/atom+xml', response(200, { 'content-type': 'application/atom+xml' }, '<feed/>'), text('<feed/>')],
    ['application/javascript', response(200, { 'content-type': 'application/javascript' }, 'f()'), text('f()')],
    [
      'application/x-www-form-urlencoded',
      response(200, { 'content-type': 'application/x-www-form-urlencoded' }, 'a=1&b=2'),
      text('a=1&b=2'),
    ],
    [
      'a latin1 charset',
      response(200, { 'content-type': 'text/plain; charset=ISO-8859-1' }, Buffer.from([0x63, 0x61, 0x66, 0xe9])),
      text('café'),
    ],
    ['a quoted charset', response(200, { 'content-type': 'text/plain; charset="utf-8"' }, 'ü'), text('ü')],
    ['an unknown charset: UTF-8', response(200, { 'content-type': 'text/plain; charset=x-made-up' }, 'ü'), text('ü')],
    ['no Content-Type, UTF-8 bytes', response(200, {}, 'plain words 🙂'), text('plain words 🙂')],
    ['an empty Content-Type, UTF-8 bytes', response(200, { 'content-type': '' }, 'x'), text('x')],
    ['no Content-Type, JSON bytes: text, not parsed', response(200, {}, '{"a":1}'), text('{"a":1}')],
    [
      'image/png',
      response(200, { 'content-type': 'image/png' }, PNG),
      { content: [{ type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' }] },
    ],
    [
      'image/svg+xml is an image',
      response(200, { 'content-type': 'image/svg+xml' }, '<svg/>'),
      { content: [{ type: 'image', data: Buffer.from('<svg/>').toString('base64'), mimeType: 'image/svg+xml' }] },
    ],
    [
      'Image/JPEG with parameters',
      response(200, { 'Content-Type': 'Image/JPEG; q=1' }, PNG),
      { content: [{ type: 'image', data: PNG.toString('base64'), mimeType: 'image/jpeg' }] },
    ],
    [
      'audio/wav',
      response(200, { 'content-type': 'audio/wav' }, PNG),
      { content: [{ type: 'audio', data: PNG.toString('base64'), mimeType: 'audio/wav' }] },
    ],
    [
      'application/pdf: an embedded blob',
      response(200, { 'content-type': 'application/pdf' }, PNG),
      {
        content: [
          {
            type: 'resource',
            resource: { uri: 'http-response://body', mimeType: 'application/pdf', blob: PNG.toString('base64') },
          },
        ],
      },
    ],
    [
      'application/octet-stream: an embedded blob',
      response(200, { 'content-type': 'application/octet-stream' }, 'abc'),
      {
        content: [
          {
            type: 'resource',
            resource: { uri: 'http-response://body', mimeType: 'application/octet-stream', blob: 'YWJj' },
          },
        ],
      },
    ],
    [
      'no Content-Type and not UTF-8: an octet-stream blob',
      response(200, {}, NOT_UTF8),
      {
        content: [
          {
            type: 'resource',
            resource: {
              uri: 'http-response://body',
              mimeType: 'application/octet-stream',
              blob: NOT_UTF8.toString('base64'),
            },
          },
        ],
      },
    ],
    ['204', response(204), text('Done (HTTP 204, no content)')],
    ['204 with a stray body and type', response(204, JSON_HEADERS, '{"a":1}'), text('Done (HTTP 204, no content)')],
    ['an empty 200', response(200), text('Done (HTTP 200, no content)')],
    ['an empty 200 JSON', response(200, JSON_HEADERS), text('Done (HTTP 200, no content)')],
    ['an empty 201', response(201, { location: '/orders/9' }), text('Done (HTTP 201, no content)')],
    ['202 with text', response(202, { 'content-type': 'text/plain' }, 'Accepted'), text('Accepted')],
  ])('%s', (_label, captured, expected) => {
    expect(toToolResult(captured)).toStrictEqual(expected);
  });

  it('embeds binary bodies at RESPONSE_BODY_URI', () => {
    expect(RESPONSE_BODY_URI).toBe('http-response://body');
  });
});

describe('toToolResult: 3xx', () => {
  it.each<[string, CapturedResponse, CallToolResult]>([
    [
      '302 with Location',
      response(302, { location: '/login' }, 'Found. Redirecting to /login'),
      failure('HTTP 302 Found: redirects to /login (redirects are not followed)'),
    ],
    [
      '301 with an absolute Location',
      response(301, { Location: 'https://example.com/new' }),
      failure('HTTP 301 Moved Permanently: redirects to https://example.com/new (redirects are not followed)'),
    ],
    [
      '307 with Location as an array',
      response(307, { location: ['/a', '/b'] }),
      failure('HTTP 307 Temporary Redirect: redirects to /a (redirects are not followed)'),
    ],
    [
      '308',
      response(308, { location: '/v2/x' }),
      failure('HTTP 308 Permanent Redirect: redirects to /v2/x (redirects are not followed)'),
    ],
    [
      '303',
      response(303, { location: '/orders/9' }),
      failure('HTTP 303 See Other: redirects to /orders/9 (redirects are not followed)'),
    ],
    [
      '304 without Location',
      response(304),
      failure('HTTP 304 Not Modified (no Location header; redirects are not followed)'),
    ],
    [
      '399: no reason phrase',
      response(399, { location: '/x' }),
      failure('HTTP 399: redirects to /x (redirects are not followed)'),
    ],
  ])('%s', (_label, captured, expected) => {
    expect(toToolResult(captured)).toStrictEqual(expected);
  });
});

describe('toToolResult: 4xx, with the body so a model can correct itself', () => {
  const long = 'x'.repeat(MAX_ERROR_BODY_BYTES + 100);
  const exact = 'y'.repeat(MAX_ERROR_BODY_BYTES);
  // 8191 ASCII bytes, then a 3-byte character that would straddle the cut.
  const straddling = `${'z'.repeat(MAX_ERROR_BODY_BYTES - 1)}€€`;

  it.each<[string, CapturedResponse, CallToolResult]>([
    [
      '404 text',
      response(404, { 'content-type': 'text/plain' }, 'No user 7'),
      failure('HTTP 404 Not Found: No user 7'),
    ],
    ['404 untyped', response(404, {}, 'No user 7'), failure('HTTP 404 Not Found: No user 7')],
    ['404 with no body', response(404), failure('HTTP 404 Not Found')],
    [
      '404 text with surrounding whitespace',
      response(404, { 'content-type': 'text/plain' }, '\n  gone  \n'),
      failure('HTTP 404 Not Found: gone'),
    ],
    [
      '404 Express default HTML page',
      response(404, { 'content-type': 'text/html; charset=utf-8' }, '<pre>Cannot GET /x</pre>'),
      failure('HTTP 404 Not Found: <pre>Cannot GET /x</pre>'),
    ],
    [
      '400 JSON, sent compact',
      response(400, JSON_HEADERS, '{\n  "error": "name is required",\n  "field": "name"\n}'),
      failure('HTTP 400 Bad Request: {"error":"name is required","field":"name"}'),
    ],
    [
      '400 JSON array of errors',
      response(400, JSON_HEADERS, '[{"path":"/a","message":"must be number"}]'),
      failure('HTTP 400 Bad Request: [{"path":"/a","message":"must be number"}]'),
    ],
    ['400 JSON string', response(400, JSON_HEADERS, '"bad"'), failure('HTTP 400 Bad Request: "bad"')],
    [
      '422 problem+json',
      response(422, { 'content-type': 'application/problem+json' }, '{"title":"Invalid","detail":"qty > 0"}'),
      failure('HTTP 422 Unprocessable Entity: {"title":"Invalid","detail":"qty > 0"}'),
    ],
    ['400 invalid JSON: the raw text', response(400, JSON_HEADERS, ' {oops '), failure('HTTP 400 Bad Request: {oops')],
    [
      '401',
      response(401, { 'www-authenticate': 'Bearer' }, 'Unauthorized'),
      failure('HTTP 401 Unauthorized: Unauthorized'),
    ],
    ['403', response(403, JSON_HEADERS, '{"error":"forbidden"}'), failure('HTTP 403 Forbidden: {"error":"forbidden"}')],
    ['409', response(409, JSON_HEADERS, '{"error":"exists"}'), failure('HTTP 409 Conflict: {"error":"exists"}')],
    ['418', response(418, {}, 'short and stout'), failure("HTTP 418 I'm a Teapot: short and stout")],
    [
      '429',
      response(429, { 'retry-after': '30' }, 'Too many requests'),
      failure('HTTP 429 Too Many Requests: Too many requests'),
    ],
    ['499: no reason phrase', response(499, {}, 'client closed'), failure('HTTP 499: client closed')],
    [
      '400 latin1 text',
      response(400, { 'content-type': 'text/plain; charset=latin1' }, Buffer.from([0x6e, 0x6f, 0x20, 0xe9])),
      failure('HTTP 400 Bad Request: no é'),
    ],
    [
      '415 image body',
      response(415, { 'content-type': 'image/png' }, PNG),
      failure('HTTP 415 Unsupported Media Type: (10 bytes of image/png)'),
    ],
    ['400 untyped binary body', response(400, {}, NOT_UTF8), failure('HTTP 400 Bad Request: (4 bytes of binary data)')],
    [
      '400 body of exactly 8 KB: whole',
      response(400, { 'content-type': 'text/plain' }, exact),
      failure(`HTTP 400 Bad Request: ${exact}`),
    ],
    [
      '400 body over 8 KB: cut, with a note',
      response(400, { 'content-type': 'text/plain' }, long),
      failure(
        `HTTP 400 Bad Request: ${'x'.repeat(MAX_ERROR_BODY_BYTES)}… (truncated: ${MAX_ERROR_BODY_BYTES + 100} bytes in all)`,
      ),
    ],
    [
      '400 body over 8 KB: cut on a character boundary',
      response(400, { 'content-type': 'text/plain' }, straddling),
      failure(
        `HTTP 400 Bad Request: ${'z'.repeat(MAX_ERROR_BODY_BYTES - 1)}… (truncated: ${MAX_ERROR_BODY_BYTES + 5} bytes in all)`,
      ),
    ],
    [
      '400 JSON over 8 KB: cut after compacting',
      response(400, JSON_HEADERS, JSON.stringify({ error: long }, null, 2)),
      failure(
        `HTTP 400 Bad Request: ${`{"error":"${long}"}`.slice(0, MAX_ERROR_BODY_BYTES)}… (truncated: ${MAX_ERROR_BODY_BYTES + 112} bytes in all)`,
      ),
    ],
  ])('%s', (_label, captured, expected) => {
    expect(toToolResult(captured)).toStrictEqual(expected);
  });

  it('keeps error bodies to 8 KB', () => {
    expect(MAX_ERROR_BODY_BYTES).toBe(8192);
  });
});

describe('toToolResult: 5xx, without internals', () => {
  const stack =
    'Error: connect ECONNREFUSED 10.0.0.5:5432\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16)';

  it.each<[string, CapturedResponse, CallToolResult]>([
    [
      '500 with a stack trace',
      response(500, { 'content-type': 'text/html' }, stack),
      failure('HTTP 500: the operation failed on the server'),
    ],
    [
      '500 with a JSON error',
      response(500, JSON_HEADERS, '{"error":"db password wrong","sql":"SELECT *"}'),
      failure('HTTP 500: the operation failed on the server'),
    ],
    ['500 empty', response(500), failure('HTTP 500: the operation failed on the server')],
    ['502', response(502, {}, 'upstream 10.0.0.9 down'), failure('HTTP 502: the operation failed on the server')],
    [
      '503 with Retry-After',
      response(503, { 'retry-after': 5 }, 'maintenance'),
      failure('HTTP 503: the operation failed on the server'),
    ],
    ['599', response(599, {}, 'x'), failure('HTTP 599: the operation failed on the server')],
  ])('%s', (_label, captured, expected) => {
    const result = toToolResult(captured);
    expect(result).toStrictEqual(expected);
    expect(JSON.stringify(result)).not.toMatch(/10\.0\.0|password|ECONNREFUSED|SELECT|maintenance/);
  });
});

describe('toToolResult: statuses outside 200–599', () => {
  it.each<[string, number]>([
    ['100', 100],
    ['101', 101],
    ['0', 0],
    ['600', 600],
    ['NaN', Number.NaN],
    ['200.5', 200.5],
  ])('%s → isError', (_label, status) => {
    expect(toToolResult(response(status, JSON_HEADERS, '{"a":1}'))).toStrictEqual(
      failure(`HTTP ${status}: unexpected response status`),
    );
  });
});

describe('toToolResult: headers', () => {
  it.each<[string, Headers, CallToolResult]>([
    ['an undefined Content-Type is no Content-Type', { 'content-type': undefined }, text('{"a":1}')],
    ['an empty array is no Content-Type', { 'content-type': [] }, text('{"a":1}')],
    [
      'a number is read as text',
      { 'content-type': 42 },
      {
        content: [
          {
            type: 'resource',
            resource: { uri: 'http-response://body', mimeType: '42', blob: Buffer.from('{"a":1}').toString('base64') },
          },
        ],
      },
    ],
    [
      'mixed-case names are found',
      { 'CONTENT-TYPE': 'application/json' },
      { content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } },
    ],
  ])('%s', (_label, headers, expected) => {
    expect(toToolResult(response(200, headers, '{"a":1}'))).toStrictEqual(expected);
  });

  it('does not change the captured response', () => {
    const captured = Object.freeze(response(200, Object.freeze({ ...JSON_HEADERS }), '{"a":1}'));
    const before = Buffer.from(captured.body);
    toToolResult(captured);
    expect(captured.body.equals(before)).toBe(true);
  });
});
