// Long-running tasks over HTTP against real express() apps, in both eras: the 2026 extension (SEP-2663) and 2025-11-25 experimental tasks.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { setImmediate as turn } from 'node:timers/promises';
import express from 'express';
import type { McpRouter } from '../../lib';
import { createApp, post, rpc, silentLogger } from '../helpers/create-app';
import { modern } from '../helpers/modern';
import { messageOf, SseReader } from '../helpers/sse';
import { Signal } from '../helpers/events';
import { until as waitUntil } from '../helpers/until';

const TASKS = 'io.modelcontextprotocol/tasks';
const WITH_TASKS = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, extensions: { [TASKS]: {} } } };
const ALICE = { Authorization: 'Bearer alice-token' };
const BOB = { Authorization: 'Bearer bob-token' };

/** What the handlers saw, per test: `waiting` counts the `gated` handlers listening for their abort. */
let seen: { aborted: boolean[]; finished: number; waiting: number };
/** Told at each change of `seen.aborted` and `seen.waiting`. */
const handlerSaw = new Signal();
/** Released by the test to let the `gated` tool finish. */
let release: () => void;

function setup(mcp: McpRouter): void {
  mcp.tool({
    name: 'gated',
    description: 'Waits until the test releases it (or the task is cancelled)',
    task: 'optional',
    handler: async (_args, ctx) => {
      await ctx.progress(1, 2, 'waiting');
      await new Promise<void>((resolve, reject) => {
        release = resolve;
        ctx.signal.addEventListener('abort', () => {
          seen.aborted.push(true);
          handlerSaw.notify();
          reject(new Error('aborted'));
        });
        seen.waiting++;
        handlerSaw.notify();
      });
      seen.finished++;
      return { done: true, aborted: ctx.signal.aborted };
    },
  });
  mcp.tool({ name: 'only_task', description: 'Runs only as a task', task: 'required', handler: () => 'ran' });
  mcp.tool({
    name: 'ask_then_task',
    description: 'Asks a name as a plain call, then continues as a task',
    task: 'optional',
    taskStart: 'handler',
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit(
        { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } },
        { key: 'name' },
      );
      const becameTask = await ctx.continueAsTask();
      const later = await ctx.continueAsTask();
      return `${String((answer.content as { name?: string }).name)}: task=${becameTask} again=${later} aborted=${ctx.signal.aborted}`;
    },
  });
  mcp.tool({ name: 'plain', description: 'Never a task', handler: () => 'plain' });
  mcp.tool({
    name: 'confirm',
    description: 'Asks the user',
    task: 'optional',
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({
        message: 'Sure?',
        requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
      });
      return `answer ${JSON.stringify(answer.content)}`;
    },
  });
}

function appWith(options: Parameters<typeof createApp>[0] = {}): Express {
  return createApp(
    {
      logger: silentLogger(),
      auth: {
        tokens: [
          { token: 'alice-token', subject: 'alice' },
          { token: 'bob-token', subject: 'bob' },
        ],
      },
      ...options,
    },
    setup,
  );
}

/** A 2026 request declaring the extension, as `who`. */
function call2026(
  app: Express,
  method: string,
  params: Record<string, unknown>,
  who = ALICE,
  meta: Record<string, unknown> = WITH_TASKS,
) {
  const name = method.startsWith('tasks/') ? (params.taskId as string) : undefined;
  return modern(app, method, params, { ...who, ...(name === undefined ? {} : { 'Mcp-Name': name }) }, meta);
}

/** Reads until `done` holds (see helpers/until) and returns the last value read, done or not: the test checks it. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 3000): Promise<T> {
  let value = await read();
  await waitUntil(async () => done((value = await read())), 'the value', timeoutMs).catch(() => undefined);
  return value;
}

/** `app` behind a counter of the requests whose body the router has read (after that it only awaits), told to `read`. */
function countingReads(app: Express): { app: Express; reads: () => number; read: Signal } {
  let reads = 0;
  const read = new Signal();
  const outer = express();
  outer.use((req, _res, next) => {
    req.once('end', () => {
      reads++;
      read.notify();
    });
    next();
  });
  outer.use(app);
  return { app: outer, reads: () => reads, read };
}

beforeEach(() => {
  seen = { aborted: [], finished: 0, waiting: 0 };
});

describe('MCP 2026-07-28 tasks extension (SEP-2663)', () => {
  it('advertises the extension in server/discover', async () => {
    const res = await modern(appWith(), 'server/discover', {}, ALICE);
    expect(res.body.result.capabilities.extensions).toEqual({ [TASKS]: {} });
    expect(res.body.result.capabilities.tasks).toBeUndefined();
  });

  it('answers a task tool with a flat CreateTaskResult, then tasks/get polls it to completion with the result inlined', async () => {
    const app = appWith();
    const created = await call2026(app, 'tools/call', { name: 'gated', arguments: {} });
    expect(created.status).toBe(200);
    const task = created.body.result;
    expect(task).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 3_600_000, pollIntervalMs: 1000 });
    expect(task.taskId).toEqual(expect.any(String));
    expect(Number.isNaN(Date.parse(task.createdAt))).toBe(false);
    expect(task).not.toHaveProperty('task');
    // Durably created: readable at once; progress is its statusMessage.
    const working = await until(
      () => call2026(app, 'tasks/get', { taskId: task.taskId }),
      (res) => res.body.result?.statusMessage !== undefined,
    );
    expect(working.body.result).toMatchObject({
      resultType: 'complete',
      taskId: task.taskId,
      status: 'working',
      statusMessage: 'waiting (1/2)',
    });
    release();
    const done = await until(
      () => call2026(app, 'tasks/get', { taskId: task.taskId }),
      (res) => res.body.result.status === 'completed',
    );
    expect(done.body.result.result.structuredContent).toEqual({ done: true, aborted: false });
  });

  it('tasks/cancel acks empty, the task turns cancelled and its handler sees ctx.signal abort', async () => {
    const app = appWith();
    const { taskId } = (await call2026(app, 'tools/call', { name: 'gated', arguments: {} })).body.result;
    await until(
      () => call2026(app, 'tasks/get', { taskId }),
      (res) => res.body.result?.statusMessage !== undefined,
    );
    const ack = await call2026(app, 'tasks/cancel', { taskId });
    expect(ack.body.result).toEqual({ resultType: 'complete', _meta: expect.any(Object) });
    expect(seen.aborted).toEqual([true]);
    const after = await call2026(app, 'tasks/get', { taskId });
    expect(after.body.result.status).toBe('cancelled');
    // Cancelling a finished task is the same empty ack (SEP-2663: cooperative, idempotent).
    expect((await call2026(app, 'tasks/cancel', { taskId })).body.result.resultType).toBe('complete');
  });

  it('hides a task from another principal: tasks/get, update and cancel answer -32602 as for an unknown id', async () => {
    const app = appWith();
    const { taskId } = (await call2026(app, 'tools/call', { name: 'gated', arguments: {} })).body.result;
    const unknown = await call2026(app, 'tasks/get', { taskId: 'no-such-task' });
    expect(unknown.body.error.code).toBe(-32602);
    for (const [method, params] of [
      ['tasks/get', { taskId }],
      ['tasks/cancel', { taskId }],
      ['tasks/update', { taskId, inputResponses: {} }],
    ] as const) {
      const foreign = await call2026(app, method, params, BOB);
      expect(foreign.body.error.code).toBe(-32602);
      expect(foreign.body.error.message).toMatch(/Task not found/);
    }
    expect(seen.aborted).toEqual([]);
    release();
  });

  it('keeps running when the HTTP client hangs up after the handle', async () => {
    const app = appWith();
    const server = app.listen(0, '127.0.0.1');
    const closed: Promise<unknown>[] = [];
    server.on('connection', (socket) => closed.push(new Promise((resolve) => socket.once('close', resolve))));
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const body = JSON.stringify(
        rpc(
          'tools/call',
          {
            name: 'gated',
            arguments: {},
            _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', ...WITH_TASKS },
          },
          1,
        ),
      );
      const taskId = await new Promise<string>((resolve, reject) => {
        const req = http.request({
          port,
          host: '127.0.0.1',
          path: '/mcp',
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': 'tools/call',
            'mcp-name': 'gated',
            ...ALICE,
          },
        });
        req.on('response', (res) => {
          res.once('data', (chunk: Buffer) => {
            const id = /"taskId":"([^"]+)"/.exec(chunk.toString())?.[1];
            // Hang up at once: the socket goes, with whatever remains unread.
            req.destroy();
            if (id) resolve(id);
            else reject(new Error(chunk.toString()));
          });
        });
        req.on('error', () => undefined);
        req.end(body);
      });
      // The server saw the hang-up (and one more turn of the event loop let its close handlers run).
      await Promise.all(closed);
      await turn();
      expect(seen.aborted).toEqual([]);
      release();
      const done = await until(
        () => call2026(app, 'tasks/get', { taskId }),
        (res) => res.body.result.status === 'completed',
      );
      expect(done.body.result.result.structuredContent).toEqual({ done: true, aborted: false });
    } finally {
      server.close();
    }
  });

  it('refuses a task-only tool without the extension (-32021 naming it), and runs an optional one as a plain call', async () => {
    const app = appWith();
    const refused = await call2026(app, 'tools/call', { name: 'only_task', arguments: {} }, ALICE, {});
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
    });
    const plain = await call2026(app, 'tools/call', { name: 'plain', arguments: {}, task: { ttl: 1000 } });
    expect(plain.body.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'plain' }] });
  });

  it('gates tasks/* on the extension (-32021) and has no tasks/result or tasks/list (-32601)', async () => {
    const app = appWith();
    const gated = await call2026(app, 'tasks/get', { taskId: 'x' }, ALICE, {});
    expect(gated.body.error.code).toBe(-32021);
    for (const method of ['tasks/result', 'tasks/list']) {
      expect((await call2026(app, method, { taskId: 'x' })).body.error.code).toBe(-32601);
    }
  });

  it('turns ctx.elicit into input_required with inputRequests, answered by tasks/update', async () => {
    const app = appWith();
    const { taskId } = (await call2026(app, 'tools/call', { name: 'confirm', arguments: {} })).body.result;
    const waiting = await until(
      () => call2026(app, 'tasks/get', { taskId }),
      (res) => res.body.result.status === 'input_required',
    );
    const key = Object.keys(waiting.body.result.inputRequests)[0] as string;
    expect(waiting.body.result.inputRequests[key]).toMatchObject({
      method: 'elicitation/create',
      params: { message: 'Sure?' },
    });
    const ignored = await call2026(app, 'tasks/update', {
      taskId,
      inputResponses: { 'not-asked': { action: 'accept' } },
    });
    expect(ignored.body.result.resultType).toBe('complete');
    await call2026(app, 'tasks/update', {
      taskId,
      inputResponses: { [key]: { action: 'accept', content: { ok: true } } },
    });
    const done = await until(
      () => call2026(app, 'tasks/get', { taskId }),
      (res) => res.body.result.status === 'completed',
    );
    expect(done.body.result.result.content[0].text).toBe('answer {"ok":true}');
  });

  it("taskStart 'handler': asks through the call's input_required round, then the call becomes a task whose result carries the answer", async () => {
    const app = appWith();
    const first = await call2026(app, 'tools/call', { name: 'ask_then_task', arguments: {} });
    expect(first.body.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { name: { method: 'elicitation/create' } },
    });
    expect(first.body.result.taskId).toBeUndefined();
    const retry = await call2026(app, 'tools/call', {
      name: 'ask_then_task',
      arguments: {},
      inputResponses: { name: { action: 'accept', content: { name: 'Alice' } } },
      requestState: first.body.result.requestState,
    });
    expect(retry.body.result).toMatchObject({ resultType: 'task', status: 'working' });
    expect(retry.body.result.requestState).toBeUndefined();
    const done = await until(
      () => call2026(app, 'tasks/get', { taskId: retry.body.result.taskId }),
      (res) => res.body.result.status === 'completed',
    );
    expect(done.body.result.result.content).toEqual([
      { type: 'text', text: 'Alice: task=true again=false aborted=false' },
    ]);
  });

  it("taskStart 'handler' without the extension: a plain call, continueAsTask() resolves false", async () => {
    const app = appWith();
    const answers = { inputResponses: { name: { action: 'accept', content: { name: 'Bo' } } } };
    const res = await call2026(app, 'tools/call', { name: 'ask_then_task', arguments: {}, ...answers }, ALICE, {
      'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
    });
    expect(res.body.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'Bo: task=false again=false aborted=false' }],
    });
  });

  it('checks Mcp-Name against params.taskId on tasks/get (-32020)', async () => {
    const res = await modern(appWith(), 'tasks/get', { taskId: 'a' }, { ...ALICE, 'Mcp-Name': 'b' }, WITH_TASKS);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(-32020);
  });
});

describe('MCP 2025-11-25 experimental tasks (sessions)', () => {
  async function session(
    app: Express,
    who = ALICE,
  ): Promise<(method: string, params?: Record<string, unknown>) => Promise<{ body: any }>> {
    const init = await post(
      app,
      rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } }),
      who,
    );
    const sessionId = init.header['mcp-session-id'];
    expect(init.body.result.capabilities.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const headers = {
      ...who,
      'Mcp-Session-Id': sessionId,
      'MCP-Protocol-Version': '2025-11-25',
      Accept: 'application/json',
    };
    let id = 1;
    return async (method, params) => post(app, rpc(method, params, ++id), headers);
  }

  it('lists execution.taskSupport, creates a task from the task param, polls it and returns the result by tasks/result', async () => {
    const counting = countingReads(appWith({ sessions: {} }));
    const app = counting.app;
    const send = await session(app);
    const tools = (await send('tools/list')).body.result.tools;
    expect(tools.find((tool: { name: string }) => tool.name === 'gated').execution).toEqual({
      taskSupport: 'optional',
    });
    const created = (await send('tools/call', { name: 'gated', arguments: {}, task: { ttl: 60_000 } })).body.result;
    expect(created.task).toMatchObject({ status: 'working', ttl: 60_000, pollInterval: 1000 });
    const { taskId } = created.task;
    expect((await send('tasks/get', { taskId })).body.result).toMatchObject({ taskId, status: 'working' });
    expect((await send('tasks/list')).body.result.tasks.map((task: { taskId: string }) => task.taskId)).toEqual([
      taskId,
    ]);
    const reads = counting.reads();
    const result = send('tasks/result', { taskId });
    // tasks/result waits for the task: release it once the router has the request.
    await counting.read.when(() => counting.reads() > reads, 'tasks/result read');
    await turn();
    release();
    const body = (await result).body;
    expect(body.result.structuredContent).toEqual({ done: true, aborted: false });
    expect(body.result._meta['io.modelcontextprotocol/related-task']).toEqual({ taskId });
  });

  it('lets go of a task whose handler outlives its ttl: ctx.signal aborts, and the task is gone', async () => {
    const app = appWith({ sessions: {} });
    const send = await session(app);
    const { taskId } = (await send('tools/call', { name: 'gated', arguments: {}, task: { ttl: 80 } })).body.result.task;
    // At most 3 s, as this file's polls of tasks/get: then the assertion says what happened.
    await handlerSaw.when(() => seen.aborted.length === 1, 'the handler to abort', 3000).catch(() => undefined);
    const after = (await send('tasks/get', { taskId })).body;
    // Failed at the TTL, or already swept by the store: either way nobody gets a result the work did not finish.
    expect([-32602, 'failed']).toContain(after.error?.code ?? after.result?.status);
  });

  it('cancels with tasks/cancel (the task returned cancelled, the handler aborted); a finished task → -32602', async () => {
    const app = appWith({ sessions: {} });
    const send = await session(app);
    const { taskId } = (await send('tools/call', { name: 'gated', arguments: {}, task: {} })).body.result.task;
    await handlerSaw.when(() => seen.waiting === 1, 'the handler waiting');
    const cancelled = (await send('tasks/cancel', { taskId })).body.result;
    expect(cancelled).toMatchObject({ taskId, status: 'cancelled' });
    expect(seen.aborted).toEqual([true]);
    expect((await send('tasks/cancel', { taskId })).body.error.code).toBe(-32602);
  });

  it("taskStart 'handler' in a session: the ask goes to the client as a real request, then tasks/result has the task's result", async () => {
    const app = appWith({ sessions: {} });
    const init = await post(
      app,
      rpc('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: { elicitation: {} },
        clientInfo: { name: 't', version: '1' },
      }),
      ALICE,
    );
    const headers = {
      ...ALICE,
      'Mcp-Session-Id': init.header['mcp-session-id'] as string,
      'MCP-Protocol-Version': '2025-11-25',
    };
    await post(app, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    // The call's SSE reply carries the elicitation; the answer is POSTed while the reply stays open.
    const server = http.createServer(app).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const url = `http://127.0.0.1:${port}/mcp`;
      const call = await fetch(url, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify(rpc('tools/call', { name: 'ask_then_task', arguments: {}, task: {} }, 9)),
      });
      const events = new SseReader(call.body as ReadableStream<Uint8Array>);
      const next = async (): Promise<Record<string, any>> => {
        for (let event = await events.next(); event !== undefined; event = await events.next()) {
          const message = messageOf(event);
          if (message !== undefined) return message as Record<string, any>;
        }
        throw new Error('the stream ended');
      };
      const ask = await next();
      expect(ask.method).toBe('elicitation/create');
      await fetch(url, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { name: 'Cy' } } }),
      });
      const created = await next();
      expect(created).toMatchObject({ id: 9, result: { task: { status: 'working' } } });
      await events.cancel();
      const result = await post(app, rpc('tasks/result', { taskId: created.result.task.taskId }, 10), {
        ...headers,
        Accept: 'application/json',
      });
      expect(result.body.result.content).toEqual([{ type: 'text', text: 'Cy: task=true again=false aborted=false' }]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('hides tasks from another principal, refuses a task-only tool without task (-32601) and task on a plain tool (-32601)', async () => {
    const app = appWith({ sessions: {} });
    const alice = await session(app);
    const bob = await session(app, BOB);
    const { taskId } = (await alice('tools/call', { name: 'gated', arguments: {}, task: {} })).body.result.task;
    expect((await bob('tasks/get', { taskId })).body.error.code).toBe(-32602);
    expect((await bob('tasks/cancel', { taskId })).body.error.code).toBe(-32602);
    expect((await bob('tasks/list')).body.result.tasks).toEqual([]);
    expect((await alice('tools/call', { name: 'only_task', arguments: {} })).body.error.code).toBe(-32601);
    expect((await alice('tools/call', { name: 'plain', arguments: {}, task: {} })).body.error.code).toBe(-32601);
    release();
  });
});

describe('the task options of a tool, checked at registration', () => {
  const define = (extra: Record<string, unknown>) => () =>
    createApp({}, (mcp) => mcp.tool({ name: 't', description: 'A tool', handler: () => 'x', ...extra } as never));

  it.each([
    [{ task: 'sometimes' }, "tool 't' task must be 'optional' or 'required'"],
    [{ task: 'optional', taskStart: 'later' }, "tool 't' taskStart must be 'call' or 'handler'"],
    [{ taskStart: 'handler' }, "tool 't' taskStart: 'handler' needs task: 'optional' or 'required'"],
  ])('%j is refused', (extra, message) => {
    expect(define(extra)).toThrow(
      expect.objectContaining({ code: 'ERR_MCP_INVALID_DEFINITION', message: expect.stringContaining(message) }),
    );
  });

  it.each([[{ task: 'required', taskStart: 'handler' }], [{ task: 'optional', taskStart: 'call' }]])(
    '%j is taken',
    (extra) => {
      expect(define(extra)).not.toThrow();
    },
  );
});
