// Two router instances in separate processes on one real Redis, behind a round-robin proxy with no stickiness: sessions, streams, asks, cancellations, input_required and rate limits work across them.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { envelope, MODERN, nameOf } from '../../helpers/modern';
import { Signal } from '../../helpers/events';
import { until } from '../../helpers/until';
import { startCluster, type Cluster } from './cluster/cluster';
import { startRedis, type RedisServer } from './redis-server';

jest.setTimeout(60_000);

let redis: RedisServer;
let cluster: Cluster;
const clients: Client[] = [];

beforeAll(async () => {
  redis = await startRedis();
  cluster = await startCluster(redis.url);
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
});
afterAll(async () => {
  await cluster?.close();
  await redis?.close();
});

async function connect(capabilities: Record<string, unknown> = {}): Promise<Client> {
  const client = new Client({ name: 'cluster-test', version: '1.0.0' }, { capabilities });
  await client.connect(new StreamableHTTPClientTransport(new URL(cluster.url)));
  clients.push(client);
  return client;
}

/** Makes the proxy's next request go to `name`: harmless requests (400) advance the round robin. */
async function nextGoesTo(name: string): Promise<void> {
  for (let i = 0; i < 4; i++) {
    const last = cluster.routed.at(-1);
    if (last !== undefined && last.instance !== name) return;
    await fetch(cluster.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
  }
}

async function modernCall(
  method: string,
  params: Record<string, unknown>,
  meta: Record<string, unknown> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const name = nameOf(method, params);
  const response = await fetch(cluster.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      ...(name === undefined ? {} : { 'mcp-name': name }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: envelope(meta) } }),
  });
  const text = await response.text();
  const data = text.startsWith('{')
    ? text
    : (text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .at(-1)
        ?.slice(6) ?? '{}');
  return { status: response.status, body: JSON.parse(data) as Record<string, unknown> };
}

declare const EXPRESS_MAJOR: number;

it('runs each instance in its own process on the Express major of the jest project', () => {
  for (const instance of cluster.instances)
    expect(instance.output()).toContain(`${instance.name} express ${EXPRESS_MAJOR}.`);
});

it('a 2025 session made on one instance is used on the other', async () => {
  const client = await connect();
  const seen = new Set<string>();
  for (let i = 0; i < 4; i++)
    seen.add(
      ((await client.callTool({ name: 'whoami', arguments: {} })).structuredContent as { instance: string }).instance,
    );
  expect([...seen].sort()).toEqual(['A', 'B']);
  const initialize = cluster.routed.find((routed) => routed.rpc === 'initialize');
  expect(initialize).toBeDefined();
});

it("a session's GET stream on one instance hears a list change made on the other", async () => {
  let heard = 0;
  const listChanged = new Signal();
  const before = cluster.routed.length;
  const client = await connect();
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    heard++;
    listChanged.notify();
  });
  // The SDK opens its GET stream after initialize; wait until an instance holds it open (its answer started).
  const ours = (): typeof cluster.routed => cluster.routed.slice(before);
  await cluster.forwarded
    .when(() => ours().some((routed) => routed.http === 'GET' && routed.answered === 200), 'the GET stream open')
    .catch(() => undefined);
  const stream = ours().find((routed) => routed.http === 'GET')!;
  await nextGoesTo(stream.instance === 'A' ? 'B' : 'A');
  await client.callTool({ name: 'add_tool', arguments: { toolName: `t_${Date.now()}` } });
  const call = [...cluster.routed].reverse().find((routed) => routed.rpc === 'tools/call')!;
  expect(call.instance).not.toBe(stream.instance);
  await listChanged.when(() => heard > 0, 'the list change').catch(() => undefined);
  expect(heard).toBeGreaterThanOrEqual(1);
});

it('a tool on one instance asks the client, and gets the answer the client posted to the other', async () => {
  const client = await connect({ elicitation: {} });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { ok: true } }));
  const result = await client.callTool({ name: 'ask', arguments: {} });
  const { instance, answer } = result.structuredContent as { instance: string; answer: unknown };
  expect(answer).toEqual({ action: 'accept', content: { ok: true } });
  const posted = [...cluster.routed].reverse().find((routed) => routed.rpc === 'response')!;
  expect(posted.instance).not.toBe(instance);
});

it('a cancellation posted to the other instance aborts the handler where it runs', async () => {
  const client = await connect();
  const controller = new AbortController();
  const call = client
    .callTool({ name: 'hang', arguments: {} }, undefined, { signal: controller.signal })
    .catch(() => 'cancelled');
  const running = await cluster.waitForOutput('hang started');
  await nextGoesTo(running === 'A' ? 'B' : 'A');
  controller.abort();
  await call;
  const cancelled = (): (typeof cluster.routed)[number] | undefined =>
    [...cluster.routed].reverse().find((routed) => routed.rpc === 'notifications/cancelled');
  await cluster.forwarded.when(() => cancelled() !== undefined, 'the cancellation routed').catch(() => undefined);
  const cancel = cancelled();
  expect(cancel?.instance).not.toBe(running);
  expect(await cluster.waitForOutput(`${running} hang aborted`)).toBe(running);
});

it('an input_required retry signed on one instance is accepted on the other (2026)', async () => {
  const first = await modernCall(
    'tools/call',
    { name: 'ask', arguments: {} },
    { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } },
  );
  const result = first.body.result as {
    resultType: string;
    inputRequests: Record<string, unknown>;
    requestState: string;
  };
  expect(result.resultType).toBe('input_required');
  const asked = cluster.routed.at(-1)!.instance;
  await nextGoesTo(asked === 'A' ? 'B' : 'A');
  const [key] = Object.keys(result.inputRequests);
  const retry = await modernCall(
    'tools/call',
    {
      name: 'ask',
      arguments: {},
      inputResponses: { [key!]: { action: 'accept', content: { ok: true } } },
      requestState: result.requestState,
    },
    { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } },
  );
  expect(retry.status).toBe(200);
  const answered = (retry.body.result as { structuredContent: { instance: string } }).structuredContent;
  expect(answered.instance).not.toBe(asked);
});

it('counts the rate limit across both instances', async () => {
  const statuses: Array<{ status: number; instance: string }> = [];
  for (let i = 0; i < 110; i++) {
    const { status } = await modernCall('server/discover', {});
    statuses.push({ status, instance: cluster.routed.at(-1)!.instance });
    if (status === 429) break;
  }
  const limited = statuses.findIndex((entry) => entry.status === 429);
  expect(limited).toBeGreaterThan(-1);
  // Both instances served the requests that used up the one shared limit of 100, and the other refuses too now.
  expect(new Set(statuses.slice(0, limited).map((entry) => entry.instance))).toEqual(new Set(['A', 'B']));
  expect((await modernCall('server/discover', {})).status).toBe(429);
});

it('answers 503 with Retry-After while Redis is down, and serves again by itself once it is back', async () => {
  await redis.stop(true);
  const down = await fetch(cluster.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': 'server/discover',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: envelope() } }),
  });
  expect(down.status).toBe(503);
  expect(down.headers.get('retry-after')).toMatch(/^\d+$/);
  expect((await down.json()) as unknown).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
  await redis.start();
  let status = 0;
  await until(
    async () => (status = (await modernCall('server/discover', {})).status) === 200,
    'a 200 after the restart',
    15_000,
  ).catch(() => undefined);
  expect(status).toBe(200);
});
