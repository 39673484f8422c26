// The upstream client's notification streams against real upstreams: the 2025 GET stream (this router, the SDK v1 server), 2026 subscriptions/listen, reopening, 405, close.

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { McpRouterOptions } from '../../../lib';
import type { UpstreamListener, UpstreamListenState } from '../../../lib/features/gateway/shared/upstream-client';
import {
  clientFor,
  closeAfterEach,
  hasAnswered,
  MARKER_HEADER,
  routerUpstream,
  routerUpstreamWithApi,
  sdkUpstreamWithServers,
  serve,
  stopUpstream,
  type Upstream,
  waitFor,
} from './upstreams';
import { Signal } from '../../helpers/events';

closeAfterEach();

/** Short waits, so a reopening test takes milliseconds. */
const BACKOFF = { initialMs: 10, maxMs: 40 };

/** Told by every listener {@link record} makes, at each notification and state it hears. */
const told = new Signal();

/** A listener of `client` recording what it heard. */
function record(client: ReturnType<typeof clientFor>, resourceSubscriptions?: readonly string[]) {
  const messages: Record<string, unknown>[] = [];
  const states: UpstreamListenState[] = [];
  const listener: UpstreamListener = client.listen({
    onNotification: (message) => {
      messages.push(message);
      told.notify();
    },
    onState: (state) => {
      states.push(state);
      told.notify();
    },
    backoff: BACKOFF,
    ...(resourceSubscriptions === undefined ? {} : { resourceSubscriptions }),
  });
  const methods = (): string[] => messages.map((message) => message.method as string);
  const count = (method: string): number => methods().filter((seen) => seen === method).length;
  return { listener, messages, states, methods, count };
}

const TOOLS_CHANGED = 'notifications/tools/list_changed';
const ACKNOWLEDGED = 'notifications/subscriptions/acknowledged';

/** An upstream (2026) that acknowledges every listen stream and ends it at once: its listeners keep reopening. */
async function endingUpstream(): Promise<Upstream> {
  const ack = { jsonrpc: '2.0', method: ACKNOWLEDGED, params: { notifications: { toolsListChanged: true } } };
  return serve((app) => {
    app.post('/mcp', (req, res) => {
      const body = req.body as { id?: number; method: string };
      if (body.method !== 'server/discover')
        res
          .status(200)
          .set('Content-Type', 'text/event-stream')
          .end(`data: ${JSON.stringify(ack)}\n\n`);
      else {
        const result = {
          resultType: 'complete',
          supportedVersions: ['2026-07-28'],
          capabilities: { tools: { listChanged: true } },
        };
        res.json({ jsonrpc: '2.0', id: body.id, result });
      }
    });
  });
}

/**
 * Resolves once a reopening or a notification that must not come would have come: a clock listener on
 * {@link endingUpstream} has reopened three times (waits of at least 5 + 10 + 20 ms with {@link BACKOFF}, past a
 * first reopening's 10 ms ceiling); with `marked`, a marker client (left out of `seen`) listening there has also heard
 * a tool added after every other: a notification to a closed listener would have come before it.
 */
async function backoffPassed(marked?: { upstream: Upstream; mcp: Parameters<typeof addTool>[0] }): Promise<void> {
  const clock = record(clientFor(await endingUpstream()));
  if (marked !== undefined) {
    const marker = record(clientFor(marked.upstream, 5_000, () => ({ [MARKER_HEADER]: '1' })));
    await waitFor(() => marker.states.includes('open'), told);
    addTool(marked.mcp, 'marker');
    await waitFor(() => marker.count(TOOLS_CHANGED) === 1, told);
  }
  await waitFor(() => clock.states.filter((state) => state === 'retrying').length >= 3, told);
}

function addTool(
  mcp: { tool: (definition: { name: string; description: string; handler: () => string }) => unknown },
  name: string,
): void {
  mcp.tool({ name, description: 'Added while a client listens', handler: () => 'ok' });
}

describe.each([
  { title: '2025 (this router with sessions, the GET stream)', options: { eras: ['2025'], sessions: {} }, era: '2025' },
  { title: '2026 (this router, subscriptions/listen)', options: {}, era: '2026' },
] as const)('listen against this router, $title', ({ options, era }) => {
  it('delivers notifications/tools/list_changed when a tool is registered after the stream opened', async () => {
    const { upstream, mcp } = await routerUpstreamWithApi(options as Partial<McpRouterOptions>);
    const client = clientFor(upstream);
    const heard = record(client);
    await waitFor(() => heard.states.includes('open'), told);
    expect(client.era).toBe(era);
    expect(client.capabilities).toEqual(
      expect.objectContaining({ tools: expect.objectContaining({ listChanged: true }) }),
    );
    addTool(mcp, 'late');
    await waitFor(() => heard.count(TOOLS_CHANGED) === 1, told);
    if (era === '2026') expect(heard.methods()[0]).toBe('notifications/subscriptions/acknowledged');
    else
      expect(upstream.seen.filter((request) => request.http === 'GET').map((request) => request.session)).toEqual([
        client.sessionId,
      ]);
  });

  it('reopens by itself after the upstream restarts on the same port, and later notifications arrive', async () => {
    const first = await routerUpstreamWithApi(options as Partial<McpRouterOptions>);
    const client = clientFor(first.upstream);
    const heard = record(client);
    await waitFor(() => heard.states.includes('open'), told);
    await stopUpstream(first.upstream);
    await waitFor(() => heard.states.includes('retrying'), told);
    const second = await routerUpstreamWithApi(options as Partial<McpRouterOptions>, first.upstream.port);
    await waitFor(() => heard.states.lastIndexOf('open') > heard.states.indexOf('retrying'), told);
    addTool(second.mcp, 'after-restart');
    await waitFor(() => heard.count(TOOLS_CHANGED) === 1, told);
    // A 2025 upstream lost the session: the client initialised again before reopening the GET stream.
    if (era === '2025')
      expect(second.upstream.seen.map((request) => request.rpc)).toEqual(
        expect.arrayContaining(['initialize', 'notifications/initialized']),
      );
  });

  it('update() with a resource URI delivers notifications/resources/updated for it', async () => {
    const { upstream, mcp } = await routerUpstreamWithApi(options as Partial<McpRouterOptions>);
    const client = clientFor(upstream);
    const heard = record(client);
    await waitFor(() => heard.states.includes('open'), told);
    heard.listener.update(['docs://readme']);
    if (era === '2026') {
      await waitFor(
        () =>
          heard.messages.some(
            (message) =>
              message.method === 'notifications/subscriptions/acknowledged' &&
              (message.params as { notifications: { resourceSubscriptions?: string[] } }).notifications
                .resourceSubscriptions?.[0] === 'docs://readme',
          ),
        told,
      );
    } else {
      // The subscription is kept before its answer is written.
      await waitFor(() => hasAnswered(upstream, 'resources/subscribe'), upstream.recorded);
    }
    mcp.notifyResourceUpdated('docs://readme');
    await waitFor(() => heard.count('notifications/resources/updated') === 1, told);
    expect(
      (
        heard.messages.find((message) => message.method === 'notifications/resources/updated')?.params as {
          uri: string;
        }
      ).uri,
    ).toBe('docs://readme');
  });

  it('close() ends the stream: nothing more is heard or sent', async () => {
    const { upstream, mcp } = await routerUpstreamWithApi(options as Partial<McpRouterOptions>);
    const client = clientFor(upstream);
    const heard = record(client);
    await waitFor(() => heard.states.includes('open'), told);
    heard.listener.close();
    const requests = upstream.seen.length;
    addTool(mcp, 'unheard');
    await backoffPassed({ upstream, mcp });
    expect(heard.count(TOOLS_CHANGED)).toBe(0);
    expect(upstream.seen.length).toBe(requests);
    expect(heard.states).toEqual(['open']);
  });
});

describe('listen against the SDK v1 server (2025, stateful)', () => {
  it('delivers sendToolListChanged() from the GET stream and answers a ping sent on it', async () => {
    const servers: McpServer[] = [];
    const upstream = await sdkUpstreamWithServers((server) => servers.push(server));
    const client = clientFor(upstream);
    const heard = record(client);
    await waitFor(() => heard.states.includes('open'), told);
    // The transport keeps the GET stream before it answers its head.
    await waitFor(() => hasAnswered(upstream, 'GET'), upstream.recorded);
    servers[0]!.sendToolListChanged();
    await waitFor(() => heard.count(TOOLS_CHANGED) === 1, told);
    // MCP 2025-11-25 › ping: a server request on the GET stream is answered by a POST with the session.
    await expect(servers[0]!.server.ping()).resolves.toEqual({});
  });
});

describe('listen: an upstream without a stream, malformed events, client close', () => {
  it("405 on the GET stream: state 'unsupported', no retries", async () => {
    const upstream = await routerUpstream({ eras: ['2025'], sessions: false });
    const client = clientFor(upstream);
    const heard = record(client);
    await waitFor(() => heard.states.includes('unsupported'), told);
    await backoffPassed();
    expect(heard.states).toEqual(['unsupported']);
    expect(upstream.seen.filter((request) => request.http === 'GET')).toHaveLength(1);
  });

  it('reopens a GET stream the upstream ended, resuming with Last-Event-ID (MCP transports › Resumability)', async () => {
    const lastEventIds: (string | undefined)[] = [];
    const upstream = await serve((app) => {
      app.post('/mcp', (req, res) => {
        const body = req.body as { id?: number; method: string };
        if (body.method === 'initialize') {
          res.set('Mcp-Session-Id', 's1').json({
            jsonrpc: '2.0',
            id: body.id,
            result: {
              protocolVersion: '2025-11-25',
              capabilities: { tools: { listChanged: true } },
              serverInfo: { name: 'tiny', version: '1' },
            },
          });
        } else if (body.method === 'notifications/initialized') {
          res.status(202).end();
        } else {
          res.status(400).json({
            jsonrpc: '2.0',
            id: null,
            error: { code: -32000, message: 'Bad Request: No valid session ID provided' },
          });
        }
      });
      app.get('/mcp', (req, res) => {
        lastEventIds.push(req.get('last-event-id'));
        res.status(200).set('Content-Type', 'text/event-stream').flushHeaders();
        const method = lastEventIds.length === 1 ? TOOLS_CHANGED : 'notifications/prompts/list_changed';
        const event = `id: e${lastEventIds.length}\ndata: ${JSON.stringify({ jsonrpc: '2.0', method })}\n\n`;
        if (lastEventIds.length === 1) res.end(event);
        else res.write(event);
      });
    });
    const client = clientFor(upstream);
    const heard = record(client);
    await waitFor(() => heard.count('notifications/prompts/list_changed') === 1, told);
    expect(heard.methods()).toEqual([TOOLS_CHANGED, 'notifications/prompts/list_changed']);
    expect(lastEventIds).toEqual([undefined, 'e1']);
    expect(heard.states).toEqual(['open', 'retrying', 'open']);
    expect(upstream.seen.filter((request) => request.http === 'GET').map((request) => request.session)).toEqual([
      's1',
      's1',
    ]);
  });

  it('a listen stream sending an event that is not JSON is reopened, and what the next one sends is heard', async () => {
    let listens = 0;
    const upstream = await serve((app) => {
      app.post('/mcp', (req, res) => {
        const body = req.body as { id: number; method: string };
        if (body.method === 'server/discover') {
          res.json({
            jsonrpc: '2.0',
            id: body.id,
            result: {
              resultType: 'complete',
              supportedVersions: ['2026-07-28'],
              capabilities: { tools: { listChanged: true } },
            },
          });
          return;
        }
        listens++;
        res.status(200).set('Content-Type', 'text/event-stream').flushHeaders();
        if (listens === 1) {
          res.end('data: not json\n\n');
          return;
        }
        const ack = {
          jsonrpc: '2.0',
          method: 'notifications/subscriptions/acknowledged',
          params: { notifications: { toolsListChanged: true } },
        };
        res.write(
          `data: ${JSON.stringify(ack)}\n\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: TOOLS_CHANGED })}\n\n`,
        );
      });
    });
    const client = clientFor(upstream);
    const heard = record(client);
    await waitFor(() => heard.count(TOOLS_CHANGED) === 1, told);
    expect(listens).toBe(2);
    expect(heard.states).toEqual(['retrying', 'open']);
    expect(client.capabilities).toEqual({ tools: { listChanged: true } });
  });

  it('client.close() ends every listener', async () => {
    const { upstream, mcp } = await routerUpstreamWithApi({});
    const client = clientFor(upstream);
    const one = record(client);
    const two = record(client);
    await waitFor(() => one.states.includes('open') && two.states.includes('open'), told);
    await client.close();
    const requests = upstream.seen.length;
    await backoffPassed({ upstream, mcp });
    expect(upstream.seen.length).toBe(requests);
    expect(() => client.listen({ onNotification: () => undefined })).toThrow('client was closed');
  });

  it('refuses backoff bounds out of order', async () => {
    const client = clientFor(await routerUpstream({}));
    expect(() => client.listen({ onNotification: () => undefined, backoff: { initialMs: 100, maxMs: 10 } })).toThrow(
      'listen: backoff needs 0 < initialMs <= maxMs',
    );
  });
});
