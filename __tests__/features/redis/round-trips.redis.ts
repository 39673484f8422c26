// The Redis commands and round trips of one request, per kind, pinned: each is latency and CPU on every request of every instance, so a regression fails here.

import express, { type Express } from 'express';
import { createClient } from 'redis';
import { mcpRouter, type McpRouter } from '../../../lib';
import { redisStore, type RedisClientLike } from '../../../lib/redis';
import { notification, post, rpc } from '../../helpers/create-app';
import { modern } from '../../helpers/modern';
import { until } from '../../helpers/until';
import { useRedis } from './redis-server';

const redis = useRedis();
const routers: McpRouter[] = [];
const clients: Array<{ close(): Promise<unknown> }> = [];
afterEach(async () => {
  await Promise.all(routers.splice(0).map((mcp) => mcp.close()));
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

/** What one instance sent to Redis: command names, and round trips. */
interface Tally {
  commands: string[];
  roundTrips: number;
  /** Commands sent whose reply has not arrived. */
  pending: number;
}

/**
 * A real client that counts what the store sends through it. Commands sent before a reply to an earlier one arrived
 * share a round trip (node-redis writes them together); a command sent after a reply is a new one.
 */
async function countingClient(): Promise<{ client: RedisClientLike; tally: Tally }> {
  const client = createClient({ url: redis.url });
  await client.connect();
  clients.push(client);
  const tally: Tally = { commands: [], roundTrips: 0, pending: 0 };
  let replies = 0;
  let sentAfter = -1;
  const send = client.sendCommand.bind(client);
  client.sendCommand = ((args: readonly string[], ...rest: unknown[]) => {
    if (sentAfter !== replies) tally.roundTrips++;
    sentAfter = replies;
    tally.commands.push(String(args[0]));
    tally.pending++;
    const reply = (send as (...all: unknown[]) => Promise<unknown>)(args, ...rest);
    const settled = (): void => {
      replies++;
      tally.pending--;
    };
    reply.then(settled, settled);
    return reply;
  }) as typeof client.sendCommand;
  return { client: client as unknown as RedisClientLike, tally };
}

/** One router instance on the shared prefix, with its own counted connection (and a bearer token when `authenticated`). */
async function instance(prefix: string, authenticated = false): Promise<{ app: Express; tally: Tally }> {
  const { client, tally } = await countingClient();
  const mcp = mcpRouter({
    name: 'counted',
    version: '1.0.0',
    rateLimit: false,
    ...(authenticated ? { auth: { tokens: [{ token: 'alice-token', subject: 'alice' }] } } : {}),
    store: redisStore({ client, prefix }),
  });
  mcp.tool({
    name: 'add',
    description: 'Adds two numbers',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
    handler: ({ a, b }: { a: number; b: number }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  });
  routers.push(mcp);
  const app = express();
  app.use('/mcp', mcp);
  return { app, tally };
}

/** The commands and round trips `send` cost once every reply arrived. */
async function counted(
  tally: Tally,
  send: () => PromiseLike<{ status: number }>,
): Promise<{ commands: string[]; roundTrips: number; status: number }> {
  await until(() => tally.pending === 0, 'the earlier commands to settle');
  tally.commands = [];
  tally.roundTrips = 0;
  const { status } = await send();
  await until(() => tally.pending === 0, "the request's commands to settle");
  return { commands: tally.commands, roundTrips: tally.roundTrips, status };
}

async function initialize(app: Express, headers: Record<string, string> = {}): Promise<Record<string, string>> {
  const params = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } };
  const res = await post(app, rpc('initialize', params, 0), headers);
  expect(res.status).toBe(200);
  const session = {
    ...headers,
    'Mcp-Session-Id': res.headers['mcp-session-id'] as string,
    'MCP-Protocol-Version': '2025-11-25',
  };
  expect((await post(app, notification('notifications/initialized'), session)).status).toBe(202);
  return session;
}

const ADD = rpc('tools/call', { name: 'add', arguments: { a: 1, b: 2 } }, 1);

it('a 2025 session request is one command in one round trip (JSON reply, tools/list, a notification)', async () => {
  const { app, tally } = await instance('rt1:');
  const session = await initialize(app);
  expect(await counted(tally, () => post(app, ADD, session))).toEqual({
    commands: ['EVALSHA'],
    roundTrips: 1,
    status: 200,
  });
  expect(await counted(tally, () => post(app, rpc('tools/list', {}, 2), session))).toEqual({
    commands: ['EVALSHA'],
    roundTrips: 1,
    status: 200,
  });
  expect(await counted(tally, () => post(app, notification('notifications/roots/list_changed'), session))).toEqual({
    commands: ['EVALSHA'],
    roundTrips: 1,
    status: 202,
  });
});

it('an SSE reply adds its stream bookkeeping: open mark, priming event, response, finished mark', async () => {
  const { app, tally } = await instance('rt2:');
  const session = await initialize(app);
  // Once Redis knows the stream's scripts (a first run sends their text, EVAL, then EVALSHA only).
  expect((await post(app, ADD, { ...session, Accept: 'text/event-stream' })).status).toBe(200);
  expect(await counted(tally, () => post(app, ADD, { ...session, Accept: 'text/event-stream' }))).toEqual({
    commands: ['EVALSHA', 'EVALSHA', 'EVALSHA', 'EVALSHA', 'EVALSHA'],
    roundTrips: 5,
    status: 200,
  });
});

it("an authenticated session's principal is recorded in the same round trip once the instance knows it", async () => {
  const prefix = 'rt3:';
  const first = await instance(prefix, true);
  const second = await instance(prefix, true);
  const session = await initialize(first.app, { Authorization: 'Bearer alice-token' });
  // The other instance ready (it reads the shared requestState key before its first request), on no session.
  expect((await modern(second.app, 'tools/list', {}, { Authorization: 'Bearer alice-token' })).status).toBe(200);
  expect(await counted(first.tally, () => post(first.app, ADD, session))).toEqual({
    commands: ['EVALSHA'],
    roundTrips: 1,
    status: 200,
  });
  // The other instance reads the principal from the record on its first request: its set follows, once.
  expect(await counted(second.tally, () => post(second.app, ADD, session))).toEqual({
    commands: ['EVALSHA', 'ZADD', 'PEXPIRE'],
    roundTrips: 2,
    status: 200,
  });
  expect(await counted(second.tally, () => post(second.app, ADD, session))).toEqual({
    commands: ['EVALSHA'],
    roundTrips: 1,
    status: 200,
  });
});

it('a 2026-07-28 request sends nothing to Redis', async () => {
  const { app, tally } = await instance('rt4:');
  await initialize(app);
  expect(await counted(tally, () => modern(app, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } }))).toEqual({
    commands: [],
    roundTrips: 0,
    status: 200,
  });
});
