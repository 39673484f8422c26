// The fuzz suites' inputs: valid seed messages, byte-level mutations, polluted keys, odd ids, deep nestings, and how
// the router reads a body (the reference the properties compare with). Loads no Express: the pure properties run once.

import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';

/** Small, so that generated bodies can cross it (413) without megabytes of traffic. */
export const BODY_LIMIT = 16 * 1024;

/** Nesting depth of a parsed JSON value: a scalar is 0, `{}` and `[]` are 1. */
export function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (typeof item !== 'object' || item === null) continue;
    deepest = Math.max(deepest, depth + 1);
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** How the router reads a body: UTF-8 (a BOM dropped) then JSON.parse; `undefined` value when either fails. */
export function asServerReads(bytes: Buffer): { ok: true; value: unknown } | { ok: false } {
  if (!isUtf8(bytes)) return { ok: false };
  const hasBom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  try {
    return { ok: true, value: JSON.parse(bytes.toString('utf8', hasBom ? 3 : 0)) as unknown };
  } catch {
    return { ok: false };
  }
}

// ---- generators -----------------------------------------------------------------------------------------------

export const rpc = (method: string, params?: unknown, id: unknown = 1): Record<string, unknown> =>
  params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
export const note = (method: string, params?: unknown): Record<string, unknown> =>
  params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };

/** The `_meta` envelope of an MCP 2026-07-28 request, with `extra` keys over it. */
export function modernMeta(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    ...extra,
  };
}

/** Valid messages of every kind: the seeds that mutations start from. */
export const SEEDS: unknown[] = [
  rpc('initialize', {
    protocolVersion: '2025-11-25',
    capabilities: { roots: { listChanged: true } },
    clientInfo: { name: 'f', version: '1' },
  }),
  rpc('ping'),
  rpc('tools/list'),
  rpc('tools/list', { cursor: 'bm9wZQ' }),
  rpc('tools/call', { name: 'echo', arguments: { text: 'hi' } }, 'call-1'),
  rpc('tools/call', { name: 'sum', arguments: { a: 1, b: 2 }, _meta: { progressToken: 'p' } }, 7),
  rpc('tools/call', { name: 'keys', arguments: { a: { b: [1, 2, { c: null }] } } }, 8),
  rpc('resources/list'),
  rpc('resources/read', { uri: 'docs://readme' }),
  rpc('resources/read', { uri: 'users://7/profile' }),
  rpc('resources/templates/list'),
  rpc('resources/subscribe', { uri: 'docs://readme' }),
  rpc('prompts/get', { name: 'review', arguments: { code: 'x = 1' } }),
  rpc('completion/complete', {
    ref: { type: 'ref/resource', uri: 'users://{id}/profile' },
    argument: { name: 'id', value: '1' },
  }),
  rpc('logging/setLevel', { level: 'debug' }),
  note('notifications/initialized'),
  note('notifications/cancelled', { requestId: 3, reason: 'no' }),
  { jsonrpc: '2.0', id: 5, result: {} },
  { jsonrpc: '2.0', id: 'srv-1', error: { code: -32601, message: 'nope' } },
  // MCP 2026-07-28 requests: the envelope in params._meta.
  rpc('server/discover', { _meta: modernMeta() }, 'd'),
  rpc('tools/list', { _meta: modernMeta({ 'io.modelcontextprotocol/clientInfo': { name: 'f', version: '1' } }) }),
  rpc(
    'tools/call',
    {
      name: 'sum',
      arguments: { a: 1, b: 2 },
      _meta: modernMeta({ progressToken: 'p', 'io.modelcontextprotocol/logLevel': 'debug' }),
    },
    9,
  ),
  rpc(
    'resources/read',
    {
      uri: 'users://7/profile',
      _meta: modernMeta({ 'io.modelcontextprotocol/clientCapabilities': { sampling: {}, roots: {} } }),
    },
    'r',
  ),
  rpc('prompts/get', { name: 'review', arguments: { code: 'x' }, _meta: modernMeta() }, 10),
  note('notifications/cancelled', { requestId: 9, _meta: modernMeta() }),
  [rpc('ping', undefined, 1), note('notifications/initialized'), rpc('tools/list', undefined, 2)],
];
export const SEED_TEXTS = SEEDS.map((seed) => JSON.stringify(seed));
export const isModernSeed = (text: string): boolean => text.includes('io.modelcontextprotocol/protocolVersion');
export const LEGACY_SEED_TEXTS = SEED_TEXTS.filter((text) => !isModernSeed(text));
export const MODERN_SEEDS = SEEDS.filter((seed) => isModernSeed(JSON.stringify(seed))) as Array<{
  method: string;
  params: { name?: string; uri?: string };
}>;

export const METHODS = [
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'sampling/createMessage',
  'tasks/get',
  '__proto__',
  'constructor',
  'hasOwnProperty',
  'toString',
  'valueOf',
  '',
];

/** Byte-level edits of a valid message. */
export const mutation = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.nat(),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 8 }),
  }),
  fc.record({
    kind: fc.constant('punct' as const),
    at: fc.nat(),
    char: fc.constantFrom('{', '}', '[', ']', '"', ':', ',', '\\', '\u0000', '\u2028', '\ud800'),
  }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 16 }) }),
  fc.record({
    kind: fc.constant('duplicate' as const),
    at: fc.nat(),
    length: fc.integer({ min: 1, max: 32 }),
    to: fc.nat(),
  }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  // Whitespace after the first byte: still valid JSON, and past BODY_LIMIT when long enough (413).
  fc.record({
    kind: fc.constant('pad' as const),
    length: fc.oneof(fc.integer({ min: 0, max: 64 }), fc.integer({ min: BODY_LIMIT - 600, max: BODY_LIMIT + 64 })),
  }),
  // One member value that is a scalar (string, number, true, false, null) replaced by other JSON: still parseable.
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('scalar' as const),
      at: fc.nat(),
      json: fc.oneof(
        fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)),
        fc.constantFrom('"__proto__"', '-0', '1e400', '""', '{}', '[]', 'null'),
      ),
    }),
  },
);
export type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never;

export function mutate(text: string, edits: readonly Mutation[]): Buffer {
  let bytes = Buffer.from(text);
  for (const edit of edits) {
    const at = bytes.length === 0 ? 0 : ('at' in edit ? edit.at : 0) % (bytes.length + 1);
    switch (edit.kind) {
      case 'set':
        if (at < bytes.length) bytes[at] = edit.byte;
        break;
      case 'insert':
        bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from(edit.bytes), bytes.subarray(at)]);
        break;
      case 'punct':
        bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from(edit.char), bytes.subarray(at + 1)]);
        break;
      case 'delete':
        bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + edit.length)]);
        break;
      case 'duplicate': {
        const slice = Buffer.from(bytes.subarray(at, at + edit.length));
        const to = edit.to % (bytes.length + 1);
        bytes = Buffer.concat([bytes.subarray(0, to), slice, bytes.subarray(to)]);
        break;
      }
      case 'truncate':
        bytes = bytes.subarray(0, at);
        break;
      case 'scalar': {
        const scalars = [
          ...bytes
            .toString('latin1')
            .matchAll(/(?<=:)(?:"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/g),
        ];
        const chosen = scalars[edit.at % Math.max(scalars.length, 1)];
        if (chosen?.index !== undefined) {
          bytes = Buffer.concat([
            bytes.subarray(0, chosen.index),
            Buffer.from(edit.json),
            bytes.subarray(chosen.index + chosen[0].length),
          ]);
        }
        break;
      }
      case 'pad':
        bytes = Buffer.concat([bytes.subarray(0, 1), Buffer.alloc(edit.length, 0x20), bytes.subarray(1)]);
        break;
    }
  }
  return bytes;
}

/** Keys that reach Object.prototype when a parser or a merge assigns them naively. */
export const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'];
export const POLLUTION = '{"polluted":"yes","isAdmin":true,"prototype":{"polluted":"yes"}}';

/** A JSON text whose objects may hold own `__proto__` keys, as a hostile client sends them (JSON.stringify would keep them, but building text is plainer). */
export const pollutedValue: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(POLLUTION),
    fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)),
    fc
      .array(fc.tuple(fc.oneof(fc.constantFrom(...PROTO_KEYS), fc.string({ maxLength: 6 })), tie('value')), {
        maxLength: 4,
      })
      .map((entries) => `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`),
    fc.array(tie('value'), { maxLength: 3 }).map((items) => `[${items.join(',')}]`),
  ),
})).value;

/** Where in a message hostile keys go: the body's top level, params, arguments, _meta, capabilities, prompt arguments, a batch. */
export const pollutedMessage: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom(...PROTO_KEYS), pollutedValue, fc.integer({ min: 0, max: 9 }))
  .map(([key, value, where]) => {
    const k = JSON.stringify(key);
    switch (where) {
      case 0:
        return `{"jsonrpc":"2.0","id":1,"method":"tools/list",${k}:${value}}`;
      case 1:
        return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"keys",${k}:${value},"arguments":{}}}`;
      case 2:
        return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"keys","arguments":{${k}:${value},"a":${value}}}}`;
      case 3:
        return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"t"},"_meta":{${k}:${value},"progressToken":"p"}}}`;
      case 4:
        return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{${k}:${value},"roots":{${k}:${value}}},"clientInfo":{"name":"x","version":"1",${k}:${value}}}}`;
      case 5:
        return `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"review","arguments":{"code":"c",${k}:${value}}}}`;
      case 6:
        return `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"keys","arguments":{${k}:${value}}}},{${k}:${value}}]`;
      case 8: {
        const envelope = `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{${k}:${value},"sampling":{${k}:${value}}},"io.modelcontextprotocol/clientInfo":{"name":"x","version":"1",${k}:${value}}`;
        return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"keys","arguments":{${k}:${value}},"_meta":{${k}:${value},${envelope}}}}`;
      }
      case 7:
        return `{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"review",${k}:${value}},"argument":{"name":"code","value":"x"},"context":{"arguments":{${k}:${value}}}}}`;
      default:
        return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sum","arguments":{"a":1,"b":2,${k}:${value}}}}`;
    }
  });

/** JSON texts of ids that are valid (strings, finite numbers) and invalid (null, objects, arrays, booleans, overflowing numbers). */
export const oddIdText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'null',
    '-0',
    '0',
    '-1',
    '1.5',
    '-2.75e-3',
    '1e400',
    '-1e400',
    '1e308',
    '12345678901234567890123',
    '9007199254740993',
    '{}',
    '[]',
    '[1]',
    '{"a":1}',
    'true',
    'false',
    '""',
    '"\\u0000"',
    '"\\ud800"',
  ),
  fc.double().map((n) => JSON.stringify(n)),
  fc.integer().map(String),
  fc.string({ unit: 'binary', maxLength: 40 }).map((s) => JSON.stringify(s)),
  fc.integer({ min: 1_000, max: 12_000 }).map((n) => JSON.stringify('i'.repeat(n))),
  fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)),
);

/** `depth` nested arrays and objects, mixed, around a scalar. */
export const nested = fc
  .tuple(fc.integer({ min: 1, max: 300 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }))
  .map(([depth, pattern]) => {
    let open = '';
    let close = '';
    for (let i = 0; i < depth; i++) {
      const asArray = pattern[i % pattern.length] as boolean;
      open += asArray ? '[' : '{"k":';
      close = (asArray ? ']' : '}') + close;
    }
    return { depth, text: `${open}1${close}` };
  });
