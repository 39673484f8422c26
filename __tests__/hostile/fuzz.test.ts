// Property-based fuzzing (issue 13) of the body parser (transport/body.ts), envelope validation (jsonrpc/envelope.ts)
// and the dispatcher's receive(): arbitrary bytes, strings, mutated messages, JSON values, deep nestings, odd ids and
// prototype-pollution keys, POSTed to real express() apps, always get a well-formed JSON-RPC answer, never a 500,
// a crash or a hang, and leave Object.prototype alone. fast-check prints the seed and the shrunk counterexample.

import { isUtf8 } from 'node:buffer';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import express from 'express';
import fc from 'fast-check';
import { mcpRouter, type McpRouter } from '../../lib';
import { parseMessage } from '../../lib/jsonrpc/envelope';
import { createDispatcher } from '../../lib/protocol/dispatcher';
import { Registry } from '../../lib/registry/registry';
import { createSchemaValidator } from '../../lib/schema/validator';
import { MAX_JSON_DEPTH, readJsonBody } from '../../lib/http/body';
import { testEnv } from '../helpers/context';
import { MCP_ACCEPT, silentLogger } from '../helpers/create-app';
import { messagesOf, SseReader } from '../helpers/sse';
import {
  expectPrototypeClean,
  expectResponseShape,
  idsOf,
  isJsonRpcErrorCode,
  isWireId,
  prototypeSnapshot,
  send,
  type WireResponse,
} from './wire';

// Each property sends hundreds of requests: generous, for a machine shared with other test runs.
jest.setTimeout(60_000);

/** Small, so that generated bodies can cross it (413) without megabytes of traffic. */
const BODY_LIMIT = 16 * 1024;
/** Every status an MCP POST may get from this router without auth, rate limit or browser headers. */
const ALLOWED_STATUSES = [200, 202, 400, 404, 406, 413, 415];
/** Runs of each HTTP property: each is one real request; keeps the file near 10 s on each Express major. */
const HTTP_RUNS = 250;
/** Runs of each property over the pure functions, which cost microseconds. */
const PURE_RUNS = 5_000;

/** Registers something of every kind, so fuzzed method names reach every method table entry. */
function register(mcp: McpRouter): void {
  mcp.tool({
    name: 'echo',
    description: 'Echo text',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    handler: ({ text }: { text: string }) => text,
  });
  mcp.tool({
    name: 'sum',
    description: 'Add two numbers',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
    handler: ({ a, b }: { a: number; b: number }) => ({ sum: a + b }),
  });
  mcp.tool({
    name: 'keys',
    description: 'Names the arguments it got',
    inputSchema: { type: 'object' },
    handler: (args: Record<string, unknown>) => ({ keys: Object.keys(args) }),
  });
  mcp.tool({
    name: 'route',
    description: 'Takes arguments mirrored into Mcp-Param-* headers (SEP-2243)',
    inputSchema: {
      type: 'object',
      properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' },
        shard: { type: 'integer', 'x-mcp-header': 'Shard' },
      },
    },
    handler: ({ region }: { region?: string }) => region ?? '',
  });
  mcp.resource({ uri: 'docs://readme', name: 'readme', mimeType: 'text/markdown', read: () => '# Readme' });
  mcp.resourceTemplate({
    uriTemplate: 'users://{id}/profile',
    name: 'profile',
    read: (_uri, { id }) => JSON.stringify({ id }),
    complete: { id: (prefix) => ['1', '12', '2'].filter((id) => id.startsWith(prefix)) },
  });
  mcp.prompt({
    name: 'review',
    description: 'Review code',
    arguments: [{ name: 'code', required: true }],
    get: ({ code }) => [{ role: 'user', content: `Review ${code}` }],
  });
}

/** One router on a listening server, with the headers every POST to it carries. */
interface Target {
  readonly name: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly logger: ReturnType<typeof silentLogger>;
}

const servers: Server[] = [];
const routers: McpRouter[] = [];

async function listen(sessions: boolean): Promise<{ url: string; logger: ReturnType<typeof silentLogger> }> {
  const logger = silentLogger();
  const mcp = mcpRouter({
    name: 'fuzz',
    version: '1.0.0',
    sessions: sessions ? {} : false,
    rateLimit: false,
    bodyLimit: BODY_LIMIT,
    logger,
  });
  register(mcp);
  const app = express();
  app.use('/mcp', mcp);
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  servers.push(server);
  routers.push(mcp);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, logger };
}

const BASE_HEADERS = { 'Content-Type': 'application/json', Accept: MCP_ACCEPT };

/** Starts a session on `url` at `protocolVersion`; the headers its later requests carry. */
async function initialize(url: string, protocolVersion: string): Promise<Record<string, string>> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
  });
  const init = await send(url, { path: url, headers: BASE_HEADERS, body });
  expect(init.status).toBe(200);
  const headers = {
    ...BASE_HEADERS,
    'Mcp-Session-Id': init.headers['mcp-session-id'] as string,
    'MCP-Protocol-Version': protocolVersion,
  };
  expect(
    (
      await send(url, {
        path: url,
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      })
    ).status,
  ).toBe(202);
  return headers;
}

/** Nesting depth of a parsed JSON value: a scalar is 0, `{}` and `[]` are 1. */
function depthOf(value: unknown): number {
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
function asServerReads(bytes: Buffer): { ok: true; value: unknown } | { ok: false } {
  if (!isUtf8(bytes)) return { ok: false };
  const hasBom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  try {
    return { ok: true, value: JSON.parse(bytes.toString('utf8', hasBom ? 3 : 0)) as unknown };
  } catch {
    return { ok: false };
  }
}

/** The JSON-RPC messages of a response body: its JSON, or its SSE events' data. */
async function messagesIn(res: WireResponse): Promise<unknown[]> {
  const type = String(res.headers['content-type'] ?? '');
  if (type.startsWith('text/event-stream')) {
    const reader = new SseReader(
      Readable.toWeb(Readable.from([Buffer.from(res.text)])) as unknown as ReadableStream<Uint8Array>,
    );
    return messagesOf(await reader.rest());
  }
  expect(type).toMatch(/^application\/json\b/);
  expect(res.json).toBeDefined();
  return [res.json];
}

/**
 * The property every POST must satisfy: an allowed status; 202 with no body, or a JSON (or, for 200, SSE) body of
 * well-formed JSON-RPC responses whose ids are the request's (or null on errors); a body the router cannot read is
 * 413 (over the limit, with Connection: close) or 400 -32700; and the router logged no failure (no bug was hit).
 */
async function expectWellFormed(target: Target, bytes: Buffer, res: WireResponse): Promise<void> {
  expect(ALLOWED_STATUSES).toContain(res.status);
  const read = asServerReads(bytes);
  const ids = read.ok ? idsOf(read.value) : new Set<string>();
  if (bytes.length > BODY_LIMIT) {
    expect(res.status).toBe(413);
    expect(res.headers.connection).toBe('close');
  }
  if (res.status === 202) {
    expect(res.text).toBe('');
  } else {
    const messages = await messagesIn(res);
    expect(messages.length).toBeGreaterThan(0);
    for (const message of messages) {
      // A notification on an SSE reply (none of these tools emits any, but the transport may) is not a response.
      if (typeof message === 'object' && message !== null && 'method' in message) continue;
      if (Array.isArray(message)) {
        expect(res.status).toBe(200);
        expect(message.length).toBeGreaterThan(0);
        for (const item of message) expectResponseShape(item, ids);
      } else {
        expectResponseShape(message, ids);
      }
    }
    if (res.status !== 200) {
      // HTTP-level errors are one JSON-RPC error object, never an array or a result.
      expect(Array.isArray(res.json)).toBe(false);
      expect(res.json).toEqual(expect.objectContaining({ error: expect.any(Object) }));
    }
  }
  if (bytes.length <= BODY_LIMIT && !read.ok) {
    expect(res.status).toBe(400);
    expect((res.json as { error: { code: number } }).error.code).toBe(-32700);
  }
  if (
    read.ok &&
    bytes.length <= BODY_LIMIT &&
    res.status === 400 &&
    (res.json as { error: { code: number } }).error.code === -32700
  ) {
    // A body that parses is refused as unparseable only for its depth.
    expect(depthOf(read.value)).toBeGreaterThan(MAX_JSON_DEPTH);
  }
  expect(target.logger.error).not.toHaveBeenCalled();
}

/** POSTs `body` to `target` (its headers, then `headers` over them; undefined leaves a header out) and checks the property. */
async function fuzzPost(
  target: Target,
  body: string | Uint8Array,
  headers: Record<string, string | undefined> = {},
): Promise<WireResponse> {
  // Per run: a failure logged during an earlier run must not be blamed on (and shrunk into) this one.
  target.logger.error.mockClear();
  const bytes = Buffer.from(body);
  const all: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...target.headers, ...headers }))
    if (value !== undefined) all[name] = value;
  const res = await send(target.url, { path: target.url, headers: all, body: bytes });
  await expectWellFormed(target, bytes, res);
  return res;
}

// ---- generators -----------------------------------------------------------------------------------------------

const rpc = (method: string, params?: unknown, id: unknown = 1): Record<string, unknown> =>
  params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
const note = (method: string, params?: unknown): Record<string, unknown> =>
  params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };

/** The `_meta` envelope of an MCP 2026-07-28 request, with `extra` keys over it. */
function modernMeta(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    ...extra,
  };
}

/** Valid messages of every kind: the seeds that mutations start from. */
const SEEDS: unknown[] = [
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
const SEED_TEXTS = SEEDS.map((seed) => JSON.stringify(seed));
const isModernSeed = (text: string): boolean => text.includes('io.modelcontextprotocol/protocolVersion');
const LEGACY_SEED_TEXTS = SEED_TEXTS.filter((text) => !isModernSeed(text));
const MODERN_SEEDS = SEEDS.filter((seed) => isModernSeed(JSON.stringify(seed))) as Array<{
  method: string;
  params: { name?: string; uri?: string };
}>;

const METHODS = [
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
const mutation = fc.oneof(
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
type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never;

function mutate(text: string, edits: readonly Mutation[]): Buffer {
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
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'];
const POLLUTION = '{"polluted":"yes","isAdmin":true,"prototype":{"polluted":"yes"}}';

/** A JSON text whose objects may hold own `__proto__` keys, as a hostile client sends them (JSON.stringify would keep them, but building text is plainer). */
const pollutedValue: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
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
const pollutedMessage: fc.Arbitrary<string> = fc
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
const oddIdText: fc.Arbitrary<string> = fc.oneof(
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
const nested = fc
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

// ---- the properties -----------------------------------------------------------------------------------------

describe('fuzzing the POST endpoint of real express() apps', () => {
  const targets: Record<string, Target> = {};
  let before: string[];

  beforeAll(async () => {
    before = prototypeSnapshot();
    const stateless = await listen(false);
    const stateful = await listen(true);
    targets.stateless = {
      name: 'stateless, no MCP-Protocol-Version',
      url: stateless.url,
      headers: BASE_HEADERS,
      logger: stateless.logger,
    };
    targets.stateless11 = {
      name: 'stateless, 2025-11-25',
      url: stateless.url,
      headers: { ...BASE_HEADERS, 'MCP-Protocol-Version': '2025-11-25' },
      logger: stateless.logger,
    };
    targets.session11 = {
      name: 'session on 2025-11-25',
      url: stateful.url,
      headers: await initialize(stateful.url, '2025-11-25'),
      logger: stateful.logger,
    };
    targets.session03 = {
      name: 'session on 2025-03-26 (batches)',
      url: stateful.url,
      headers: await initialize(stateful.url, '2025-03-26'),
      logger: stateful.logger,
    };
  });

  afterAll(async () => {
    await Promise.all(routers.map((mcp) => mcp.close()));
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  afterEach(() => expectPrototypeClean(before));

  const anyTarget = fc.constantFrom('stateless', 'stateless11', 'session11', 'session03');
  const options = { numRuns: HTTP_RUNS };

  it('answers arbitrary bytes with a well-formed JSON-RPC error (or answer)', async () => {
    await fc.assert(
      fc.asyncProperty(anyTarget, fc.uint8Array({ maxLength: 2_000 }), async (target, bytes) => {
        await fuzzPost(targets[target] as Target, bytes);
        expectPrototypeClean(before);
      }),
      options,
    );
  });

  it('answers arbitrary unicode strings (lone surrogates, controls, BOMs) well-formed', async () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 400 }),
      fc.string({ unit: 'binary', maxLength: 40 }).map((s) => `\ufeff${s}`),
      fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)), maxLength: 200 }),
    );
    await fc.assert(
      fc.asyncProperty(anyTarget, text, async (target, body) => {
        await fuzzPost(targets[target] as Target, body);
      }),
      options,
    );
  });

  it('answers mutated valid messages (byte edits, truncation, padding past the body limit) well-formed', async () => {
    await fc.assert(
      fc.asyncProperty(
        anyTarget,
        fc.constantFrom(...SEED_TEXTS),
        fc.array(mutation, { minLength: 1, maxLength: 3 }),
        async (target, seed, edits) => {
          await fuzzPost(targets[target] as Target, mutate(seed, edits));
        },
      ),
      options,
    );
  });

  it('answers mutated MCP 2026-07-28 requests, with their standard headers, well-formed', async () => {
    const modernTarget = fc.constantFrom('stateless', 'session11');
    await fc.assert(
      fc.asyncProperty(
        modernTarget,
        fc.constantFrom(...MODERN_SEEDS),
        fc.array(mutation, { maxLength: 3 }),
        async (target, seed, edits) => {
          const name = seed.params.name ?? seed.params.uri;
          const headers = { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': seed.method, 'Mcp-Name': name };
          const res = await fuzzPost(targets[target] as Target, mutate(JSON.stringify(seed), edits), headers);
          // Unmutated, each is served: a 2026 result, or 202 for the notification.
          if (edits.length === 0)
            expect(res.status === 202 || (res.status === 200 && /"resultType":"complete"/.test(res.text))).toBe(true);
        },
      ),
      options,
    );
  });

  it('answers SEP-2243 headers of any shape: served when they say what the body says (as a client encodes it), else 400 -32020', async () => {
    const visible = fc.string({
      unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
      maxLength: 40,
    });
    const junk = fc.oneof(
      visible,
      visible.map((text) => `=?base64?${text}?=`),
      fc.base64String({ maxLength: 40 }).map((text) => `=?base64?${text}?=`),
    );
    // Any text a JSON body can carry that UTF-8 can too (no lone surrogates, which a header cannot carry).
    const region = fc.string({ unit: 'grapheme', maxLength: 20 });
    /** The client's encoding (MCP 2026-07-28 transports › Value Encoding): literal when plain visible ASCII, else Base64. */
    const encode = (text: string): string =>
      /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(text) && !(text.startsWith('=?base64?') && text.endsWith('?='))
        ? text
        : `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;
    const shard = fc.integer({ min: -1_000_000, max: 1_000_000 });
    const honest = fc.boolean();
    await fc.assert(
      fc.asyncProperty(
        region,
        shard,
        honest,
        junk,
        junk,
        fc.constantFrom('Region', 'Shard', 'Name'),
        async (value, number, isHonest, bad, badName, faked) => {
          const body = JSON.stringify({
            jsonrpc: '2.0',
            id: 'h',
            method: 'tools/call',
            params: { name: 'route', arguments: { region: value, shard: number }, _meta: modernMeta() },
          });
          const headers: Record<string, string> = {
            'MCP-Protocol-Version': '2026-07-28',
            'Mcp-Method': 'tools/call',
            'Mcp-Name': 'route',
            'Mcp-Param-Region': encode(value),
            'Mcp-Param-Shard': String(number),
          };
          if (!isHonest)
            headers[faked === 'Name' ? 'Mcp-Name' : `Mcp-Param-${faked}`] = faked === 'Name' ? badName : bad;
          const res = await fuzzPost(targets.stateless as Target, body, headers);
          if (isHonest) {
            expect(res.status).toBe(200);
            expect(res.json).toEqual(
              expect.objectContaining({
                id: 'h',
                result: expect.objectContaining({ content: [{ type: 'text', text: value }] }),
              }),
            );
          } else if (res.status !== 200) {
            expect(res.status).toBe(400);
            expect(res.json).toEqual(
              expect.objectContaining({ id: 'h', error: expect.objectContaining({ code: -32020 }) }),
            );
          }
        },
      ),
      options,
    );
  });

  it('answers arbitrary JSON values, alone or in the places of a message, well-formed', async () => {
    const value = fc.jsonValue({ maxDepth: 4 });
    const body = fc.oneof(
      fc.json({ maxDepth: 4 }),
      fc
        .tuple(value, fc.constantFrom(...METHODS), value)
        .map(([id, method, params]) => JSON.stringify({ jsonrpc: '2.0', id, method, params })),
      fc
        .tuple(
          fc.constantFrom(...SEED_TEXTS),
          fc.constantFrom('jsonrpc', 'id', 'method', 'params', 'result', 'error'),
          value,
        )
        .map(([seed, key, replacement]) => {
          const message = JSON.parse(seed) as unknown;
          const target = (Array.isArray(message) ? message[0] : message) as Record<string, unknown>;
          target[key] = replacement;
          return JSON.stringify(message);
        }),
      fc
        .tuple(fc.constantFrom('echo', 'sum', 'keys', 'missing', ''), value)
        .map(([name, args]) => JSON.stringify(rpc('tools/call', { name, arguments: args }, 'a'))),
      fc
        .tuple(fc.constantFrom(...METHODS), fc.dictionary(fc.string({ maxLength: 8 }), value, { maxKeys: 5 }))
        .map(([method, params]) => JSON.stringify(rpc(method, params, 'p'))),
      fc
        .array(fc.oneof(value, fc.constantFrom(...SEEDS.slice(0, -1))), { maxLength: 6 })
        .map((items) => JSON.stringify(items)),
    );
    await fc.assert(
      fc.asyncProperty(anyTarget, body, async (target, text) => {
        await fuzzPost(targets[target] as Target, text);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses JSON nested deeper than 128 levels with -32700, wherever the nesting is, and serves shallower nesting', async () => {
    const placed = fc.tuple(nested, fc.integer({ min: 0, max: 4 })).map(([{ depth, text }, where]) => {
      switch (where) {
        case 0:
          return { depth, body: text };
        case 1:
          // Three levels hold it: the message, params and arguments.
          return {
            depth: depth + 3,
            body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"keys","arguments":{"deep":${text}}}}`,
          };
        case 2:
          return {
            depth: depth + 2,
            body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":${text}}}`,
          };
        case 3:
          return { depth: depth + 1, body: `[${text}]` };
        default:
          return { depth: depth + 1, body: `{"jsonrpc":"2.0","id":${text},"method":"ping"}` };
      }
    });
    await fc.assert(
      fc.asyncProperty(anyTarget, placed, async (target, { depth, body }) => {
        const res = await fuzzPost(targets[target] as Target, body);
        if (depth > 128) {
          expect(res.status).toBe(400);
          expect(res.json).toEqual({
            jsonrpc: '2.0',
            id: null,
            error: { code: -32700, message: expect.stringMatching(/nested deeper than 128/) },
          });
        } else {
          expect((res.json as { error?: { code: number } } | undefined)?.error?.code).not.toBe(-32700);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('echoes an id exactly when it is a string or a finite number, and answers null with -32600 otherwise', async () => {
    const message = fc
      .tuple(oddIdText, fc.constantFrom('ping', 'tools/list', 'no/such/method', 'tools/call'))
      .map(([id, method]) => ({ id, body: `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)}}` }));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('stateless11', 'session11'), message, async (target, { id, body }) => {
        const res = await fuzzPost(targets[target] as Target, body);
        const parsedId = JSON.parse(id) as unknown;
        const reply = res.json as Record<string, unknown>;
        if (isWireId(parsedId)) {
          expect(res.status).toBe(200);
          expect(JSON.stringify(reply.id)).toBe(JSON.stringify(parsedId));
        } else {
          // MCP: request ids are strings or integers, never null; JSON-RPC 2.0 §5: an unreadable id is answered null.
          expect(res.status).toBe(400);
          expect(reply).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.any(String) } });
        }
      }),
      options,
    );
  });

  it('keeps Object.prototype clean whatever __proto__, constructor and prototype keys a body holds', async () => {
    await fc.assert(
      fc.asyncProperty(anyTarget, pollutedMessage, async (target, body) => {
        await fuzzPost(targets[target] as Target, body);
        expectPrototypeClean(before);
      }),
      { numRuns: 200 },
    );
  });

  it('answers every combination of Content-Type, Accept and MCP-Protocol-Version with the documented status', async () => {
    const contentType = fc.constantFrom<string | undefined>(
      'application/json',
      'application/json; charset=utf-8',
      'APPLICATION/JSON;CHARSET="UTF-8"',
      'application/json; charset=latin1',
      'text/plain',
      'application/json-seq',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      '',
      undefined,
    );
    const accept = fc.constantFrom<string | undefined>(
      MCP_ACCEPT,
      'application/json',
      'text/event-stream',
      '*/*',
      'text/html',
      'application/json;q=0, text/event-stream;q=0',
      '',
      undefined,
    );
    const version = fc.constantFrom<string | undefined>(
      undefined,
      '2026-07-28',
      '2025-11-25',
      '2025-06-18',
      '2025-03-26',
      '2024-11-05',
      '2099-01-01',
      'latest',
      '',
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('stateless', 'session11'),
        fc.constantFrom(...LEGACY_SEED_TEXTS),
        contentType,
        accept,
        version,
        async (target, body, type, acceptHeader, versionHeader) => {
          const res = await fuzzPost(targets[target] as Target, body, {
            'Content-Type': type,
            Accept: acceptHeader,
            'MCP-Protocol-Version': versionHeader,
          });
          // A 2026-07-28 header defers to the body: a 2025 message under it is refused in its own way (-32602, -32020, …).
          const supported =
            versionHeader === undefined ||
            ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'].includes(versionHeader);
          const json = type !== undefined && /^application\/json\s*(;\s*charset="?utf-?8"?\s*)?$/i.test(type);
          if (!supported)
            expect([res.status, (res.json as { error: { code: number } }).error.code]).toEqual([400, -32000]);
          else if (!json)
            expect([res.status, (res.json as { error: { code: number } }).error.code]).toEqual([415, -32000]);
          else if (res.status === 406) expect(acceptHeader).toMatch(/text\/html|q=0/);
        },
      ),
      { numRuns: 200 },
    );
  });
});

// ---- the pure functions, many more runs ----------------------------------------------------------------------

describe('fuzzing the pure functions', () => {
  let before: string[];
  beforeAll(() => {
    before = prototypeSnapshot();
  });
  afterEach(() => expectPrototypeClean(before));

  /** Objects shaped almost like JSON-RPC messages: every member optional, each either plausible or arbitrary JSON. */
  const nearMessage = fc.record(
    {
      jsonrpc: fc.oneof(fc.constant('2.0'), fc.jsonValue({ maxDepth: 1 })),
      id: fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 })),
      method: fc.oneof(fc.constantFrom(...METHODS), fc.jsonValue({ maxDepth: 1 })),
      params: fc.oneof(
        fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 })),
        fc.jsonValue({ maxDepth: 2 }),
      ),
      result: fc.jsonValue({ maxDepth: 2 }),
      error: fc.oneof(
        fc.record(
          { code: fc.oneof(fc.integer(), fc.double()), message: fc.oneof(fc.string(), fc.integer()) },
          { requiredKeys: [] },
        ),
        fc.jsonValue({ maxDepth: 1 }),
      ),
    },
    { requiredKeys: [] },
  );
  const anyJson = fc.oneof(
    fc.jsonValue(),
    nearMessage,
    fc.json().map((text) => JSON.parse(text) as unknown),
  );

  it('parseMessage never throws: a message, or a ready -32600/-32602 error response with the readable id', () => {
    fc.assert(
      fc.property(anyJson, (value) => {
        const parsed = parseMessage(value);
        if (parsed.ok) {
          expect(typeof parsed.message).toBe('object');
          expect(parsed.message.jsonrpc).toBe('2.0');
          return;
        }
        const { error } = parsed;
        expect(error.jsonrpc).toBe('2.0');
        expect([-32600, -32602]).toContain(error.error.code);
        expect(typeof error.error.message).toBe('string');
        const sentId =
          typeof value === 'object' && value !== null && !Array.isArray(value)
            ? (value as Record<string, unknown>).id
            : undefined;
        expect(error.id).toBe(isWireId(sentId) ? sentId : null);
      }),
      { numRuns: PURE_RUNS },
    );
  });

  it('the dispatcher’s receive() never rejects and every outcome is well-formed', async () => {
    const registry = new Registry(createSchemaValidator());
    registry.addTool({
      name: 'echo',
      description: 'Echo',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      handler: (args: Record<string, unknown>) => String(args.text),
    });
    registry.addPrompt({
      name: 'review',
      description: 'Review',
      arguments: [{ name: 'code', required: true }],
      get: ({ code }) => [{ role: 'user', content: String(code) }],
    });
    registry.addResource({ uri: 'docs://readme', name: 'readme', read: () => 'hi' });
    const logger = silentLogger();
    const dispatcher = createDispatcher(registry, {
      identity: { serverInfo: { name: 'fuzz', version: '1' }, instructions: undefined },
      pageSize: 10,
      logger,
      listChanged: false,
      clientRequestTimeoutMs: 1_000,
      maxBatchLength: 100,
      maxSubscriptions: 32,
      eras: ['2025', '2026'],
      cache: { ttlMs: 0, scope: 'public' },
    });
    const body = fc.oneof(anyJson, fc.array(anyJson, { maxLength: 5 }), fc.constantFrom(...SEEDS));
    await fc.assert(
      fc.asyncProperty(
        body,
        fc.constantFrom('2025-11-25', '2025-03-26') as fc.Arbitrary<'2025-11-25' | '2025-03-26'>,
        async (value, version) => {
          const outcome = await dispatcher.receive(value, testEnv(version));
          const ids = idsOf(value);
          switch (outcome.kind) {
            case 'accepted':
            case 'unanswered':
              break;
            case 'rejected':
              expectResponseShape(outcome.error, ids);
              expect([-32600, -32602]).toContain(outcome.error.error.code);
              break;
            case 'answered':
              for (const response of Array.isArray(outcome.body) ? outcome.body : [outcome.body])
                expectResponseShape(response, ids);
              break;
            default:
              throw new Error(`unknown outcome ${JSON.stringify(outcome)}`);
          }
          // Every error the dispatcher made is a protocol error, never an internal one (-32603 means a bug was hit).
          expect(logger.error).not.toHaveBeenCalled();
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('readJsonBody never rejects: a value that JSON.parse agrees with, or 400/413/415 with the matching code', async () => {
    const contentType = fc.constantFrom<string | undefined>(
      'application/json',
      'application/json; charset=utf-8',
      'application/json; charset=iso-8859-1',
      'text/plain',
      undefined,
      'application/json;;;=',
    );
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 600 }),
      fc.json({ maxDepth: 3 }).map((text) => new TextEncoder().encode(text)),
      fc
        .tuple(fc.constantFrom(...SEED_TEXTS), fc.array(mutation, { maxLength: 3 }))
        .map(([seed, edits]) => new Uint8Array(mutate(seed, edits))),
      nested.map(({ text }) => new TextEncoder().encode(text)),
    );
    await fc.assert(
      fc.asyncProperty(bytes, contentType, fc.integer({ min: 1, max: 4 }), async (body, type, chunks) => {
        const buffer = Buffer.from(body);
        const size = Math.ceil(buffer.length / chunks) || 1;
        const parts: Buffer[] = [];
        for (let at = 0; at < buffer.length; at += size) parts.push(buffer.subarray(at, at + size));
        const req = Object.assign(Readable.from(parts, { objectMode: false }), {
          headers: type === undefined ? {} : { 'content-type': type },
        }) as unknown as IncomingMessage;
        const result = await readJsonBody(req, BODY_LIMIT);
        const read = asServerReads(buffer);
        if (result.ok) {
          expect(read.ok).toBe(true);
          if (read.ok) expect(result.value).toEqual(read.value);
          expect(depthOf(result.value)).toBeLessThanOrEqual(MAX_JSON_DEPTH);
        } else {
          expect([400, 413, 415]).toContain(result.status);
          expect(isJsonRpcErrorCode(result.code)).toBe(true);
          expect(result.code).toBe(result.status === 400 ? -32700 : -32000);
          if (result.status === 400) expect(!read.ok || depthOf(read.value) > MAX_JSON_DEPTH).toBe(true);
        }
      }),
      { numRuns: PURE_RUNS },
    );
  });
});
