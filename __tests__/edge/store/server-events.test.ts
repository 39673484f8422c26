// The server event bus: delivery, unsubscribing, isolation between buses and routers, and the sessions' subscription to it.

import { MemoryMessageBus } from '../../../lib/edge/store/memory-message-bus';
import { MemorySessionStore } from '../../../lib/edge/store/memory-session-store';
import { SessionManager } from '../../../lib/edge/sessions/sessions';
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mcpRouter, type McpRouter } from '../../../lib';
import {
  MemoryServerEventBus,
  notificationOf,
  publishQuietly,
  type ServerEvent,
  type ServerEventBus,
} from '../../../lib/edge/store/server-events';
import { MCP_ACCEPT, notification, rpc, silentLogger } from '../../helpers/messages';
import { messageOf, SseReader, type SseEvent } from '../../helpers/sse';

const TOOLS_CHANGED: ServerEvent = { type: 'list_changed', list: 'tools' };
const UPDATED: ServerEvent = { type: 'resource_updated', uri: 'docs://a' };
const SESSION_SETTINGS = {
  maxStreams: 10,
  maxPendingRequests: 10,
  maxPerPrincipal: 10,
  store: new MemorySessionStore(),
  events: undefined,
  bus: new MemoryMessageBus(),
};

describe('MemoryServerEventBus', () => {
  it('hands each event to every listener, in order of subscription, before publish returns', () => {
    const bus = new MemoryServerEventBus();
    const seen: string[] = [];
    bus.subscribe((event) => seen.push(`first ${event.type}`));
    bus.subscribe((event) => seen.push(`second ${event.type}`));
    bus.publish(TOOLS_CHANGED);
    bus.publish(UPDATED);
    expect(seen).toEqual([
      'first list_changed',
      'second list_changed',
      'first resource_updated',
      'second resource_updated',
    ]);
  });

  it('stops delivering once unsubscribed; unsubscribing twice is harmless; one function subscribed twice hears twice', () => {
    const bus = new MemoryServerEventBus();
    const listener = jest.fn();
    const first = bus.subscribe(listener);
    const second = bus.subscribe(listener);
    bus.publish(TOOLS_CHANGED);
    expect(listener).toHaveBeenCalledTimes(2);
    first();
    first();
    bus.publish(TOOLS_CHANGED);
    expect(listener).toHaveBeenCalledTimes(3);
    second();
    bus.publish(TOOLS_CHANGED);
    expect(listener).toHaveBeenCalledTimes(3);
    expect(bus.listenerCount).toBe(0);
  });

  it('gives nothing more to a listener that an earlier one unsubscribed during the same publish', () => {
    const bus = new MemoryServerEventBus();
    const late = jest.fn();
    let stopLate = (): void => undefined;
    bus.subscribe(() => stopLate());
    stopLate = bus.subscribe(late);
    bus.publish(TOOLS_CHANGED);
    expect(late).not.toHaveBeenCalled();
  });

  it('reports a listener that throws to onListenerError, and still delivers to the others', () => {
    const onListenerError = jest.fn();
    const bus = new MemoryServerEventBus(onListenerError);
    const after = jest.fn();
    bus.subscribe(() => {
      throw new Error('listener bug');
    });
    bus.subscribe(after);
    expect(() => bus.publish(UPDATED)).not.toThrow();
    expect(onListenerError).toHaveBeenCalledWith(new Error('listener bug'));
    expect(after).toHaveBeenCalledWith(UPDATED);
  });

  it('shares nothing with another bus', () => {
    const one = new MemoryServerEventBus();
    const two = new MemoryServerEventBus();
    const heard = jest.fn();
    two.subscribe(heard);
    one.publish(TOOLS_CHANGED);
    expect(heard).not.toHaveBeenCalled();
  });
});

describe('server events', () => {
  it('are plain JSON, so a shared bus can carry them between processes', () => {
    for (const event of [TOOLS_CHANGED, UPDATED]) expect(JSON.parse(JSON.stringify(event))).toEqual(event);
  });

  it.each([
    [
      { type: 'list_changed', list: 'tools' },
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
    ],
    [
      { type: 'list_changed', list: 'prompts' },
      { jsonrpc: '2.0', method: 'notifications/prompts/list_changed' },
    ],
    [
      { type: 'list_changed', list: 'resources' },
      { jsonrpc: '2.0', method: 'notifications/resources/list_changed' },
    ],
    [UPDATED, { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'docs://a' } }],
  ] as Array<[ServerEvent, unknown]>)('%j is announced as %j', (event, message) => {
    expect(notificationOf(event)).toEqual(message);
  });

  it.each([
    ['rejects', (): Promise<void> => Promise.reject(new Error('bus down'))],
    [
      'throws',
      (): void => {
        throw new Error('bus down');
      },
    ],
  ])('publishQuietly logs a bus whose publish %s, and never throws', async (_label, publish) => {
    const logger = silentLogger();
    const bus: ServerEventBus = { publish, subscribe: () => () => undefined };
    expect(() => publishQuietly(bus, UPDATED, logger)).not.toThrow();
    await new Promise((resolve) => setImmediate(resolve));
    expect(logger.error).toHaveBeenCalledWith(
      new Error('bus down'),
      'mcpRouter: the server event resource_updated was not published',
    );
  });
});

describe('the sessions of a router', () => {
  it('subscribe to its server events once, and unsubscribe on close', async () => {
    const bus = new MemoryServerEventBus();
    const sessions = new SessionManager({ ...SESSION_SETTINGS, serverEvents: bus, logger: silentLogger() });
    expect(bus.listenerCount).toBe(1);
    await sessions.close();
    expect(bus.listenerCount).toBe(0);
  });
});

describe('two routers in one app', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (let cleanup = cleanups.pop(); cleanup !== undefined; cleanup = cleanups.pop()) await cleanup();
  });

  async function listen(routers: Record<string, McpRouter>): Promise<string> {
    const app = express();
    for (const [path, mcp] of Object.entries(routers)) {
      app.use(path, mcp);
      cleanups.push(() => mcp.close());
    }
    const server: Server = await new Promise((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    cleanups.push(() => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    });
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** A session at `url` subscribed to `uri`, and its GET stream, read past the priming event. */
  async function streamOf(url: string, uri: string): Promise<SseReader> {
    const send = (body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
      fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: MCP_ACCEPT, ...headers },
        body: JSON.stringify(body),
      });
    const init = await send(
      rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } }),
    );
    const headers = {
      'Mcp-Session-Id': init.headers.get('mcp-session-id') ?? '',
      'MCP-Protocol-Version': '2025-11-25',
    };
    expect((await send(notification('notifications/initialized'), headers)).status).toBe(202);
    expect(await (await send(rpc('resources/subscribe', { uri }), headers)).json()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {},
    });
    const res = await fetch(url, { headers: { Accept: 'text/event-stream', ...headers } });
    const reader = new SseReader(res.body as ReadableStream<Uint8Array>);
    cleanups.push(() => reader.cancel());
    expect((await reader.next())?.data).toBe(''); // priming
    return reader;
  }

  const next = async (reader: SseReader): Promise<unknown> => messageOf((await reader.next()) as SseEvent);

  it('each announce their own list changes and resource updates (notifyResourceUpdated), never the other’s', async () => {
    const [a, b] = ['a', 'b'].map((name) => mcpRouter({ name, version: '1.0.0', logger: silentLogger() })) as [
      McpRouter,
      McpRouter,
    ];
    for (const mcp of [a, b]) mcp.resource({ uri: 'docs://shared', name: 'shared', read: () => 'shared' });
    const base = await listen({ '/a': a, '/b': b });
    const onA = await streamOf(`${base}/a`, 'docs://shared');
    const onB = await streamOf(`${base}/b`, 'docs://shared');

    a.tool({ name: 'only_a', description: 'A tool of a', handler: () => 'a' });
    a.notifyResourceUpdated('docs://shared');
    // Had anything of a's reached b's stream, it would come before b's own change.
    b.prompt({ name: 'only_b', description: 'A prompt of b', get: () => 'b' });
    expect(await next(onA)).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    expect(await next(onA)).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri: 'docs://shared' },
    });
    expect(await next(onB)).toEqual({ jsonrpc: '2.0', method: 'notifications/prompts/list_changed' });
  });

  it('answer to notifyResourceUpdated only: the deprecated resourceUpdated alias is gone (0.x, issue 33)', () => {
    const mcp = mcpRouter({ name: 'alias', version: '1.0.0', sessions: false });
    expect(typeof mcp.notifyResourceUpdated).toBe('function');
    expect(mcp).not.toHaveProperty('resourceUpdated');
  });
});
