// The gateway's upstream client against scripted upstreams: the 2026 probe and its fallback, server requests, and upstreams that fail.

import type { Request, Response } from 'express';
import { ErrorCode } from '../../../lib';
import { clientFor, closeAfterEach, LABEL, rejection, serve, stopUpstream, type Upstream } from './upstreams';
import { scaled } from '../../helpers/time-scale';

closeAfterEach();

describe('upstream client: the probe and its fallback', () => {
  /** A hand-written upstream: `discover` answers server/discover; initialize negotiates 2025-06-18 without a session. */
  function scripted(discover: (res: Response) => void): Promise<Upstream> {
    return serve((app) =>
      app.post('/mcp', (req, res) => {
        const body = req.body as { id?: number; method: string };
        if (body.method === 'server/discover') return discover(res);
        if (body.id === undefined) return void res.status(202).end();
        if (body.method === 'initialize')
          return void res.json({
            jsonrpc: '2.0',
            id: body.id,
            result: {
              protocolVersion: '2025-06-18',
              capabilities: { tools: {} },
              serverInfo: { name: 'scripted', version: '1' },
            },
          });
        res.json({ jsonrpc: '2.0', id: body.id, result: { tools: [] } });
      }),
    );
  }

  it.each([
    [
      '400 -32022 (a 2026 server without our revision)',
      (res: Response) =>
        void res.status(400).json({
          jsonrpc: '2.0',
          id: 1,
          error: {
            code: -32022,
            message: 'Unsupported protocol version',
            data: { supported: ['2026-12-01'], requested: '2026-07-28' },
          },
        }),
    ],
    [
      '404 -32601',
      (res: Response) =>
        void res.status(404).json({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } }),
    ],
    ['a bare 404', (res: Response) => void res.status(404).send('Not Found')],
    [
      '200 -32601',
      (res: Response) => void res.json({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } }),
    ],
  ])('falls back to initialize after %s and sends the negotiated version afterwards', async (_title, discover) => {
    const upstream = await scripted(discover);
    const client = clientFor(upstream);
    expect(await client.request('tools/list', {})).toEqual({ tools: [] });
    expect(client.era).toBe('2025');
    expect(client.protocolVersion).toBe('2025-06-18');
    expect(client.sessionId).toBeUndefined();
    expect(upstream.seen.map((request) => [request.rpc, request.version])).toEqual([
      ['server/discover', '2026-07-28'],
      ['initialize', undefined],
      ['notifications/initialized', '2025-06-18'],
      ['tools/list', '2025-06-18'],
    ]);
  });

  it('does not fall back when the probe is refused for credentials: -32603, and the next request probes again', async () => {
    let refuse = true;
    const upstream = await scripted((res) => (refuse ? void res.status(403).end() : void res.status(404).end()));
    const client = clientFor(upstream);
    expect((await rejection(client.request('tools/list', {}))).message).toBe(
      `Upstream "${LABEL}" refused the gateway's credentials (HTTP 403)`,
    );
    expect(upstream.seen.map((request) => request.rpc)).toEqual(['server/discover']);
    refuse = false;
    expect(await client.request('tools/list', {})).toEqual({ tools: [] });
  });
});

describe('upstream client against broken upstreams', () => {
  function broken(handler: (req: Request, res: Response) => void): Promise<Upstream> {
    return serve((app) => app.post('/mcp', handler));
  }

  async function expectInternal(upstream: Upstream, phrase: string, timeoutMs = scaled(5000)): Promise<void> {
    const error = await rejection(clientFor(upstream, timeoutMs).request('tools/list', {}));
    expect(error.code).toBe(ErrorCode.InternalError);
    expect(error.message).toBe(`Upstream "${LABEL}" ${phrase}`);
    expect(error.message).not.toContain('127.0.0.1');
    expect(error.data).toBeUndefined();
  }

  it('HTTP 500 → -32603 without the body', async () => {
    await expectInternal(
      await broken((_req, res) => void res.status(500).send('stack trace at http://internal.example/secret')),
      'failed (HTTP 500)',
    );
  });

  it('401 → -32603 without the challenge', async () => {
    const upstream = await broken(
      (_req, res) =>
        void res.status(401).set('WWW-Authenticate', 'Bearer realm="secret"').json({ error: 'invalid_token' }),
    );
    await expectInternal(upstream, "refused the gateway's credentials (HTTP 401)");
  });

  it('a non-JSON answer → -32603', async () => {
    await expectInternal(
      await broken((_req, res) => void res.status(200).type('text/html').send('<html>hello</html>')),
      'answered HTTP 200 without an MCP message',
    );
  });

  it('JSON that is not JSON-RPC → -32603', async () => {
    await expectInternal(
      await broken((_req, res) => void res.status(200).json({ hello: 'world' })),
      'answered with JSON that is not a response to the request (HTTP 200)',
    );
  });

  it('a body over the cap → -32603, not unbounded memory', async () => {
    const big = Buffer.alloc(5 * 1024 * 1024, 0x20);
    await expectInternal(
      await broken((_req, res) => void res.status(200).type('application/json').send(big)),
      `sent a body larger than ${4 * 1024 * 1024} bytes`,
    );
  });

  it('a hanging upstream → an error naming the time limit', async () => {
    await expectInternal(await broken(() => undefined), 'did not answer within 200 ms', 200);
  });

  it('an unreachable upstream → -32603', async () => {
    const upstream = await broken(() => undefined);
    await stopUpstream(upstream);
    await expectInternal(upstream, 'could not be reached');
  });
});

describe('upstream client: server requests on a 2025 SSE reply', () => {
  /**
   * A 2025 upstream that sends `asks` (server→client requests) on the SSE reply of the gateway's own tools/list, records
   * the gateway's answers, and ends the reply once each ask is answered.
   */
  function asking(asks: readonly object[], answers: unknown[]): Promise<Upstream> {
    let finish: (() => void) | undefined;
    return serve((app) =>
      app.post('/mcp', (req, res) => {
        const body = req.body as { id?: number | string; method?: string };
        if (body.method === 'server/discover') return void res.status(404).end();
        if (body.method === 'initialize')
          return void res.set('Mcp-Session-Id', 's-1').json({
            jsonrpc: '2.0',
            id: body.id,
            result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'scripted', version: '1' } },
          });
        if (body.method === undefined) {
          answers.push(body);
          if (answers.length === asks.length) finish?.();
          return void res.status(202).end();
        }
        if (body.id === undefined) return void res.status(202).end();
        res.status(200).set('Content-Type', 'text/event-stream').flushHeaders();
        for (const ask of asks) res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', ...ask })}\n\n`);
        finish = () => res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id: body.id, result: { tools: [] } })}\n\n`);
      }),
    );
  }

  it.each([
    ['its roots option', [{ uri: 'file:///srv/project', name: 'project' }, { uri: 'file:///tmp' }]],
    ['[] without one', undefined],
  ])('answers roots/list outside any call with %s, not -32601', async (_title, roots) => {
    const answers: unknown[] = [];
    const upstream = await asking([{ id: 'r1', method: 'roots/list' }], answers);
    expect(await clientFor(upstream, 5000, undefined, roots).request('tools/list', {})).toEqual({ tools: [] });
    expect(answers).toEqual([{ jsonrpc: '2.0', id: 'r1', result: { roots: roots ?? [] } }]);
  });

  it('answers ping with {} and anything else with -32601, so the upstream never waits, and still passes them to onMessage', async () => {
    const answers: unknown[] = [];
    const upstream = await asking(
      [
        { id: 'p1', method: 'ping' },
        { id: 's1', method: 'sampling/createMessage', params: {} },
      ],
      answers,
    );
    const seen: unknown[] = [];
    expect(
      await clientFor(upstream).request('tools/list', {}, { onMessage: (message) => seen.push(message.method) }),
    ).toEqual({ tools: [] });
    expect(seen).toEqual(['ping', 'sampling/createMessage']);
    expect(answers).toEqual([
      { jsonrpc: '2.0', id: 'p1', result: {} },
      {
        jsonrpc: '2.0',
        id: 's1',
        error: {
          code: ErrorCode.MethodNotFound,
          message: 'Method not found: the gateway does not serve sampling/createMessage',
        },
      },
    ]);
    expect(upstream.seen.filter((request) => request.rpc === undefined).map((request) => request.session)).toEqual([
      's-1',
      's-1',
    ]);
  });
});
