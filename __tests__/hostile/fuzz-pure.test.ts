// Property-based fuzzing (issue 13) of the pure functions behind the POST endpoint (fuzz.test.ts fuzzes it over HTTP):
// parseMessage, the dispatcher's receive() and the body reader, with many more runs than a request allows. Loads no
// Express, so it runs once, in the core project.

import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import fc from 'fast-check';
import { parseMessage } from '../../lib/core/jsonrpc/envelope';
import { createDispatcher } from '../../lib/core/protocol/dispatcher';
import { Registry } from '../../lib/core/registry/registry';
import { createSchemaValidator } from '../../lib/core/schema/validator';
import { MAX_JSON_DEPTH, readJsonBody } from '../../lib/edge/http/body';
import { testEnv } from '../helpers/context';
import { silentLogger } from '../helpers/messages';
import {
  expectPrototypeClean,
  expectResponseShape,
  idsOf,
  isJsonRpcErrorCode,
  isWireId,
  prototypeSnapshot,
} from './wire';
import {
  BODY_LIMIT,
  depthOf,
  asServerReads,
  SEEDS,
  SEED_TEXTS,
  METHODS,
  mutation,
  mutate,
  nested,
} from './fuzz-inputs';

/** Runs of each property over the pure functions, which cost microseconds. */
const PURE_RUNS = 2_500;

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
      { numRuns: 1_000 },
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
