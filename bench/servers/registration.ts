// Scenario `registration`'s child: registers N tools in one kind of server (argv[2] the kind, argv[3] N), then times
// its first tools/call (cold) and warm calls, and reports time, heap after GC, and those latencies over IPC.

import express from 'express';
import { inject } from 'light-my-request';
import * as z from 'zod/v4';
import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTransport as InMemoryV1 } from '@modelcontextprotocol/sdk/inMemory.js';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer as McpServerV2, InMemoryTransport as InMemoryV2 } from '@modelcontextprotocol/server';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { mcpRouter } from '../../lib';
import { openApiDocument, operationShapes } from './registration-openapi';
import { SERVER_INFO } from './common';
import { settledMemory } from './control';

/** The kinds of server this child builds (see the scenario for what each stands for). */
export const REGISTRATION_KINDS = [
  'router',
  'router-distinct',
  'sdk-v1',
  'sdk-v2',
  'router-openapi',
  'sdk-v1-openapi',
] as const;
export type RegistrationKind = (typeof REGISTRATION_KINDS)[number];

/** What the child reports once (its `ready` message). */
export interface RegistrationReport {
  readonly kind: 'ready';
  readonly tools: number;
  /** Wall time of the registration loop, ms (the tools' definitions written inline in it, as users write them). */
  readonly registerMs: number;
  /** Heap after full GCs, after registration less before it, bytes. */
  readonly heapBytes: number;
  /** The first tools/call of a tool, after one call of another tool with another schema warmed the call path, ms. */
  readonly firstCallMs: number;
  /** The median of later calls of that same tool, ms. */
  readonly warmCallMs: number;
}

/** The typical schema: two properties, one required (`b`'s description differs per tool in `router-distinct`). */
function typicalSchema(distinct: string | undefined): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      a: { type: 'number' },
      b: distinct === undefined ? { type: 'string' } : { type: 'string', description: distinct },
    },
    required: ['a'],
  };
}

const WARM_CALLS = 200;
const ok = (): { content: Array<{ type: 'text'; text: string }> } => ({ content: [{ type: 'text', text: 'ok' }] });

/** A server under test: `register` fills it, `call(name, args)` runs one tools/call through it and checks the reply. */
interface Subject {
  register(count: number): void;
  /** Starts what calls need (a client connection); after registration, outside the timed part. */
  connect(): Promise<void>;
  call(name: string, args: Record<string, unknown>): Promise<void>;
  /** A tool with another schema than the measured ones, called first to warm the call path. */
  readonly warmName: string;
  readonly args: Record<string, unknown>;
}

function routerSubject(kind: 'router' | 'router-distinct' | 'router-openapi'): Subject {
  const mcp = mcpRouter({ ...SERVER_INFO, sessions: false, responseMode: 'json', rateLimit: false });
  const app = express();
  // The bridged operations' routes: one answer for all of them.
  app.use((req, res, next) => (req.path.startsWith('/items') ? res.json({ id: 'x1' }) : next()));
  app.use('/mcp', mcp);
  mcp.tool({
    name: 'warm',
    description: 'Warms the call path',
    inputSchema: { type: 'object', properties: { w: { type: 'integer' } } },
    handler: ok,
  });
  let id = 1;
  return {
    warmName: 'warm',
    args: kind === 'router-openapi' ? { id: 'x1', name: 'n', size: 1 } : { a: 1, b: 'x' },
    register(count) {
      if (kind === 'router-openapi') {
        mcp.exposeOpenApi(app, openApiDocument(count));
        return;
      }
      for (let i = 0; i < count; i++) {
        mcp.tool({
          name: `tool_${i}`,
          description: `Tool number ${i}`,
          inputSchema: typicalSchema(kind === 'router-distinct' ? `the b of tool ${i}` : undefined),
          handler: ok,
        });
      }
    },
    connect: async () => undefined,
    async call(name, args) {
      const response = await inject(app, {
        method: 'POST',
        url: '/mcp',
        headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
        payload: JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name, arguments: args } }),
      });
      const reply = JSON.parse(response.payload) as { result?: { isError?: boolean } };
      if (response.statusCode !== 200 || reply.result === undefined || reply.result.isError === true)
        throw new Error(`router ${name}: ${response.statusCode} ${response.payload.slice(0, 300)}`);
    },
  };
}

function sdkV1Subject(kind: 'sdk-v1' | 'sdk-v1-openapi'): Subject {
  const server = new McpServerV1(SERVER_INFO);
  const client = new ClientV1({ name: 'bench', version: '1.0.0' });
  server.registerTool(
    'warm',
    { description: 'Warms the call path', inputSchema: { w: z.number().int().optional() } },
    ok,
  );
  return {
    warmName: 'warm',
    args: kind === 'sdk-v1-openapi' ? { id: 'x1', name: 'n', size: 1 } : { a: 1, b: 'x' },
    register(count) {
      if (kind === 'sdk-v1-openapi') {
        for (const operation of operationShapes(count))
          server.registerTool(operation.name, { description: operation.description, inputSchema: operation.shape }, ok);
        return;
      }
      for (let i = 0; i < count; i++) {
        server.registerTool(
          `tool_${i}`,
          { description: `Tool number ${i}`, inputSchema: { a: z.number(), b: z.string().optional() } },
          ok,
        );
      }
    },
    async connect() {
      const [clientSide, serverSide] = InMemoryV1.createLinkedPair();
      await server.connect(serverSide);
      await client.connect(clientSide);
    },
    async call(name, args) {
      const result = await client.callTool({ name, arguments: args });
      if (result.isError === true) throw new Error(`sdk-v1 ${name}: ${JSON.stringify(result).slice(0, 300)}`);
    },
  };
}

function sdkV2Subject(): Subject {
  const server = new McpServerV2(SERVER_INFO);
  const client = new ClientV2({ name: 'bench', version: '1.0.0' });
  server.registerTool(
    'warm',
    { description: 'Warms the call path', inputSchema: z.object({ w: z.number().int().optional() }) },
    ok,
  );
  return {
    warmName: 'warm',
    args: { a: 1, b: 'x' },
    register(count) {
      for (let i = 0; i < count; i++) {
        server.registerTool(
          `tool_${i}`,
          { description: `Tool number ${i}`, inputSchema: z.object({ a: z.number(), b: z.string().optional() }) },
          ok,
        );
      }
    },
    async connect() {
      const [clientSide, serverSide] = InMemoryV2.createLinkedPair();
      await server.connect(serverSide);
      await client.connect(clientSide);
    },
    async call(name, args) {
      const result = await client.callTool({ name, arguments: args });
      if (result.isError === true) throw new Error(`sdk-v2 ${name}: ${JSON.stringify(result).slice(0, 300)}`);
    },
  };
}

function subjectOf(kind: RegistrationKind): Subject {
  if (kind === 'sdk-v1' || kind === 'sdk-v1-openapi') return sdkV1Subject(kind);
  if (kind === 'sdk-v2') return sdkV2Subject();
  return routerSubject(kind);
}

async function main(): Promise<void> {
  const kind = process.argv[2] as RegistrationKind;
  const count = Number(process.argv[3]);
  if (!(REGISTRATION_KINDS as readonly string[]).includes(kind) || !(count > 0))
    throw new Error(`registration child: usage <${REGISTRATION_KINDS.join('|')}> <tools>`);
  const subject = subjectOf(kind);
  const before = (await settledMemory()).heapUsed;
  const start = process.hrtime.bigint();
  subject.register(count);
  const registerMs = Number(process.hrtime.bigint() - start) / 1e6;
  const heapBytes = (await settledMemory()).heapUsed - before;
  await subject.connect();
  await subject.call(subject.warmName, {});
  await subject.call(subject.warmName, {});
  const measured = kind.endsWith('openapi') ? 'upsertItem1' : `tool_${Math.floor(count / 2)}`;
  const first = process.hrtime.bigint();
  await subject.call(measured, subject.args);
  const firstCallMs = Number(process.hrtime.bigint() - first) / 1e6;
  const warm: number[] = [];
  for (let i = 0; i < WARM_CALLS; i++) {
    const t = process.hrtime.bigint();
    await subject.call(measured, subject.args);
    warm.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  warm.sort((x, y) => x - y);
  const report: RegistrationReport = {
    kind: 'ready',
    tools: count,
    registerMs,
    heapBytes,
    firstCallMs,
    warmCallMs: warm[Math.floor(warm.length / 2)]!,
  };
  process.send?.(report);
  process.on('disconnect', () => process.exit(0));
}

main().catch((err: unknown) => {
  process.stderr.write(`registration child: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
