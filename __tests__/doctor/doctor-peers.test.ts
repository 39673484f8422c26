// The doctor against other MCP servers as real peers: the SDK v1 (stateful, 2025 era), the SDK v2 (stateless, both eras) and fastmcp.

import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import express, { type Request, type Response } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpHandler, McpServer as McpServerV2 } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import * as z from 'zod/v4';
import { runDoctor } from '../../lib/doctor/run';
import { endGroup, spawnGroup } from '../helpers/child';
import { within } from '../helpers/events';
import { freePort } from '../helpers/ports';
import { closeAll, endpointOf, serve, severities, started, testSettings } from './servers';

afterAll(closeAll);

const problemsOf = (report: Awaited<ReturnType<typeof runDoctor>>): string[] =>
  report.findings.filter((f) => f.severity === 'fail').map((f) => `${f.id}: ${f.summary}`);

it('the SDK v1 server (stateful, 2025 era): sessions, GET stream, tools; the 2026 era told as info', async () => {
  const app = express();
  app.use(express.json());
  const transports = new Map<string, StreamableHTTPServerTransport>();
  app.all('/mcp', async (req: Request, res: Response) => {
    const sessionId = req.get('mcp-session-id');
    let transport = sessionId === undefined ? undefined : transports.get(sessionId);
    if (sessionId !== undefined && transport === undefined)
      return void res
        .status(404)
        .json({ jsonrpc: '2.0', error: { code: -32000, message: 'Session not found' }, id: null });
    if (transport === undefined) {
      if ((req.body as { method?: string } | undefined)?.method !== 'initialize')
        return void res.status(400).json({ jsonrpc: '2.0', error: { code: -32000, message: 'No session' }, id: null });
      const server = new McpServer({ name: 'sdk-v1', version: '1.0.0' });
      server.registerTool(
        'add',
        { description: 'Add', inputSchema: { a: z.number(), b: z.number() } },
        async ({ a, b }) => ({
          content: [{ type: 'text', text: String(a + b) }],
        }),
      );
      const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void transports.set(id, created),
      });
      created.onclose = () => created.sessionId !== undefined && transports.delete(created.sessionId);
      await server.connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, req.body);
  });
  const listening = await serve(app);
  const report = await runDoctor(
    { url: endpointOf(listening), calls: ['add'], args: { add: { a: 1, b: 2 } } },
    testSettings(),
  );
  expect(problemsOf(report)).toEqual([]);
  expect(severities(report)).toMatchObject({
    'era2025.initialize': 'ok',
    'era2025.session': 'ok',
    'era2026.unsupported': 'info',
    'stream.open': 'ok',
    'tools.hygiene': 'ok',
    'tools.call': 'ok',
  });
});

it('the SDK v2 server (stateless, both eras): server/discover, a 2026 tools/list, the listen stream', async () => {
  const handler = createMcpHandler(() => {
    const server = new McpServerV2(
      { name: 'sdk-v2', version: '2.0.0' },
      { capabilities: { tools: { listChanged: true } } },
    );
    server.registerTool(
      'add',
      { description: 'Add', inputSchema: z.object({ a: z.number().optional() }) },
      async () => ({
        content: [{ type: 'text', text: 'ok' }],
      }),
    );
    return server;
  });
  started.push({ close: () => handler.close() });
  const node = toNodeHandler(handler);
  const app = express();
  app.all('/mcp', (req, res) => void node(req, res));
  const listening = await serve(app);
  const report = await runDoctor({ url: endpointOf(listening), calls: ['add'] }, testSettings());
  expect(problemsOf(report)).toEqual([]);
  expect(severities(report)).toMatchObject({
    'era2025.initialize': 'ok',
    'era2026.discover': 'ok',
    'era2026.tools-list': 'ok',
    'tools.hygiene': 'ok',
    'tools.call': 'ok',
  });
  expect(report.findings.some((f) => f.id.startsWith('stream.') && f.severity !== 'fail')).toBe(true);
});

describe('a fastmcp server (in its own process)', () => {
  let child: ChildProcessByStdio<null, Readable, Readable> | undefined;
  let port = 0;

  beforeAll(async () => {
    port = await freePort();
    child = spawnGroup(process.execPath, [join(__dirname, 'fastmcp-server.mjs')], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PORT: String(port) },
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await within(
      new Promise<void>((resolve) => child?.stdout.on('data', () => out.includes('listening') && resolve())),
      'fastmcp to listen',
      15_000,
    );
  });

  afterAll(() => endGroup(child));

  it('checks it like any other: the 2025 era, its session and GET stream, tools, a call', async () => {
    const report = await runDoctor(
      { url: new URL(`http://127.0.0.1:${port}/mcp`), calls: ['add'], args: { add: { a: 1, b: 2 } } },
      testSettings(),
    );
    expect(problemsOf(report)).toEqual([]);
    expect(severities(report)).toMatchObject({
      'era2025.initialize': 'ok',
      'era2025.session': 'ok',
      'tools.hygiene': 'ok',
      'tools.call': 'ok',
    });
    expect(report.exitCode).toBe(0);
  });
});
