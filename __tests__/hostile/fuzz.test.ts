// Property-based fuzzing (issue 13) of the body parser (transport/body.ts), envelope validation (jsonrpc/envelope.ts)
// and the dispatcher's receive() (their pure properties: fuzz-pure.test.ts): arbitrary bytes, strings, mutated messages, JSON values, deep nestings, odd ids and
// prototype-pollution keys, POSTed to real express() apps, always get a well-formed JSON-RPC answer, never a 500,
// a crash or a hang, and leave Object.prototype alone. fast-check prints the seed and the shrunk counterexample.

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import express from 'express';
import fc from 'fast-check';
import { mcpRouter, type McpRouter } from '../../lib';
import { MAX_JSON_DEPTH } from '../../lib/edge/http/body';
import { MCP_ACCEPT, silentLogger } from '../helpers/messages';
import { messagesOf, SseReader } from '../helpers/sse';
import {
  expectPrototypeClean,
  expectResponseShape,
  idsOf,
  isWireId,
  prototypeSnapshot,
  send,
  type WireResponse,
} from './wire';
import {
  BODY_LIMIT,
  depthOf,
  asServerReads,
  rpc,
  modernMeta,
  SEEDS,
  SEED_TEXTS,
  LEGACY_SEED_TEXTS,
  MODERN_SEEDS,
  METHODS,
  mutation,
  mutate,
  pollutedMessage,
  oddIdText,
  nested,
} from './fuzz-inputs';

// Each property sends hundreds of requests: generous, for a machine shared with other test runs.
jest.setTimeout(60_000);

/** Every status an MCP POST may get from this router without auth, rate limit or browser headers. */
const ALLOWED_STATUSES = [200, 202, 400, 404, 406, 413, 415];
/** Runs of each HTTP property: each is one real request; keeps the file near 6 s on each Express major (fast-check seeds each run anew, so CI runs add up). */
const HTTP_RUNS = 150;

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
