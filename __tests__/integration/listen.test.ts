// subscriptions/listen (MCP 2026-07-28) against a real listening server: ack, stamping, filtering, bounds, hang-up, graceful close, both eras.

import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import express from 'express';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { McpConfigError, mcpRouter, type McpRouter, type McpRouterOptions } from '../../lib';
import { MemoryServerEventBus } from '../../lib/edge/store/server-events';
import { MCP_ACCEPT, notification, rpc, silentLogger } from '../helpers/messages';
import { envelope, MODERN } from '../helpers/modern';
import { listenLocally } from '../helpers/ports';
import { Signal } from '../helpers/events';
import { messageOf, SseReader, type SseEvent } from '../helpers/sse';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (let cleanup = cleanups.pop(); cleanup !== undefined; cleanup = cleanups.pop()) await cleanup();
  jest.restoreAllMocks();
});

/** A router with a tool, a prompt and two resources (unless `setup` says otherwise), served on a real port. */
async function serve(
  options: Partial<McpRouterOptions> = {},
  setup?: (mcp: McpRouter) => void,
): Promise<{ url: string; mcp: McpRouter; closedResponses: () => number; closing: Signal }> {
  const mcp = mcpRouter({ name: 'listen', version: '1.0.0', sessions: false, logger: silentLogger(), ...options });
  if (setup) setup(mcp);
  else {
    mcp.tool({ name: 'first', description: 'The first tool', handler: () => 'first' });
    mcp.prompt({ name: 'greet', description: 'A greeting', get: () => 'hello' });
    for (const uri of ['docs://a', 'docs://b']) mcp.resource({ uri, name: uri, read: () => uri });
  }
  const app = express();
  // Counts the responses closed (ended or hung up); listened to before the router's own close handlers run.
  let closed = 0;
  const closing = new Signal();
  app.use((_req, res, next) => {
    res.once('close', () => {
      closed++;
      closing.notify();
    });
    next();
  });
  app.use('/mcp', mcp);
  const { port, close } = await listenLocally(app);
  cleanups.push(close, () => mcp.close());
  return { url: `http://127.0.0.1:${port}/mcp`, mcp, closedResponses: () => closed, closing };
}

/** POSTs subscriptions/listen with `notifications` as its filter; the response, its body not read yet. */
function listenRequest(
  url: string,
  notifications: unknown,
  id: string | number = 'sub-1',
  headers: Record<string, string> = {},
): Promise<Response> {
  const body = rpc('subscriptions/listen', { notifications, _meta: envelope() }, id);
  const all = {
    'Content-Type': 'application/json',
    Accept: MCP_ACCEPT,
    'MCP-Protocol-Version': MODERN,
    'Mcp-Method': 'subscriptions/listen',
    ...headers,
  };
  return fetch(url, { method: 'POST', headers: all, body: JSON.stringify(body) });
}

/** Opens a listen stream and reads its acknowledgment. */
async function listen(
  url: string,
  notifications: unknown,
  id: string | number = 'sub-1',
  headers: Record<string, string> = {},
): Promise<{ reader: SseReader; ack: Record<string, unknown>; res: Response }> {
  const res = await listenRequest(url, notifications, id, headers);
  expect(res.status).toBe(200);
  const reader = new SseReader(res.body as ReadableStream<Uint8Array>);
  cleanups.push(() => reader.cancel());
  const ack = messageOf((await reader.next()) as SseEvent) as Record<string, unknown>;
  return { reader, ack, res };
}

const next = async (reader: SseReader): Promise<unknown> => messageOf((await reader.next()) as SseEvent);
const stamped = (id: string | number, method: string, params: Record<string, unknown> = {}): unknown => ({
  jsonrpc: '2.0',
  method,
  params: { ...params, _meta: { [SUBSCRIPTION_ID]: id } },
});

describe('subscriptions/listen', () => {
  it('opens an SSE stream whose first message acknowledges the honoured subset, stamped with the request id', async () => {
    const { url } = await serve({}, (mcp) => {
      mcp.tool({ name: 'only', description: 'Tools but no prompts or resources', handler: () => 'x' });
    });
    const all = {
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
      resourceSubscriptions: ['docs://a'],
    };
    const { ack, res } = await listen(url, all, 42);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(ack).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: { [SUBSCRIPTION_ID]: 42 }, notifications: { toolsListChanged: true } },
    });
  });

  it('acknowledges every kind the server offers, and nothing the client left out or set false', async () => {
    const { url } = await serve();
    const { ack } = await listen(url, {
      toolsListChanged: false,
      promptsListChanged: true,
      resourceSubscriptions: ['docs://a', 'docs://a'],
    });
    expect(ack.params).toEqual({
      _meta: { [SUBSCRIPTION_ID]: 'sub-1' },
      notifications: { promptsListChanged: true, resourceSubscriptions: ['docs://a'] },
    });
  });

  it('delivers only the requested kinds, stamped; a tool registered after listen arrives within 100 ms', async () => {
    const { url, mcp } = await serve();
    const { reader } = await listen(url, { toolsListChanged: true });
    mcp.prompt({ name: 'unrequested', description: 'Not for this stream', get: () => 'no' });
    mcp.notifyResourceUpdated('docs://a');
    const started = Date.now();
    const added = mcp.tool({ name: 'late', description: 'Registered after listen', handler: () => 'late' });
    // Had the prompt change or the update gone out, it would be read first.
    expect(await next(reader)).toEqual(stamped('sub-1', 'notifications/tools/list_changed'));
    expect(Date.now() - started).toBeLessThan(100);
    added.remove();
    expect(await next(reader)).toEqual(stamped('sub-1', 'notifications/tools/list_changed'));
  });

  it('sends notifications/resources/updated only for the URIs listed, and resource list changes only when asked', async () => {
    const { url, mcp } = await serve();
    const { reader } = await listen(url, { resourceSubscriptions: ['docs://a'] }, 5);
    const { reader: lists } = await listen(url, { resourcesListChanged: true }, 6);
    mcp.notifyResourceUpdated('docs://b');
    mcp.notifyResourceUpdated('docs://a');
    mcp.resource({ uri: 'docs://c', name: 'c', read: () => 'c' });
    expect(await next(reader)).toEqual(stamped(5, 'notifications/resources/updated', { uri: 'docs://a' }));
    expect(await next(lists)).toEqual(stamped(6, 'notifications/resources/list_changed'));
  });

  it('bounds the streams of one principal (429 with the request id), not those of another, and frees a place on hang-up', async () => {
    const { url, closedResponses, closing } = await serve({
      listen: { maxStreamsPerPrincipal: 2 },
      auth: { tokens: ['alice', 'bob'] },
    });
    const alice = { Authorization: 'Bearer alice' };
    const first = await listen(url, { toolsListChanged: true }, 1, alice);
    await listen(url, { toolsListChanged: true }, 2, alice);
    const refused = await listenRequest(url, { toolsListChanged: true }, 3, alice);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32000, message: expect.stringContaining('listen.maxStreamsPerPrincipal') },
    });
    await listen(url, { toolsListChanged: true }, 4, { Authorization: 'Bearer bob' });
    const closed = closedResponses();
    await first.reader.cancel();
    // The server hears the hang-up a moment later: the place is free once the first stream's response closed.
    await closing.when(() => closedResponses() > closed, "the first stream's close");
    const again = await listenRequest(url, { toolsListChanged: true }, 5, alice);
    cleanups.push(() => again.body?.cancel());
    expect(again.status).toBe(200);
  });

  it('bounds callers without auth by client address', async () => {
    const { url } = await serve({ listen: { maxStreamsPerPrincipal: 1 } });
    await listen(url, { toolsListChanged: true });
    expect((await listenRequest(url, { toolsListChanged: true }, 2)).status).toBe(429);
  });

  it('unsubscribes from the server event bus when the client hangs up', async () => {
    let live = 0;
    const unsubscribed = new Signal();
    const subscribe = MemoryServerEventBus.prototype.subscribe;
    jest.spyOn(MemoryServerEventBus.prototype, 'subscribe').mockImplementation(function (
      this: MemoryServerEventBus,
      listener,
    ) {
      live++;
      const stop = subscribe.call(this, listener);
      let stopped = false;
      return () => {
        if (!stopped) live--;
        stopped = true;
        stop();
        unsubscribed.notify();
      };
    });
    const { url, mcp } = await serve();
    const { reader } = await listen(url, { toolsListChanged: true });
    const { reader: other } = await listen(url, { promptsListChanged: true }, 2);
    expect(live).toBe(2);
    await reader.cancel();
    await unsubscribed.when(() => live === 1, 'one live stream');
    mcp.prompt({ name: 'still', description: 'The other stream still hears', get: () => 'yes' });
    expect(await next(other)).toEqual(stamped(2, 'notifications/prompts/list_changed'));
    await other.cancel();
    await unsubscribed.when(() => live === 0, 'no live stream');
  });

  it('ends every stream gracefully on router close: the completion result, then the end; later listens get 503', async () => {
    const { url, mcp } = await serve();
    const { reader } = await listen(url, { toolsListChanged: true }, 'closing');
    await mcp.close();
    const rest = await reader.rest();
    expect(rest.map(messageOf)).toEqual([
      { jsonrpc: '2.0', id: 'closing', result: { resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: 'closing' } } },
    ]);
    const late = await listenRequest(url, { toolsListChanged: true }, 9);
    expect(late.status).toBe(503);
    expect(await late.json()).toMatchObject({ id: 9, error: { code: -32000 } });
  });

  it('sends keep-alive comments on an idle stream', async () => {
    const { url } = await serve({ keepAliveMs: 20 });
    const res = await listenRequest(url, { toolsListChanged: true });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    cleanups.push(() => reader.cancel().catch(() => undefined));
    let text = '';
    while (!text.includes(': keep-alive')) text += new TextDecoder().decode((await reader.read()).value);
    expect(
      text.startsWith('event: message\ndata: {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged"'),
    ).toBe(true);
  });

  it('reaches 2025 GET streams and 2026 listen streams with the same events', async () => {
    const { url, mcp } = await serve({ sessions: {} });
    const send = (body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
      fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: MCP_ACCEPT, ...headers },
        body: JSON.stringify(body),
      });
    const init = await send(
      rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } }),
    );
    const session = {
      'Mcp-Session-Id': init.headers.get('mcp-session-id') ?? '',
      'MCP-Protocol-Version': '2025-11-25',
    };
    expect((await send(notification('notifications/initialized'), session)).status).toBe(202);
    const get = await fetch(url, { headers: { Accept: 'text/event-stream', ...session } });
    const legacy = new SseReader(get.body as ReadableStream<Uint8Array>);
    cleanups.push(() => legacy.cancel());
    expect((await legacy.next())?.data).toBe(''); // priming
    const { reader } = await listen(url, { toolsListChanged: true });
    mcp.tool({ name: 'both', description: 'Seen by both eras', handler: () => 'both' });
    expect(await next(legacy)).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    expect(await next(reader)).toEqual(stamped('sub-1', 'notifications/tools/list_changed'));
  });
});

describe('the wire of a listen stream', () => {
  it('validates against the official 2026-07-28 schema: ack, stamped notifications, completion', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(
      JSON.parse(readFileSync(path.join(__dirname, '../conformance/schema-2026-07-28.json'), 'utf8')) as object,
      'mcp',
    );
    const valid = (definition: string, value: unknown): unknown => {
      const validate = ajv.getSchema(`mcp#/$defs/${definition}`);
      return validate?.(value) === true ? true : validate?.errors;
    };
    const { url, mcp } = await serve();
    const { reader, ack } = await listen(url, { toolsListChanged: true, resourceSubscriptions: ['docs://a'] }, 11);
    mcp.tool({ name: 'late', description: 'Changes the list', handler: () => 'late' });
    mcp.notifyResourceUpdated('docs://a');
    const changed = await next(reader);
    const updated = await next(reader);
    await mcp.close();
    const [completion] = (await reader.rest()).map(messageOf);
    expect(valid('SubscriptionsAcknowledgedNotification', ack)).toBe(true);
    expect(valid('ToolListChangedNotification', changed)).toBe(true);
    expect(valid('ResourceUpdatedNotification', updated)).toBe(true);
    expect(valid('SubscriptionsListenResultResponse', completion)).toBe(true);
  });
});

describe('subscriptions/listen refusals', () => {
  it('answers 406 with the request id when the client does not accept text/event-stream', async () => {
    const { url } = await serve();
    const res = await listenRequest(url, { toolsListChanged: true }, 8, { Accept: 'application/json' });
    expect(res.status).toBe(406);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: 8,
      error: { code: -32000, message: expect.stringContaining('text/event-stream') },
    });
  });

  it.each([
    ['no filter', undefined, "'notifications' must be an object"],
    ['a filter that is not an object', 'tools', "'notifications' must be an object"],
    ['a flag that is not a boolean', { toolsListChanged: 'yes' }, "'notifications.toolsListChanged' must be a boolean"],
    [
      'URIs that are not strings',
      { resourceSubscriptions: [1] },
      "'notifications.resourceSubscriptions' must be an array",
    ],
    [
      'a URI too long',
      { resourceSubscriptions: ['x'.repeat(1_025)] },
      "'notifications.resourceSubscriptions' must be an array",
    ],
    [
      'more URIs than sessions.maxSubscriptions',
      { resourceSubscriptions: Array.from({ length: 33 }, (_, i) => `docs://${i}`) },
      'at most 32 are allowed',
    ],
  ])('answers %s with -32602 in-band, and opens no stream', async (_label, notifications, message) => {
    const { url } = await serve();
    const res = await listenRequest(url, notifications, 'bad');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: 'bad',
      error: { code: -32602, message: expect.stringContaining(message) },
    });
  });
});

describe('capabilities and the listen option', () => {
  const discover = async (url: string): Promise<Record<string, unknown>> => {
    const body = rpc('server/discover', { _meta: envelope() });
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: MCP_ACCEPT,
        'MCP-Protocol-Version': MODERN,
        'Mcp-Method': 'server/discover',
      },
      body: JSON.stringify(body),
    });
    return ((await res.json()) as { result: { capabilities: Record<string, unknown> } }).result.capabilities;
  };

  it('server/discover declares listChanged and subscribe, served by listen streams', async () => {
    const { url } = await serve();
    expect(await discover(url)).toMatchObject({
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
    });
  });

  it('with listen: false, declares neither, and subscriptions/listen is not found (404 -32601)', async () => {
    const { url } = await serve({ listen: false });
    expect(await discover(url)).toMatchObject({ tools: {}, prompts: {}, resources: {} });
    const res = await listenRequest(url, { toolsListChanged: true }, 3);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ id: 3, error: { code: -32601 } });
  });

  it.each([
    [{ listen: 'yes' }, "'listen'"],
    [{ listen: { maxStreamsPerPrincipal: 0 } }, "'listen.maxStreamsPerPrincipal'"],
    [{ listen: { maxStreams: 0 } }, "'listen.maxStreams'"],
    [{ listen: { maxStream: 4 } }, "'listen.maxStream'. Did you mean 'listen.maxStreams'?"],
  ])('refuses %j at boot, naming the option', (options, named) => {
    expect(() => mcpRouter({ name: 'bad', version: '1', ...(options as Partial<McpRouterOptions>) })).toThrow(
      McpConfigError,
    );
    expect(() => mcpRouter({ name: 'bad', version: '1', ...(options as Partial<McpRouterOptions>) })).toThrow(named);
  });
});
