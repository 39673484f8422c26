// Hostile requests: bodies — malformed and oversized bodies, batches (initialize inside one), odd ids, prototype
// pollution.

import type { IncomingHttpHeaders } from 'node:http';
import { gzipSync } from 'node:zlib';
import { MCP_ACCEPT } from '../helpers/messages';
import { Host, initialize, PLAIN_OPTIONS, rpc } from './host';
import { deep } from './requests';
import { badInputRow, type BadInput } from './bad-input';
import { hostileTable, type Row } from './table';
import type { WireResponse } from './wire';

const OVER_1KB = JSON.stringify({ ...rpc('ping'), params: { _meta: { pad: 'x'.repeat(1100) } } });
const DEEP = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"a":${'['.repeat(10_000)}${']'.repeat(10_000)}}}}`;
const PROTO_KEYS =
  '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"keys","arguments":{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}}}';

/** The headers the 1 KB host saw on the last request (proves a body really was chunked). */
let oneKbHeaders: IncomingHttpHeaders = {};

/** `send` to a plain host with a 1 KB body limit of its own; keeps the headers it saw, and checks it logged nothing. */
async function overOneKb(send: (host: Host) => Promise<WireResponse>): Promise<WireResponse> {
  const host = await Host.start({ ...PLAIN_OPTIONS, bodyLimit: '1kb' });
  try {
    const res = await send(host);
    oneKbHeaders = host.lastHeaders;
    expect(host.logger.error).not.toHaveBeenCalled();
    return res;
  } finally {
    await host.close();
  }
}

const ROWS: Array<[string, Row]> = [
  // ---- 6. initialize inside a batch ----
  [
    'initialize inside a batch, without Mcp-Session-Id: 400, -32600',
    {
      run: (s) => s.main.post('alice', [initialize(), rpc('ping', undefined, 2)]),
      status: 400,
      type: 'json',
      error: { code: -32600, id: null },
      also: (res) => expect(res.headers['mcp-session-id']).toBeUndefined(),
    },
  ],
  [
    'initialize inside a batch, in a 2025-03-26 session (which may batch): 400, -32600',
    {
      run: (s) =>
        s.main.post('alice', [rpc('ping', undefined, 1), initialize({ protocolVersion: '2025-03-26' })], {
          session: s.aliceOld,
          version: '2025-03-26',
        }),
      status: 400,
      type: 'json',
      error: { code: -32600, id: null },
    },
  ],
  [
    'initialize inside a batch, in a 2025-11-25 session: 400, -32600',
    {
      run: (s) => s.main.post('alice', [initialize()], { session: s.alice }),
      status: 400,
      type: 'json',
      error: { code: -32600, id: null },
    },
  ],

  // ---- bodies ----
  [
    'malformed JSON: 400, -32700',
    {
      run: (s) => s.main.post('alice', '{"jsonrpc":"2.0","id":1,', { session: s.alice }),
      status: 400,
      type: 'json',
      error: { code: -32700, id: null },
    },
  ],
  [
    'an empty body: 400, -32700',
    {
      run: (s) => s.main.post('alice', '', { session: s.alice }),
      status: 400,
      type: 'json',
      error: { code: -32700, id: null },
    },
  ],
  [
    'bytes that are not UTF-8: 400, -32700',
    {
      run: (s) =>
        s.main.post(
          'alice',
          Buffer.concat([
            Buffer.from('{"jsonrpc":"2.0","id":1,"method":"'),
            Buffer.from([0xff, 0xfe, 0xc3]),
            Buffer.from('"}'),
          ]),
          { session: s.alice },
        ),
      status: 400,
      type: 'json',
      error: { code: -32700, id: null },
    },
  ],
  [
    'Content-Type: text/plain: 415, -32000',
    {
      run: (s) => s.main.post('alice', rpc('ping'), { session: s.alice, headers: { 'Content-Type': 'text/plain' } }),
      status: 415,
      type: 'json',
      error: { code: -32000, id: null },
    },
  ],
  [
    'no Content-Type: 415, -32000',
    {
      run: (s) => s.main.post('alice', rpc('ping'), { session: s.alice, headers: { 'Content-Type': undefined } }),
      status: 415,
      type: 'json',
      error: { code: -32000, id: null },
    },
  ],
  [
    'Content-Type: application/json; charset=latin1: 415, -32000',
    {
      run: (s) =>
        s.main.post('alice', rpc('ping'), {
          session: s.alice,
          headers: { 'Content-Type': 'application/json; charset=latin1' },
        }),
      status: 415,
      type: 'json',
      error: { code: -32000, id: null },
    },
  ],
  [
    'Accept: text/html (neither JSON nor SSE): 406, -32000',
    {
      run: (s) => s.main.post('alice', rpc('ping'), { session: s.alice, headers: { Accept: 'text/html' } }),
      status: 406,
      type: 'json',
      error: { code: -32000, id: null },
    },
  ],
  // RFC 9110 §12.5.1: no Accept means any type is acceptable; the router answers JSON (README: Accept is read leniently).
  [
    'no Accept header: answered as JSON',
    {
      run: (s) =>
        s.main.post('alice', rpc('ping', undefined, 'no-accept'), { session: s.alice, headers: { Accept: undefined } }),
      status: 200,
      type: 'json',
      result: { id: 'no-accept' },
    },
  ],
  [
    'a body over bodyLimit (4 MB): 413, -32000, Connection: close',
    {
      run: (s) => s.main.post('alice', { ...rpc('ping'), pad: 'x'.repeat(4 * 1024 * 1024) }, { session: s.alice }),
      status: 413,
      type: 'json',
      error: { code: -32000, id: null },
      also: (res) => expect(res.headers.connection).toBe('close'),
    },
  ],
  [
    'JSON nested 129 levels deep: 400, -32700',
    {
      run: (s) => s.main.post('alice', deep(128), { session: s.alice }),
      status: 400,
      type: 'json',
      error: { code: -32700, id: null },
    },
  ],
  [
    'JSON nested 100,000 levels deep: 400, -32700',
    {
      run: (s) => s.main.post('alice', `${'['.repeat(100_000)}${']'.repeat(100_000)}`, { session: s.alice }),
      status: 400,
      type: 'json',
      error: { code: -32700, id: null },
    },
  ],
  [
    'JSON nested 127 levels deep: served',
    {
      run: (s) => s.main.post('alice', deep(126), { session: s.alice }),
      status: 200,
      type: 'json',
      result: { id: 'deep' },
    },
  ],

  // ---- batches ----
  [
    'a batch of 101 messages (maxBatchLength 100) in a 2025-03-26 session: 400, -32600',
    {
      run: (s) =>
        s.main.post(
          'alice',
          Array.from({ length: 101 }, (_, i) => rpc('ping', undefined, i)),
          { session: s.aliceOld, version: '2025-03-26' },
        ),
      status: 400,
      type: 'json',
      error: { code: -32600, id: null },
    },
  ],
  [
    'an empty batch in a 2025-03-26 session: 400, -32600',
    {
      run: (s) => s.main.post('alice', [], { session: s.aliceOld, version: '2025-03-26' }),
      status: 400,
      type: 'json',
      error: { code: -32600, id: null },
    },
  ],
  [
    'a batch of 100 in a 2025-03-26 session (control): 100 answers',
    {
      run: (s) =>
        s.main.post(
          'alice',
          Array.from({ length: 100 }, (_, i) => rpc('ping', undefined, i)),
          { session: s.aliceOld, version: '2025-03-26' },
        ),
      status: 200,
      type: 'json',
      also: (res) =>
        expect(res.json).toEqual(Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: i, result: {} }))),
    },
  ],
  [
    'a batch in a 2025-11-25 session: 400, -32600',
    {
      run: (s) => s.main.post('alice', [rpc('ping', undefined, 1), rpc('ping', undefined, 2)], { session: s.alice }),
      status: 400,
      type: 'json',
      error: { code: -32600, id: null },
    },
  ],
  [
    'a batch in a 2025-11-25 session that claims MCP-Protocol-Version 2025-03-26: 400, -32600 (the session governs)',
    {
      run: (s) => s.main.post('alice', [rpc('ping', undefined, 1)], { session: s.alice, version: '2025-03-26' }),
      status: 400,
      type: 'json',
      error: { code: -32600, id: null },
    },
  ],

  // ---- odd ids ----
  [
    'id null: 400, -32600, id null',
    {
      run: (s) => s.main.post('alice', rpc('ping', undefined, null), { session: s.alice }),
      status: 400,
      type: 'json',
      error: { code: -32600, id: null },
    },
  ],
  [
    'id an object: 400, -32600, id null',
    {
      run: (s) => s.main.post('alice', rpc('ping', undefined, { $gt: '' }), { session: s.alice }),
      status: 400,
      type: 'json',
      error: { code: -32600, id: null },
    },
  ],
  [
    'id an array: 400, -32600, id null',
    {
      run: (s) => s.main.post('alice', rpc('ping', undefined, [1, 2]), { session: s.alice }),
      status: 400,
      type: 'json',
      error: { code: -32600, id: null },
    },
  ],
  [
    'id a boolean: 400, -32600, id null',
    {
      run: (s) => s.main.post('alice', rpc('ping', undefined, true), { session: s.alice }),
      status: 400,
      type: 'json',
      error: { code: -32600, id: null },
    },
  ],
  [
    'id 1e400 (not finite once parsed): 400, -32600, id null',
    {
      run: (s) => s.main.post('alice', '{"jsonrpc":"2.0","id":1e400,"method":"ping"}', { session: s.alice }),
      status: 400,
      type: 'json',
      error: { code: -32600, id: null },
    },
  ],
  [
    'id a float: echoed',
    {
      run: (s) => s.main.post('alice', rpc('ping', undefined, 1.5), { session: s.alice }),
      status: 200,
      type: 'json',
      result: { id: 1.5 },
    },
  ],
  [
    'id negative: echoed',
    {
      run: (s) => s.main.post('alice', rpc('ping', undefined, -7), { session: s.alice }),
      status: 200,
      type: 'json',
      result: { id: -7 },
    },
  ],
  [
    'id a 100,000-character string: echoed',
    {
      run: (s) => s.main.post('alice', rpc('ping', undefined, 'i'.repeat(100_000)), { session: s.alice }),
      status: 200,
      type: 'json',
      result: { id: 'i'.repeat(100_000) },
    },
  ],
  [
    'id an empty string: echoed',
    {
      run: (s) => s.main.post('alice', rpc('ping', undefined, ''), { session: s.alice }),
      status: 200,
      type: 'json',
      result: { id: '' },
    },
  ],

  // ---- prototype pollution ----
  [
    '__proto__ at the top level of the body',
    {
      run: (s) =>
        s.main.post(
          'alice',
          '{"jsonrpc":"2.0","id":"p1","method":"ping","__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}',
          { session: s.alice },
        ),
      status: 200,
      type: 'json',
      result: { id: 'p1' },
    },
  ],
  [
    '__proto__ in params',
    {
      run: (s) =>
        s.main.post(
          'alice',
          '{"jsonrpc":"2.0","id":"p2","method":"tools/list","params":{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"isAdmin":true}}}}',
          { session: s.alice },
        ),
      status: 200,
      type: 'json',
      result: { id: 'p2' },
    },
  ],
  [
    '__proto__ in tool arguments: kept as data, never a prototype',
    {
      run: (s) =>
        s.main.post(
          'alice',
          '{"jsonrpc":"2.0","id":"p3","method":"tools/call","params":{"name":"keys","arguments":{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"prototype":{"x":1}}}}',
          { session: s.alice },
        ),
      status: 200,
      type: 'json',
      result: {
        id: 'p3',
        check: (result) =>
          expect(result.structuredContent).toEqual({ keys: ['__proto__', 'constructor', 'prototype'] }),
      },
    },
  ],
  [
    '__proto__ in _meta',
    {
      run: (s) =>
        s.main.post(
          'alice',
          '{"jsonrpc":"2.0","id":"p4","method":"tools/call","params":{"name":"echo","arguments":{"text":"t"},"_meta":{"__proto__":{"polluted":"yes"},"progressToken":{"__proto__":{"isAdmin":true}}}}}',
          { session: s.alice },
        ),
      status: 200,
      type: 'json',
      result: { id: 'p4' },
    },
  ],
  [
    '__proto__ in initialize capabilities and clientInfo: the session keeps none of it',
    {
      run: (s) =>
        s.main.post(
          'alice',
          '{"jsonrpc":"2.0","id":"p5","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"__proto__":{"polluted":"yes"},"roots":{"__proto__":{"polluted":"yes"}}},"clientInfo":{"name":"x","version":"1","__proto__":{"isAdmin":true}}}}',
        ),
      status: 200,
      type: 'json',
      result: { id: 'p5' },
      also: (res, s) => {
        const record = s.main.created.find((created) => created.id === res.headers['mcp-session-id']);
        expect(record?.clientInfo).toEqual({ name: 'x', version: '1' });
        expect(Object.keys(record?.clientCapabilities ?? {})).toEqual(['roots']);
      },
    },
  ],
];

/** Bad inputs anyone may send (stateless, no auth): the plain host's exact answers. */
const BAD_INPUTS: BadInput[] = [
  {
    name: 'malformed JSON',
    body: '{"jsonrpc":"2.0","id":1,"method":',
    status: 400,
    code: -32700,
    id: null,
  },
  { name: 'empty body', body: '', status: 400, code: -32700, id: null },
  { name: 'whitespace-only body', body: ' \n\t ', status: 400, code: -32700, id: null },
  { name: 'a JSON string instead of a message', body: '"ping"', status: 400, code: -32600, id: null },
  { name: 'JSON null', body: 'null', status: 400, code: -32600, id: null },
  {
    name: 'wrong jsonrpc version',
    body: { ...rpc('ping', undefined, 3), jsonrpc: '1.0' },
    status: 400,
    code: -32600,
    id: 3,
  },
  {
    name: 'jsonrpc member missing',
    body: { id: 'a', method: 'ping' },
    status: 400,
    code: -32600,
    id: 'a',
  },
  { name: 'id null', body: { ...rpc('ping'), id: null }, status: 400, code: -32600, id: null },
  { name: 'missing method', body: { jsonrpc: '2.0', id: 4 }, status: 400, code: -32600, id: 4 },
  {
    name: 'non-string method',
    body: { jsonrpc: '2.0', id: 5, method: 42 },
    status: 400,
    code: -32600,
    id: 5,
  },
  {
    name: 'params a string',
    body: { ...rpc('ping', undefined, 6), params: 'x' },
    status: 400,
    code: -32600,
    id: 6,
  },
  {
    name: 'params an array',
    body: { ...rpc('tools/list', undefined, 6), params: [1] },
    status: 400,
    code: -32602,
    id: 6,
  },
  {
    name: 'oversized body with Content-Length',
    run: () => overOneKb((host) => host.post('anon', OVER_1KB)),
    status: 413,
    code: -32000,
    id: null,
    message: /1024 bytes/,
    also: () => expect(oneKbHeaders['content-length']).toBe(String(Buffer.byteLength(OVER_1KB))),
  },
  {
    name: 'oversized chunked body',
    run: () =>
      overOneKb((host) =>
        host.send('anon', {
          headers: { 'Content-Type': 'application/json', Accept: MCP_ACCEPT },
          chunks: [OVER_1KB.slice(0, OVER_1KB.length / 2), OVER_1KB.slice(OVER_1KB.length / 2)],
        }),
      ),
    status: 413,
    code: -32000,
    id: null,
    message: /1024 bytes/,
    also: () => {
      expect(oneKbHeaders['transfer-encoding']).toBe('chunked');
      expect(oneKbHeaders['content-length']).toBeUndefined();
    },
  },
  {
    name: '__proto__ and constructor keys in tool arguments',
    run: (s) => {
      s.plain.keysArgs = undefined;
      return s.plain.post('anon', PROTO_KEYS, { headers: { 'MCP-Protocol-Version': '2025-11-25' } });
    },
    status: 200,
    id: 7,
    also: (body, s) => {
      expect(body.result).toEqual({
        content: [{ type: 'text', text: '{"keys":["__proto__","constructor"]}' }],
        structuredContent: { keys: ['__proto__', 'constructor'] },
      });
      // The handler got the keys as plain data, on an ordinary object…
      expect(Object.getPrototypeOf(s.plain.keysArgs)).toBe(Object.prototype);
      expect(Object.getOwnPropertyDescriptor(s.plain.keysArgs, '__proto__')?.value).toEqual({ polluted: 'yes' });
      expect(Object.getOwnPropertyDescriptor(s.plain.keysArgs, 'constructor')?.value).toEqual({
        prototype: { polluted: 'yes' },
      });
      // …and nothing reached Object.prototype.
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false);
    },
  },
  {
    name: 'JSON nested 10,000 levels deep',
    body: DEEP,
    status: 400,
    code: -32700,
    id: null,
    message: /nested/i,
  },
  {
    name: 'invalid UTF-8 bytes',
    body: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]),
    status: 400,
    code: -32700,
    id: null,
    message: /UTF-8/,
  },
  {
    name: 'a UTF-8 byte-order mark before the JSON (dropped, as TextDecoder does)',
    body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(rpc('ping', undefined, 'bom')))]),
    status: 200,
    id: 'bom',
  },
  {
    name: 'only a byte-order mark',
    body: Buffer.from([0xef, 0xbb, 0xbf]),
    status: 400,
    code: -32700,
    id: null,
    message: /empty/,
  },
  {
    name: 'batch on MCP-Protocol-Version 2025-06-18',
    body: [rpc('ping', undefined, 1), rpc('ping', undefined, 2)],
    headers: { 'MCP-Protocol-Version': '2025-06-18' },
    status: 400,
    code: -32600,
    id: null,
  },
  {
    name: 'batch on MCP-Protocol-Version 2025-11-25',
    body: [rpc('ping', undefined, 1)],
    headers: { 'MCP-Protocol-Version': '2025-11-25' },
    status: 400,
    code: -32600,
    id: null,
  },
  { name: 'empty batch', body: [], status: 400, code: -32600, id: null },
  {
    name: 'a gzip body (Content-Encoding: gzip): not read as plain bytes',
    body: gzipSync(JSON.stringify(rpc('ping', undefined, 'gz'))),
    headers: { 'Content-Encoding': 'gzip' },
    status: 415,
    code: -32000,
    id: null,
    message: /without Content-Encoding \(got 'gzip'\)/,
  },
  {
    name: 'an unknown Content-Encoding on a plain JSON body: not read as if plain',
    body: rpc('ping', undefined, 'br2'),
    headers: { 'Content-Encoding': 'br2' },
    status: 415,
    code: -32000,
    id: null,
    message: /Content-Encoding/,
  },
  {
    name: 'Content-Encoding: identity twice (two lines, joined by Node) is still no coding',
    body: rpc('ping', undefined, 'identity2'),
    headers: { 'Content-Encoding': 'identity, Identity' },
    status: 200,
    id: 'identity2',
  },
  {
    name: 'a Transfer-Encoding besides chunked (x-foo, chunked): Node undoes only the chunks',
    body: rpc('ping', undefined, 'te'),
    headers: { 'Transfer-Encoding': 'x-foo, chunked' },
    status: 501,
    code: -32000,
    id: null,
    message: /without another Transfer-Encoding \(got 'x-foo, chunked'\)/,
  },
  {
    name: 'Transfer-Encoding with an empty list member (, chunked) is chunked alone (RFC 9110 §5.6.1)',
    body: rpc('ping', undefined, 'empty-member'),
    headers: { 'Transfer-Encoding': ', chunked' },
    status: 200,
    id: 'empty-member',
  },
  {
    name: 'Transfer-Encoding: chunked alone is read as usual',
    body: rpc('ping', undefined, 'chunked'),
    headers: { 'Transfer-Encoding': 'chunked' },
    status: 200,
    id: 'chunked',
  },
  {
    name: 'Content-Encoding: identity (no coding) is read as usual',
    body: rpc('ping', undefined, 'identity'),
    headers: { 'Content-Encoding': 'identity' },
    status: 200,
    id: 'identity',
  },
  {
    name: 'batch containing initialize',
    body: [
      rpc(
        'initialize',
        { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
        1,
      ),
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ],
    status: 400,
    code: -32600,
    id: null,
  },
];

hostileTable('hostile requests: bodies (issue 13)', [...ROWS, ...BAD_INPUTS.map(badInputRow)], 64);
