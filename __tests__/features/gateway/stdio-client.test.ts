// The stdio upstream client against the real server-everything (stdio mode): lists, progress, the asks it sends during a call relayed, close.

import path from 'node:path';
import { JsonRpcError } from '../../../lib/core/jsonrpc/errors';
import {
  createStdioUpstreamClient,
  type StdioClientOptions,
  type StdioUpstreamClient,
} from '../../../lib/features/gateway/stdio/stdio-client';
import type { UpstreamMessage } from '../../../lib/features/gateway/shared/upstream-client';
import { Signal } from '../../helpers/events';
import { until } from '../../helpers/until';
import { CLIENT_INFO } from './client-info';
import { isRunning as isAlive } from '../../helpers/pids';
import { scaled } from '../../helpers/time-scale';

jest.setTimeout(30_000);

const EVERYTHING = path.resolve(
  __dirname,
  '../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);
const RELAYED = { sampling: {}, elicitation: { form: {} }, roots: {} };
const clients: StdioUpstreamClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

function everything(overrides: Partial<StdioClientOptions> = {}): StdioUpstreamClient {
  const client = createStdioUpstreamClient({
    program: { command: process.execPath, args: [EVERYTHING, 'stdio'] },
    label: 'everything',
    timeoutMs: scaled(10_000),
    clientInfo: CLIENT_INFO,
    logger: { warn: jest.fn(), error: jest.fn() },
    ...overrides,
  });
  clients.push(client);
  return client;
}

const textOf = (result: unknown): string =>
  ((result as { content: { text?: string }[] }).content ?? []).map((part) => part.text ?? '').join('\n');

describe('stdio upstream client (server-everything)', () => {
  it('spawns nothing before the first request, then initialises once (2025-11-25) and lists the tools', async () => {
    const client = everything();
    expect(client.pid).toBeUndefined();
    expect(client.era).toBeUndefined();
    const [first, second] = (await Promise.all([
      client.request('tools/list', {}),
      client.request('tools/list', {}),
    ])) as { tools: { name: string }[] }[];
    expect(first!.tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['echo', 'get-sum', 'trigger-long-running-operation']),
    );
    expect(second).toEqual(first);
    expect(client.era).toBe('2025');
    expect(client.protocolVersion).toBe('2025-11-25');
    expect(client.sessionId).toBeUndefined();
    expect(client.capabilities).toMatchObject({ tools: { listChanged: true }, resources: { subscribe: true } });
    expect(await client.request('tools/call', { name: 'get-sum', arguments: { a: 2, b: 3 } })).toMatchObject({
      content: [{ type: 'text', text: expect.stringContaining('5') }],
    });
  });

  it("relays a call's progress to that call only, under the caller's own token, even when two callers chose the same one", async () => {
    const client = everything();
    const seen: UpstreamMessage[][] = [[], []];
    const call = (index: number): Promise<unknown> =>
      client.request(
        'tools/call',
        {
          name: 'trigger-long-running-operation',
          arguments: { duration: 0.2 * (index + 1), steps: 2 + index },
          _meta: { progressToken: 'same' },
        },
        { onMessage: (message) => seen[index]!.push(message) },
      );
    const results = await Promise.all([call(0), call(1)]);
    expect(textOf(results[0])).toContain('Steps: 2');
    expect(textOf(results[1])).toContain('Steps: 3');
    expect(seen[0]!.map((message) => message.params)).toEqual(
      [1, 2].map((progress) => ({ progress, total: 2, progressToken: 'same' })),
    );
    expect(seen[1]!.map((message) => message.params)).toEqual(
      [1, 2, 3].map((progress) => ({ progress, total: 3, progressToken: 'same' })),
    );
  });

  it('relays an elicitation the server sends during a call to that call’s onRequest, and its answer back', async () => {
    const client = everything({ capabilities: RELAYED });
    const asked: [string, Record<string, unknown> | undefined][] = [];
    const result = await client.request(
      'tools/call',
      { name: 'trigger-elicitation-request', arguments: {} },
      {
        onRequest: async (method, params) => {
          asked.push([method, params]);
          return { action: 'accept', content: { name: 'Ada Lovelace', check: true } };
        },
      },
    );
    expect(asked).toEqual([
      [
        'elicitation/create',
        expect.objectContaining({
          message: expect.any(String),
          requestedSchema: expect.objectContaining({ type: 'object' }),
        }),
      ],
    ]);
    expect(textOf(result)).toContain('Ada Lovelace');
  });

  it('relays a sampling request, and hands the server the JsonRpcError an answer fails with', async () => {
    const client = everything({ capabilities: RELAYED });
    const answered = await client.request(
      'tools/call',
      { name: 'trigger-sampling-request', arguments: { prompt: 'hello' } },
      {
        onRequest: async (method) =>
          method === 'sampling/createMessage'
            ? { role: 'assistant', content: { type: 'text', text: 'relayed completion' }, model: 'test-model' }
            : undefined,
      },
    );
    expect(textOf(answered)).toContain('relayed completion');
    const refused = await client
      .request(
        'tools/call',
        { name: 'trigger-sampling-request', arguments: { prompt: 'hello' } },
        {
          onRequest: () => Promise.reject(new JsonRpcError(-32602, 'The caller declined sampling')),
        },
      )
      .then(textOf, (error: JsonRpcError) => error.message);
    expect(refused).toContain('The caller declined sampling');
  });

  it('relays roots/list asked during a call', async () => {
    const client = everything({ capabilities: RELAYED });
    const result = await client.request(
      'tools/call',
      { name: 'get-roots-list', arguments: {} },
      {
        onRequest: async (method) =>
          method === 'roots/list' ? { roots: [{ uri: 'file:///srv/project', name: 'project' }] } : undefined,
      },
    );
    expect(textOf(result)).toContain('file:///srv/project');
  });

  it('tells a listener of the list changes on the process’s stdout', async () => {
    const client = everything({ capabilities: RELAYED });
    const notifications: string[] = [];
    const states: string[] = [];
    const heard = new Signal();
    const listener = client.listen({
      onNotification: (message) => {
        notifications.push(String(message.method));
        heard.notify();
      },
      onState: (state) => states.push(state),
    });
    // server-everything registers its capability-dependent tools once initialised, and says so.
    await heard.when(() => notifications.includes('notifications/tools/list_changed'), 'tools/list_changed');
    expect(states).toEqual(['open']);
    listener.close();
  });

  it('cancels a call on its signal: rejected at once, the process keeps serving', async () => {
    const client = everything();
    const controller = new AbortController();
    const call = client.request(
      'tools/call',
      { name: 'trigger-long-running-operation', arguments: { duration: 20, steps: 2 } },
      { signal: controller.signal },
    );
    // A listener is told 'open' once initialize is answered (the call's own connect, shared).
    const handshake = new Signal();
    const listener = client.listen({ onNotification: () => undefined, onState: handshake.notify });
    await handshake.when(() => client.pid !== undefined && client.era === '2025', 'the handshake');
    listener.close();
    controller.abort();
    await expect(call).rejects.toThrow('Upstream "everything" request was cancelled');
    expect(await client.request('tools/call', { name: 'echo', arguments: { message: 'still here' } })).toMatchObject({
      content: [{ text: 'Echo: still here' }],
    });
  });

  it('close() ends the process and rejects what is in flight', async () => {
    const client = everything();
    await client.request('tools/list', {});
    const pid = client.pid as number;
    expect(isAlive(pid)).toBe(true);
    const call = client
      .request('tools/call', { name: 'trigger-long-running-operation', arguments: { duration: 20, steps: 2 } })
      .catch((error: unknown) => error);
    await client.close();
    await expect(call).resolves.toMatchObject({ code: -32603, message: 'Upstream "everything" client was closed' });
    expect(isAlive(pid)).toBe(false);
    await expect(client.request('tools/list', {})).rejects.toThrow('Upstream "everything" client was closed');
  });
});
