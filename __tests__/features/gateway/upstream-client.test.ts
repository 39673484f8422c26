// The gateway's upstream client against real upstreams on ephemeral ports: this router (each era configuration) and the SDK v1 server.

import { ErrorCode, mcpRouter, type McpRouterOptions } from '../../../lib';
import { createUpstreamClient } from '../../../lib/features/gateway/http-client/streamable-http-client';
import {
  clientFor,
  clientSocketsClosed,
  CLIENT_INFO,
  closeAfterEach,
  LABEL,
  registerTools,
  rejection,
  routerUpstream,
  sdkUpstream,
  serve,
  stopUpstream,
  text,
  toolNames,
  waitFor,
} from './upstreams';

closeAfterEach();

describe.each([
  { title: 'this router, both eras', options: {}, era: '2026', session: false },
  {
    title: "this router, eras: ['2025'] with sessions",
    options: { eras: ['2025'], sessions: {} },
    era: '2025',
    session: true,
  },
  {
    title: "this router, eras: ['2025'], sessions: false",
    options: { eras: ['2025'], sessions: false },
    era: '2025',
    session: false,
  },
  { title: "this router, eras: ['2026']", options: { eras: ['2026'] }, era: '2026', session: false },
] as const)('upstream client against $title', ({ options, era, session }) => {
  it(`speaks ${era}, lists and calls tools`, async () => {
    const upstream = await routerUpstream(options as Partial<McpRouterOptions>);
    const client = clientFor(upstream);
    expect(toolNames(await client.request('tools/list', {}))).toEqual(['add', 'count', 'hang', 'refuse']);
    expect(text(await client.request('tools/call', { name: 'add', arguments: { a: 2, b: 3 } }))).toBe('5');
    expect(client.era).toBe(era);
    expect(client.sessionId !== undefined).toBe(session);
    if (era === '2025') {
      expect(client.protocolVersion).toBe('2025-11-25');
      const calls = upstream.seen.filter((request) => request.rpc === 'tools/call');
      expect(calls).toEqual([{ http: 'POST', rpc: 'tools/call', session: client.sessionId, version: '2025-11-25' }]);
    } else {
      expect(client.protocolVersion).toBe('2026-07-28');
      expect(upstream.seen.some((request) => request.rpc === 'initialize')).toBe(false);
    }
  });

  it("passes the upstream's JSON-RPC error verbatim", async () => {
    const client = clientFor(await routerUpstream(options as Partial<McpRouterOptions>));
    const error = await rejection(client.request('tools/call', { name: 'refuse', arguments: {} }));
    expect(error.toObject()).toEqual({
      code: ErrorCode.InvalidParams,
      message: 'Refused: no such account',
      data: { account: 'a-17' },
    });
  });

  it('delivers progress notifications from an SSE reply to onMessage', async () => {
    const client = clientFor(await routerUpstream(options as Partial<McpRouterOptions>));
    const messages: Record<string, unknown>[] = [];
    const result = await client.request(
      'tools/call',
      { name: 'count', arguments: {}, _meta: { progressToken: 'p1' } },
      { onMessage: (message) => messages.push(message) },
    );
    expect(text(result)).toBe('counted');
    const progress = messages
      .filter((message) => message.method === 'notifications/progress')
      .map((message) => (message.params as { progress: number }).progress);
    expect(progress).toEqual([1, 2, 3]);
  });
});

describe('upstream client against the SDK v1 server (2025, stateful)', () => {
  it('falls back to initialize, keeps the session, lists and calls tools', async () => {
    const upstream = await sdkUpstream();
    const client = clientFor(upstream);
    expect(toolNames(await client.request('tools/list', {}))).toEqual(['add']);
    expect(text(await client.request('tools/call', { name: 'add', arguments: { a: 1, b: 41 } }))).toBe('42');
    expect(client.era).toBe('2025');
    expect(client.sessionId).toEqual(expect.any(String));
    expect(upstream.seen.map((request) => request.rpc)).toEqual([
      'server/discover',
      'initialize',
      'notifications/initialized',
      'tools/list',
      'tools/call',
    ]);
  });

  it('re-initialises once when the session is lost (upstream restarted on the same port) and the call succeeds', async () => {
    const first = await sdkUpstream();
    const client = clientFor(first);
    await client.request('tools/list', {});
    const lostSession = client.sessionId;
    await stopUpstream(first);
    // Let the client's pool see the old server's FIN, as it would after a real restart (a POST is never retried on a dead socket).
    await clientSocketsClosed(first.port);
    const second = await sdkUpstream(first.port);
    expect(text(await client.request('tools/call', { name: 'add', arguments: { a: 2, b: 2 } }))).toBe('4');
    expect(client.sessionId).not.toBe(lostSession);
    expect(second.seen.map((request) => request.rpc)).toEqual([
      'tools/call',
      'initialize',
      'notifications/initialized',
      'tools/call',
    ]);
  });

  it('close() deletes the session on the upstream', async () => {
    const upstream = await sdkUpstream();
    const client = clientFor(upstream);
    await client.request('tools/list', {});
    const sessionId = client.sessionId;
    await client.close();
    expect(upstream.seen.filter((request) => request.http === 'DELETE')).toEqual([
      { http: 'DELETE', rpc: undefined, session: sessionId, version: '2025-11-25' },
    ]);
    expect((await rejection(client.request('tools/list', {}))).message).toBe(`Upstream "${LABEL}" client was closed`);
  });
});

describe('upstream client against this router: lost session, cancellation', () => {
  it('re-initialises once when the upstream deleted the session, and the call succeeds', async () => {
    const upstream = await routerUpstream({ eras: ['2025'], sessions: {} });
    const client = clientFor(upstream);
    await client.request('tools/list', {});
    const lostSession = client.sessionId!;
    // Someone else ends the session (MCP transports › Session Management: DELETE).
    const deleted = await fetch(upstream.url, {
      method: 'DELETE',
      headers: { 'Mcp-Session-Id': lostSession, 'MCP-Protocol-Version': '2025-11-25' },
    });
    expect(deleted.status).toBeLessThan(300);
    expect(text(await client.request('tools/call', { name: 'add', arguments: { a: 5, b: 6 } }))).toBe('11');
    expect(client.sessionId).not.toBe(lostSession);
    const afterDelete = upstream.seen.slice(upstream.seen.findIndex((request) => request.http === 'DELETE') + 1);
    expect(afterDelete.map((request) => request.rpc)).toEqual([
      'tools/call',
      'initialize',
      'notifications/initialized',
      'tools/call',
    ]);
  });

  it("re-initialises when a restarted SDK-example server answers 400 'No valid session ID' instead of 404", async () => {
    let sessions = 0;
    let known = new Set<string>();
    const upstream = await serve((app) => {
      app.post('/mcp', (req, res) => {
        const body = req.body as { id?: number; method: string };
        const session = req.get('mcp-session-id');
        if (body.method === 'server/discover')
          return void res.status(400).json({
            jsonrpc: '2.0',
            error: { code: -32000, message: 'Bad Request: No valid session ID provided' },
            id: null,
          });
        if (body.method === 'initialize') {
          const id = `s${++sessions}`;
          known.add(id);
          return void res.set('mcp-session-id', id).json({
            jsonrpc: '2.0',
            id: body.id,
            result: {
              protocolVersion: '2025-11-25',
              capabilities: { tools: {} },
              serverInfo: { name: 'x', version: '1' },
            },
          });
        }
        // The SDK v1 examples: an unknown session is a 400 with a JSON-RPC error and a null id.
        if (session === undefined || !known.has(session))
          return void res.status(400).json({
            jsonrpc: '2.0',
            error: { code: -32000, message: 'Bad Request: No valid session ID provided' },
            id: null,
          });
        if (body.id === undefined) return void res.status(202).end();
        res.json({ jsonrpc: '2.0', id: body.id, result: { tools: [] } });
      });
    });
    const client = clientFor(upstream);
    await client.request('tools/list', {});
    known = new Set();
    await expect(client.request('tools/list', {})).resolves.toEqual({ tools: [] });
    expect(client.sessionId).toBe('s2');
  });

  it('aborts on the signal and tells a 2025 upstream with notifications/cancelled', async () => {
    const upstream = await routerUpstream({ eras: ['2025'], sessions: {} });
    const client = clientFor(upstream);
    await client.request('tools/list', {});
    const controller = new AbortController();
    const call = client.request('tools/call', { name: 'hang', arguments: {} }, { signal: controller.signal });
    await waitFor(() => upstream.seen.some((request) => request.rpc === 'tools/call'), upstream.recorded);
    controller.abort();
    const error = await rejection(call);
    expect(error.code).toBe(ErrorCode.InternalError);
    expect(error.message).toBe(`Upstream "${LABEL}" request was cancelled`);
    await waitFor(() => upstream.seen.some((request) => request.rpc === 'notifications/cancelled'), upstream.recorded);
    expect(upstream.seen.find((request) => request.rpc === 'notifications/cancelled')?.session).toBe(client.sessionId);
  });

  it('sends nothing for a signal aborted before the request', async () => {
    const upstream = await routerUpstream({});
    const error = await rejection(clientFor(upstream).request('tools/list', {}, { signal: AbortSignal.abort() }));
    expect(error.message).toBe(`Upstream "${LABEL}" request was cancelled`);
    expect(upstream.seen).toEqual([]);
  });

  it('sends a notification: 2025 with the session, 2026 with the envelope headers', async () => {
    for (const options of [{ eras: ['2025'], sessions: {} }, {}] as Partial<McpRouterOptions>[]) {
      const upstream = await routerUpstream(options);
      const client = clientFor(upstream);
      await client.notify('notifications/roots/list_changed');
      const sent = upstream.seen.find((request) => request.rpc === 'notifications/roots/list_changed');
      expect(sent).toEqual({
        http: 'POST',
        rpc: 'notifications/roots/list_changed',
        session: client.sessionId,
        version: client.protocolVersion,
      });
    }
  });

  it('aborts a 2026 request on the signal without a notification', async () => {
    const upstream = await routerUpstream({});
    const client = clientFor(upstream);
    const controller = new AbortController();
    const call = client.request('tools/call', { name: 'hang', arguments: {} }, { signal: controller.signal });
    await waitFor(() => upstream.seen.some((request) => request.rpc === 'tools/call'), upstream.recorded);
    controller.abort();
    expect((await rejection(call)).message).toBe(`Upstream "${LABEL}" request was cancelled`);
    expect(client.era).toBe('2026');
    // MCP 2026-07-28 has no session to cancel in: closing the request's stream is the cancellation. A notification
    // would have been sent at the abort, before this next request.
    await client.request('tools/list', {});
    expect(upstream.seen.some((request) => request.rpc === 'notifications/cancelled')).toBe(false);
  });
});

describe('upstream client: headers, close', () => {
  it('sends the configured headers, reading a header function again for every request', async () => {
    const tokens: (string | undefined)[] = [];
    const upstream = await serve((app) => {
      app.use('/mcp', (req, _res, next) => {
        tokens.push(req.get('x-upstream-token'));
        next();
      });
      const mcp = mcpRouter({ name: 'upstream', version: '1.0.0' });
      registerTools(mcp);
      app.use('/mcp', mcp);
    });
    let issued = 0;
    const client = clientFor(upstream, 5000, () => ({ 'X-Upstream-Token': `t${++issued}` }));
    await client.request('tools/list', {});
    await client.request('tools/list', {});
    expect(tokens).toEqual(['t1', 't2', 't3']);
  });

  it('close() aborts a request in flight and deletes the session of this router', async () => {
    const upstream = await routerUpstream({ eras: ['2025'], sessions: {} });
    const client = clientFor(upstream);
    await client.request('tools/list', {});
    const sessionId = client.sessionId;
    const call = client.request('tools/call', { name: 'hang', arguments: {} });
    await waitFor(() => upstream.seen.some((request) => request.rpc === 'tools/call'), upstream.recorded);
    const failure = rejection(call);
    await client.close();
    expect((await failure).message).toBe(`Upstream "${LABEL}" client was closed`);
    expect(upstream.seen.filter((request) => request.http === 'DELETE').map((request) => request.session)).toEqual([
      sessionId,
    ]);
  });

  it('shares one handshake among concurrent first requests', async () => {
    const upstream = await routerUpstream({ eras: ['2025'], sessions: {} });
    const client = clientFor(upstream);
    await Promise.all([
      client.request('tools/list', {}),
      client.request('tools/list', {}),
      client.request('tools/list', {}),
    ]);
    expect(
      upstream.seen.filter((request) => request.rpc === 'initialize' || request.rpc === 'server/discover'),
    ).toHaveLength(2);
    expect(
      new Set(upstream.seen.filter((request) => request.rpc === 'tools/list').map((request) => request.session)),
    ).toEqual(new Set([client.sessionId]));
  });

  it('refuses a timeout that is not a positive number', () => {
    expect(() =>
      createUpstreamClient({ url: 'http://127.0.0.1:1/mcp', label: LABEL, timeoutMs: 0, clientInfo: CLIENT_INFO }),
    ).toThrow('timeoutMs must be a positive number of milliseconds, got 0');
  });
});
