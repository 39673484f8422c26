// The MCP 2026-07-28 request headers (protocol/request-headers.ts): the Base64 value encoding, and the standard and Mcp-Param checks.

import {
  decodeHeaderValue,
  headerText,
  paramHeaderFault,
  standardHeaderFault,
  type RequestHeaders,
} from '../../../../lib/core/protocol/era-2026/request-headers';
import { headerParamsOf } from '../../../../lib/core/registry/header-params';

describe('decodeHeaderValue (MCP 2026-07-28 transports › Value Encoding)', () => {
  // The spec's own encoding examples, decoded back.
  it.each([
    ['us-west1', 'us-west1'],
    ['=?base64?SGVsbG8sIOS4lueVjA==?=', 'Hello, 世界'],
    ['=?base64?IHBhZGRlZCA=?=', ' padded '],
    ['=?base64?bGluZTEKbGluZTI=?=', 'line1\nline2'],
    ['=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=', '=?base64?literal?='],
    ['=?base64??=', ''],
  ])('%s → %j', (header, value) => {
    expect(decodeHeaderValue(header)).toBe(value);
  });

  it.each([
    ['SGVsbG8', 'no prefix or suffix'],
    ['=?base64?SGVsbG8=', 'no suffix'],
    ['SGVsbG8=?=', 'no prefix'],
    ['=?BASE64?SGVsbG8=?=', 'markers in capitals (they are case-sensitive)'],
    ['=?base64?', 'the prefix alone'],
  ])('%s is literal (%s)', (header) => {
    expect(decodeHeaderValue(header)).toBe(header);
  });

  it.each([
    ['=?base64?SGVsbG8?=', 'bad padding'],
    ['=?base64?SGVs!!!bG8=?=', 'characters outside the alphabet'],
    ['=?base64?SGVsbG8=\n?=', 'a line break inside'],
    ['=?base64?SGVsbG8-?=', 'the URL-safe alphabet'],
    ['=?base64?/w==?=', 'bytes that are not UTF-8'],
    ['café', 'a literal with a character outside visible ASCII (as Node reads an obs-text byte)'],
    ['a\u0000b', 'a literal with a control character'],
  ])('%j is refused: %s', (header) => {
    expect(decodeHeaderValue(header)).toBeUndefined();
  });
});

describe('headerText', () => {
  it('strips optional whitespace, joins a repeated header, and tells an absent one', () => {
    expect(headerText({ 'mcp-name': ' \t add \t' }, 'mcp-name')).toBe('add');
    expect(headerText({ 'mcp-name': ['a', 'b'] }, 'mcp-name')).toBe('a, b');
    expect(headerText({}, 'mcp-name')).toBeUndefined();
    expect(headerText({ 'mcp-name': '' }, 'mcp-name')).toBe('');
  });
});

describe('standardHeaderFault (MCP 2026-07-28 transports › Standard Request Headers)', () => {
  const base = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call' };
  const fault = (method: string, params: unknown, headers: RequestHeaders) => {
    const error = standardHeaderFault(method, params, headers);
    return error && { code: error.code, header: (error.data as { header: string }).header, message: error.message };
  };

  it('passes what agrees, whitespace and Base64 included', () => {
    expect(fault('tools/call', { name: 'add' }, { ...base, 'mcp-name': 'add' })).toBeUndefined();
    expect(fault('tools/call', { name: 'add' }, { ...base, 'mcp-name': '  add  ' })).toBeUndefined();
    expect(fault('tools/call', { name: 'add' }, { ...base, 'mcp-name': '=?base64?YWRk?=' })).toBeUndefined();
    expect(
      fault(
        'resources/read',
        { uri: 'file:///ü.txt' },
        {
          ...base,
          'mcp-method': 'resources/read',
          'mcp-name': `=?base64?${Buffer.from('file:///ü.txt').toString('base64')}?=`,
        },
      ),
    ).toBeUndefined();
    expect(fault('tools/list', {}, { ...base, 'mcp-method': 'tools/list' })).toBeUndefined();
  });

  it.each([
    ['MCP-Protocol-Version', 'tools/list', {}, { 'mcp-method': 'tools/list' }],
    ['Mcp-Method', 'tools/list', {}, { 'mcp-protocol-version': '2026-07-28' }],
    ['Mcp-Name', 'tools/call', { name: 'add' }, base],
    ['Mcp-Name', 'prompts/get', { name: 'greet' }, { ...base, 'mcp-name': 'greeting' }],
    ['Mcp-Name', 'resources/read', { uri: 'docs://a' }, { ...base, 'mcp-name': 'docs://b' }],
    ['Mcp-Name', 'tools/call', { name: 'add' }, { ...base, 'mcp-name': 'ADD' }],
    ['Mcp-Name', 'tools/call', { name: 'add' }, { ...base, 'mcp-name': '=?base64?YWRkZA==?=' }],
    ['Mcp-Name', 'tools/call', { name: 'add' }, { ...base, 'mcp-name': '=?base64?YWRk?' }],
  ])('-32020 naming %s for %s', (header, method, params, headers) => {
    expect(fault(method, params, headers)).toMatchObject({
      code: -32020,
      header,
      message: expect.stringMatching(/^Bad Request: /),
    });
  });

  it('leaves a body without params.name to argument checks (-32602 later), and ignores a prototype key as a method', () => {
    expect(fault('tools/call', {}, base)).toBeUndefined();
    expect(fault('tools/call', { name: 3 }, base)).toBeUndefined();
    expect(fault('constructor', { name: 'x' }, { ...base, 'mcp-method': 'constructor' })).toBeUndefined();
  });
});

describe('paramHeaderFault (MCP 2026-07-28 transports › Server Behavior for Custom Headers)', () => {
  const params = headerParamsOf(
    {
      type: 'object',
      properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' },
        limit: { type: 'integer', 'x-mcp-header': 'Limit' },
        dry: { type: 'boolean', 'x-mcp-header': 'Dry-Run' },
        target: { type: 'object', properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } } },
        query: { type: 'string' },
      },
    },
    "tool 't'",
  );
  const fault = (args: Record<string, unknown>, headers: RequestHeaders) => {
    const error = paramHeaderFault(params, args, headers);
    return error && { code: error.code, header: (error.data as { header: string }).header };
  };

  it('passes headers that agree: literal, Base64, integers numerically, booleans, nested properties', () => {
    expect(fault({ region: 'us-west1', query: 'x' }, { 'mcp-param-region': 'us-west1' })).toBeUndefined();
    expect(fault({ region: 'Hello, 世界' }, { 'mcp-param-region': '=?base64?SGVsbG8sIOS4lueVjA==?=' })).toBeUndefined();
    expect(fault({ limit: 42 }, { 'mcp-param-limit': '42.0' })).toBeUndefined();
    expect(fault({ limit: -7 }, { 'mcp-param-limit': '-7' })).toBeUndefined();
    expect(fault({ dry: false }, { 'mcp-param-dry-run': 'false' })).toBeUndefined();
    expect(fault({ target: { zone: 'b' } }, { 'mcp-param-zone': 'b' })).toBeUndefined();
  });

  it('expects no header for an argument that is absent or null, and ignores one sent anyway', () => {
    expect(fault({}, {})).toBeUndefined();
    expect(fault({ region: null, target: {} }, { 'mcp-param-region': 'anything' })).toBeUndefined();
  });

  it('quotes at most 80 characters of a value in its message, however long the header or argument', () => {
    const error = paramHeaderFault(
      params,
      { region: 'b'.repeat(1_000_000) },
      { 'mcp-param-region': 'a'.repeat(16_000) },
    );
    expect(error?.message).toBe(
      `Bad Request: the Mcp-Param-Region header says "${'a'.repeat(80)}…" but argument 'region' is "${'b'.repeat(80)}…"`,
    );
  });

  it('leaves an argument of the wrong type to argument validation', () => {
    expect(fault({ limit: 'many', region: ['a'], dry: 'yes', target: 'z' }, {})).toBeUndefined();
    expect(fault({ limit: 4.5 }, {})).toBeUndefined();
  });

  it.each([
    ['Mcp-Param-Region', { region: 'us-west1' }, {}],
    ['Mcp-Param-Region', { region: 'us-west1' }, { 'mcp-param-region': 'us-east1' }],
    ['Mcp-Param-Region', { region: 'Hello' }, { 'mcp-param-region': '=?base64?SGVsbG8?=' }],
    ['Mcp-Param-Region', { region: 'Hello' }, { 'mcp-param-region': '=?base64?SGVs!!!bG8=?=' }],
    ['Mcp-Param-Limit', { limit: 26 }, { 'mcp-param-limit': '0x1a' }],
    ['Mcp-Param-Limit', { limit: 1000 }, { 'mcp-param-limit': '1e3' }],
    ['Mcp-Param-Limit', { limit: 42 }, { 'mcp-param-limit': '43' }],
    ['Mcp-Param-Dry-Run', { dry: true }, { 'mcp-param-dry-run': 'TRUE' }],
    ['Mcp-Param-Zone', { target: { zone: 'a' } }, { 'mcp-param-zone': 'b' }],
  ])('-32020 naming %s', (header, args, headers) => {
    expect(fault(args, headers)).toEqual({ code: -32020, header });
  });
});
