// Client state as an input (protocol/dispatcher.ts): methods return their changes, the outcome reports them, the input never changes; method eras.

import { createDispatcher, type DispatchOutcome } from '../../../lib/core/protocol/dispatcher';
import type { ClientState } from '../../../lib/core/protocol/handler-context';
import { Registry } from '../../../lib/core/registry/registry';
import { createSchemaValidator } from '../../../lib/core/schema/validator';
import { testEnv } from '../../helpers/context';

function setup() {
  const registry = new Registry(createSchemaValidator());
  registry.addResource({ uri: 'docs://a', name: 'a', read: () => 'A' });
  registry.addTool({
    name: 'logs',
    description: 'logs at info',
    handler: async (_args, ctx) => {
      await ctx.log('info', 'hello');
      return 'ok';
    },
  });
  const dispatcher = createDispatcher(registry, {
    identity: { serverInfo: { name: 's', version: '1' }, instructions: undefined },
    pageSize: 50,
    logger: { error: jest.fn(), warn: jest.fn() },
    listChanged: true,
    clientRequestTimeoutMs: 1_000,
    maxBatchLength: 10,
    maxSubscriptions: 5,
    eras: ['2025', '2026'],
    cache: { ttlMs: 0, scope: 'public' },
  });
  return { dispatcher };
}

const rpc = (id: number, method: string, params?: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params ? { params } : {}),
});

describe('client state: an input, with changes returned', () => {
  it('initialize reports the negotiated state and leaves the input as it was', async () => {
    const { dispatcher } = setup();
    const env = testEnv('2025-03-26');
    const input = env.client;
    const outcome = await dispatcher.receive(
      rpc(1, 'initialize', {
        protocolVersion: '2025-06-18',
        capabilities: { roots: {} },
        clientInfo: { name: 'c', version: '2' },
      }),
      env,
    );
    expect(outcome.client).toEqual({
      protocolVersion: '2025-06-18',
      clientCapabilities: { roots: {} },
      clientInfo: { name: 'c', version: '2' },
      logLevel: undefined,
      subscriptions: [],
    });
    expect(env.client).toBe(input);
    expect(input).toEqual({
      protocolVersion: '2025-03-26',
      clientCapabilities: {},
      clientInfo: undefined,
      logLevel: undefined,
      subscriptions: [],
    });
  });

  it('a refused initialize reports no change', async () => {
    const { dispatcher } = setup();
    const outcome = await dispatcher.receive(
      rpc(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: { sampling: { big: 'x'.repeat(5_000) } } }),
      testEnv(),
    );
    expect(outcome.kind === 'answered' && 'error' in (outcome.body as object)).toBe(true);
    expect(outcome).not.toHaveProperty('client');
  });

  it('methods that change nothing report nothing (ping, a subscription held already, unsubscribing from none)', async () => {
    const { dispatcher } = setup();
    const env = testEnv('2025-11-25', { client: { ...testEnv().client, subscriptions: ['docs://a'] } });
    for (const message of [
      rpc(1, 'ping'),
      rpc(2, 'resources/subscribe', { uri: 'docs://a' }),
      rpc(3, 'resources/unsubscribe', { uri: 'docs://b' }),
    ]) {
      expect(await dispatcher.receive(message, env)).not.toHaveProperty('client');
    }
  });

  it('a batch: later messages see earlier changes, and the outcome holds them all', async () => {
    const { dispatcher } = setup();
    const env = testEnv('2025-03-26');
    const outcome: DispatchOutcome = await dispatcher.receive(
      [
        rpc(1, 'resources/subscribe', { uri: 'docs://a' }),
        rpc(2, 'resources/subscribe', { uri: 'docs://b' }),
        rpc(3, 'logging/setLevel', { level: 'error' }),
      ],
      env,
    );
    expect(outcome.kind).toBe('answered');
    expect((outcome.client as ClientState).subscriptions).toEqual(['docs://a', 'docs://b']);
    expect((outcome.client as ClientState).logLevel).toBe('error');
    expect(env.client.subscriptions).toEqual([]);
  });

  it('ctx.log reads the level a batch set before it', async () => {
    const { dispatcher } = setup();
    const sent: unknown[] = [];
    const channel = {
      canStream: true,
      send: async (m: unknown) => void sent.push(m),
      nextRequestId: () => 1,
      awaitAnswer: async () => ({ answer: new Promise<never>(() => undefined), stop: () => undefined }),
      deliver: async () => undefined,
      closeStream: () => undefined,
    };
    await dispatcher.receive(
      [rpc(1, 'logging/setLevel', { level: 'error' }), rpc(2, 'tools/call', { name: 'logs' })],
      testEnv('2025-03-26', { channel }),
    );
    expect(sent).toEqual([]);
    await dispatcher.receive([rpc(3, 'tools/call', { name: 'logs' })], testEnv('2025-03-26', { channel }));
    expect(sent).toHaveLength(1);
  });
});

describe('method table: eras', () => {
  it.each(['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe'])(
    '%s is unknown (-32601) in the 2026 era',
    async (method) => {
      const { dispatcher } = setup();
      const outcome = await dispatcher.receive(
        rpc(1, method, { uri: 'docs://a', level: 'info', protocolVersion: '2025-11-25' }),
        testEnv('2025-11-25', { era: '2026' }),
      );
      expect(outcome).toEqual({
        kind: 'answered',
        body: { jsonrpc: '2.0', id: 1, error: { code: -32601, message: `Method not found: ${method}` } },
      });
    },
  );

  it.each(['tools/list', 'resources/list', 'resources/templates/list'])('%s is served in both eras', async (method) => {
    const { dispatcher } = setup();
    for (const era of ['2025', '2026'] as const) {
      const outcome = await dispatcher.receive(rpc(1, method), testEnv('2025-11-25', { era }));
      expect(outcome.kind === 'answered' && 'result' in (outcome.body as object)).toBe(true);
    }
  });

  it('a method whose capability was never offered is -32601 (no prompts registered)', async () => {
    const { dispatcher } = setup();
    const outcome = await dispatcher.receive(rpc(1, 'prompts/list'), testEnv());
    expect(outcome).toEqual({
      kind: 'answered',
      body: { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found: prompts/list' } },
    });
  });
});
