// mcpRouter streaming and session options: config errors at boot, resolved defaults, and the caller's object left untouched.

import express from 'express';
import request from 'supertest';
import {
  McpConfigError,
  MemoryEventStore,
  MemoryMessageBus,
  MemorySessionStore,
  mcpRouter,
  type McpRouter,
  type McpRouterOptions,
} from '../lib';
import {
  DEFAULT_CLIENT_REQUEST_TIMEOUT_MS,
  DEFAULT_KEEP_ALIVE_MS,
  DEFAULT_RETRY_MS,
  DEFAULT_STREAM_BUFFER_LIMIT,
} from '../lib/options';
import { resolveOptions } from '../lib/resolved-config';
import {
  DEFAULT_MAX_PENDING_REQUESTS,
  DEFAULT_MAX_SESSIONS_PER_PRINCIPAL,
  DEFAULT_MAX_STREAMS,
  DEFAULT_MAX_SUBSCRIPTIONS,
} from '../lib/edge/sessions/session-options';
import { createApp, post, rpc, silentLogger } from './helpers/create-app';

const BASE = { name: 'test', version: '1.0.0' };
const INIT_PARAMS = {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'client', version: '0.0.1' },
};

/** Routers that keep sessions are closed after each test. */
const routers: McpRouter[] = [];
afterEach(async () => {
  await Promise.all(routers.splice(0).map((mcp) => mcp.close()));
});

const aStore = (): MemorySessionStore => new MemorySessionStore();
/** An object with only some of SessionStore's methods. */
const halfStore = { get: async () => undefined, set: async () => undefined };

describe('mcpRouter streaming options: config errors', () => {
  it.each<[string, string, Record<string, unknown>, RegExp]>([
    [
      "responseMode 'stream'",
      'ERR_MCP_INVALID_OPTION',
      { responseMode: 'stream' },
      /^mcpRouter: option 'responseMode' must be 'auto', 'sse' or 'json', got "stream"$/,
    ],
    [
      "responseMode 'SSE'",
      'ERR_MCP_INVALID_OPTION',
      { responseMode: 'SSE' },
      /^mcpRouter: option 'responseMode' must be 'auto', 'sse' or 'json', got "SSE"$/,
    ],
    [
      'responseMode null',
      'ERR_MCP_INVALID_OPTION',
      { responseMode: null },
      /^mcpRouter: option 'responseMode' must be .*, got null$/,
    ],
    [
      'keepAliveMs 0',
      'ERR_MCP_INVALID_OPTION',
      { keepAliveMs: 0 },
      /^mcpRouter: option 'keepAliveMs' must be a positive number of milliseconds or false, got 0$/,
    ],
    [
      'keepAliveMs -1',
      'ERR_MCP_INVALID_OPTION',
      { keepAliveMs: -1 },
      /^mcpRouter: option 'keepAliveMs' must be a positive number of milliseconds or false, got -1$/,
    ],
    [
      "keepAliveMs 'x'",
      'ERR_MCP_INVALID_OPTION',
      { keepAliveMs: 'x' },
      /^mcpRouter: option 'keepAliveMs' must be a positive number of milliseconds or false, got "x"$/,
    ],
    [
      'keepAliveMs true',
      'ERR_MCP_INVALID_OPTION',
      { keepAliveMs: true },
      /^mcpRouter: option 'keepAliveMs' must be .*, got true$/,
    ],
    [
      'keepAliveMs 1.5',
      'ERR_MCP_INVALID_OPTION',
      { keepAliveMs: 1.5 },
      /^mcpRouter: option 'keepAliveMs' must be .*, got 1\.5$/,
    ],
    [
      'keepAliveMs Infinity',
      'ERR_MCP_INVALID_OPTION',
      { keepAliveMs: Infinity },
      /^mcpRouter: option 'keepAliveMs' must be/,
    ],
    [
      'retryMs 0',
      'ERR_MCP_INVALID_OPTION',
      { retryMs: 0 },
      /^mcpRouter: option 'retryMs' must be a positive number of milliseconds, got 0$/,
    ],
    [
      'retryMs -5',
      'ERR_MCP_INVALID_OPTION',
      { retryMs: -5 },
      /^mcpRouter: option 'retryMs' must be a positive number of milliseconds, got -5$/,
    ],
    [
      "retryMs '1000'",
      'ERR_MCP_INVALID_OPTION',
      { retryMs: '1000' },
      /^mcpRouter: option 'retryMs' must be .*, got "1000"$/,
    ],
    [
      'retryMs false',
      'ERR_MCP_INVALID_OPTION',
      { retryMs: false },
      /^mcpRouter: option 'retryMs' must be .*, got false$/,
    ],
    [
      'streamBufferLimit 0',
      'ERR_MCP_INVALID_OPTION',
      { streamBufferLimit: 0 },
      /^mcpRouter: option 'streamBufferLimit' must be a positive number of bytes or text like '4mb', got 0$/,
    ],
    [
      "streamBufferLimit 'lots'",
      'ERR_MCP_INVALID_OPTION',
      { streamBufferLimit: 'lots' },
      /^mcpRouter: option 'streamBufferLimit' must be .*, got "lots"$/,
    ],
    [
      'streamBufferLimit false',
      'ERR_MCP_INVALID_OPTION',
      { streamBufferLimit: false },
      /^mcpRouter: option 'streamBufferLimit' must be .*, got false$/,
    ],
    [
      'streamBufferLimt (misspelt)',
      'ERR_MCP_UNKNOWN_OPTION',
      { streamBufferLimt: 1024 },
      /^mcpRouter: unknown option 'streamBufferLimt'\. Did you mean 'streamBufferLimit'\?$/,
    ],
    [
      'listen.maxStreams 1.5',
      'ERR_MCP_INVALID_OPTION',
      { listen: { maxStreams: 1.5 } },
      /^mcpRouter: option 'listen\.maxStreams' must be a positive integer, got 1\.5$/,
    ],
    [
      'clientRequestTimeoutMs 0',
      'ERR_MCP_INVALID_OPTION',
      { clientRequestTimeoutMs: 0 },
      /^mcpRouter: option 'clientRequestTimeoutMs' must be a positive number of milliseconds, got 0$/,
    ],
    [
      'clientRequestTimeoutMs NaN',
      'ERR_MCP_INVALID_OPTION',
      { clientRequestTimeoutMs: NaN },
      /^mcpRouter: option 'clientRequestTimeoutMs' must be/,
    ],
    [
      'clientRequestTimeoutMs 2.5',
      'ERR_MCP_INVALID_OPTION',
      { clientRequestTimeoutMs: 2.5 },
      /^mcpRouter: option 'clientRequestTimeoutMs' must be .*, got 2\.5$/,
    ],
    [
      "sessions 'yes'",
      'ERR_MCP_INVALID_OPTION',
      { sessions: 'yes' },
      /^mcpRouter: option 'sessions' must be an object of session options, or false, got "yes"$/,
    ],
    [
      'sessions true',
      'ERR_MCP_INVALID_OPTION',
      { sessions: true },
      /^mcpRouter: option 'sessions' must be .*, got true$/,
    ],
    [
      'sessions null',
      'ERR_MCP_INVALID_OPTION',
      { sessions: null },
      /^mcpRouter: option 'sessions' must be .*, got null$/,
    ],
    [
      'sessions.idleTTL (misspelt)',
      'ERR_MCP_UNKNOWN_OPTION',
      { sessions: { idleTTL: 1000 } },
      /^mcpRouter: unknown option 'sessions\.idleTTL'/,
    ],
    [
      'sessions.ttl (unknown)',
      'ERR_MCP_UNKNOWN_OPTION',
      { sessions: { ttl: 1000 } },
      /^mcpRouter: unknown option 'sessions\.ttl'/,
    ],
    [
      'sessions.idleTtlMs 0',
      'ERR_MCP_INVALID_OPTION',
      { sessions: { idleTtlMs: 0 } },
      /^mcpRouter: option 'sessions\.idleTtlMs' must be a positive number of milliseconds, got 0$/,
    ],
    [
      "sessions.idleTtlMs '1000'",
      'ERR_MCP_INVALID_OPTION',
      { sessions: { idleTtlMs: '1000' } },
      /^mcpRouter: option 'sessions\.idleTtlMs' must be .*, got "1000"$/,
    ],
    [
      'sessions.max 1.5',
      'ERR_MCP_INVALID_OPTION',
      { sessions: { max: 1.5 } },
      /^mcpRouter: option 'sessions\.max' must be a positive integer, got 1\.5$/,
    ],
    [
      'sessions.max 0',
      'ERR_MCP_INVALID_OPTION',
      { sessions: { max: 0 } },
      /^mcpRouter: option 'sessions\.max' must be a positive integer, got 0$/,
    ],
    [
      "sessions.allowDelete 'no'",
      'ERR_MCP_INVALID_OPTION',
      { sessions: { allowDelete: 'no' } },
      /^mcpRouter: option 'sessions\.allowDelete' must be true or false, got "no"$/,
    ],
    [
      'sessions.allowDelete 0',
      'ERR_MCP_INVALID_OPTION',
      { sessions: { allowDelete: 0 } },
      /^mcpRouter: option 'sessions\.allowDelete' must be true or false, got 0$/,
    ],
    [
      'sessions.store {}',
      'ERR_MCP_INVALID_OPTION',
      { sessions: { store: {} } },
      /^mcpRouter: option 'sessions\.store' must be a SessionStore/,
    ],
    [
      'sessions.store missing methods',
      'ERR_MCP_INVALID_OPTION',
      { sessions: { store: halfStore } },
      /^mcpRouter: option 'sessions\.store' must be a SessionStore/,
    ],
    [
      'sessions.store a function',
      'ERR_MCP_INVALID_OPTION',
      { sessions: { store: () => undefined } },
      /^mcpRouter: option 'sessions\.store' must be a SessionStore/,
    ],
    [
      'sessions.store null',
      'ERR_MCP_INVALID_OPTION',
      { sessions: { store: null } },
      /^mcpRouter: option 'sessions\.store' must be a SessionStore/,
    ],
    [
      'sessions.eventStore {}',
      'ERR_MCP_INVALID_OPTION',
      { sessions: { eventStore: {} } },
      /^mcpRouter: option 'sessions\.eventStore' must be an EventStore or false/,
    ],
    [
      'sessions.eventStore true',
      'ERR_MCP_INVALID_OPTION',
      { sessions: { eventStore: true } },
      /^mcpRouter: option 'sessions\.eventStore' must be an EventStore or false/,
    ],
    [
      'sessions.eventStore without deleteSession',
      'ERR_MCP_INVALID_OPTION',
      { sessions: { eventStore: { append: async () => 'x', replayAfter: async () => undefined } } },
      /^mcpRouter: option 'sessions\.eventStore'/,
    ],
    [
      'sessions.bus {}',
      'ERR_MCP_INVALID_OPTION',
      { sessions: { bus: {} } },
      /^mcpRouter: option 'sessions\.bus' must be a MessageBus/,
    ],
    [
      'sessions.bus without subscribe',
      'ERR_MCP_INVALID_OPTION',
      { sessions: { bus: { publish: async () => undefined } } },
      /^mcpRouter: option 'sessions\.bus' must be a MessageBus/,
    ],
    [
      "sessions.onSessionCreated 'log'",
      'ERR_MCP_INVALID_OPTION',
      { sessions: { onSessionCreated: 'log' } },
      /^mcpRouter: option 'sessions\.onSessionCreated' must be a function, got /,
    ],
    [
      'sessions.onSessionCreated {}',
      'ERR_MCP_INVALID_OPTION',
      { sessions: { onSessionCreated: {} } },
      /^mcpRouter: option 'sessions\.onSessionCreated' must be a function, got /,
    ],
    [
      'sessions.onSessionClosed true',
      'ERR_MCP_INVALID_OPTION',
      { sessions: { onSessionClosed: true } },
      /^mcpRouter: option 'sessions\.onSessionClosed' must be a function, got /,
    ],
    [
      'sessions.onSessionClosed null',
      'ERR_MCP_INVALID_OPTION',
      { sessions: { onSessionClosed: null } },
      /^mcpRouter: option 'sessions\.onSessionClosed' must be a function/,
    ],
  ])('%s → %s', (_label, code, extra, message) => {
    let thrown: unknown;
    try {
      mcpRouter({ ...BASE, ...extra } as unknown as McpRouterOptions);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(McpConfigError);
    expect(thrown).toMatchObject({ name: 'McpConfigError', code });
    expect((thrown as Error).message).toMatch(message);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['idleTtlMs', { idleTtlMs: 1000 }, 'sessions.idleTtlMs'],
    ['max', { max: 10 }, 'sessions.max'],
  ])('sessions.store together with %s → ERR_MCP_INVALID_OPTION naming both options', (_label, extra, option) => {
    let thrown: unknown;
    try {
      mcpRouter({ ...BASE, sessions: { store: aStore(), ...extra } });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(McpConfigError);
    expect(thrown).toMatchObject({ code: 'ERR_MCP_INVALID_OPTION' });
    const text = (thrown as Error).message;
    expect(text).toMatch(/^mcpRouter: /);
    expect(text).toContain("'sessions.store'");
    expect(text).toContain(`'${option}'`);
  });

  it('accepts every valid value, and undefined as absent', () => {
    const valid: Array<Partial<McpRouterOptions>> = [
      { responseMode: 'auto' },
      { responseMode: 'sse' },
      { responseMode: 'json' },
      { keepAliveMs: false },
      { keepAliveMs: 1 },
      { retryMs: 1 },
      { streamBufferLimit: 1 },
      { streamBufferLimit: '64kb' },
      { listen: { maxStreams: 1, maxStreamsPerPrincipal: 1 } },
      { clientRequestTimeoutMs: 1 },
      { sessions: false },
      { sessions: {} },
      { sessions: undefined },
      { sessions: { idleTtlMs: 1, max: 1, allowDelete: false } },
      { sessions: { store: aStore(), eventStore: new MemoryEventStore(), bus: new MemoryMessageBus() } },
      { sessions: { eventStore: false } },
      { sessions: { onSessionCreated: () => undefined, onSessionClosed: () => undefined } },
      {
        responseMode: undefined,
        keepAliveMs: undefined,
        retryMs: undefined,
        streamBufferLimit: undefined,
        clientRequestTimeoutMs: undefined,
        sessions: {
          idleTtlMs: undefined,
          max: undefined,
          allowDelete: undefined,
          store: undefined,
          eventStore: undefined,
          bus: undefined,
          onSessionCreated: undefined,
          onSessionClosed: undefined,
        },
      },
    ];
    for (const extra of valid) {
      expect(() => routers.push(mcpRouter({ ...BASE, ...extra }))).not.toThrow();
    }
  });
});

describe('mcpRouter streaming options: defaults', () => {
  it('are these values', () => {
    expect(DEFAULT_KEEP_ALIVE_MS).toBe(15_000);
    expect(DEFAULT_RETRY_MS).toBe(1_000);
    expect(DEFAULT_CLIENT_REQUEST_TIMEOUT_MS).toBe(60_000);
    expect(DEFAULT_STREAM_BUFFER_LIMIT).toBe(1024 * 1024);
  });

  it('resolves them when nothing is given: auto replies, sessions on, 15 s keep-alives, 1 s retry, 60 s client requests', () => {
    const config = resolveOptions({ ...BASE });
    expect(config).toMatchObject({
      responseMode: 'auto',
      keepAliveMs: DEFAULT_KEEP_ALIVE_MS,
      retryMs: DEFAULT_RETRY_MS,
      clientRequestTimeoutMs: DEFAULT_CLIENT_REQUEST_TIMEOUT_MS,
      maxSubscriptions: DEFAULT_MAX_SUBSCRIPTIONS,
      streamBufferLimit: DEFAULT_STREAM_BUFFER_LIMIT,
      listen: { maxStreamsPerPrincipal: 16, maxStreams: 10_000 },
    });
    // Every session setting filled in, the in-memory stores included: nothing downstream defaults again.
    expect(config.sessions).toEqual({
      allowDelete: true,
      maxStreams: DEFAULT_MAX_STREAMS,
      maxPendingRequests: DEFAULT_MAX_PENDING_REQUESTS,
      maxPerPrincipal: DEFAULT_MAX_SESSIONS_PER_PRINCIPAL,
      store: expect.any(MemorySessionStore),
      events: expect.any(MemoryEventStore),
      bus: expect.any(MemoryMessageBus),
    });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.sessions)).toBe(true);
  });

  it('keeps keepAliveMs: false (no keep-alives) and sessions: false (stateless)', () => {
    const config = resolveOptions({ ...BASE, keepAliveMs: false, sessions: false });
    expect(config.keepAliveMs).toBe(false);
    expect(config.sessions).toBeUndefined();
  });

  it('keeps what was given', async () => {
    const onSessionClosed = (): void => undefined;
    const sessions = {
      max: 3,
      maxStreams: 4,
      maxPendingRequests: 5,
      maxSubscriptions: 6,
      maxPerPrincipal: 7,
      allowDelete: false,
      eventStore: false,
      onSessionClosed,
    } as const;
    const config = resolveOptions({
      ...BASE,
      responseMode: 'sse',
      keepAliveMs: 5,
      retryMs: 6,
      clientRequestTimeoutMs: 7,
      sessions,
    });
    expect(config).toMatchObject({
      responseMode: 'sse',
      keepAliveMs: 5,
      retryMs: 6,
      clientRequestTimeoutMs: 7,
      maxSubscriptions: 6,
    });
    expect(config.sessions).toEqual({
      allowDelete: false,
      maxStreams: 4,
      maxPendingRequests: 5,
      maxPerPrincipal: 7,
      onSessionClosed,
      store: expect.any(MemorySessionStore),
      events: undefined,
      bus: expect.any(MemoryMessageBus),
    });
    // `max` configures the default store: a fourth session evicts the first.
    const store = config.sessions?.store as MemorySessionStore;
    for (const id of ['a', 'b', 'c', 'd']) {
      await store.set({
        id,
        protocolVersion: '2025-11-25',
        clientCapabilities: {},
        clientInfo: undefined,
        logLevel: undefined,
        subscriptions: [],
        createdAt: Date.now(),
      });
    }
    expect(store.size).toBe(3);
    expect(await store.get('a')).toBeUndefined();
    await store.close();
  });

  it('keeps sessions by default over HTTP: initialize answers with an Mcp-Session-Id', async () => {
    const mcp = mcpRouter({ ...BASE, logger: silentLogger() });
    routers.push(mcp);
    const app = express();
    app.use('/mcp', mcp);
    const res = await post(app, rpc('initialize', INIT_PARAMS));
    expect(res.status).toBe(200);
    expect(res.headers['mcp-session-id']).toEqual(expect.any(String));
  });
});

describe('mcpRouter streaming options: the caller’s object', () => {
  it('is never written to: frozen options, frozen session options and frozen stores work', async () => {
    const closed: string[] = [];
    const sessions = Object.freeze({
      allowDelete: false,
      idleTtlMs: 60_000,
      max: 5,
      eventStore: false as const,
      onSessionCreated: () => undefined,
      onSessionClosed: (id: string) => void closed.push(id),
    });
    const options = Object.freeze({
      ...BASE,
      responseMode: 'json' as const,
      keepAliveMs: false as const,
      retryMs: 500,
      clientRequestTimeoutMs: 1000,
      sessions,
    });
    const before = JSON.stringify(options);
    const keysBefore = [Object.keys(options), Object.keys(sessions)];

    const app = createApp(options, (mcp) => routers.push(mcp));
    const init = await post(app, rpc('initialize', INIT_PARAMS));
    expect(init.status).toBe(200);
    const id = init.headers['mcp-session-id'] as string;
    expect(id).toEqual(expect.any(String));
    // allowDelete: false took effect.
    expect((await request(app).delete('/mcp').set('Mcp-Session-Id', id)).status).toBe(405);

    expect(JSON.stringify(options)).toBe(before);
    expect([Object.keys(options), Object.keys(sessions)]).toEqual(keysBefore);
  });

  it('is copied: changing the session options after mcpRouter() changes nothing', async () => {
    const sessions: { allowDelete?: boolean; onSessionCreated?: () => void } = {};
    const mcp = mcpRouter({ ...BASE, logger: silentLogger(), sessions });
    routers.push(mcp);
    sessions.allowDelete = false;
    const created = jest.fn();
    sessions.onSessionCreated = created;

    const app = express();
    app.use('/mcp', mcp);
    const id = (await post(app, rpc('initialize', INIT_PARAMS))).headers['mcp-session-id'] as string;
    expect(created).not.toHaveBeenCalled();
    expect((await request(app).delete('/mcp').set('Mcp-Session-Id', id)).status).toBe(200);
  });
});
