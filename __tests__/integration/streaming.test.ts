// Streaming end to end: SSE replies, progress, logging, server→client requests, cancellation, resumption and the GET stream.

import express, { type Express } from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CancelledNotificationSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  type CancelledNotification,
  type ClientCapabilities,
  type CreateMessageRequest,
  type ElicitRequest,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import {
  mcpRouter,
  type McpRouter,
  type McpRouterOptions,
  type ProtocolVersion,
  type RequestContext,
  type ToolDefinition,
} from '../../lib';
import { MCP_ACCEPT, notification, rpc, silentLogger } from '../helpers/messages';
import { isPriming, messageOf, messagesOf, SseReader, type SseEvent } from '../helpers/sse';

// ---------------------------------------------------------------------------------------------------------------
// Harness: a listening app per test, closed (clients, then router, then server) after each test.

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  // Last in, first out: clients and streams go before the router and the server they talk to.
  for (let cleanup = cleanups.pop(); cleanup !== undefined; cleanup = cleanups.pop()) await cleanup();
});

interface Served {
  url: string;
  mcp: McpRouter;
}

/**
 * Mounts `mcpRouter({ name: 'streaming', version: '1.0.0', ...options })` (stateful unless `sessions: false`)
 * at /mcp of a fresh app listening on 127.0.0.1:0.
 *
 * @param before - adds middleware in front of the router (to observe requests)
 */
async function serve(
  options: Partial<McpRouterOptions> = {},
  setup?: (mcp: McpRouter) => void,
  before?: (app: Express) => void,
): Promise<Served> {
  const logger = silentLogger();
  const mcp = mcpRouter({ name: 'streaming', version: '1.0.0', logger, ...options });
  registerTools(mcp);
  setup?.(mcp);
  const app = express();
  before?.(app);
  app.use('/mcp', mcp);
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const { port } = server.address() as AddressInfo;
  cleanups.push(async () => {
    await mcp.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    // Nothing in these scenarios is a handler bug or a broken stream.
    expect(logger.error).not.toHaveBeenCalled();
  });
  return { url: `http://127.0.0.1:${port}/mcp`, mcp };
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

/** A tool that closes its connection at once, then waits for `gate` before it reports progress and answers. */
function pollGated(gate: Promise<void>): ToolDefinition {
  return {
    name: 'poll_gated',
    description: 'Closes its connection, then waits for the test',
    handler: async (_args: unknown, ctx: RequestContext) => {
      ctx.closeStream();
      await gate;
      await ctx.progress(1, 1);
      return 'after the gate';
    },
  };
}

function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

/** A short awaited pause, used only inside tool handlers (never to synchronise the test itself). */
/** One turn of the event loop: what a call scheduled (a close, a write) has happened after it. */
function turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Resolves with the abort reason of `signal` once it aborts. */
function aborted(signal: AbortSignal): Promise<unknown> {
  if (signal.aborted) return Promise.resolve(signal.reason);
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(signal.reason), { once: true }));
}

const SAMPLING_QUESTION = { messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 20 };
const ELICITATION_QUESTION = {
  message: 'Who are you?',
  requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
};

/** The tools every router of this file has. */
function registerTools(mcp: McpRouter): void {
  mcp.tool({
    name: 'echo',
    description: 'Echoes text; emits nothing while it runs',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    handler: ({ text }) => text,
  });
  mcp.tool({
    name: 'count',
    description: 'Reports progress 0, 50 and 100 of 100, nothing else',
    handler: async (_args, ctx: RequestContext) => {
      await ctx.progress(0, 100);
      await ctx.progress(50, 100);
      await ctx.progress(100, 100);
      return 'counted';
    },
  });
  mcp.tool({
    name: 'work',
    description: 'Reports progress and logs at info and warning',
    handler: async (_args, ctx: RequestContext) => {
      await ctx.progress(0, 100);
      await ctx.log('info', 'started', 'work');
      await ctx.progress(50, 100, 'half way');
      await ctx.log('warning', 'half done', 'work');
      await ctx.progress(100, 100);
      return 'done';
    },
  });
  mcp.tool({
    name: 'ask_model',
    description: 'Asks the client to sample',
    handler: (_args, ctx: RequestContext) => ctx.sample(SAMPLING_QUESTION),
  });
  mcp.tool({
    name: 'ask_user',
    description: 'Asks the client to elicit',
    handler: (_args, ctx: RequestContext) => ctx.elicit(ELICITATION_QUESTION),
  });
  mcp.tool({
    name: 'roots',
    description: "Lists the client's roots",
    handler: (_args, ctx: RequestContext) => ctx.listRoots(),
  });
  mcp.resource({ uri: 'docs://a', name: 'a', read: () => 'A' });
  mcp.resource({ uri: 'docs://b', name: 'b', read: () => 'B' });
  mcp.prompt({ name: 'greet', description: 'Greets', get: () => 'Hello' });
}

// ---------------------------------------------------------------------------------------------------------------
// Raw HTTP helpers.

type HeaderMap = Record<string, string>;

function postJson(url: string, body: unknown, headers: HeaderMap = {}, signal?: AbortSignal): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: MCP_ACCEPT, ...headers },
    body: JSON.stringify(body),
    signal,
  });
}

function getStream(url: string, headers: HeaderMap = {}, signal?: AbortSignal): Promise<Response> {
  return fetch(url, { method: 'GET', headers: { Accept: 'text/event-stream', ...headers }, signal });
}

/** Initializes a session at `protocolVersion` and acknowledges it; returns the headers of its later requests. */
async function initialize(url: string, protocolVersion: ProtocolVersion = '2025-11-25'): Promise<HeaderMap> {
  const res = await postJson(
    url,
    rpc('initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } }, 0),
  );
  expect(res.status).toBe(200);
  // responseMode 'sse' answers initialize over SSE too.
  const body = (
    res.headers.get('content-type') === 'text/event-stream' ? messagesOf(await sseOf(res).rest())[0] : await res.json()
  ) as {
    result: { protocolVersion: string };
  };
  expect(body.result.protocolVersion).toBe(protocolVersion);
  const sessionId = res.headers.get('mcp-session-id');
  if (sessionId === null) throw new Error('initialize returned no Mcp-Session-Id');
  const headers = { 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': protocolVersion };
  const ack = await postJson(url, notification('notifications/initialized'), headers);
  expect(ack.status).toBe(202);
  expect(await ack.text()).toBe('');
  return headers;
}

/** The SSE events of a response, read as they arrive; checks that it is an SSE response. */
function sseOf(res: Response): SseReader {
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  if (res.body === null) throw new Error('an SSE response without a body');
  const reader = new SseReader(res.body);
  cleanups.push(() => reader.cancel());
  return reader;
}

function callTool(
  name: string,
  id: number,
  progressToken?: string,
  args: Record<string, unknown> = {},
): Record<string, unknown> {
  return rpc(
    'tools/call',
    { name, arguments: args, ...(progressToken === undefined ? {} : { _meta: { progressToken } }) },
    id,
  );
}

function progress(progressToken: string, value: number, total = 100, message?: string): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    method: 'notifications/progress',
    params: { progressToken, progress: value, total, ...(message === undefined ? {} : { message }) },
  };
}

function textResult(id: number, text: string): Record<string, unknown> {
  return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } };
}

/** A message event as the router writes it: an id (when resumable), `event: message`, one data line. */
function messageEvent(withId: boolean): Record<string, unknown> {
  return { ...(withId ? { id: expect.any(String) } : {}), event: 'message', data: expect.any(String), dataLines: 1 };
}

const PRIMING = { id: expect.any(String), data: '', retry: 1000, dataLines: 1 };

function idsOf(events: readonly SseEvent[]): string[] {
  return events.map((event) => event.id ?? '');
}

// ---------------------------------------------------------------------------------------------------------------

describe('streaming with the official SDK client', () => {
  async function connect(url: string, capabilities: ClientCapabilities = {}): Promise<Client> {
    const client = new Client({ name: 'streaming-client', version: '1.0.0' }, { capabilities });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    cleanups.push(() => client.close());
    return client;
  }

  it('delivers progress (0, 50, 100 of 100) and log messages before the result, in order', async () => {
    const { url } = await serve();
    const client = await connect(url);
    const seen: unknown[] = [];
    client.setNotificationHandler(
      LoggingMessageNotificationSchema,
      (message) => void seen.push({ log: message.params }),
    );
    const result = await client.callTool({ name: 'work', arguments: {} }, undefined, {
      onprogress: (update) => seen.push({ progress: update }),
    });
    seen.push({ result });
    expect(seen).toEqual([
      { progress: { progress: 0, total: 100 } },
      { log: { level: 'info', logger: 'work', data: 'started' } },
      { progress: { progress: 50, total: 100, message: 'half way' } },
      { log: { level: 'warning', logger: 'work', data: 'half done' } },
      { progress: { progress: 100, total: 100 } },
      { result: { content: [{ type: 'text', text: 'done' }] } },
    ]);
  });

  it('filters log messages below the level a session set with logging/setLevel, for that session only', async () => {
    const { url } = await serve();
    const filtered = await connect(url);
    const unfiltered = await connect(url);
    const levels = (client: Client): string[] => {
      const seen: string[] = [];
      client.setNotificationHandler(
        LoggingMessageNotificationSchema,
        (message) => void seen.push(message.params.level),
      );
      return seen;
    };
    const filteredLevels = levels(filtered);
    const unfilteredLevels = levels(unfiltered);
    await expect(filtered.setLoggingLevel('warning')).resolves.toEqual({});
    await filtered.callTool({ name: 'work', arguments: {} });
    await unfiltered.callTool({ name: 'work', arguments: {} });
    expect(filteredLevels).toEqual(['warning']);
    expect(unfilteredLevels).toEqual(['info', 'warning']);
  });

  it('round-trips sampling: the tool returns what the client answered', async () => {
    const { url } = await serve();
    const client = await connect(url, { sampling: {} });
    const answer = {
      role: 'assistant',
      content: { type: 'text', text: 'Hi!' },
      model: 'test-model',
      stopReason: 'endTurn',
    };
    const asked: CreateMessageRequest['params'][] = [];
    client.setRequestHandler(CreateMessageRequestSchema, (request) => {
      asked.push(request.params);
      return answer;
    });
    const result = await client.callTool({ name: 'ask_model', arguments: {} });
    expect(asked).toEqual([SAMPLING_QUESTION]);
    expect(result).toEqual({ content: [{ type: 'text', text: expect.any(String) }], structuredContent: answer });
    expect(JSON.parse((result.content as [{ text: string }])[0].text)).toEqual(answer);
  });

  it('round-trips elicitation: the tool returns what the client answered', async () => {
    const { url } = await serve();
    const client = await connect(url, { elicitation: {} });
    const asked: ElicitRequest['params'][] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { name: 'Ada' } };
    });
    const result = await client.callTool({ name: 'ask_user', arguments: {} });
    expect(asked).toEqual([ELICITATION_QUESTION]);
    expect(result.structuredContent).toEqual({ action: 'accept', content: { name: 'Ada' } });
    expect(result.isError).toBeUndefined();
  });

  it('round-trips roots/list: the tool returns the client roots', async () => {
    const { url } = await serve();
    const client = await connect(url, { roots: {} });
    const roots = [{ uri: 'file:///home/ada/project', name: 'project' }];
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots }));
    const result = await client.callTool({ name: 'roots', arguments: {} });
    expect(result.structuredContent).toEqual({ roots });
    expect(result.isError).toBeUndefined();
  });

  it('gives the tool an isError result naming the capability when the client did not declare sampling', async () => {
    const { url } = await serve();
    const client = await connect(url);
    const result = await client.callTool({ name: 'ask_model', arguments: {} });
    expect(result).toEqual({
      content: [
        {
          type: 'text',
          text: "ctx: the client did not declare the 'sampling' capability, so sampling/createMessage cannot be sent",
        },
      ],
      isError: true,
    });
  });

  it('times sampling out after clientRequestTimeoutMs, cancels it at the client and returns an isError result', async () => {
    const { url } = await serve({ clientRequestTimeoutMs: 200 });
    const client = await connect(url, { sampling: {} });
    const asked = deferred<RequestId>();
    client.setRequestHandler(CreateMessageRequestSchema, (_request, extra) => {
      asked.resolve(extra.requestId);
      return new Promise<never>(() => undefined); // the user never answers
    });
    const cancelled: CancelledNotification['params'][] = [];
    client.setNotificationHandler(CancelledNotificationSchema, (message) => void cancelled.push(message.params));
    const result = await client.callTool({ name: 'ask_model', arguments: {} });
    expect(result).toEqual({
      content: [{ type: 'text', text: 'ctx: the client did not answer sampling/createMessage within 200 ms' }],
      isError: true,
    });
    const samplingId = await asked.promise;
    expect(cancelled).toEqual([
      { requestId: samplingId, reason: 'the client did not answer sampling/createMessage within 200 ms' },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('raw Streamable HTTP: POST replies', () => {
  it('initialize returns an Mcp-Session-Id of visible ASCII', async () => {
    const { url } = await serve();
    const res = await postJson(
      url,
      rpc(
        'initialize',
        { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
        0,
      ),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('mcp-session-id')).toMatch(/^[\x21-\x7E]+$/);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-11-25' } });
  });

  it('auto: a tool that emits nothing is answered with application/json', async () => {
    const { url } = await serve();
    const headers = await initialize(url);
    const res = await postJson(url, callTool('echo', 2, undefined, { text: 'hi' }), headers);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual(textResult(2, 'hi'));
  });

  it('auto: a tool reporting progress is answered with SSE: no-cache headers, a priming event, one data line per message', async () => {
    const { url } = await serve();
    const headers = await initialize(url);
    const res = await postJson(url, callTool('count', 3, 'p3'), headers);
    expect(res.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    const events = await sseOf(res).rest();
    expect(events).toEqual([PRIMING, messageEvent(true), messageEvent(true), messageEvent(true), messageEvent(true)]);
    expect(messagesOf(events)).toEqual([
      progress('p3', 0),
      progress('p3', 50),
      progress('p3', 100),
      textResult(3, 'counted'),
    ]);
    expect(new Set(idsOf(events)).size).toBe(events.length);
  });

  it('sse: a reply complete when the handler returns leaves in one socket write; a stream opened by progress shows its headers first', async () => {
    // Every write the server's sockets make, counted where Node hands them to the socket (net.Socket#_write/_writev).
    let writes = 0;
    const counted = new WeakSet<object>();
    const { url } = await serve({ responseMode: 'sse' }, undefined, (app) =>
      app.use((req, _res, next) => {
        const socket = req.socket as unknown as Record<'_write' | '_writev', (...args: unknown[]) => unknown>;
        if (!counted.has(socket)) {
          counted.add(socket);
          for (const method of ['_write', '_writev'] as const) {
            const original = socket[method].bind(socket);
            socket[method] = (...args: unknown[]) => {
              writes++;
              return original(...args);
            };
          }
        }
        next();
      }),
    );
    const headers = await initialize(url);
    const writesOf = async (body: Record<string, unknown>): Promise<{ writes: number; events: SseEvent[] }> => {
      const before = writes;
      const events = await sseOf(await postJson(url, body, headers)).rest();
      return { writes: writes - before, events };
    };
    const complete = await writesOf(callTool('echo', 2, undefined, { text: 'hi' }));
    expect(complete.events).toEqual([PRIMING, messageEvent(true)]);
    expect(complete.writes).toBe(1);
    const streamed = await writesOf(callTool('count', 3, 'p3'));
    expect(messagesOf(streamed.events)).toEqual([
      progress('p3', 0),
      progress('p3', 50),
      progress('p3', 100),
      textResult(3, 'counted'),
    ]);
    expect(streamed.writes).toBeGreaterThan(1);
  });

  it('sends no priming event to a session initialized at 2025-06-18', async () => {
    const { url } = await serve();
    const headers = await initialize(url, '2025-06-18');
    const events = await sseOf(await postJson(url, callTool('count', 4, 'p4'), headers)).rest();
    expect(events.some(isPriming)).toBe(false);
    expect(events).toEqual([messageEvent(true), messageEvent(true), messageEvent(true), messageEvent(true)]);
    expect(messagesOf(events)).toEqual([
      progress('p4', 0),
      progress('p4', 50),
      progress('p4', 100),
      textResult(4, 'counted'),
    ]);
  });

  it('gives event ids that are unique across all the streams of a session', async () => {
    const { url } = await serve();
    const headers = await initialize(url);
    const standalone = sseOf(await getStream(url, headers));
    const [first, second] = await Promise.all([
      postJson(url, callTool('count', 5, 'p5'), headers).then((res) => sseOf(res).rest()),
      postJson(url, callTool('count', 6, 'p6'), headers).then((res) => sseOf(res).rest()),
    ]);
    const ids = [...idsOf(first), ...idsOf(second), ...idsOf(await standalone.take(1))];
    expect(ids).toHaveLength(11);
    expect(ids.every((id) => id !== '')).toBe(true);
    expect(new Set(ids).size).toBe(11);
  });

  it('answers 406 with a JSON-RPC body to a POST that accepts neither JSON nor SSE', async () => {
    const { url } = await serve();
    const headers = await initialize(url);
    const res = await postJson(url, callTool('echo', 7, undefined, { text: 'x' }), { ...headers, Accept: 'image/png' });
    expect(res.status).toBe(406);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: 'Not Acceptable: accept application/json or text/event-stream' },
    });
  });

  type Row = [
    mode: 'auto' | 'sse' | 'json',
    accept: string,
    tool: 'echo' | 'count',
    progressToken: string | undefined,
    reply: 'json' | 'sse',
  ];
  it.each<Row>([
    ['auto', MCP_ACCEPT, 'echo', undefined, 'json'],
    ['auto', MCP_ACCEPT, 'count', undefined, 'json'], // without a progressToken nothing is emitted
    ['auto', MCP_ACCEPT, 'count', 'tok', 'sse'],
    ['sse', MCP_ACCEPT, 'echo', undefined, 'sse'],
    ['sse', MCP_ACCEPT, 'count', 'tok', 'sse'],
    ['json', MCP_ACCEPT, 'count', 'tok', 'json'], // progress is dropped
    ['sse', 'application/json', 'count', 'tok', 'json'],
    ['auto', 'application/json', 'count', 'tok', 'json'],
    ['json', 'text/event-stream', 'echo', undefined, 'sse'],
    ['json', 'text/event-stream', 'count', 'tok', 'sse'],
  ])(
    'responseMode %s, Accept %s, tool %s (progressToken %s) → %s',
    async (responseMode, accept, tool, progressToken, reply) => {
      const { url } = await serve({ responseMode });
      const headers = await initialize(url);
      const res = await postJson(url, callTool(tool, 8, progressToken, tool === 'echo' ? { text: 'hey' } : {}), {
        ...headers,
        Accept: accept,
      });
      const result = textResult(8, tool === 'echo' ? 'hey' : 'counted');
      if (reply === 'json') {
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('application/json');
        expect(await res.json()).toEqual(result);
        return;
      }
      const events = await sseOf(res).rest();
      expect(isPriming(events[0] as SseEvent)).toBe(true);
      const progressMessages =
        progressToken === undefined
          ? []
          : [progress(progressToken, 0), progress(progressToken, 50), progress(progressToken, 100)];
      expect(messagesOf(events)).toEqual([...progressMessages, result]);
    },
  );

  it('streams progress over SSE on a stateless router: no event ids, no priming event', async () => {
    const { url } = await serve({ sessions: false });
    const res = await postJson(url, callTool('count', 9, 'p9'), { 'MCP-Protocol-Version': '2025-11-25' });
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const events = await sseOf(res).rest();
    expect(events).toEqual([messageEvent(false), messageEvent(false), messageEvent(false), messageEvent(false)]);
    expect(events.every((event) => event.id === undefined)).toBe(true);
    expect(messagesOf(events)).toEqual([
      progress('p9', 0),
      progress('p9', 50),
      progress('p9', 100),
      textResult(9, 'counted'),
    ]);
  });

  it('streams a 2025-03-26 batch whose first request reports progress as one SSE stream with both responses', async () => {
    const { url } = await serve();
    const headers = await initialize(url, '2025-03-26');
    const res = await postJson(
      url,
      [callTool('count', 21, 'b21'), callTool('echo', 22, undefined, { text: 'two' })],
      headers,
    );
    const events = await sseOf(res).rest();
    expect(events).toEqual(Array.from({ length: 5 }, () => messageEvent(true)));
    expect(messagesOf(events)).toEqual([
      progress('b21', 0),
      progress('b21', 50),
      progress('b21', 100),
      textResult(21, 'counted'),
      textResult(22, 'two'),
    ]);
    expect(new Set(idsOf(events)).size).toBe(5);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('cancellation', () => {
  it.each([
    ['auto', 'a tool reporting progress', 'c1'],
    ['sse', "responseMode 'sse'", undefined],
  ] as const)(
    'responseMode %s (%s): notifications/cancelled aborts the handler and the stream ends with no response',
    async (responseMode, _label, progressToken) => {
      const started = deferred();
      const reasons: unknown[] = [];
      const { url } = await serve({ responseMode }, (mcp) =>
        mcp.tool({
          name: 'wait',
          description: 'Waits until cancelled',
          handler: async (_args, ctx: RequestContext) => {
            await ctx.progress(1);
            started.resolve();
            reasons.push(await aborted(ctx.signal));
            return 'too late';
          },
        }),
      );
      const headers = await initialize(url);
      const call = postJson(url, callTool('wait', 31, progressToken), headers);
      await started.promise;
      const cancel = await postJson(
        url,
        notification('notifications/cancelled', { requestId: 31, reason: 'the user changed their mind' }),
        headers,
      );
      expect(cancel.status).toBe(202);
      expect(await cancel.text()).toBe('');
      const events = await sseOf(await call).rest();
      expect(reasons).toEqual([new Error('the user changed their mind')]);
      expect(events[0]).toEqual(PRIMING);
      expect(messagesOf(events).filter((message) => 'id' in message)).toEqual([]);
      expect(messagesOf(events)).toEqual(
        progressToken === undefined
          ? []
          : [{ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken, progress: 1 } }],
      );
    },
  );
});

// ---------------------------------------------------------------------------------------------------------------

describe('resumption with Last-Event-ID', () => {
  it('ctx.closeStream() ends the POST connection after the priming event; GET replays the rest and the result', async () => {
    const returning = deferred();
    const ended = deferred();
    const { url } = await serve({}, (mcp) =>
      mcp.tool({
        name: 'poll',
        description: 'Lets the client poll',
        handler: async (_args, ctx: RequestContext) => {
          ctx.closeStream();
          // Goes on once the client has seen the POST's stream end.
          await ended.promise;
          await ctx.progress(50, 100);
          await ctx.log('info', 'back', 'poll');
          returning.resolve();
          return 'polled';
        },
      }),
    );
    const headers = await initialize(url);
    // The session's standalone stream is open: resuming another stream is not a second standalone stream (no 409).
    const standalone = sseOf(await getStream(url, headers));
    expect(await standalone.next()).toEqual(PRIMING);
    const posted = await sseOf(await postJson(url, callTool('poll', 41, 'r41'), headers)).rest();
    ended.resolve();
    expect(posted).toEqual([PRIMING]);
    // The client comes back after the tool finished (as a client waiting retry: 1000 ms would): all must be kept.
    await returning.promise;

    const res = await getStream(url, { ...headers, 'Last-Event-ID': (posted[0] as SseEvent).id as string });
    const replayed = await sseOf(res).rest();
    expect(replayed).toEqual([messageEvent(true), messageEvent(true), messageEvent(true)]);
    expect(messagesOf(replayed)).toEqual([
      progress('r41', 50),
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'back', logger: 'poll' } },
      textResult(41, 'polled'),
    ]);
    expect(new Set([...idsOf(posted), ...idsOf(replayed)]).size).toBe(4);
  });

  it('a GET that resumes a stream still running continues it live, then ends it after the result', async () => {
    const gate = deferred();
    const { url } = await serve({}, (mcp) => mcp.tool(pollGated(gate.promise)));
    const headers = await initialize(url);
    const posted = await sseOf(await postJson(url, callTool('poll_gated', 42, 'r42'), headers)).rest();
    expect(posted).toEqual([PRIMING]);
    const resumed = sseOf(await getStream(url, { ...headers, 'Last-Event-ID': (posted[0] as SseEvent).id as string }));
    gate.resolve();
    const events = await resumed.rest();
    expect(messagesOf(events)).toEqual([progress('r42', 1, 1), textResult(42, 'after the gate')]);
    expect(events).toEqual([messageEvent(true), messageEvent(true)]);
  });

  it("a Last-Event-ID of another stream replays only that stream's events", async () => {
    const gate = deferred();
    const { url } = await serve({}, (mcp) => mcp.tool(pollGated(gate.promise)));
    const headers = await initialize(url);
    const pending = await sseOf(await postJson(url, callTool('poll_gated', 43, 'r43'), headers)).rest();
    const streamA = await sseOf(await postJson(url, callTool('count', 44, 'a44'), headers)).rest();
    const streamB = await sseOf(await postJson(url, callTool('count', 45, 'b45'), headers)).rest();
    expect(streamA).toHaveLength(5);
    expect(streamB).toHaveLength(5);

    // Resuming A after its first progress event: A's later events only, then the end (A is finished).
    const fromA = await sseOf(
      await getStream(url, { ...headers, 'Last-Event-ID': (streamA[1] as SseEvent).id as string }),
    ).rest();
    expect(fromA).toEqual(streamA.slice(2));
    expect(messagesOf(fromA)).toEqual([progress('a44', 50), progress('a44', 100), textResult(44, 'counted')]);
    // B from its priming event: all of B, nothing of A or of the stream still running.
    const fromB = await sseOf(
      await getStream(url, { ...headers, 'Last-Event-ID': (streamB[0] as SseEvent).id as string }),
    ).rest();
    expect(fromB).toEqual(streamB.slice(1));

    // The running stream, resumed, gets its own events only.
    const resumed = sseOf(await getStream(url, { ...headers, 'Last-Event-ID': (pending[0] as SseEvent).id as string }));
    gate.resolve();
    expect(messagesOf(await resumed.rest())).toEqual([progress('r43', 1, 1), textResult(43, 'after the gate')]);
  });

  it('the SDK client resumes a closed POST stream by itself (after retry: ms) and gets the result', async () => {
    // The client reconnects retryMs after the connection closed; the tool is done long before.
    const { url } = await serve({ retryMs: 100 }, (mcp) =>
      mcp.tool({
        name: 'poll',
        description: 'Lets the client poll',
        handler: async (_args, ctx: RequestContext) => {
          ctx.closeStream();
          await ctx.progress(50, 100);
          return 'polled';
        },
      }),
    );
    const client = new Client({ name: 'streaming-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    cleanups.push(() => client.close());
    const updates: unknown[] = [];
    const result = await client.callTool({ name: 'poll', arguments: {} }, undefined, {
      onprogress: (update) => updates.push(update),
      timeout: 2_000,
    });
    expect(result).toEqual({ content: [{ type: 'text', text: 'polled' }] });
    expect(updates).toEqual([{ progress: 50, total: 100 }]);
  });

  it('resumes the standalone GET stream: events sent while it was away are replayed, later ones follow live', async () => {
    const { url, mcp } = await serve();
    const headers = await initialize(url);
    const controller = new AbortController();
    const first = sseOf(await getStream(url, headers, controller.signal));
    const priming = (await first.next()) as SseEvent;
    expect(priming).toEqual(PRIMING);
    controller.abort();
    mcp.tool({ name: 'late', description: 'Added while the client was away', handler: () => 'late' });
    const resumed = sseOf(await getStream(url, { ...headers, 'Last-Event-ID': priming.id as string }));
    expect(messageOf((await resumed.next()) as SseEvent)).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
    });
    mcp.prompt({ name: 'late', description: 'Added after the client came back', get: () => 'late' });
    expect(messageOf((await resumed.next()) as SseEvent)).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/prompts/list_changed',
    });
  });

  it('ctx.closeStream() does not lose the result of a session initialized before 2025-11-25 (no priming event to resume from)', async () => {
    const { url } = await serve({}, (mcp) =>
      mcp.tool({
        name: 'poll',
        description: 'Asks to close its connection',
        handler: async (_args, ctx: RequestContext) => {
          ctx.closeStream();
          await turn();
          return 'polled';
        },
      }),
    );
    const headers = await initialize(url, '2025-06-18');
    const res = await postJson(url, callTool('poll', 48), headers);
    expect(res.status).toBe(200);
    const messages =
      res.headers.get('content-type') === 'text/event-stream'
        ? messagesOf(await sseOf(res).rest())
        : [await res.json()];
    // MCP 2025-06-18 transports: the server SHOULD NOT close the SSE stream before sending the response.
    expect(messages).toEqual([textResult(48, 'polled')]);
  });

  it.each([
    ['a malformed id', () => 'not an event id'],
    ['a well-formed id never issued', () => 'AAAAAAAAAAAA.7'],
  ])(
    'an unknown Last-Event-ID (%s) opens a fresh standalone stream with nothing replayed',
    async (_label, lastEventId) => {
      const { url, mcp } = await serve();
      const headers = await initialize(url);
      await sseOf(await postJson(url, callTool('count', 46, 'u46'), headers)).rest();
      const stream = sseOf(await getStream(url, { ...headers, 'Last-Event-ID': lastEventId() }));
      expect(await stream.next()).toEqual(PRIMING);
      // The next event is the one the test causes now: nothing was replayed before it.
      mcp.tool({ name: 'late', description: 'Added after mounting', handler: () => 'late' });
      const next = (await stream.next()) as SseEvent;
      expect(messageOf(next)).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    },
  );

  it("the Last-Event-ID of another session's event opens a fresh standalone stream, never that session's events", async () => {
    const { url, mcp } = await serve();
    const other = await initialize(url);
    const foreign = await sseOf(await postJson(url, callTool('count', 47, 'f47'), other)).rest();
    const headers = await initialize(url);
    const stream = sseOf(await getStream(url, { ...headers, 'Last-Event-ID': (foreign[0] as SseEvent).id as string }));
    expect(await stream.next()).toEqual(PRIMING);
    mcp.tool({ name: 'late', description: 'Added after mounting', handler: () => 'late' });
    expect(messageOf((await stream.next()) as SseEvent)).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
    });
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('the standalone GET stream', () => {
  it('opens with 200 text/event-stream and a priming event; a second concurrent GET gets 409', async () => {
    const { url } = await serve();
    const headers = await initialize(url);
    const res = await getStream(url, headers);
    expect(res.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    const stream = sseOf(res);
    expect(await stream.next()).toEqual(PRIMING);
    const second = await getStream(url, headers);
    expect(second.status).toBe(409);
    expect(second.headers.get('content-type')).toBe('application/json');
    expect(await second.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: 'Conflict: this session already has an open GET stream' },
    });
  });

  it("advises the retryMs option's delay in the priming event", async () => {
    const { url } = await serve({ retryMs: 2500 });
    const headers = await initialize(url);
    expect(await sseOf(await getStream(url, headers)).next()).toEqual({ ...PRIMING, retry: 2500 });
    const posted = await sseOf(await postJson(url, callTool('count', 53, 'p53'), headers)).rest();
    expect(posted[0]).toEqual({ ...PRIMING, retry: 2500 });
  });

  it('announces tools, resources and prompts added or removed after mounting', async () => {
    const { url, mcp } = await serve();
    const headers = await initialize(url);
    const stream = sseOf(await getStream(url, headers));
    await stream.next(); // priming
    const tool = mcp.tool({ name: 'late', description: 'Added after mounting', handler: () => 'late' });
    mcp.resource({ uri: 'docs://late', name: 'late', read: () => 'late' });
    mcp.resourceTemplate({ uriTemplate: 'late://{id}', name: 'late', read: () => 'late' });
    mcp.prompt({ name: 'late', description: 'Added after mounting', get: () => 'late' });
    tool.remove();
    const events = await stream.take(5);
    expect(events).toEqual(Array.from({ length: 5 }, () => messageEvent(true)));
    expect(messagesOf(events).map((message) => message.method)).toEqual([
      'notifications/tools/list_changed',
      'notifications/resources/list_changed',
      'notifications/resources/list_changed',
      'notifications/prompts/list_changed',
      'notifications/tools/list_changed',
    ]);
  });

  it('delivers resources/updated only to sessions subscribed to that URI, and not after unsubscribe', async () => {
    const { url, mcp } = await serve();
    const subscriber = await initialize(url);
    const bystander = await initialize(url);
    const subscriberStream = sseOf(await getStream(url, subscriber));
    const bystanderStream = sseOf(await getStream(url, bystander));
    await subscriberStream.next(); // priming
    await bystanderStream.next(); // priming
    const subscribed = await postJson(url, rpc('resources/subscribe', { uri: 'docs://a' }, 51), subscriber);
    expect(await subscribed.json()).toEqual({ jsonrpc: '2.0', id: 51, result: {} });

    mcp.notifyResourceUpdated('docs://b'); // nobody subscribed to b
    mcp.notifyResourceUpdated('docs://a');
    // A broadcast to every session marks where the updates end on each stream.
    const marker = mcp.tool({
      name: 'marker',
      description: 'Marks a point on every GET stream',
      handler: () => 'marker',
    });
    expect(messagesOf(await subscriberStream.take(2))).toEqual([
      { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'docs://a' } },
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
    ]);
    expect(messagesOf(await bystanderStream.take(1))).toEqual([
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
    ]);

    const unsubscribed = await postJson(url, rpc('resources/unsubscribe', { uri: 'docs://a' }, 52), subscriber);
    expect(await unsubscribed.json()).toEqual({ jsonrpc: '2.0', id: 52, result: {} });
    mcp.notifyResourceUpdated('docs://a');
    marker.remove();
    expect(messagesOf(await subscriberStream.take(1))).toEqual([
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
    ]);
    expect(messagesOf(await bystanderStream.take(1))).toEqual([
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
    ]);
  });

  it('answers 406 to a GET that does not accept text/event-stream', async () => {
    const { url } = await serve();
    const headers = await initialize(url);
    const res = await getStream(url, { ...headers, Accept: 'application/json' });
    expect(res.status).toBe(406);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: 'Not Acceptable: a GET stream needs Accept: text/event-stream' },
    });
  });

  it.each(['GET', 'DELETE'])('answers %s with 405 and Allow: POST on a stateless router', async (method) => {
    const { url } = await serve({ sessions: false });
    const res = await fetch(url, { method, headers: { Accept: 'text/event-stream' } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: `Method Not Allowed: ${method} is not served here; use POST` },
    });
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('a client that disconnects mid-stream', () => {
  it('aborts ctx.signal on a stateless router', async () => {
    const reasons = deferred<unknown>();
    const { url } = await serve({ sessions: false }, (mcp) =>
      mcp.tool({
        name: 'hang',
        description: 'Waits until its caller is gone',
        handler: async (_args, ctx: RequestContext) => {
          await ctx.progress(1);
          reasons.resolve(await aborted(ctx.signal));
          return 'nobody hears this';
        },
      }),
    );
    const controller = new AbortController();
    const res = await postJson(
      url,
      callTool('hang', 61, 'h61'),
      { 'MCP-Protocol-Version': '2025-11-25' },
      controller.signal,
    );
    const stream = sseOf(res);
    expect(messageOf((await stream.next()) as SseEvent)).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 'h61', progress: 1 },
    });
    controller.abort();
    expect(await reasons.promise).toEqual(new Error('the client disconnected'));
  });

  it('does not abort ctx.signal on a stateful router with the default event store; the result is replayable', async () => {
    const gate = deferred();
    const closed = deferred();
    const finished = deferred<boolean>();
    const { url } = await serve(
      {},
      (mcp) =>
        mcp.tool({
          name: 'survive',
          description: 'Keeps working after its caller disconnects',
          handler: async (_args, ctx: RequestContext) => {
            await ctx.progress(1, 2);
            await gate.promise;
            await ctx.progress(2, 2);
            finished.resolve(ctx.signal.aborted);
            return 'survived';
          },
        }),
      (app) =>
        app.use((req, res, next) => {
          // Observes the server side of the POST that the test disconnects.
          if (req.headers['x-test'] === 'disconnect') res.once('close', () => closed.resolve());
          next();
        }),
    );
    const headers = await initialize(url);
    const controller = new AbortController();
    const res = await postJson(
      url,
      callTool('survive', 62, 's62'),
      { ...headers, 'X-Test': 'disconnect' },
      controller.signal,
    );
    const stream = sseOf(res);
    const [priming, first] = await stream.take(2);
    expect(priming).toEqual(PRIMING);
    expect(messageOf(first as SseEvent)).toEqual(progress('s62', 1, 2));
    controller.abort();
    await closed.promise;
    gate.resolve();
    expect(await finished.promise).toBe(false);

    const replayed = await sseOf(
      await getStream(url, { ...headers, 'Last-Event-ID': (first as SseEvent).id as string }),
    ).rest();
    expect(messagesOf(replayed)).toEqual([progress('s62', 2, 2), textResult(62, 'survived')]);
    expect(replayed).toEqual([messageEvent(true), messageEvent(true)]);
  });
});
