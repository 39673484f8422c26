// Hostile suite, bodies and headers without auth: every kind of bad input, over HTTP: exact status, JSON-RPC error
// code and id, always a JSON body, never a stack.

import express, { type Express } from 'express';
import type { IncomingHttpHeaders } from 'node:http';
import request, { type Response } from 'supertest';
import { createApp, MCP_ACCEPT, notification, post, rpc, silentLogger } from '../helpers/create-app';

/** What the tool `echo` saw, for the prototype-pollution row. */
let seenByEcho: Record<string, unknown> | undefined;

const logger = silentLogger();
const app = createApp({ logger }, (mcp) => {
  mcp.tool({
    name: 'echo',
    description: 'Returns the names of its arguments',
    inputSchema: { type: 'object' },
    handler: (args: Record<string, unknown>) => {
      seenByEcho = args;
      return { keys: Object.keys(args) };
    },
  });
  mcp.prompt({ name: 'greet', description: 'Says hello', get: () => 'hello' });
  mcp.resource({ uri: 'docs://readme', name: 'readme', read: () => '# readme' });
});

/** The headers the host app saw on the last request to `recordingApp` (proves a body really was chunked). */
let lastHeaders: IncomingHttpHeaders = {};
const recordingApp = express();
recordingApp.use((req, _res, next) => {
  lastHeaders = { ...req.headers };
  next();
});
recordingApp.use(createApp({ logger, bodyLimit: '1kb' }));

/** POSTs `text` in two writes without Content-Length, so Node sends it with Transfer-Encoding: chunked. */
function postChunked(target: Express, text: string): request.Test {
  const test = request(target).post('/mcp').set('Content-Type', 'application/json').set('Accept', MCP_ACCEPT);
  const half = Math.floor(text.length / 2);
  test.write(text.slice(0, half));
  test.write(text.slice(half));
  return test;
}

const OVER_1KB = JSON.stringify({ ...rpc('ping'), params: { _meta: { pad: 'x'.repeat(1100) } } });
const DEEP = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"a":${'['.repeat(10_000)}${']'.repeat(10_000)}}}}`;
const PROTO_KEYS =
  '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}}}';

interface Row {
  name: string;
  send: () => PromiseLike<Response>;
  status: number;
  /** The JSON-RPC error code; undefined for a row that must succeed. */
  code?: number;
  id: string | number | null;
  data?: unknown;
  /** Where the cause is ambiguous from the code alone: what the message must say. */
  message?: RegExp;
  also?: (body: Record<string, unknown>) => void;
}

const rows: Row[] = [
  {
    name: 'malformed JSON',
    send: () => post(app, '{"jsonrpc":"2.0","id":1,"method":'),
    status: 400,
    code: -32700,
    id: null,
  },
  { name: 'empty body', send: () => post(app, ''), status: 400, code: -32700, id: null },
  { name: 'whitespace-only body', send: () => post(app, ' \n\t '), status: 400, code: -32700, id: null },
  { name: 'a JSON string instead of a message', send: () => post(app, '"ping"'), status: 400, code: -32600, id: null },
  { name: 'JSON null', send: () => post(app, 'null'), status: 400, code: -32600, id: null },
  {
    name: 'wrong jsonrpc version',
    send: () => post(app, { ...rpc('ping', undefined, 3), jsonrpc: '1.0' }),
    status: 400,
    code: -32600,
    id: 3,
  },
  {
    name: 'jsonrpc member missing',
    send: () => post(app, { id: 'a', method: 'ping' }),
    status: 400,
    code: -32600,
    id: 'a',
  },
  { name: 'id null', send: () => post(app, { ...rpc('ping'), id: null }), status: 400, code: -32600, id: null },
  { name: 'missing method', send: () => post(app, { jsonrpc: '2.0', id: 4 }), status: 400, code: -32600, id: 4 },
  {
    name: 'non-string method',
    send: () => post(app, { jsonrpc: '2.0', id: 5, method: 42 }),
    status: 400,
    code: -32600,
    id: 5,
  },
  {
    name: 'params a string',
    send: () => post(app, { ...rpc('ping', undefined, 6), params: 'x' }),
    status: 400,
    code: -32600,
    id: 6,
  },
  {
    name: 'params an array',
    send: () => post(app, { ...rpc('tools/list', undefined, 6), params: [1] }),
    status: 400,
    code: -32602,
    id: 6,
  },
  {
    name: 'unknown method',
    send: () => post(app, rpc('tools/frobnicate', {}, 'm')),
    status: 200,
    code: -32601,
    id: 'm',
  },
  {
    name: 'unknown tool',
    send: () => post(app, rpc('tools/call', { name: 'nope', arguments: {} }, 8)),
    status: 200,
    code: -32602,
    id: 8,
  },
  {
    name: 'tools/call without a name',
    send: () => post(app, rpc('tools/call', {}, 8)),
    status: 200,
    code: -32602,
    id: 8,
  },
  {
    name: 'unknown prompt',
    send: () => post(app, rpc('prompts/get', { name: 'nope' }, 9)),
    status: 200,
    code: -32602,
    id: 9,
  },
  {
    name: 'unknown resource',
    send: () => post(app, rpc('resources/read', { uri: 'docs://nope' }, 10)),
    status: 200,
    code: -32002,
    id: 10,
    data: { uri: 'docs://nope' },
  },
  {
    name: 'bad cursor',
    send: () => post(app, rpc('tools/list', { cursor: 'not-a-cursor' }, 11)),
    status: 200,
    code: -32602,
    id: 11,
  },
  {
    name: 'cursor of another list',
    send: () => post(app, rpc('prompts/list', { cursor: Buffer.from('tool:1').toString('base64url') }, 11)),
    status: 200,
    code: -32602,
    id: 11,
  },
  {
    name: 'oversized body with Content-Length',
    send: () => post(recordingApp, OVER_1KB),
    status: 413,
    code: -32000,
    id: null,
    message: /1024 bytes/,
    also: () => expect(lastHeaders['content-length']).toBe(String(Buffer.byteLength(OVER_1KB))),
  },
  {
    name: 'oversized chunked body',
    send: () => postChunked(recordingApp, OVER_1KB),
    status: 413,
    code: -32000,
    id: null,
    message: /1024 bytes/,
    also: () => {
      expect(lastHeaders['transfer-encoding']).toBe('chunked');
      expect(lastHeaders['content-length']).toBeUndefined();
    },
  },
  {
    name: 'Content-Type text/plain',
    send: () => post(app, rpc('ping'), { 'Content-Type': 'text/plain' }),
    status: 415,
    code: -32000,
    id: null,
  },
  {
    name: 'Content-Type missing',
    send: () => post(app, Buffer.from(JSON.stringify(rpc('ping'))), { 'Content-Type': undefined }),
    status: 415,
    code: -32000,
    id: null,
  },
  {
    name: 'Content-Type application/x-www-form-urlencoded',
    send: () => post(app, rpc('ping'), { 'Content-Type': 'application/x-www-form-urlencoded' }),
    status: 415,
    code: -32000,
    id: null,
  },
  {
    name: 'charset=latin1',
    send: () => post(app, rpc('ping'), { 'Content-Type': 'application/json; charset=latin1' }),
    status: 415,
    code: -32000,
    id: null,
    message: /latin1/,
  },
  {
    name: 'unsupported MCP-Protocol-Version',
    send: () => post(app, rpc('ping'), { 'MCP-Protocol-Version': '2099-01-01' }),
    status: 400,
    code: -32000,
    id: null,
    message: /MCP-Protocol-Version/,
  },
  {
    name: 'MCP-Protocol-Version that is not a date',
    send: () => post(app, rpc('ping'), { 'MCP-Protocol-Version': 'latest' }),
    status: 400,
    code: -32000,
    id: null,
  },
  {
    name: '__proto__ and constructor keys in tool arguments',
    send: () => {
      seenByEcho = undefined;
      return post(app, PROTO_KEYS, { 'MCP-Protocol-Version': '2025-11-25' });
    },
    status: 200,
    id: 7,
    also: (body) => {
      expect(body.result).toEqual({
        content: [{ type: 'text', text: '{"keys":["__proto__","constructor"]}' }],
        structuredContent: { keys: ['__proto__', 'constructor'] },
      });
      // The handler got the keys as plain data, on an ordinary object…
      expect(Object.getPrototypeOf(seenByEcho)).toBe(Object.prototype);
      expect(Object.getOwnPropertyDescriptor(seenByEcho, '__proto__')?.value).toEqual({ polluted: 'yes' });
      expect(Object.getOwnPropertyDescriptor(seenByEcho, 'constructor')?.value).toEqual({
        prototype: { polluted: 'yes' },
      });
      // …and nothing reached Object.prototype.
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false);
    },
  },
  {
    name: 'JSON nested 10,000 levels deep',
    send: () => post(app, DEEP),
    status: 400,
    code: -32700,
    id: null,
    message: /nested/i,
  },
  {
    name: 'invalid UTF-8 bytes',
    send: () => post(app, Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d])),
    status: 400,
    code: -32700,
    id: null,
    message: /UTF-8/,
  },
  {
    name: 'a UTF-8 byte-order mark before the JSON (dropped, as TextDecoder does)',
    send: () =>
      post(
        app,
        Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(rpc('ping', undefined, 'bom')))]),
      ),
    status: 200,
    id: 'bom',
  },
  {
    name: 'only a byte-order mark',
    send: () => post(app, Buffer.from([0xef, 0xbb, 0xbf])),
    status: 400,
    code: -32700,
    id: null,
    message: /empty/,
  },
  {
    name: 'batch on MCP-Protocol-Version 2025-06-18',
    send: () =>
      post(app, [rpc('ping', undefined, 1), rpc('ping', undefined, 2)], { 'MCP-Protocol-Version': '2025-06-18' }),
    status: 400,
    code: -32600,
    id: null,
  },
  {
    name: 'batch on MCP-Protocol-Version 2025-11-25',
    send: () => post(app, [rpc('ping', undefined, 1)], { 'MCP-Protocol-Version': '2025-11-25' }),
    status: 400,
    code: -32600,
    id: null,
  },
  { name: 'empty batch', send: () => post(app, []), status: 400, code: -32600, id: null },
  {
    name: 'batch containing initialize',
    send: () =>
      post(app, [
        rpc(
          'initialize',
          { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
          1,
        ),
        notification('notifications/initialized'),
      ]),
    status: 400,
    code: -32600,
    id: null,
  },
];

describe('bad inputs over HTTP', () => {
  it.each(rows)('$name → HTTP $status', async ({ send, status, code, id, data, message, also }) => {
    const res = await send();

    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/json(; *charset=utf-8)?$/i);
    // Never an HTML error page, never a stack trace or a file path.
    expect(res.text).not.toMatch(/<html|<!doctype/i);
    expect(res.text).not.toMatch(/\bat \S+ \(|node_modules|\.ts:\d+|SyntaxError|TypeError|RangeError/);
    const body = JSON.parse(res.text) as Record<string, unknown>;
    expect(body.jsonrpc).toBe('2.0');
    expect(body).toHaveProperty('id', id);
    if (code === undefined) {
      expect(body).not.toHaveProperty('error');
    } else {
      expect(body).not.toHaveProperty('result');
      const error = body.error as Record<string, unknown>;
      expect(error.code).toBe(code);
      expect(typeof error.message).toBe('string');
      expect((error.message as string).length).toBeGreaterThan(0);
      expect(error.data).toEqual(data);
      if (message) expect(error.message).toMatch(message);
      expect(Object.keys(body).sort()).toEqual(['error', 'id', 'jsonrpc']);
    }
    also?.(body);
  });

  it('logs nothing for bad inputs: they are the client’s mistakes, not the server’s', () => {
    expect(logger.error).not.toHaveBeenCalled();
  });
});
