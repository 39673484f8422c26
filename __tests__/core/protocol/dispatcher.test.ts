import { JsonRpcError } from '../../../lib/core/jsonrpc/errors';
import type { JsonRpcFailure, JsonRpcResponse, JsonRpcSuccess } from '../../../lib/core/jsonrpc/types';
import type { DispatchEnvironment } from '../../../lib/core/protocol/handler-context';
import { createDispatcher, type DispatchOutcome } from '../../../lib/core/protocol/dispatcher';
import type { ServerIdentity } from '../../../lib/core/protocol/methods/lifecycle-methods';
import type { AuthInfo, RequestContext } from '../../../lib/core/registry/request-context';
import { ASSUMED_PROTOCOL_VERSION, type ProtocolVersion } from '../../../lib/core/versions';
import { Registry } from '../../../lib/core/registry/registry';
import { createSchemaValidator } from '../../../lib/core/schema/validator';
import { testEnv } from '../../helpers/context';

const ALL_VERSIONS: ProtocolVersion[] = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

const FULL_SERVER_INFO = {
  name: 'test-server',
  version: '1.2.3',
  title: 'Test Server',
  description: 'A server for tests',
  icons: [{ src: 'https://example.com/icon.png', mimeType: 'image/png' }],
  websiteUrl: 'https://example.com',
};

function setup(options: { pageSize?: number; identity?: ServerIdentity } = {}) {
  const registry = new Registry(createSchemaValidator());
  const logger = { error: jest.fn(), warn: jest.fn() };
  const dispatcher = createDispatcher(registry, {
    identity: options.identity ?? { serverInfo: FULL_SERVER_INFO, instructions: 'Use the tools wisely.' },
    pageSize: options.pageSize ?? 50,
    logger,
    listChanged: false,
    clientRequestTimeoutMs: 1_000,
    maxBatchLength: 100,
    maxSubscriptions: 3,
    eras: ['2025', '2026'],
    cache: { ttlMs: 0, scope: 'public' },
  });
  return { registry, dispatcher, logger };
}

/**
 * The environment of a request under `protocolVersion`. `versionFromHeader` false: the client named no revision,
 * so the one in force is the assumed 2025-03-26 (MCP 2025-06-18 transports), which allows batches.
 */
function env(
  protocolVersion: ProtocolVersion = '2025-11-25',
  versionFromHeader = true,
  extra: Partial<DispatchEnvironment> = {},
): DispatchEnvironment {
  return testEnv(versionFromHeader ? protocolVersion : ASSUMED_PROTOCOL_VERSION, extra);
}

type Dispatcher = ReturnType<typeof setup>['dispatcher'];

/** Sends one request and returns its single response. */
async function send(
  dispatcher: Dispatcher,
  method: string,
  params?: Record<string, unknown>,
  version: ProtocolVersion = '2025-11-25',
  id: string | number = 1,
): Promise<JsonRpcResponse> {
  const outcome = await dispatcher.receive(
    { jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) },
    env(version),
  );
  if (outcome.kind !== 'answered' || Array.isArray(outcome.body))
    throw new Error(`expected one answer, got ${JSON.stringify(outcome)}`);
  expect(outcome.body.jsonrpc).toBe('2.0');
  expect(outcome.body.id).toBe(id);
  return outcome.body;
}

async function result(
  dispatcher: Dispatcher,
  method: string,
  params?: Record<string, unknown>,
  version?: ProtocolVersion,
): Promise<Record<string, unknown>> {
  const response = await send(dispatcher, method, params, version);
  if (!('result' in response)) throw new Error(`expected a result, got ${JSON.stringify(response)}`);
  return response.result;
}

async function error(
  dispatcher: Dispatcher,
  method: string,
  params?: Record<string, unknown>,
  version?: ProtocolVersion,
): Promise<JsonRpcFailure['error']> {
  const response = await send(dispatcher, method, params, version);
  if (!('error' in response)) throw new Error(`expected an error, got ${JSON.stringify(response)}`);
  return response.error;
}

describe('initialize: version negotiation', () => {
  it.each(ALL_VERSIONS.map((v) => [v]))('echoes the supported version %s', async (version) => {
    const { dispatcher } = setup();
    const init = await result(dispatcher, 'initialize', {
      protocolVersion: version,
      capabilities: {},
      clientInfo: { name: 'c', version: '1' },
    });
    expect(init.protocolVersion).toBe(version);
  });

  it.each<[string, unknown]>([
    ['an unknown date', '2099-01-01'],
    ['an old unknown date', '2024-10-07'],
    ['a draft name', 'DRAFT-2026-v1'],
    ['a number', 20251125],
    ['null', null],
    ['an empty string', ''],
  ])('answers %s with the latest version, not an error', async (_label, protocolVersion) => {
    const { dispatcher } = setup();
    expect((await result(dispatcher, 'initialize', { protocolVersion, capabilities: {} })).protocolVersion).toBe(
      '2025-11-25',
    );
  });

  it('accepts an initialize without params', async () => {
    const { dispatcher } = setup();
    const init = await result(dispatcher, 'initialize');
    expect(init).toStrictEqual({
      protocolVersion: '2025-11-25',
      capabilities: { logging: {} },
      serverInfo: FULL_SERVER_INFO,
      instructions: 'Use the tools wisely.',
    });
  });

  it('does not depend on the version of the environment', async () => {
    const { dispatcher } = setup();
    expect(
      (await result(dispatcher, 'initialize', { protocolVersion: '2025-06-18' }, '2024-11-05')).protocolVersion,
    ).toBe('2025-06-18');
  });
});

describe('initialize: serverInfo and instructions per version', () => {
  it.each<[ProtocolVersion, Record<string, unknown>, boolean]>([
    ['2025-11-25', FULL_SERVER_INFO, true],
    ['2025-06-18', { name: 'test-server', version: '1.2.3', title: 'Test Server' }, true],
    ['2025-03-26', { name: 'test-server', version: '1.2.3' }, true],
    ['2024-11-05', { name: 'test-server', version: '1.2.3' }, false],
  ])('%s', async (version, serverInfo, withInstructions) => {
    const { dispatcher } = setup();
    const init = await result(dispatcher, 'initialize', { protocolVersion: version });
    expect(init.serverInfo).toStrictEqual(serverInfo);
    if (withInstructions) expect(init.instructions).toBe('Use the tools wisely.');
    else expect(init).not.toHaveProperty('instructions');
    expect(Object.keys(init).sort()).toEqual(
      withInstructions
        ? ['capabilities', 'instructions', 'protocolVersion', 'serverInfo']
        : ['capabilities', 'protocolVersion', 'serverInfo'],
    );
  });

  it('leaves instructions out when there are none', async () => {
    const { dispatcher } = setup({ identity: { serverInfo: { name: 's', version: '1' }, instructions: undefined } });
    const init = await result(dispatcher, 'initialize', { protocolVersion: '2025-11-25' });
    expect(init).not.toHaveProperty('instructions');
    expect(init.serverInfo).toStrictEqual({ name: 's', version: '1' });
  });

  it('does not change the identity it was given', async () => {
    const serverInfo = Object.freeze({ ...FULL_SERVER_INFO });
    const { dispatcher } = setup({ identity: Object.freeze({ serverInfo, instructions: 'x' }) });
    await result(dispatcher, 'initialize', { protocolVersion: '2024-11-05' });
    expect(serverInfo).toStrictEqual(FULL_SERVER_INFO);
  });
});

describe('initialize: capabilities derived from registrations', () => {
  const capabilities = async (dispatcher: Dispatcher, version: ProtocolVersion = '2025-11-25') =>
    (await result(dispatcher, 'initialize', { protocolVersion: version })).capabilities;

  it('declares only logging when nothing is registered', async () => {
    expect(await capabilities(setup().dispatcher)).toStrictEqual({ logging: {} });
  });

  it('adds each feature once something of its kind is registered, and keeps it after removal', async () => {
    const { dispatcher, registry } = setup();
    const tool = registry.addTool({ name: 't', description: 'd', handler: () => 'ok' });
    expect(await capabilities(dispatcher)).toStrictEqual({ logging: {}, tools: {} });

    const resource = registry.addResource({ uri: 'docs://a', name: 'a', read: () => 'a' });
    expect(await capabilities(dispatcher)).toStrictEqual({ logging: {}, tools: {}, resources: {} });

    const prompt = registry.addPrompt({ name: 'p', get: () => 'p' });
    expect(await capabilities(dispatcher)).toStrictEqual({ logging: {}, tools: {}, resources: {}, prompts: {} });

    const completing = registry.addPrompt({
      name: 'q',
      arguments: [{ name: 'a', complete: () => [] }],
      get: () => 'q',
    });
    const all = { logging: {}, tools: {}, resources: {}, prompts: {}, completions: {} };
    expect(await capabilities(dispatcher)).toStrictEqual(all);

    expect(tool.remove()).toBe(true);
    expect(resource.remove()).toBe(true);
    expect(prompt.remove()).toBe(true);
    expect(completing.remove()).toBe(true);
    expect(await capabilities(dispatcher)).toStrictEqual(all);
  });

  it('a resource template declares resources; one with a completer declares completions', async () => {
    const plain = setup();
    plain.registry.addTemplate({ uriTemplate: 'users://{id}', name: 'u', read: () => 'u' });
    expect(await capabilities(plain.dispatcher)).toStrictEqual({ logging: {}, resources: {} });

    const completing = setup();
    completing.registry.addTemplate({
      uriTemplate: 'users://{id}',
      name: 'u',
      read: () => 'u',
      complete: { id: () => [] },
    });
    expect(await capabilities(completing.dispatcher)).toStrictEqual({ logging: {}, resources: {}, completions: {} });
  });

  it('an extension declared, or declared again with other settings, after an initialize is in the next one', async () => {
    const { dispatcher, registry } = setup();
    expect(await capabilities(dispatcher)).toStrictEqual({ logging: {} });
    registry.declareExtension('io.example/first');
    expect(await capabilities(dispatcher)).toStrictEqual({ logging: {}, extensions: { 'io.example/first': {} } });
    registry.declareExtension('io.example/first', { mode: 'b' });
    expect(await capabilities(dispatcher)).toStrictEqual({
      logging: {},
      extensions: { 'io.example/first': { mode: 'b' } },
    });
  });

  it('a prompt without completers does not declare completions', async () => {
    const { dispatcher, registry } = setup();
    registry.addPrompt({ name: 'p', arguments: [{ name: 'a' }], get: () => 'p' });
    expect(await capabilities(dispatcher)).toStrictEqual({ logging: {}, prompts: {} });
  });

  it.each<[ProtocolVersion, boolean]>([
    ['2025-11-25', true],
    ['2025-06-18', true],
    ['2025-03-26', true],
    ['2024-11-05', false],
  ])('completions is declared on %s: %s', async (version, declared) => {
    const { dispatcher, registry } = setup();
    registry.addPrompt({ name: 'q', arguments: [{ name: 'a', complete: () => [] }], get: () => 'q' });
    const caps = (await capabilities(dispatcher, version)) as Record<string, unknown>;
    expect('completions' in caps).toBe(declared);
    expect(caps.prompts).toStrictEqual({});
  });
});

describe('ping and unknown methods', () => {
  it.each<[Record<string, unknown> | undefined]>([[undefined], [{}], [{ _meta: { x: 1 } }]])(
    'ping (params %j) → {}',
    async (params) => {
      const { dispatcher } = setup();
      expect(await send(dispatcher, 'ping', params, '2025-11-25', 'ping-1')).toStrictEqual({
        jsonrpc: '2.0',
        id: 'ping-1',
        result: {},
      });
    },
  );

  it.each([
    ['tools/lis'],
    ['sampling/createMessage'],
    ['roots/list'],
    ['tasks/list'],
    ['notifications/initialized'],
    ['Ping'],
    ['toString'],
    ['constructor'],
    ['__proto__'],
    ['hasOwnProperty'],
  ])('%s (as a request) → -32601', async (method) => {
    const { dispatcher } = setup();
    expect(await send(dispatcher, method, {}, '2025-11-25', 'u1')).toStrictEqual({
      jsonrpc: '2.0',
      id: 'u1',
      error: { code: -32601, message: `Method not found: ${method}` },
    });
  });

  it.each([
    ['tools/list', {}],
    ['tools/call', { name: 'x' }],
    ['resources/list', {}],
    ['resources/templates/list', {}],
    ['resources/read', { uri: 'docs://a' }],
    ['resources/subscribe', { uri: 'docs://a' }],
    ['resources/unsubscribe', { uri: 'docs://a' }],
    ['prompts/list', {}],
    ['prompts/get', { name: 'p' }],
    ['completion/complete', { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: '' } }],
  ])('%s of a feature never offered → -32601', async (method, params) => {
    const { dispatcher } = setup();
    expect(await error(dispatcher, method, params)).toStrictEqual({
      code: -32601,
      message: `Method not found: ${method}`,
    });
  });

  it('completion/complete → -32601 while prompts exist but none has a completer', async () => {
    const { dispatcher, registry } = setup();
    registry.addPrompt({ name: 'p', arguments: [{ name: 'a' }], get: () => 'p' });
    expect(
      (
        await error(dispatcher, 'completion/complete', {
          ref: { type: 'ref/prompt', name: 'p' },
          argument: { name: 'a', value: '' },
        })
      ).code,
    ).toBe(-32601);
  });
});

describe('tools/list', () => {
  const full = {
    name: 'full',
    title: 'Full',
    description: 'every field',
    inputSchema: { type: 'object', properties: { a: { type: 'string' } } },
    outputSchema: { type: 'object', properties: { b: { type: 'number' } } },
    annotations: { readOnlyHint: true, title: 'Full (annotated)' },
    icons: [{ src: 'https://example.com/t.png' }],
  };

  it.each<[ProtocolVersion, string[]]>([
    ['2025-11-25', ['annotations', 'description', 'icons', 'inputSchema', 'name', 'outputSchema', 'title']],
    ['2025-06-18', ['annotations', 'description', 'inputSchema', 'name', 'outputSchema', 'title']],
    ['2025-03-26', ['annotations', 'description', 'inputSchema', 'name']],
    ['2024-11-05', ['description', 'inputSchema', 'name']],
  ])('on %s lists the fields %j', async (version, fields) => {
    const { dispatcher, registry } = setup();
    registry.addTool({ ...full, handler: () => 'ok' });
    const listed = (await result(dispatcher, 'tools/list', {}, version)).tools as Record<string, unknown>[];
    expect(listed).toHaveLength(1);
    const entry = listed[0] as Record<string, unknown>;
    expect(Object.keys(entry).sort()).toEqual(fields);
    for (const field of fields) expect(entry[field]).toStrictEqual(full[field as keyof typeof full]);
  });

  it('shaping for an old version does not change what newer versions see', async () => {
    const { dispatcher, registry } = setup();
    registry.addTool({ ...full, handler: () => 'ok' });
    await result(dispatcher, 'tools/list', {}, '2024-11-05');
    const listed = (await result(dispatcher, 'tools/list', {}, '2025-11-25')).tools as Record<string, unknown>[];
    expect(listed[0]).toStrictEqual(full);
  });

  it('lists tools in registration order, without nextCursor when all fit', async () => {
    const { dispatcher, registry } = setup();
    for (const name of ['b', 'a', 'c']) registry.addTool({ name, description: name, handler: () => name });
    const list = await result(dispatcher, 'tools/list');
    expect((list.tools as { name: string }[]).map((t) => t.name)).toEqual(['b', 'a', 'c']);
    expect(list).not.toHaveProperty('nextCursor');
  });

  it('a removed tool is no longer listed or callable', async () => {
    const { dispatcher, registry } = setup();
    const registration = registry.addTool({ name: 'gone', description: 'd', handler: () => 'x' });
    registration.remove();
    expect(await result(dispatcher, 'tools/list')).toStrictEqual({ tools: [] });
    expect(await error(dispatcher, 'tools/call', { name: 'gone' })).toStrictEqual({
      code: -32602,
      message: 'Unknown tool: gone',
    });
  });
});

describe('tools/call', () => {
  it('calls a tool and answers its result', async () => {
    const { dispatcher, registry } = setup();
    registry.addTool({
      name: 'add',
      description: 'adds',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
      handler: (args: { a: number; b: number }) => String(args.a + args.b),
    });
    expect(
      await send(dispatcher, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } }, '2025-11-25', 'call-1'),
    ).toStrictEqual({
      jsonrpc: '2.0',
      id: 'call-1',
      result: { content: [{ type: 'text', text: '3' }] },
    });
  });

  it.each<[ProtocolVersion, Record<string, unknown>]>([
    ['2025-11-25', { content: [{ type: 'text', text: '{"sum":3}' }], structuredContent: { sum: 3 } }],
    ['2025-06-18', { content: [{ type: 'text', text: '{"sum":3}' }], structuredContent: { sum: 3 } }],
    ['2025-03-26', { content: [{ type: 'text', text: '{"sum":3}' }] }],
    ['2024-11-05', { content: [{ type: 'text', text: '{"sum":3}' }] }],
  ])('structuredContent on %s', async (version, expected) => {
    const { dispatcher, registry } = setup();
    registry.addTool({
      name: 'sum',
      description: 'd',
      outputSchema: { type: 'object', properties: { sum: { type: 'number' } } },
      handler: () => ({ sum: 3 }),
    });
    expect(await result(dispatcher, 'tools/call', { name: 'sum' }, version)).toStrictEqual(expected);
  });

  // MCP 2025-06-18 brought structuredContent and outputSchema: a wrapped array is { result } from then, text only before.
  const ids = { type: 'array', items: { type: 'integer' } };
  const idsText = { content: [{ type: 'text', text: '[1,2]' }] };
  const idsWrapped = { type: 'object', properties: { result: ids }, required: ['result'] };
  it.each<[ProtocolVersion, unknown, Record<string, unknown>]>([
    ['2025-11-25', idsWrapped, { ...idsText, structuredContent: { result: [1, 2] } }],
    ['2025-06-18', idsWrapped, { ...idsText, structuredContent: { result: [1, 2] } }],
    ['2025-03-26', undefined, idsText],
    ['2024-11-05', undefined, idsText],
  ])(
    'an array outputSchema on %s: listed wrapped and sent as { result } from 2025-06-18, left out before',
    async (version, listedSchema, expected) => {
      const { dispatcher, registry } = setup();
      registry.addTool({ name: 'ids', description: 'd', outputSchema: ids, handler: () => [1, 2] });
      const [listed] = (await result(dispatcher, 'tools/list', {}, version)).tools as Record<string, unknown>[];
      expect(listed?.outputSchema).toStrictEqual(listedSchema);
      expect(await result(dispatcher, 'tools/call', { name: 'ids' }, version)).toStrictEqual(expected);
    },
  );

  const audio = { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' };
  const link = { type: 'resource_link', uri: 'docs://readme', name: 'readme' };
  const text = { type: 'text', text: 'plain' };
  const image = { type: 'image', data: 'iVBORw==', mimeType: 'image/png' };

  it.each<[ProtocolVersion, unknown[]]>([
    ['2025-11-25', [audio, link, text, image]],
    ['2025-06-18', [audio, link, text, image]],
    ['2025-03-26', [audio, { type: 'text', text: 'Resource readme: docs://readme' }, text, image]],
    [
      '2024-11-05',
      [
        { type: 'text', text: '[audio/wav audio omitted: protocol 2024-11-05 cannot carry audio]' },
        { type: 'text', text: 'Resource readme: docs://readme' },
        text,
        image,
      ],
    ],
  ])('content blocks on %s', async (version, content) => {
    const { dispatcher, registry } = setup();
    registry.addTool({
      name: 'media',
      description: 'd',
      handler: () => ({ content: [audio, link, text, image], isError: false }),
    });
    expect(await result(dispatcher, 'tools/call', { name: 'media' }, version)).toStrictEqual({
      content,
      isError: false,
    });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['an unknown tool', { name: 'nope' }, 'Unknown tool: nope'],
    ['a missing name', {}, "Invalid params: 'name' must be a non-empty string"],
    ['a numeric name', { name: 5 }, "Invalid params: 'name' must be a non-empty string"],
    ['arguments as an array', { name: 'echo', arguments: [1] }, "Invalid params: 'arguments' must be an object"],
    ['arguments as a string', { name: 'echo', arguments: 'x' }, "Invalid params: 'arguments' must be an object"],
    ['arguments as null', { name: 'echo', arguments: null }, "Invalid params: 'arguments' must be an object"],
  ])('%s → -32602', async (_label, params, message) => {
    const { dispatcher, registry } = setup();
    registry.addTool({ name: 'echo', description: 'd', inputSchema: { type: 'object' }, handler: () => 'x' });
    expect(await error(dispatcher, 'tools/call', params)).toStrictEqual({ code: -32602, message });
  });

  it.each<[ProtocolVersion, 'result' | 'error']>([
    ['2025-11-25', 'result'],
    ['2025-06-18', 'error'],
    ['2025-03-26', 'error'],
    ['2024-11-05', 'error'],
  ])('invalid arguments on %s → %s', async (version, kind) => {
    const { dispatcher, registry } = setup();
    registry.addTool({
      name: 'add',
      description: 'd',
      inputSchema: { type: 'object', properties: { a: { type: 'number' } } },
      handler: () => 'x',
    });
    const response = await send(dispatcher, 'tools/call', { name: 'add', arguments: { a: 'one' } }, version);
    const message = "Invalid arguments for tool 'add': a: must be number";
    if (kind === 'result') {
      expect(response).toStrictEqual({
        jsonrpc: '2.0',
        id: 1,
        result: { content: [{ type: 'text', text: message }], isError: true },
      });
    } else {
      expect(response).toStrictEqual({ jsonrpc: '2.0', id: 1, error: { code: -32602, message } });
    }
  });

  it('a throwing tool handler is an isError result, not a JSON-RPC error, and is not logged', async () => {
    const { dispatcher, registry, logger } = setup();
    registry.addTool({
      name: 'fail',
      description: 'd',
      handler: () => {
        throw new Error('upstream timeout');
      },
    });
    expect(await result(dispatcher, 'tools/call', { name: 'fail' })).toStrictEqual({
      content: [{ type: 'text', text: 'upstream timeout' }],
      isError: true,
    });
    expect(logger.error).not.toHaveBeenCalled();
  });

  it('a JsonRpcError thrown by a tool handler becomes that error', async () => {
    const { dispatcher, registry } = setup();
    registry.addTool({
      name: 'strict',
      description: 'd',
      handler: () => {
        throw new JsonRpcError(-32602, 'Unknown city', { city: 'Atlantis' });
      },
    });
    expect(await error(dispatcher, 'tools/call', { name: 'strict' })).toStrictEqual({
      code: -32602,
      message: 'Unknown city',
      data: { city: 'Atlantis' },
    });
  });
});

describe('the RequestContext a handler sees', () => {
  it('carries requestId, protocolVersion, signal, sessionId, auth and meta', async () => {
    const { dispatcher, registry } = setup();
    const seen: RequestContext[] = [];
    registry.addTool({
      name: 'ctx',
      description: 'd',
      inputSchema: { type: 'object' },
      handler: (_args: unknown, ctx: RequestContext) => (seen.push(ctx), 'ok'),
    });
    const auth: AuthInfo = { subject: 'user-1', scopes: ['read'] };
    const transportGone = new AbortController();
    const environment = env('2025-06-18', true, { sessionId: 'session-9', auth, signal: transportGone.signal });
    const outcome = await dispatcher.receive(
      {
        jsonrpc: '2.0',
        id: 'req-42',
        method: 'tools/call',
        params: { name: 'ctx', arguments: { a: 1 }, _meta: { progressToken: 'tok-1' } },
      },
      environment,
    );
    expect(outcome.kind).toBe('answered');
    expect(seen).toHaveLength(1);
    const ctx = seen[0] as RequestContext;
    expect(ctx.requestId).toBe('req-42');
    expect(ctx.protocolVersion).toBe('2025-06-18');
    // Each request has its own signal (so it can be cancelled alone), aborted too when the transport gives up.
    expect(ctx.signal).not.toBe(environment.signal);
    expect(ctx.signal.aborted).toBe(false);
    expect(ctx.sessionId).toBe('session-9');
    expect(ctx.auth).toBe(auth);
    expect(ctx.meta).toStrictEqual({ progressToken: 'tok-1' });
  });

  it('aborts the signal of a running handler when the transport gives up, and sends no response', async () => {
    const { dispatcher, registry } = setup();
    const transportGone = new AbortController();
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    registry.addTool({
      name: 'slow',
      description: 'd',
      handler: (_args: unknown, ctx: RequestContext) =>
        new Promise((resolve) => {
          ctx.signal.addEventListener('abort', () => resolve('stopped'));
          started();
        }),
    });
    const outcome = dispatcher.receive(
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'slow' } },
      env('2025-11-25', true, { signal: transportGone.signal }),
    );
    await running;
    transportGone.abort();
    expect(await outcome).toEqual({ kind: 'unanswered' });
  });

  it.each<[string, unknown]>([
    ['no _meta', undefined],
    ['_meta as a string', 'tok'],
    ['_meta as an array', ['tok']],
  ])('meta is undefined with %s; a number id is kept as a number', async (_label, meta) => {
    const { dispatcher, registry } = setup();
    const seen: RequestContext[] = [];
    registry.addTool({
      name: 'ctx',
      description: 'd',
      handler: (_args: unknown, ctx: RequestContext) => (seen.push(ctx), 'ok'),
    });
    await dispatcher.receive(
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'ctx', ...(meta === undefined ? {} : { _meta: meta }) },
      },
      env(),
    );
    expect(seen[0]?.requestId).toBe(7);
    expect(seen[0]?.meta).toBeUndefined();
  });

  it('an aborted signal is visible to the handler', async () => {
    const { dispatcher, registry } = setup();
    const controller = new AbortController();
    controller.abort();
    let aborted: boolean | undefined;
    registry.addTool({
      name: 'ctx',
      description: 'd',
      handler: (_args: unknown, ctx: RequestContext) => ((aborted = ctx.signal.aborted), 'ok'),
    });
    await dispatcher.receive(
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ctx' } },
      env('2025-11-25', true, { signal: controller.signal }),
    );
    expect(aborted).toBe(true);
  });
});

describe('prompts', () => {
  it('prompts/get answers the messages', async () => {
    const { dispatcher, registry } = setup();
    registry.addPrompt({
      name: 'greet',
      description: 'Greets',
      arguments: [{ name: 'who', required: true }],
      get: (args: { who?: string }) => `Hello ${args.who}`,
    });
    expect(await result(dispatcher, 'prompts/get', { name: 'greet', arguments: { who: 'Ada' } })).toStrictEqual({
      description: 'Greets',
      messages: [{ role: 'user', content: { type: 'text', text: 'Hello Ada' } }],
    });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['an unknown prompt', { name: 'nope' }, 'Unknown prompt: nope'],
    ['a missing name', {}, "Invalid params: 'name' must be a non-empty string"],
    ['a missing required argument', { name: 'greet' }, "Missing required argument 'who' for prompt 'greet'"],
    [
      'a non-string argument',
      { name: 'greet', arguments: { who: 1 } },
      "Argument 'who' of prompt 'greet' must be a string",
    ],
  ])('%s → -32602', async (_label, params, message) => {
    const { dispatcher, registry } = setup();
    registry.addPrompt({ name: 'greet', arguments: [{ name: 'who', required: true }], get: () => 'x' });
    expect(await error(dispatcher, 'prompts/get', params)).toStrictEqual({ code: -32602, message });
  });

  it.each<[ProtocolVersion, unknown]>([
    ['2025-11-25', { type: 'audio', data: 'AA==', mimeType: 'audio/wav' }],
    ['2025-03-26', { type: 'audio', data: 'AA==', mimeType: 'audio/wav' }],
    ['2024-11-05', { type: 'text', text: '[audio/wav audio omitted: protocol 2024-11-05 cannot carry audio]' }],
  ])('prompt message content is shaped for %s', async (version, content) => {
    const { dispatcher, registry } = setup();
    registry.addPrompt({
      name: 'sound',
      get: () => [{ role: 'assistant', content: { type: 'audio', data: 'AA==', mimeType: 'audio/wav' } }],
    });
    expect(await result(dispatcher, 'prompts/get', { name: 'sound' }, version)).toStrictEqual({
      messages: [{ role: 'assistant', content }],
    });
  });

  it('a resource_link in a prompt becomes text before 2025-06-18', async () => {
    const { dispatcher, registry } = setup();
    registry.addPrompt({
      name: 'link',
      get: () => [{ role: 'user', content: { type: 'resource_link', uri: 'docs://a', name: 'a' } }],
    });
    expect(await result(dispatcher, 'prompts/get', { name: 'link' }, '2025-03-26')).toStrictEqual({
      messages: [{ role: 'user', content: { type: 'text', text: 'Resource a: docs://a' } }],
    });
    expect(await result(dispatcher, 'prompts/get', { name: 'link' }, '2025-06-18')).toStrictEqual({
      messages: [{ role: 'user', content: { type: 'resource_link', uri: 'docs://a', name: 'a' } }],
    });
  });

  it.each<[ProtocolVersion, string[]]>([
    ['2025-11-25', ['arguments', 'description', 'icons', 'name', 'title']],
    ['2025-06-18', ['arguments', 'description', 'name', 'title']],
    ['2025-03-26', ['arguments', 'description', 'name']],
    ['2024-11-05', ['arguments', 'description', 'name']],
  ])('prompts/list on %s lists %j', async (version, fields) => {
    const { dispatcher, registry } = setup();
    registry.addPrompt({
      name: 'p',
      title: 'P',
      description: 'd',
      icons: [{ src: 'https://example.com/p.png' }],
      arguments: [{ name: 'a', required: true }],
      get: () => 'x',
    });
    const listed = (await result(dispatcher, 'prompts/list', {}, version)).prompts as Record<string, unknown>[];
    expect(Object.keys(listed[0] as object).sort()).toEqual(fields);
    expect((listed[0] as Record<string, unknown>).arguments).toStrictEqual([{ name: 'a', required: true }]);
  });
});

describe('resources', () => {
  function withResources() {
    const context = setup();
    context.registry.addResource({
      uri: 'docs://readme',
      name: 'readme',
      title: 'Read me',
      mimeType: 'text/markdown',
      size: 4,
      icons: [{ src: 'https://example.com/r.png' }],
      read: () => '# Hi',
    });
    context.registry.addTemplate({
      uriTemplate: 'users://{id}/profile',
      name: 'profile',
      title: 'Profile',
      mimeType: 'application/json',
      read: (_uri: string, vars: { id: string }) => JSON.stringify({ id: vars.id }),
    });
    return context;
  }

  it('resources/read of a static resource', async () => {
    const { dispatcher } = withResources();
    expect(await result(dispatcher, 'resources/read', { uri: 'docs://readme' })).toStrictEqual({
      contents: [{ uri: 'docs://readme', mimeType: 'text/markdown', text: '# Hi' }],
    });
  });

  it('resources/read through a template', async () => {
    const { dispatcher } = withResources();
    expect(await result(dispatcher, 'resources/read', { uri: 'users://42/profile' })).toStrictEqual({
      contents: [{ uri: 'users://42/profile', mimeType: 'application/json', text: '{"id":"42"}' }],
    });
  });

  it.each([['docs://missing'], ['users://42'], ['users://42/profile/extra']])(
    'resources/read of an unknown %s → -32002 with data.uri',
    async (uri) => {
      const { dispatcher } = withResources();
      expect(await error(dispatcher, 'resources/read', { uri })).toStrictEqual({
        code: -32002,
        message: 'Resource not found',
        data: { uri },
      });
    },
  );

  it.each<[Record<string, unknown>]>([[{}], [{ uri: '' }], [{ uri: 7 }]])(
    'resources/read with params %j → -32602',
    async (params) => {
      const { dispatcher } = withResources();
      expect(await error(dispatcher, 'resources/read', params)).toStrictEqual({
        code: -32602,
        message: "Invalid params: 'uri' must be a non-empty string",
      });
    },
  );

  it.each<[ProtocolVersion, Record<string, unknown>]>([
    [
      '2025-11-25',
      {
        uri: 'docs://readme',
        name: 'readme',
        title: 'Read me',
        mimeType: 'text/markdown',
        size: 4,
        icons: [{ src: 'https://example.com/r.png' }],
      },
    ],
    ['2025-06-18', { uri: 'docs://readme', name: 'readme', title: 'Read me', mimeType: 'text/markdown', size: 4 }],
    ['2025-03-26', { uri: 'docs://readme', name: 'readme', mimeType: 'text/markdown', size: 4 }],
    ['2024-11-05', { uri: 'docs://readme', name: 'readme', mimeType: 'text/markdown' }],
  ])('resources/list on %s', async (version, entry) => {
    const { dispatcher } = withResources();
    expect(await result(dispatcher, 'resources/list', {}, version)).toStrictEqual({ resources: [entry] });
  });

  it.each<[ProtocolVersion, Record<string, unknown>]>([
    [
      '2025-11-25',
      { uriTemplate: 'users://{id}/profile', name: 'profile', title: 'Profile', mimeType: 'application/json' },
    ],
    ['2024-11-05', { uriTemplate: 'users://{id}/profile', name: 'profile', mimeType: 'application/json' }],
  ])('resources/templates/list on %s', async (version, entry) => {
    const { dispatcher } = withResources();
    expect(await result(dispatcher, 'resources/templates/list', {}, version)).toStrictEqual({
      resourceTemplates: [entry],
    });
  });

  it('resources/templates/list is empty when only static resources exist', async () => {
    const { dispatcher, registry } = setup();
    registry.addResource({ uri: 'docs://a', name: 'a', read: () => 'a' });
    expect(await result(dispatcher, 'resources/templates/list')).toStrictEqual({ resourceTemplates: [] });
  });

  it.each([['resources/subscribe'], ['resources/unsubscribe']])(
    '%s → {} (and -32602 without a uri)',
    async (method) => {
      const { dispatcher } = withResources();
      expect(await result(dispatcher, method, { uri: 'docs://readme' })).toStrictEqual({});
      expect(await error(dispatcher, method, {})).toStrictEqual({
        code: -32602,
        message: "Invalid params: 'uri' must be a non-empty string",
      });
    },
  );
});

describe('completion/complete', () => {
  function withCompleters() {
    const context = setup();
    const languageCompleter = jest.fn((value: string) =>
      ['python', 'perl', 'php', 'rust'].filter((l) => l.startsWith(value)),
    );
    const idCompleter = jest.fn(() => ({ values: ['1', '2'], total: 10, hasMore: true }));
    context.registry.addPrompt({
      name: 'code_review',
      arguments: [{ name: 'language', complete: languageCompleter }, { name: 'style' }],
      get: () => 'x',
    });
    context.registry.addTemplate({
      uriTemplate: 'users://{org}/{id}',
      name: 'user',
      read: () => 'u',
      complete: { id: idCompleter },
    });
    return { ...context, languageCompleter, idCompleter };
  }

  it('completes a prompt argument', async () => {
    const { dispatcher, languageCompleter } = withCompleters();
    expect(
      await result(dispatcher, 'completion/complete', {
        ref: { type: 'ref/prompt', name: 'code_review' },
        argument: { name: 'language', value: 'p' },
      }),
    ).toStrictEqual({ completion: { values: ['python', 'perl', 'php'] } });
    expect(languageCompleter).toHaveBeenCalledWith(
      'p',
      { arguments: {} },
      expect.objectContaining({ requestId: 1, protocolVersion: '2025-11-25' }),
    );
  });

  it('completes a template variable, passing context.arguments (strings only)', async () => {
    const { dispatcher, idCompleter } = withCompleters();
    expect(
      await result(dispatcher, 'completion/complete', {
        ref: { type: 'ref/resource', uri: 'users://{org}/{id}' },
        argument: { name: 'id', value: '' },
        context: { arguments: { org: 'acme', n: 5 } },
      }),
    ).toStrictEqual({ completion: { values: ['1', '2'], total: 10, hasMore: true } });
    expect(idCompleter).toHaveBeenCalledWith(
      '',
      { arguments: { org: 'acme' } },
      expect.objectContaining({ requestId: 1 }),
    );
  });

  it('an argument value that is not a string is completed as ""', async () => {
    const { dispatcher, languageCompleter } = withCompleters();
    await result(dispatcher, 'completion/complete', {
      ref: { type: 'ref/prompt', name: 'code_review' },
      argument: { name: 'language' },
    });
    expect(languageCompleter).toHaveBeenCalledWith('', { arguments: {} }, expect.anything());
  });

  it.each<[string, Record<string, unknown>]>([
    [
      'a prompt argument',
      { ref: { type: 'ref/prompt', name: 'code_review' }, argument: { name: 'style', value: 'x' } },
    ],
    [
      'a template variable',
      { ref: { type: 'ref/resource', uri: 'users://{org}/{id}' }, argument: { name: 'org', value: 'a' } },
    ],
  ])('%s without a completer → empty values', async (_label, params) => {
    const { dispatcher } = withCompleters();
    expect(await result(dispatcher, 'completion/complete', params)).toStrictEqual({ completion: { values: [] } });
  });

  it('caps a completer’s values at 100', async () => {
    const { dispatcher, registry } = setup();
    registry.addPrompt({
      name: 'many',
      arguments: [{ name: 'n', complete: () => Array.from({ length: 150 }, (_, i) => String(i)) }],
      get: () => 'x',
    });
    const { completion } = (await result(dispatcher, 'completion/complete', {
      ref: { type: 'ref/prompt', name: 'many' },
      argument: { name: 'n', value: '' },
    })) as {
      completion: { values: string[]; total: number; hasMore: boolean };
    };
    expect(completion.values).toHaveLength(100);
    expect(completion.total).toBe(150);
    expect(completion.hasMore).toBe(true);
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      'an unknown prompt',
      { ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'language', value: '' } },
      'Unknown prompt: nope',
    ],
    [
      'an unknown template',
      { ref: { type: 'ref/resource', uri: 'nope://{x}' }, argument: { name: 'x', value: '' } },
      'Unknown resource template: nope://{x}',
    ],
    [
      'an unknown prompt argument',
      { ref: { type: 'ref/prompt', name: 'code_review' }, argument: { name: 'nope', value: '' } },
      "Prompt 'code_review' has no argument 'nope'",
    ],
    [
      'an unknown template variable',
      { ref: { type: 'ref/resource', uri: 'users://{org}/{id}' }, argument: { name: 'nope', value: '' } },
      "Resource template 'users://{org}/{id}' has no variable 'nope'",
    ],
    [
      'an unknown ref type',
      { ref: { type: 'ref/tool', name: 'x' }, argument: { name: 'a', value: '' } },
      "Invalid params: 'ref.type' must be 'ref/prompt' or 'ref/resource'",
    ],
    ['a missing ref', { argument: { name: 'a', value: '' } }, "Invalid params: 'ref' and 'argument' are required"],
    [
      'a missing argument',
      { ref: { type: 'ref/prompt', name: 'code_review' } },
      "Invalid params: 'ref' and 'argument' are required",
    ],
    [
      'an argument without a name',
      { ref: { type: 'ref/prompt', name: 'code_review' }, argument: { value: '' } },
      "Invalid params: 'name' must be a non-empty string",
    ],
    [
      'a ref that is not an object',
      { ref: 'ref/prompt', argument: { name: 'a', value: '' } },
      "Invalid params: 'ref' must be an object",
    ],
  ])('%s → -32602', async (_label, params, message) => {
    const { dispatcher } = withCompleters();
    expect(await error(dispatcher, 'completion/complete', params)).toStrictEqual({ code: -32602, message });
  });
});

describe('logging/setLevel', () => {
  it.each([['debug'], ['info'], ['notice'], ['warning'], ['error'], ['critical'], ['alert'], ['emergency']])(
    'accepts %s → {}',
    async (level) => {
      const { dispatcher } = setup();
      expect(await result(dispatcher, 'logging/setLevel', { level })).toStrictEqual({});
    },
  );

  it.each<[unknown]>([['verbose'], ['DEBUG'], ['warn'], [''], [3], [null], [undefined]])(
    'rejects level %p with -32602',
    async (level) => {
      const { dispatcher } = setup();
      expect(await error(dispatcher, 'logging/setLevel', level === undefined ? {} : { level })).toStrictEqual({
        code: -32602,
        message:
          "Invalid params: 'level' must be one of debug, info, notice, warning, error, critical, alert, emergency",
      });
    },
  );
});

describe('pagination (pageSize 2)', () => {
  async function pages(dispatcher: Dispatcher, method: string, key: string): Promise<string[][]> {
    const seen: string[][] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await result(dispatcher, method, cursor === undefined ? {} : { cursor });
      seen.push((page[key] as { name: string }[]).map((item) => item.name));
      if (page.nextCursor === undefined) return seen;
      expect(typeof page.nextCursor).toBe('string');
      cursor = page.nextCursor as string;
      if (seen.length > 10) throw new Error('does not end');
    }
  }

  it('tools/list', async () => {
    const { dispatcher, registry } = setup({ pageSize: 2 });
    for (const name of ['a', 'b', 'c', 'd', 'e']) registry.addTool({ name, description: name, handler: () => name });
    expect(await pages(dispatcher, 'tools/list', 'tools')).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
  });

  it('prompts/list', async () => {
    const { dispatcher, registry } = setup({ pageSize: 2 });
    for (const name of ['a', 'b', 'c', 'd']) registry.addPrompt({ name, get: () => name });
    expect(await pages(dispatcher, 'prompts/list', 'prompts')).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
  });

  it('resources/list and resources/templates/list', async () => {
    const { dispatcher, registry } = setup({ pageSize: 2 });
    for (const name of ['a', 'b', 'c']) registry.addResource({ uri: `docs://${name}`, name, read: () => name });
    for (const name of ['x', 'y', 'z']) registry.addTemplate({ uriTemplate: `${name}://{id}`, name, read: () => name });
    expect(await pages(dispatcher, 'resources/list', 'resources')).toEqual([['a', 'b'], ['c']]);
    expect(await pages(dispatcher, 'resources/templates/list', 'resourceTemplates')).toEqual([['x', 'y'], ['z']]);
  });

  it.each<[string, unknown]>([
    ['garbage', 'nope'],
    ['a number', 3],
    ['null', null],
  ])('a bad cursor (%s) → -32602', async (_label, cursor) => {
    const { dispatcher, registry } = setup({ pageSize: 2 });
    for (const name of ['a', 'b', 'c']) registry.addTool({ name, description: name, handler: () => name });
    expect(await error(dispatcher, 'tools/list', { cursor })).toStrictEqual({
      code: -32602,
      message: 'Invalid cursor: use the nextCursor of a previous tool list',
    });
  });

  it('a tools/list cursor is refused by prompts/list', async () => {
    const { dispatcher, registry } = setup({ pageSize: 1 });
    registry.addTool({ name: 'a', description: 'a', handler: () => 'a' });
    registry.addTool({ name: 'b', description: 'b', handler: () => 'b' });
    registry.addPrompt({ name: 'p', get: () => 'p' });
    registry.addPrompt({ name: 'q', get: () => 'q' });
    const { nextCursor } = await result(dispatcher, 'tools/list');
    expect((await error(dispatcher, 'prompts/list', { cursor: nextCursor })).code).toBe(-32602);
  });
});

describe('batches', () => {
  const ping = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'ping' });
  const note = { jsonrpc: '2.0', method: 'notifications/initialized' };

  // A client that names no revision is served under the assumed 2025-03-26, whatever it later negotiates.
  it.each<[ProtocolVersion, boolean]>([
    ['2025-03-26', true],
    ['2024-11-05', true],
    ['2025-06-18', false],
    ['2025-11-25', false],
  ])('are answered on %s (version from header: %s)', async (version, fromHeader) => {
    const { dispatcher } = setup();
    expect(await dispatcher.receive([ping(1), note, ping('two')], env(version, fromHeader))).toStrictEqual({
      kind: 'answered',
      body: [
        { jsonrpc: '2.0', id: 1, result: {} },
        { jsonrpc: '2.0', id: 'two', result: {} },
      ],
    });
  });

  it.each<[ProtocolVersion]>([['2025-06-18'], ['2025-11-25']])(
    'are rejected on %s named by the client',
    async (version) => {
      const { dispatcher } = setup();
      const outcome = await dispatcher.receive([ping(1)], env(version, true));
      expect(outcome.kind).toBe('rejected');
      if (outcome.kind !== 'rejected') throw new Error('unreachable');
      expect(outcome.error.id).toBeNull();
      expect(outcome.error.error.code).toBe(-32600);
      expect(outcome.error.error.message).toBe(
        `Invalid Request: protocol ${version} does not allow JSON-RPC batches (the last that did is 2025-03-26)`,
      );
    },
  );

  it('an empty batch is rejected with -32600', async () => {
    const { dispatcher } = setup();
    expect(await dispatcher.receive([], env('2025-03-26'))).toStrictEqual({
      kind: 'rejected',
      error: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: an empty batch' } },
    });
  });

  it('a batch containing initialize is rejected as a whole, and nothing in it runs', async () => {
    const { dispatcher, registry } = setup();
    const handler = jest.fn(() => 'x');
    registry.addTool({ name: 't', description: 'd', handler });
    const outcome = await dispatcher.receive(
      [
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't' } },
        { jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '2025-03-26' } },
      ],
      env('2025-03-26'),
    );
    expect(outcome).toStrictEqual({
      kind: 'rejected',
      error: {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request: initialize must not be part of a batch' },
      },
    });
    expect(handler).not.toHaveBeenCalled();
  });

  it('answers a mixed batch item by item, in order, leaving out notifications and responses', async () => {
    const { dispatcher } = setup();
    const outcome = await dispatcher.receive(
      [
        ping(1),
        { jsonrpc: '1.0', id: 2, method: 'ping' },
        note,
        { jsonrpc: '2.0', id: 3, method: 'no/such' },
        42,
        { jsonrpc: '2.0', id: 99, result: {} },
        { jsonrpc: '2.0', id: 'p', method: 'ping', params: [1] },
        ping('last'),
      ],
      env('2025-03-26'),
    );
    expect(outcome).toStrictEqual({
      kind: 'answered',
      body: [
        { jsonrpc: '2.0', id: 1, result: {} },
        { jsonrpc: '2.0', id: 2, error: { code: -32600, message: 'Invalid Request: "jsonrpc" must be exactly "2.0"' } },
        { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found: no/such' } },
        {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: 'Invalid Request: a JSON-RPC message must be a JSON object' },
        },
        {
          jsonrpc: '2.0',
          id: 'p',
          error: { code: -32602, message: 'Invalid params: "params" must be an object (MCP uses named params)' },
        },
        { jsonrpc: '2.0', id: 'last', result: {} },
      ],
    });
  });

  it('keeps the order of the batch even when an earlier request finishes later', async () => {
    const { dispatcher, registry } = setup();
    registry.addTool({
      name: 'slow',
      description: 'd',
      handler: () => new Promise((resolve) => setTimeout(() => resolve('slow'), 20)),
    });
    const outcome = await dispatcher.receive(
      [{ jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'slow' } }, ping('b')],
      env('2025-03-26'),
    );
    expect(outcome.kind === 'answered' && (outcome.body as JsonRpcResponse[]).map((r) => r.id)).toEqual(['a', 'b']);
  });

  it.each<[string, unknown[]]>([
    ['only notifications', [note, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }]],
    [
      'only responses',
      [
        { jsonrpc: '2.0', id: 1, result: {} },
        { jsonrpc: '2.0', id: 2, error: { code: -1, message: 'no' } },
      ],
    ],
    ['notifications and responses', [note, { jsonrpc: '2.0', id: 1, result: {} }]],
  ])('a batch of %s is accepted', async (_label, batch) => {
    const { dispatcher } = setup();
    expect(await dispatcher.receive(batch, env('2025-03-26'))).toStrictEqual({ kind: 'accepted' });
  });
});

describe('single notifications, responses and invalid messages', () => {
  it.each<[string, Record<string, unknown>]>([
    ['notifications/initialized', { jsonrpc: '2.0', method: 'notifications/initialized' }],
    [
      'notifications/cancelled',
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'x', reason: 'bored' } },
    ],
    ['an unknown notification', { jsonrpc: '2.0', method: 'notifications/whatever' }],
    ['a success response', { jsonrpc: '2.0', id: 5, result: { action: 'accept' } }],
    ['an error response', { jsonrpc: '2.0', id: 'e', error: { code: -32601, message: 'nope' } }],
  ])('%s → accepted', async (_label, message) => {
    const { dispatcher } = setup();
    expect(await dispatcher.receive(message, env())).toStrictEqual({ kind: 'accepted' });
    expect(await dispatcher.handle(message as never, env())).toBeNull();
  });

  it('an invalid single message is rejected with its id echoed', async () => {
    const { dispatcher } = setup();
    expect(await dispatcher.receive({ jsonrpc: '2.0', id: 'x1', method: 7 }, env())).toStrictEqual({
      kind: 'rejected',
      error: {
        jsonrpc: '2.0',
        id: 'x1',
        error: { code: -32600, message: 'Invalid Request: "method" must be a non-empty string' },
      },
    });
  });

  it.each<[unknown]>([[null], ['ping'], [12]])('a non-object body %p is rejected with id null', async (body) => {
    const { dispatcher } = setup();
    const outcome: DispatchOutcome = await dispatcher.receive(body, env());
    expect(outcome).toStrictEqual({
      kind: 'rejected',
      error: {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request: a JSON-RPC message must be a JSON object' },
      },
    });
  });

  it('a single request is answered with one object, not an array', async () => {
    const { dispatcher } = setup();
    const outcome = await dispatcher.receive({ jsonrpc: '2.0', id: 0, method: 'ping' }, env());
    expect(outcome).toStrictEqual({ kind: 'answered', body: { jsonrpc: '2.0', id: 0, result: {} } });
  });
});

describe('handler bugs', () => {
  it('a prompt get() that throws a plain Error → -32603 "Internal error", no leak, logged', async () => {
    const { dispatcher, registry, logger } = setup();
    const bug = new Error('db password is hunter2');
    registry.addPrompt({
      name: 'broken',
      get: () => {
        throw bug;
      },
    });
    const response = await send(dispatcher, 'prompts/get', { name: 'broken' }, '2025-11-25', 'b1');
    expect(response).toStrictEqual({ jsonrpc: '2.0', id: 'b1', error: { code: -32603, message: 'Internal error' } });
    expect(JSON.stringify(response)).not.toContain('hunter2');
    expect(JSON.stringify(response)).not.toContain('.ts');
    expect(logger.error).toHaveBeenCalledTimes(1);
    expect(logger.error).toHaveBeenCalledWith(bug, 'mcpRouter: prompts/get failed');
    expect(logger.warn).not.toHaveBeenCalled();
  });

  it('a resource read() returning nonsense → -32603, logged', async () => {
    const { dispatcher, registry, logger } = setup();
    registry.addResource({ uri: 'docs://bad', name: 'bad', read: () => 42 as unknown as string });
    expect(await error(dispatcher, 'resources/read', { uri: 'docs://bad' })).toStrictEqual({
      code: -32603,
      message: 'Internal error',
    });
    expect(logger.error).toHaveBeenCalledTimes(1);
    expect(logger.error).toHaveBeenCalledWith(expect.any(TypeError), 'mcpRouter: resources/read failed');
  });

  it('a completer that rejects with a non-Error value → -32603, logged', async () => {
    const { dispatcher, registry, logger } = setup();
    registry.addPrompt({
      name: 'p',
      arguments: [{ name: 'a', complete: () => Promise.reject('secret detail') }],
      get: () => 'x',
    });
    const err = await error(dispatcher, 'completion/complete', {
      ref: { type: 'ref/prompt', name: 'p' },
      argument: { name: 'a', value: '' },
    });
    expect(err).toStrictEqual({ code: -32603, message: 'Internal error' });
    expect(logger.error).toHaveBeenCalledWith('secret detail', 'mcpRouter: completion/complete failed');
  });

  it('a JsonRpcError thrown by a prompt is passed on, not logged', async () => {
    const { dispatcher, registry, logger } = setup();
    registry.addPrompt({
      name: 'picky',
      get: () => {
        throw new JsonRpcError(-32602, 'Unsupported language', { language: 'cobol' });
      },
    });
    expect(await error(dispatcher, 'prompts/get', { name: 'picky' })).toStrictEqual({
      code: -32602,
      message: 'Unsupported language',
      data: { language: 'cobol' },
    });
    expect(logger.error).not.toHaveBeenCalled();
  });

  it('one failing request in a batch does not affect the others', async () => {
    const { dispatcher, registry } = setup();
    registry.addPrompt({
      name: 'broken',
      get: () => {
        throw new Error('bug');
      },
    });
    const outcome = await dispatcher.receive(
      [
        { jsonrpc: '2.0', id: 1, method: 'prompts/get', params: { name: 'broken' } },
        { jsonrpc: '2.0', id: 2, method: 'ping' },
      ],
      env('2025-03-26'),
    );
    expect(outcome).toStrictEqual({
      kind: 'answered',
      body: [
        { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } },
        { jsonrpc: '2.0', id: 2, result: {} } as JsonRpcSuccess,
      ],
    });
  });
});
