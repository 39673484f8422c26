import { failure, parseMessage, success } from '../../../lib/core/jsonrpc/envelope';
import { ErrorCode, JsonRpcError } from '../../../lib/core/jsonrpc/errors';

describe('parseMessage: valid messages', () => {
  it.each<[string, Record<string, unknown>]>([
    [
      'a request with a number id and params',
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 'abc' } },
    ],
    ['a request with a string id and no params', { jsonrpc: '2.0', id: 'req-1', method: 'ping' }],
    ['a request with id 0', { jsonrpc: '2.0', id: 0, method: 'ping' }],
    ['a request with an empty-string id', { jsonrpc: '2.0', id: '', method: 'ping' }],
    ['a request with params: undefined', { jsonrpc: '2.0', id: 2, method: 'ping', params: undefined }],
    ['a notification', { jsonrpc: '2.0', method: 'notifications/initialized' }],
    ['a notification with params', { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3 } }],
    ['a success response', { jsonrpc: '2.0', id: 7, result: {} }],
    ['an error response', { jsonrpc: '2.0', id: 'x', error: { code: -32601, message: 'Method not found' } }],
    ['an error response with data', { jsonrpc: '2.0', id: 8, error: { code: -1, message: 'no', data: { why: 1 } } }],
  ])('accepts %s, returning the same object', (_label, value) => {
    const parsed = parseMessage(value);
    expect(parsed).toEqual({ ok: true, message: value });
    expect(parsed.ok && parsed.message).toBe(value);
  });

  it.each<[string | number]>([['abc'], ['42'], [42], [0], [-5], [1.5], ['00123']])(
    'keeps id %p exactly (type and value)',
    (id) => {
      const parsed = parseMessage({ jsonrpc: '2.0', id, method: 'ping' });
      expect(parsed.ok).toBe(true);
      if (!parsed.ok) throw new Error('unreachable');
      expect((parsed.message as { id: unknown }).id).toBe(id);
    },
  );
});

describe('parseMessage: invalid messages', () => {
  const INVALID_REQUEST = ErrorCode.InvalidRequest;
  const INVALID_PARAMS = ErrorCode.InvalidParams;

  it.each<[string, unknown, number, string | number | null, RegExp]>([
    ['null', null, INVALID_REQUEST, null, /must be a JSON object/],
    ['a string', 'ping', INVALID_REQUEST, null, /must be a JSON object/],
    ['a number', 42, INVALID_REQUEST, null, /must be a JSON object/],
    ['a boolean', true, INVALID_REQUEST, null, /must be a JSON object/],
    ['an array', [{ jsonrpc: '2.0', id: 1, method: 'ping' }], INVALID_REQUEST, null, /must be a JSON object/],
    ['undefined', undefined, INVALID_REQUEST, null, /must be a JSON object/],
    ['missing jsonrpc', { id: 1, method: 'ping' }, INVALID_REQUEST, 1, /"jsonrpc" must be exactly "2.0"/],
    [
      'jsonrpc 1.0',
      { jsonrpc: '1.0', id: 'a', method: 'ping' },
      INVALID_REQUEST,
      'a',
      /"jsonrpc" must be exactly "2.0"/,
    ],
    [
      'jsonrpc as number 2',
      { jsonrpc: 2, id: 3, method: 'ping' },
      INVALID_REQUEST,
      3,
      /"jsonrpc" must be exactly "2.0"/,
    ],
    ['missing method and result', { jsonrpc: '2.0', id: 4 }, INVALID_REQUEST, 4, /exactly one of "result" and "error"/],
    ['no method and no id', { jsonrpc: '2.0', params: {} }, INVALID_REQUEST, null, /needs a "method"/],
    ['numeric method', { jsonrpc: '2.0', id: 5, method: 5 }, INVALID_REQUEST, 5, /"method" must be a non-empty string/],
    [
      'null method',
      { jsonrpc: '2.0', id: 'm', method: null },
      INVALID_REQUEST,
      'm',
      /"method" must be a non-empty string/,
    ],
    ['empty method', { jsonrpc: '2.0', id: 6, method: '' }, INVALID_REQUEST, 6, /"method" must be a non-empty string/],
    [
      'null id',
      { jsonrpc: '2.0', id: null, method: 'ping' },
      INVALID_REQUEST,
      null,
      /"id" must be a string or a number/,
    ],
    [
      'object id',
      { jsonrpc: '2.0', id: { a: 1 }, method: 'ping' },
      INVALID_REQUEST,
      null,
      /"id" must be a string or a number/,
    ],
    [
      'boolean id',
      { jsonrpc: '2.0', id: true, method: 'ping' },
      INVALID_REQUEST,
      null,
      /"id" must be a string or a number/,
    ],
    ['NaN id', { jsonrpc: '2.0', id: NaN, method: 'ping' }, INVALID_REQUEST, null, /"id" must be a string or a number/],
    [
      'params as string',
      { jsonrpc: '2.0', id: 7, method: 'ping', params: 'x' },
      INVALID_REQUEST,
      7,
      /"params" must be an object/,
    ],
    [
      'params as null',
      { jsonrpc: '2.0', id: 'p', method: 'ping', params: null },
      INVALID_REQUEST,
      'p',
      /"params" must be an object/,
    ],
    [
      'params as array',
      { jsonrpc: '2.0', id: 8, method: 'tools/call', params: ['a'] },
      INVALID_PARAMS,
      8,
      /MCP uses named params/,
    ],
    [
      'notification with array params',
      { jsonrpc: '2.0', method: 'n', params: [] },
      INVALID_PARAMS,
      null,
      /MCP uses named params/,
    ],
    [
      'response with result and error',
      { jsonrpc: '2.0', id: 9, result: {}, error: { code: 1, message: 'm' } },
      INVALID_REQUEST,
      9,
      /exactly one of/,
    ],
    [
      'response with error null',
      { jsonrpc: '2.0', id: 10, error: null },
      INVALID_REQUEST,
      10,
      /"error" must be an object/,
    ],
    ['error without code', { jsonrpc: '2.0', id: 11, error: { message: 'm' } }, INVALID_REQUEST, 11, /integer "code"/],
    [
      'error with a fractional code',
      { jsonrpc: '2.0', id: 12, error: { code: 1.5, message: 'm' } },
      INVALID_REQUEST,
      12,
      /integer "code"/,
    ],
    [
      'error with a string code',
      { jsonrpc: '2.0', id: 'e', error: { code: '-32600', message: 'm' } },
      INVALID_REQUEST,
      'e',
      /integer "code"/,
    ],
    [
      'error without message',
      { jsonrpc: '2.0', id: 13, error: { code: -32600 } },
      INVALID_REQUEST,
      13,
      /string "message"/,
    ],
    ['error as a string', { jsonrpc: '2.0', id: 14, error: 'boom' }, INVALID_REQUEST, 14, /"error" must be an object/],
  ])('rejects %s', (_label, value, code, id, message) => {
    const parsed = parseMessage(value);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) throw new Error('unreachable');
    expect(parsed.error.jsonrpc).toBe('2.0');
    expect(parsed.error.id).toBe(id);
    expect(parsed.error.error.code).toBe(code);
    expect(parsed.error.error.message).toMatch(code === INVALID_PARAMS ? /^Invalid params: / : /^Invalid Request: /);
    expect(parsed.error.error.message).toMatch(message);
    expect(parsed.error.error).not.toHaveProperty('data');
    expect(Object.keys(parsed.error).sort()).toEqual(['error', 'id', 'jsonrpc']);
  });
});

describe('success() and failure()', () => {
  it('success builds exactly { jsonrpc, id, result }', () => {
    const result = { tools: [] };
    expect(success('a', result)).toStrictEqual({ jsonrpc: '2.0', id: 'a', result: { tools: [] } });
    expect(success(0, result).result).toBe(result);
  });

  it('failure builds exactly { jsonrpc, id, error } from a JsonRpcError', () => {
    expect(failure(3, new JsonRpcError(ErrorCode.MethodNotFound, 'Method not found: x'))).toStrictEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32601, message: 'Method not found: x' },
    });
  });

  it('failure carries data and accepts a null id', () => {
    expect(
      failure(null, new JsonRpcError(ErrorCode.ResourceNotFound, 'Resource not found', { uri: 'a://b' })),
    ).toStrictEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32002, message: 'Resource not found', data: { uri: 'a://b' } },
    });
  });
});

describe('JsonRpcError', () => {
  it('toObject() leaves data out when it is undefined', () => {
    const err = new JsonRpcError(-32602, 'Invalid params: x');
    expect(err.toObject()).toStrictEqual({ code: -32602, message: 'Invalid params: x' });
    expect(Object.keys(err.toObject())).toEqual(['code', 'message']);
  });

  it.each<[unknown]>([[null], [0], [''], [false], [{ uri: 'x://y' }], [['a']]])('toObject() keeps data %p', (data) => {
    expect(new JsonRpcError(-32002, 'Resource not found', data).toObject()).toStrictEqual({
      code: -32002,
      message: 'Resource not found',
      data,
    });
  });

  it('is an Error with name, code and message', () => {
    const err = new JsonRpcError(ErrorCode.InternalError, 'Internal error');
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('JsonRpcError');
    expect(err.code).toBe(-32603);
    expect(err.message).toBe('Internal error');
  });

  it('has the JSON-RPC and MCP code values', () => {
    expect(ErrorCode).toEqual({
      ParseError: -32700,
      InvalidRequest: -32600,
      MethodNotFound: -32601,
      InvalidParams: -32602,
      InternalError: -32603,
      ServerError: -32000,
      ResourceNotFound: -32002,
      HeaderMismatch: -32020,
      MissingRequiredClientCapability: -32021,
      UnsupportedProtocolVersion: -32022,
    });
  });
});
