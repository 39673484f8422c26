// Calls through the gateway against real upstreams (SDK v1 2025, SDK v2 2026, this router in both eras) from the SDK v1 and v2 clients: results, errors, faults, timeouts, progress, cancellation, _meta and Mcp-Param-* headers.

import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import {
  Client as V2Client,
  ProtocolError as V2ProtocolError,
  StreamableHTTPClientTransport as V2Transport,
} from '@modelcontextprotocol/client';
import { ProtocolError } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { ErrorCode, JsonRpcError, mcpRouter, type McpRouter } from '../../../lib';
import {
  closeAfterEach,
  closeGatewaysAfterEach,
  routerCallUpstream,
  sdkV1CallUpstream,
  sdkV2CallUpstream,
  serve,
  serveGateway,
  stopUpstream,
  waitFor,
  type Received,
  type Upstream,
} from './upstreams';
import { Signal } from '../../helpers/events';

/** Told when an upstream tool handler of these tests starts or sees its abort. */
const handlerSaw = new Signal();

closeGatewaysAfterEach();
closeAfterEach();

const SUM = { content: [{ type: 'text', text: '5' }], structuredContent: { sum: 5 } };
const FAILED = { content: [{ type: 'text', text: 'disk full' }], isError: true };
const MODERN_ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

const clients: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

/** The SDK v1 client: it speaks 2025-11-25 (initialize, a session). */
async function v1Client(url: string): Promise<V1Client> {
  const client = new V1Client({ name: 'v1-caller', version: '1.0.0' });
  await client.connect(new V1Transport(new URL(url)));
  clients.push(client);
  return client;
}

/** The SDK v2 client pinned to 2026-07-28 (server/discover, the per-request envelope, no session). */
async function v2Client(url: string): Promise<V2Client> {
  const client = new V2Client(
    { name: 'v2-caller', version: '2.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new V2Transport(new URL(url)));
  clients.push(client);
  return client;
}

/** What a call returned that the upstream made (the gateway's own serverInfo `_meta` of a 2026 answer left aside). */
function upstreamPart(result: Record<string, unknown>): Record<string, unknown> {
  const { content, structuredContent, isError } = result;
  return Object.fromEntries(
    Object.entries({ content, structuredContent, isError }).filter(([, value]) => value !== undefined),
  );
}

/** What `call` rejected with. */
async function caught(call: Promise<unknown>): Promise<{ code: number; message: string; data?: unknown }> {
  const error: unknown = await call.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeDefined();
  return error as { code: number; message: string; data?: unknown };
}

/** A POST to the gateway, its answer read whole: a JSON body or the messages of an SSE stream. */
async function post(
  url: string,
  body: Record<string, unknown>,
  headers: Record<string, string>,
  signal?: AbortSignal,
): Promise<Record<string, unknown>[]> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
    signal,
  });
  const text = await res.text();
  if (!(res.headers.get('content-type') ?? '').includes('text/event-stream'))
    return [JSON.parse(text) as Record<string, unknown>];
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line.length > 6)
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
}

/** A 2026 tools/call POST (no session), with the envelope and the standard headers. */
function modernCall(
  url: string,
  name: string,
  args: Record<string, unknown>,
  meta: Record<string, unknown> = {},
  signal?: AbortSignal,
): Promise<Record<string, unknown>[]> {
  const body = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name, arguments: args, _meta: { ...MODERN_ENVELOPE, ...meta } },
  };
  return post(
    url,
    body,
    { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': name },
    signal,
  );
}

function routerTools(mcp: McpRouter): void {
  mcp.tool({
    name: 'add',
    description: 'Adds',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
    handler: ({ a, b }: { a: number; b: number }) => ({
      content: [{ type: 'text', text: String(a + b) }],
      structuredContent: { sum: a + b },
    }),
  });
  mcp.tool({ name: 'fail', description: 'Fails as a tool', handler: () => FAILED });
}

/** The four kinds of upstream, each with `add` (content and structuredContent) and `fail` (an isError result). */
const UPSTREAMS = [
  {
    kind: 'SDK v1 McpServer',
    era: '2025',
    start: (received?: Received[]) =>
      sdkV1CallUpstream((server) => {
        server.registerTool(
          'add',
          { description: 'Adds', inputSchema: { a: z.number(), b: z.number() } },
          async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }),
        );
        server.registerTool('fail', { description: 'Fails as a tool' }, async () => ({
          content: [{ type: 'text', text: 'disk full' }],
          isError: true,
        }));
      }, received),
  },
  {
    kind: 'SDK v2 McpServer',
    era: '2026',
    start: (received?: Received[]) =>
      sdkV2CallUpstream((server) => {
        server.registerTool(
          'add',
          { description: 'Adds', inputSchema: z.object({ a: z.number(), b: z.number() }) },
          async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }),
        );
        server.registerTool('fail', { description: 'Fails as a tool', inputSchema: z.object({}) }, async () => ({
          content: [{ type: 'text', text: 'disk full' }],
          isError: true,
        }));
      }, received),
  },
  {
    kind: 'this router (both eras)',
    era: '2026',
    start: (received?: Received[]) => routerCallUpstream({}, routerTools, received),
  },
  {
    kind: "this router (eras: ['2025'], sessions)",
    era: '2025',
    start: (received?: Received[]) => routerCallUpstream({ eras: ['2025'], sessions: {} }, routerTools, received),
  },
] as const;

describe.each(UPSTREAMS)('a call to a $era upstream ($kind)', ({ era, start }) => {
  it.each([
    { caller: 'SDK v1 client (2025)', connect: v1Client },
    { caller: 'SDK v2 client (2026)', connect: v2Client },
  ])(
    "from the $caller gets the upstream's results untouched (content, structuredContent, isError)",
    async ({ connect }) => {
      const upstream = await start();
      const gateway = await serveGateway({}, (mcp) => [mcp.upstream({ prefix: 'up', url: upstream.url })]);
      expect(gateway.handles[0]!.status().era).toBe(era);
      const client = await connect(gateway.url);
      expect(upstreamPart(await client.callTool({ name: 'up__add', arguments: { a: 2, b: 3 } }))).toEqual(SUM);
      expect(upstreamPart(await client.callTool({ name: 'up__fail', arguments: {} }))).toEqual(FAILED);
    },
  );
});

describe("an upstream's JSON-RPC error reaches the caller verbatim (code, message, data; one SDK prefix, none added)", () => {
  const ERRORS = [
    { code: ErrorCode.InvalidParams, message: 'Bad account', data: { account: 'a-17' } },
    { code: -32042, message: 'Visit the page first', data: { url: 'https://example.com/consent' } },
  ];
  const raising = (mcp: McpRouter): void => {
    for (const [index, { code, message, data }] of ERRORS.entries())
      mcp.tool({
        name: `raise${index}`,
        description: 'Raises',
        handler: () => {
          throw new JsonRpcError(code, message, data);
        },
      });
  };
  // The SDK McpServers (v1 and v2) turn a tool's throw into an isError result; the SDK v2 one's prompt errors are
  // JSON-RPC errors, so its source is a prompt (-32042 is refused there on 2026-07-28, hence another custom code).
  const V2_ERRORS = [ERRORS[0]!, { code: -32050, message: 'Quota spent', data: { resetAt: '2026-12-01' } }];
  const sdkV2Raising = (): Promise<Upstream> =>
    sdkV2CallUpstream((server) => {
      for (const [index, { code, message, data }] of V2_ERRORS.entries())
        server.registerPrompt(`raise${index}`, { description: 'Raises' }, async () => {
          throw new ProtocolError(code, message, data);
        });
    });
  const sources = [
    { kind: 'this router (both eras → 2026)', start: () => routerCallUpstream({}, raising), errors: ERRORS },
    {
      kind: "this router (eras: ['2025'], sessions)",
      start: () => routerCallUpstream({ eras: ['2025'], sessions: {} }, raising),
      errors: ERRORS,
    },
    { kind: 'SDK v2 McpServer (2026), prompts/get', start: sdkV2Raising, errors: V2_ERRORS },
  ];

  it.each(sources)('from $kind to the SDK v1 client', async ({ kind, start, errors }) => {
    const upstream = await start();
    const gateway = await serveGateway({}, (mcp) => [mcp.upstream({ prefix: 'up', url: upstream.url })]);
    const client = await v1Client(gateway.url);
    for (const [index, { code, message, data }] of errors.entries()) {
      const error = await caught(
        kind.includes('prompts/get')
          ? client.getPrompt({ name: `up__raise${index}` })
          : client.callTool({ name: `up__raise${index}`, arguments: {} }),
      );
      expect(error).toBeInstanceOf(McpError);
      // The SDK v1 client prefixes "MCP error <code>: " once itself; the gateway adds nothing.
      expect({ code: error.code, message: error.message, data: error.data }).toEqual({
        code,
        message: `MCP error ${code}: ${message}`,
        data,
      });
    }
  });

  it.each(sources)('from $kind to the SDK v2 client (2026)', async ({ kind, start, errors }) => {
    const upstream = await start();
    const gateway = await serveGateway({}, (mcp) => [mcp.upstream({ prefix: 'up', url: upstream.url })]);
    const client = await v2Client(gateway.url);
    for (const [index, { code, message, data }] of errors.entries()) {
      const error = await caught(
        kind.includes('prompts/get')
          ? client.getPrompt({ name: `up__raise${index}` })
          : client.callTool({ name: `up__raise${index}`, arguments: {} }),
      );
      expect(error).toBeInstanceOf(V2ProtocolError);
      expect({ code: error.code, message: error.message, data: error.data }).toEqual({ code, message, data });
    }
  });
});

describe('transport failures, non-MCP answers and refused credentials → -32603 naming the upstream, never its URL, body or challenge', () => {
  const SECRET = 'upstream-internal-detail-7';
  type Fault = 'none' | '502' | 'html' | '401' | 'down';

  /** This router as an upstream named "billing", answering its tools/calls as `fault` says (lists always work). */
  async function faulty(): Promise<{ upstream: Upstream; set(fault: Fault): void }> {
    let fault: Fault = 'none';
    const upstream = await serve((app) => {
      const mcp = mcpRouter({ name: 'billing', version: '1.0.0', logger: { error: jest.fn(), warn: jest.fn() } });
      routerTools(mcp);
      app.use(
        '/mcp',
        (req, res, next) => {
          if ((req.body as { method?: string } | undefined)?.method !== 'tools/call' || fault === 'none') return next();
          if (fault === '502')
            return void res.status(502).type('html').send(`<html><body>Bad gateway: ${SECRET}</body></html>`);
          if (fault === 'html')
            return void res.status(200).type('html').send(`<html><body>Welcome: ${SECRET}</body></html>`);
          res
            .status(401)
            .set('WWW-Authenticate', `Bearer realm="${SECRET}", error="invalid_token"`)
            .json({ error: 'invalid_token', error_description: SECRET });
        },
        mcp,
      );
    });
    return { upstream, set: (next) => void (fault = next) };
  }

  it.each([
    { fault: '502', phrase: 'failed (HTTP 502)' },
    { fault: 'html', phrase: 'answered HTTP 200 without an MCP message' },
    { fault: '401', phrase: "refused the gateway's credentials (HTTP 401)" },
    { fault: 'down', phrase: 'could not be reached' },
  ] as const)('$fault → "Upstream \\"billing\\" $phrase"', async ({ fault, phrase }) => {
    const { upstream, set } = await faulty();
    const logger = { error: jest.fn(), warn: jest.fn() };
    const gateway = await serveGateway({ logger }, (mcp) => [
      mcp.upstream({ prefix: 'bill', name: 'billing', url: upstream.url }),
    ]);
    const client = await v1Client(gateway.url);
    expect(upstreamPart(await client.callTool({ name: 'bill__add', arguments: { a: 2, b: 3 } }))).toEqual(SUM);
    if (fault === 'down') await stopUpstream(upstream);
    else set(fault);
    const error = await caught(client.callTool({ name: 'bill__add', arguments: { a: 2, b: 3 } }));
    expect(error.code).toBe(ErrorCode.InternalError);
    expect(error.message).toBe(`MCP error -32603: Upstream "billing" ${phrase}`);
    const told = JSON.stringify(error) + error.message;
    for (const leak of [SECRET, upstream.url, `:${upstream.port}`, '127.0.0.1', 'realm', 'Bearer', 'html'])
      expect(told).not.toContain(leak);
    // A refusal of our credentials is the operator's to fix: logged (by name, without the challenge); the rest is the caller's error only.
    const logged = logger.error.mock.calls.map(([error]) => String((error as Error).message));
    expect(logged).toEqual(
      fault === '401'
        ? ["mcpRouter: upstream 'billing' refused the gateway's credentials (HTTP 401); check its 'headers'"]
        : [],
    );
  });
});

describe('timeoutMs', () => {
  it("ends a call the upstream does not answer in time with an error naming the upstream and the limit, and aborts the upstream's handler", async () => {
    let aborted = false;
    const upstream = await routerCallUpstream({}, (mcp) => {
      mcp.tool({
        name: 'slow',
        description: 'Takes 10 s',
        handler: (_args, ctx) =>
          new Promise((resolve) => {
            const timer = setTimeout(() => resolve('late'), 10_000);
            ctx.signal.addEventListener('abort', () => {
              aborted = true;
              handlerSaw.notify();
              clearTimeout(timer);
              resolve('aborted');
            });
          }),
      });
    });
    const gateway = await serveGateway({}, (mcp) => [
      mcp.upstream({ prefix: 'slowpoke', url: upstream.url, timeoutMs: 300 }),
    ]);
    const client = await v1Client(gateway.url);
    const started = Date.now();
    const error = await caught(client.callTool({ name: 'slowpoke__slow', arguments: {} }));
    expect(error.code).toBe(ErrorCode.InternalError);
    expect(error.message).toBe('MCP error -32603: Upstream "slowpoke" did not answer within 300 ms');
    // Far below the tool's 10 s: the gateway's limit ended the call (a generous margin for a loaded machine).
    expect(Date.now() - started).toBeLessThan(5_000);
    await waitFor(() => aborted, handlerSaw);
  });
});

describe("progress: the caller's progressToken gets the upstream tool's progress notifications", () => {
  const counting = [
    {
      kind: 'SDK v1 McpServer (2025)',
      start: () =>
        sdkV1CallUpstream((server) => {
          server.registerTool('count', { description: 'Counts to three' }, async (extra) => {
            const progressToken = extra._meta?.progressToken;
            for (let progress = 1; progress <= 3; progress++)
              if (progressToken !== undefined)
                await extra.sendNotification({
                  method: 'notifications/progress',
                  params: { progressToken, progress, total: 3, message: `step ${progress}` },
                });
            return { content: [{ type: 'text', text: 'counted' }] };
          });
        }),
    },
    {
      kind: 'this router (2026)',
      start: () =>
        routerCallUpstream({}, (mcp) => {
          mcp.tool({
            name: 'count',
            description: 'Counts to three',
            handler: async (_args, ctx) => {
              for (let step = 1; step <= 3; step++) await ctx.progress(step, 3, `step ${step}`);
              return 'counted';
            },
          });
        }),
    },
  ];

  it.each(counting)('from $kind to the SDK v1 client (onprogress)', async ({ start }) => {
    const upstream = await start();
    const gateway = await serveGateway({}, (mcp) => [mcp.upstream({ prefix: 'up', url: upstream.url })]);
    const client = await v1Client(gateway.url);
    const seen: unknown[] = [];
    const result = await client.callTool({ name: 'up__count', arguments: {} }, undefined, {
      onprogress: (progress) => seen.push(progress),
    });
    expect(upstreamPart(result)).toEqual({ content: [{ type: 'text', text: 'counted' }] });
    expect(seen).toEqual([1, 2, 3].map((progress) => ({ progress, total: 3, message: `step ${progress}` })));
  });
});

describe("cancellation and disconnect reach the upstream: its handler's signal aborts", () => {
  /** Upstreams whose `hang` tool waits for its signal, recording when it started and when it was aborted. */
  const hanging = [
    {
      kind: 'SDK v1 McpServer (2025: notifications/cancelled)',
      start: (state: { started: number; aborted: number }) =>
        sdkV1CallUpstream((server) => {
          server.registerTool(
            'hang',
            { description: 'Waits to be cancelled' },
            (extra) =>
              new Promise((resolve) => {
                state.started++;
                handlerSaw.notify();
                extra.signal.addEventListener('abort', () => {
                  state.aborted++;
                  handlerSaw.notify();
                  resolve({ content: [] });
                });
              }),
          );
        }),
    },
    {
      kind: 'this router (2026: the request is aborted)',
      start: (state: { started: number; aborted: number }) =>
        routerCallUpstream({}, (mcp) => {
          mcp.tool({
            name: 'hang',
            description: 'Waits to be cancelled',
            handler: (_args, ctx) =>
              new Promise((resolve) => {
                state.started++;
                handlerSaw.notify();
                ctx.signal.addEventListener('abort', () => {
                  state.aborted++;
                  handlerSaw.notify();
                  resolve('aborted');
                });
              }),
          });
        }),
    },
  ];

  it.each(hanging)('$kind, when the SDK v1 client aborts its call', async ({ start }) => {
    const state = { started: 0, aborted: 0 };
    const upstream = await start(state);
    const gateway = await serveGateway({}, (mcp) => [mcp.upstream({ prefix: 'up', url: upstream.url })]);
    const client = await v1Client(gateway.url);
    const controller = new AbortController();
    const call = client.callTool({ name: 'up__hang', arguments: {} }, undefined, { signal: controller.signal });
    await waitFor(() => state.started === 1, handlerSaw);
    controller.abort('changed my mind');
    await expect(call).rejects.toThrow();
    await waitFor(() => state.aborted === 1, handlerSaw);
  });

  it.each(hanging)('$kind, when the downstream HTTP connection of a 2026 call closes', async ({ start }) => {
    const state = { started: 0, aborted: 0 };
    const upstream = await start(state);
    const gateway = await serveGateway({}, (mcp) => [mcp.upstream({ prefix: 'up', url: upstream.url })]);
    const controller = new AbortController();
    const call = modernCall(gateway.url, 'up__hang', {}, {}, controller.signal);
    await waitFor(() => state.started === 1, handlerSaw);
    controller.abort();
    await expect(call).rejects.toThrow();
    await waitFor(() => state.aborted === 1, handlerSaw);
  });
});

describe('_meta', () => {
  const TRACE = { 'example.com/trace': 'trace-7', progressToken: 'p-1' };
  const CALLER_ENVELOPE = {
    'io.modelcontextprotocol/clientInfo': { name: 'caller', version: '9.9.9' },
    'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
  };

  it("forwards the caller's own keys to a 2026 upstream, whose envelope keys are the gateway's, not the caller's", async () => {
    const received: Received[] = [];
    const upstream = await routerCallUpstream({}, routerTools, received);
    const gateway = await serveGateway({}, (mcp) => [mcp.upstream({ prefix: 'up', url: upstream.url })]);
    const [answer] = await modernCall(gateway.url, 'up__add', { a: 2, b: 3 }, { ...TRACE, ...CALLER_ENVELOPE });
    expect(upstreamPart((answer as { result: Record<string, unknown> }).result)).toEqual(SUM);
    const meta = received.find((request) => request.rpc === 'tools/call')!.meta!;
    expect(meta).toMatchObject(TRACE);
    expect(meta['io.modelcontextprotocol/clientInfo']).toEqual({ name: 'gateway', version: '1.0.0' });
    expect(meta['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28');
    expect(JSON.stringify(meta)).not.toContain('caller');
  });

  it("forwards the caller's own keys to a 2025 upstream, and none of the caller's 2026 envelope", async () => {
    const received: Received[] = [];
    const upstream = await UPSTREAMS[0].start(received);
    const gateway = await serveGateway({}, (mcp) => [mcp.upstream({ prefix: 'up', url: upstream.url })]);
    const [answer] = await modernCall(gateway.url, 'up__add', { a: 2, b: 3 }, { ...TRACE, ...CALLER_ENVELOPE });
    expect(upstreamPart((answer as { result: Record<string, unknown> }).result)).toEqual(SUM);
    expect(received.find((request) => request.rpc === 'tools/call')!.meta).toEqual(TRACE);
  });
});

describe('Mcp-Param-* headers (MCP 2026-07-28, SEP-2243)', () => {
  it.each([
    { caller: 'SDK v1 client (2025)', connect: v1Client },
    { caller: 'SDK v2 client (2026)', connect: v2Client },
  ])(
    "a 2026 upstream's tool with an x-mcp-header argument is callable from the $caller, the header encoded as the upstream checks it",
    async ({ connect }) => {
      const received: Received[] = [];
      const upstream = await routerCallUpstream(
        {},
        (mcp) => {
          mcp.tool({
            name: 'route',
            description: 'Routes by region',
            inputSchema: {
              type: 'object',
              properties: { region: { type: 'string', 'x-mcp-header': 'Region' } },
              required: ['region'],
            },
            handler: ({ region }: { region: string }) => `routed to ${region}`,
          });
        },
        received,
      );
      const gateway = await serveGateway({}, (mcp) => [mcp.upstream({ prefix: 'geo', url: upstream.url })]);
      expect(gateway.handles[0]!.status().era).toBe('2026');
      const client = await connect(gateway.url);
      for (const region of ['us-west1', 'Zürich']) {
        expect(upstreamPart(await client.callTool({ name: 'geo__route', arguments: { region } }))).toEqual({
          content: [{ type: 'text', text: `routed to ${region}` }],
        });
      }
      const headers = received
        .filter((request) => request.rpc === 'tools/call')
        .map((request) => request.headers['mcp-param-region']);
      expect(headers).toEqual(['us-west1', `=?base64?${Buffer.from('Zürich').toString('base64')}?=`]);
    },
  );
});
