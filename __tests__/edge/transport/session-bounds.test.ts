// What a session keeps of its client is bounded by configuration, not by what the client sends: capabilities,
// clientInfo, subscriptions, sessions per principal; and a batch holding initialize gets one answer in every state.

import express, { type Express } from 'express';
import type request from 'supertest';
import { mcpRouter, type McpRouter, type McpRouterOptions, type SessionRecord } from '../../../lib';
import { post, rpc, silentLogger } from '../../helpers/create-app';

const TOKENS = { alice: 'tok-alice-5b1e', bob: 'tok-bob-9c2d' };
const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });
const INIT = (capabilities: unknown = {}, clientInfo: unknown = { name: 'c', version: '1' }): Record<string, unknown> =>
  rpc('initialize', { protocolVersion: '2025-11-25', capabilities, clientInfo }, 'init');

const routers: McpRouter[] = [];
afterEach(async () => {
  await Promise.all(routers.splice(0).map((mcp) => mcp.close()));
});

function makeApp(options: Partial<McpRouterOptions> = {}): {
  app: Express;
  created: SessionRecord[];
  closed: Array<[string, string]>;
} {
  const created: SessionRecord[] = [];
  const closed: Array<[string, string]> = [];
  const mcp = mcpRouter({
    name: 'bounds',
    version: '1.0.0',
    logger: silentLogger(),
    rateLimit: false,
    auth: {
      tokens: [
        { token: TOKENS.alice, subject: 'alice' },
        { token: TOKENS.bob, subject: 'bob' },
      ],
    },
    ...options,
    sessions: {
      onSessionCreated: (record) => created.push(record),
      onSessionClosed: (id, reason) => closed.push([id, reason]),
      ...(options.sessions || {}),
    },
  });
  mcp.resourceTemplate({ uriTemplate: 'notes://{id}', name: 'note', read: (_uri, { id }) => `note ${id}` });
  routers.push(mcp);
  const app = express();
  app.use('/mcp', mcp);
  return { app, created, closed };
}

async function initialize(app: Express, token = TOKENS.alice, body: unknown = INIT()): Promise<string> {
  const response = await post(app, body, bearer(token)).expect(200);
  const id = response.headers['mcp-session-id'];
  if (typeof id !== 'string') throw new Error(`no session: ${response.text}`);
  return id;
}

function call(
  app: Express,
  session: string,
  method: string,
  params?: Record<string, unknown>,
  token = TOKENS.alice,
): request.Test {
  return post(app, rpc(method, params, 7), {
    ...bearer(token),
    'Mcp-Session-Id': session,
    'MCP-Protocol-Version': '2025-11-25',
  });
}

/** Capabilities of the known kinds whose JSON text is `length` characters long. */
function capabilitiesOfLength(length: number): Record<string, unknown> {
  const base = JSON.stringify({ experimental: { pad: { text: '' } } }).length;
  return { experimental: { pad: { text: 'x'.repeat(length - base) } } };
}

describe('initialize: the client data a session keeps', () => {
  it('keeps the capabilities MCP defines and the string fields of clientInfo, and drops the rest', async () => {
    const { app, created } = makeApp();
    const capabilities = {
      roots: { listChanged: true },
      sampling: { tools: {} },
      elicitation: { form: {} },
      bogus: { a: 1 },
      tasks: 'not an object',
    };
    const clientInfo = { name: 'c', version: '1', title: 'T', icons: [{ src: 'x' }], extra: 'y', description: 42 };
    await initialize(app, TOKENS.alice, INIT(capabilities, clientInfo));
    expect(created[0]?.clientCapabilities).toEqual({
      roots: { listChanged: true },
      sampling: { tools: {} },
      elicitation: { form: {} },
    });
    expect(created[0]?.clientInfo).toEqual({ name: 'c', version: '1', title: 'T' });
  });

  it('accepts capabilities of exactly 2,048 characters as JSON', async () => {
    const { app, created } = makeApp();
    const capabilities = capabilitiesOfLength(2048);
    expect(JSON.stringify(capabilities)).toHaveLength(2048);
    await initialize(app, TOKENS.alice, INIT(capabilities));
    expect(created).toHaveLength(1);
  });

  it.each([
    [
      'capabilities one character over the limit',
      INIT(capabilitiesOfLength(2049)),
      /client capabilities are 2049 characters long as JSON; at most 2048/,
    ],
    [
      '3 MB of capabilities',
      INIT({ experimental: { blob: 'x'.repeat(3 * 1024 * 1024) } }),
      /at most 2048 are accepted/,
    ],
    [
      '200,000 capability keys',
      INIT({ sampling: Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`k${i}`, 1])) }),
      /at most 2048/,
    ],
    [
      'a clientInfo.name of 513 characters',
      INIT({}, { name: 'n'.repeat(513), version: '1' }),
      /clientInfo\.name is 513 characters long; at most 512/,
    ],
    [
      'a clientInfo.description of 1 MB',
      INIT({}, { name: 'c', version: '1', description: 'd'.repeat(1 << 20) }),
      /clientInfo\.description/,
    ],
  ])('refuses %s with -32602 and creates no session', async (_name, body, message) => {
    const { app, created } = makeApp();
    const response = await post(app, body, bearer(TOKENS.alice)).expect(200);
    expect(response.headers['mcp-session-id']).toBeUndefined();
    expect(response.body).toMatchObject({
      jsonrpc: '2.0',
      id: 'init',
      error: { code: -32602, message: expect.stringMatching(message) },
    });
    expect(created).toHaveLength(0);
  });
});

describe('resources/subscribe: bounded per session', () => {
  it('takes up to sessions.maxSubscriptions distinct URIs, then refuses one more with -32602', async () => {
    const { app } = makeApp({ sessions: { maxSubscriptions: 3 } });
    const session = await initialize(app);
    for (const uri of ['notes://1', 'notes://2', 'notes://3', 'notes://1']) {
      expect((await call(app, session, 'resources/subscribe', { uri }).expect(200)).body).toMatchObject({ result: {} });
    }
    const refused = await call(app, session, 'resources/subscribe', { uri: 'notes://4' }).expect(200);
    expect(refused.body).toMatchObject({
      id: 7,
      error: {
        code: -32602,
        message: expect.stringMatching(/already holds 3 subscriptions.*sessions\.maxSubscriptions/),
      },
    });
    await call(app, session, 'resources/unsubscribe', { uri: 'notes://2' }).expect(200);
    expect((await call(app, session, 'resources/subscribe', { uri: 'notes://4' }).expect(200)).body).toMatchObject({
      result: {},
    });
  });

  it('defaults to 32 subscriptions', async () => {
    const { app } = makeApp();
    const session = await initialize(app);
    for (let i = 0; i < 32; i++) await call(app, session, 'resources/subscribe', { uri: `notes://${i}` }).expect(200);
    expect((await call(app, session, 'resources/subscribe', { uri: 'notes://32' })).body.error).toMatchObject({
      code: -32602,
    });
  });

  it.each([
    [1024, 'result'],
    [1025, 'error'],
    [3.9 * 1024 * 1024, 'error'],
  ])('a URI of %d characters gets a %s', async (length, outcome) => {
    const { app } = makeApp();
    const session = await initialize(app);
    const uri = `notes://${'a'.repeat(Math.floor(length) - 'notes://'.length)}`;
    const response = await call(app, session, 'resources/subscribe', { uri }).expect(200);
    expect(response.body).toHaveProperty(outcome);
    if (outcome === 'error')
      expect(response.body.error).toMatchObject({
        code: -32602,
        message: expect.stringMatching(/at most 1024 can be subscribed to/),
      });
  });
});

describe('sessions.maxPerPrincipal', () => {
  it("a principal's session past the cap ends that principal's least recently active one, never another principal's", async () => {
    const { app, closed } = makeApp({ sessions: { maxPerPrincipal: 2 } });
    const bobs = await initialize(app, TOKENS.bob);
    const first = await initialize(app);
    const second = await initialize(app);
    // `first` is used again, so `second` is now alice's least recently active session.
    await call(app, first, 'ping').expect(200);
    const third = await initialize(app);
    expect(closed).toEqual([[second, 'evicted']]);
    await call(app, second, 'ping').expect(404);
    for (const live of [first, third]) await call(app, live, 'ping').expect(200);
    await call(app, bobs, 'ping', undefined, TOKENS.bob).expect(200);
  });

  // 1,001 initializes over HTTP take 3–5 s on a loaded 2-core machine: more than jest's default 5 s allows.
  it('defaults to 1,000 sessions per principal', async () => {
    const { app, closed } = makeApp();
    const sessions = [];
    for (let i = 0; i < 1_001; i++) sessions.push(await initialize(app));
    expect(closed).toEqual([[sessions[0], 'evicted']]);
  }, 30_000);

  it('does not apply to anonymous sessions, which the store bounds with sessions.max', async () => {
    const { app, closed } = makeApp({ auth: undefined, sessions: { maxPerPrincipal: 1 } });
    const sessions = [];
    for (let i = 0; i < 3; i++) sessions.push(await initialize(app, ''));
    expect(closed).toEqual([]);
  });

  it('refuses a bad value at boot, naming the option', () => {
    expect(() => mcpRouter({ name: 'x', version: '1', sessions: { maxPerPrincipal: 0 } })).toThrow(
      /^mcpRouter: option 'sessions\.maxPerPrincipal' must be a positive integer, got 0$/,
    );
    expect(() => mcpRouter({ name: 'x', version: '1', sessions: { maxSubscriptions: 1.5 } })).toThrow(
      /^mcpRouter: option 'sessions\.maxSubscriptions' must be a positive integer, got 1\.5$/,
    );
  });
});

describe('initialize inside a batch: one answer whatever the session state (MCP 2025-03-26: MUST NOT be batched)', () => {
  const BATCH = [INIT(), rpc('ping', undefined, 2)];

  it('without a session: 400 -32600', async () => {
    const { app, created } = makeApp();
    const response = await post(app, BATCH, bearer(TOKENS.alice)).expect(400);
    expect(response.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: initialize must not be part of a batch' },
    });
    expect(created).toHaveLength(0);
  });

  it.each(['2025-03-26', '2025-11-25'])('with a %s session: 400 -32600', async (version) => {
    const { app } = makeApp();
    const session = await initialize(
      app,
      TOKENS.alice,
      rpc('initialize', { protocolVersion: version, capabilities: {}, clientInfo: { name: 'c', version: '1' } }),
    );
    const response = await post(app, BATCH, { ...bearer(TOKENS.alice), 'Mcp-Session-Id': session }).expect(400);
    expect(response.body).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('with an unknown session id: 404, answered before the body is read (MCP transports: unknown session → 404)', async () => {
    const { app } = makeApp();
    const parse = jest.spyOn(JSON, 'parse');
    try {
      const big = [INIT(), rpc('tools/call', { name: 'x', arguments: { blob: 'b'.repeat(3 * 1024 * 1024) } }, 2)];
      const response = await post(app, big, { ...bearer(TOKENS.alice), 'Mcp-Session-Id': 'no-such-session' }).expect(
        404,
      );
      expect(response.body).toMatchObject({
        id: null,
        error: { code: -32000, message: expect.stringMatching(/^Session not found/) },
      });
      // Only small texts were parsed (the 404 body, by the test client): never the 3 MB request.
      expect(Math.max(...parse.mock.calls.map(([text]) => String(text).length))).toBeLessThan(4096);
    } finally {
      parse.mockRestore();
    }
  });

  it.each([
    ['an empty batch', []],
    ['a message that is not JSON-RPC', { hello: 'world' }],
  ])('%s without a session: 400 -32600, as with one', async (_name, body) => {
    const { app } = makeApp();
    const session = await initialize(app);
    const without = await post(app, body, bearer(TOKENS.alice)).expect(400);
    const withSession = await post(app, body, { ...bearer(TOKENS.alice), 'Mcp-Session-Id': session }).expect(400);
    expect(without.body.error.code).toBe(-32600);
    expect(withSession.body).toEqual(without.body);
  });
});
