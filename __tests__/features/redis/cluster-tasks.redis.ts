// Two router instances on one Redis behind a round-robin proxy, MCP 2026-07-28: listen streams on either instance hear changes made on both, and a task started on one is polled and cancelled through the other.

import { envelope, MODERN, nameOf } from '../../helpers/modern';
import { messageOf, SseReader } from '../../helpers/sse';
import { startCluster, type Cluster } from './cluster/cluster';
import { startRedis, type RedisServer } from './redis-server';

jest.setTimeout(60_000);

const TASKS = 'io.modelcontextprotocol/tasks';
let redis: RedisServer;
let cluster: Cluster;
const readers: SseReader[] = [];

beforeAll(async () => {
  redis = await startRedis();
  cluster = await startCluster(redis.url);
});
afterEach(async () => {
  await Promise.all(readers.splice(0).map((reader) => reader.cancel()));
});
afterAll(async () => {
  await cluster?.close();
  await redis?.close();
});

function headersFor(method: string, params: Record<string, unknown>): Record<string, string> {
  const name = method.startsWith('tasks/') ? (params.taskId as string) : nameOf(method, params);
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
    ...(name === undefined ? {} : { 'mcp-name': name }),
  };
}

async function call(
  method: string,
  params: Record<string, unknown>,
  meta: Record<string, unknown> = {},
): Promise<{ status: number; body: Record<string, unknown>; instance: string }> {
  const response = await fetch(cluster.url, {
    method: 'POST',
    headers: headersFor(method, params),
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: envelope(meta) } }),
  });
  const instance = cluster.routed.at(-1)!.instance;
  const text = await response.text();
  const data = text.startsWith('{')
    ? text
    : (text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .at(-1)
        ?.slice(6) ?? '{}');
  return { status: response.status, body: JSON.parse(data) as Record<string, unknown>, instance };
}

async function listen(): Promise<{ reader: SseReader; instance: string }> {
  const params = { notifications: { toolsListChanged: true } };
  const response = await fetch(cluster.url, {
    method: 'POST',
    headers: headersFor('subscriptions/listen', params),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 9,
      method: 'subscriptions/listen',
      params: { ...params, _meta: envelope() },
    }),
  });
  expect(response.status).toBe(200);
  const instance = cluster.routed.at(-1)!.instance;
  const reader = new SseReader(response.body!);
  readers.push(reader);
  // The acknowledgment comes first (MCP 2026-07-28 subscriptions/listen).
  let first = await reader.next();
  while (first !== undefined && first.data === '') first = await reader.next();
  expect(messageOf(first!)?.method).toBe('notifications/subscriptions/acknowledged');
  return { reader, instance };
}

async function nextMethod(reader: SseReader): Promise<string | undefined> {
  for (;;) {
    const event = await reader.next();
    if (event === undefined) return undefined;
    if (event.data !== '') return messageOf(event)?.method as string;
  }
}

it('listen streams on both instances hear a list change made on either', async () => {
  const first = await listen();
  const second = await listen();
  expect(new Set([first.instance, second.instance])).toEqual(new Set(['A', 'B']));
  for (let round = 0; round < 2; round++) {
    const added = await call('tools/call', {
      name: 'add_tool',
      arguments: { toolName: `listen_${round}_${Date.now()}` },
    });
    expect(added.status).toBe(200);
    const heard = await Promise.all([nextMethod(first.reader), nextMethod(second.reader)]);
    expect(heard).toEqual(['notifications/tools/list_changed', 'notifications/tools/list_changed']);
  }
});

it('a task started on one instance is polled and cancelled through the other, which aborts it where it runs', async () => {
  const withTasks = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } } };
  const created = await call('tools/call', { name: 'long_task', arguments: {} }, withTasks);
  expect(created.body.result).toMatchObject({ resultType: 'task', status: 'working' });
  const { taskId } = created.body.result as { taskId: string };
  const runner = await cluster.waitForOutput('task started');
  expect(runner).toBe(created.instance);
  // Round robin: the next request goes to the other instance.
  const polled = await call('tasks/get', { taskId }, withTasks);
  expect(polled.instance).not.toBe(runner);
  expect(polled.body).toMatchObject({ result: { taskId, status: 'working' } });
  const cancelled = await call('tasks/cancel', { taskId }, withTasks);
  expect(cancelled.status).toBe(200);
  // The proxy alternates (create, then get on the other, then cancel): this cancel reached the runner; a second one
  // through the other instance is the cross-instance case (idempotent).
  expect(cancelled.instance).toBe(runner);
  expect((await call('tasks/cancel', { taskId }, withTasks)).instance).not.toBe(runner);
  expect(await cluster.waitForOutput(`${runner} task aborted`)).toBe(runner);
  const after = await call('tasks/get', { taskId }, withTasks);
  expect(after.body.result).toMatchObject({ taskId, status: 'cancelled' });
});
