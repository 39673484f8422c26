// Issue 29 items 5 and 6: a task-augmented tools/call is admitted (access, arguments, Mcp-Param headers, rate limit,
// guards, payment) before any task exists, and answers a refusal at once as a plain call would; answers to a task's
// asks (tasks/update) are validated as a 2026 retry's are.

import type { Express } from 'express';
import { type McpRouter } from '../../lib';
import { x402Guard, type PaymentFacilitator, type PaymentRequirements } from '../../lib/x402';
import { createApp, post, rpc, silentLogger } from '../helpers/create-app';
import { modern } from '../helpers/modern';
import { until } from '../helpers/until';
import { StreamedClientRequests } from '../../lib/core/protocol/client-requests';

const TASKS = 'io.modelcontextprotocol/tasks';
const WITH_TASKS = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, extensions: { [TASKS]: {} } } };
const ALICE = { Authorization: 'Bearer alice-token' };
const PRICE: PaymentRequirements = {
  scheme: 'exact',
  network: 'eip155:84532',
  amount: '1000',
  asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  payTo: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C',
  maxTimeoutSeconds: 60,
};

/** Handler runs and facilitator calls, per test. */
let runs: Record<string, number>;
let facilitatorCalls: { verify: number; settle: number };

const facilitator: PaymentFacilitator = {
  verify: async (payload) => {
    facilitatorCalls.verify++;
    return payload.payload.signature === 'ok'
      ? { isValid: true }
      : { isValid: false, invalidReason: 'invalid_signature' };
  },
  settle: async () => {
    facilitatorCalls.settle++;
    return { success: true, transaction: '0xtx', network: PRICE.network };
  },
};

function counted(name: string): () => string {
  return () => {
    runs[name] = (runs[name] ?? 0) + 1;
    return `${name} ran`;
  };
}

function setup(mcp: McpRouter): void {
  mcp.tool({
    name: 'strict',
    description: 'Needs an integer',
    task: 'optional',
    inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    handler: counted('strict'),
  });
  mcp.tool({
    name: 'limited',
    description: 'Once a minute',
    task: 'optional',
    rateLimit: { limit: 1, windowMs: 60_000 },
    handler: counted('limited'),
  });
  mcp.tool({
    name: 'secret',
    description: 'Admins only',
    task: 'optional',
    scopes: ['admin'],
    handler: counted('secret'),
  });
  mcp.tool({
    name: 'paid',
    description: 'Costs 0.001 USDC',
    task: 'optional',
    guards: [x402Guard({ facilitator, accepts: [PRICE] })],
    handler: counted('paid'),
  });
  mcp.tool({
    name: 'regional',
    description: 'Mirrors its region',
    task: 'optional',
    inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } },
    handler: counted('regional'),
  });
  mcp.tool({
    name: 'confirm',
    description: 'Asks the user, as a task',
    task: 'required',
    handler: async (_args, ctx) =>
      JSON.stringify(
        await ctx.elicit({
          message: 'Sure?',
          requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
        }),
      ),
  });
}

function appWith(): Express {
  return createApp({ logger: silentLogger(), auth: { tokens: [{ token: 'alice-token', subject: 'alice' }] } }, setup);
}

function call2026(app: Express, method: string, params: Record<string, unknown>, headers: Record<string, string> = {}) {
  const name = method.startsWith('tasks/') ? (params.taskId as string) : undefined;
  return modern(
    app,
    method,
    params,
    { ...ALICE, ...(name === undefined ? {} : { 'Mcp-Name': name }), ...headers },
    WITH_TASKS,
  );
}

function payment(signature: string): Record<string, unknown> {
  return {
    'x402/payment': {
      x402Version: 2,
      accepted: PRICE,
      payload: { signature, authorization: { nonce: `0x${signature}` } },
    },
  };
}

beforeEach(() => {
  runs = {};
  facilitatorCalls = { verify: 0, settle: 0 };
});

describe('tasks: admission before the task exists (issue 29 item 5), MCP 2026-07-28', () => {
  it('bad arguments: the invalid-arguments result at once, no task', async () => {
    const res = await call2026(appWith(), 'tools/call', { name: 'strict', arguments: { n: 'x' } });
    expect(res.body.result).toMatchObject({
      resultType: 'complete',
      isError: true,
      content: [{ text: expect.stringMatching(/Invalid arguments for tool 'strict'/) }],
    });
    expect(res.body.result.taskId).toBeUndefined();
    expect(runs.strict).toBeUndefined();
  });

  it('no access: the unknown-tool error at once (-32602), no task', async () => {
    const res = await call2026(appWith(), 'tools/call', { name: 'secret', arguments: {} });
    expect(res.body.error).toMatchObject({ code: -32602, message: 'Unknown tool: secret' });
  });

  it('over the per-tool rate limit: the over-limit result at once, no second task', async () => {
    const app = appWith();
    const first = await call2026(app, 'tools/call', { name: 'limited', arguments: {} });
    expect(first.body.result).toMatchObject({ resultType: 'task', status: 'working' });
    const second = await call2026(app, 'tools/call', { name: 'limited', arguments: {} });
    expect(second.body.result).toMatchObject({
      resultType: 'complete',
      isError: true,
      content: [{ text: expect.stringMatching(/over its rate limit/) }],
    });
    expect(second.body.result.taskId).toBeUndefined();
  });

  it('a mismatched Mcp-Param header: 400 -32020 at once, no task', async () => {
    const res = await call2026(
      appWith(),
      'tools/call',
      { name: 'regional', arguments: { region: 'eu' } },
      { 'Mcp-Param-Region': 'us' },
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: -32020, data: { header: 'Mcp-Param-Region' } });
    expect(runs.regional).toBeUndefined();
  });

  it('no payment: the x402 payment-required result at once, no task, the facilitator not asked', async () => {
    const res = await call2026(appWith(), 'tools/call', { name: 'paid', arguments: {} });
    expect(res.body.result).toMatchObject({
      resultType: 'complete',
      isError: true,
      structuredContent: { x402Version: 2, accepts: [expect.objectContaining({ amount: '1000' })] },
    });
    expect(res.body.result.taskId).toBeUndefined();
    expect(facilitatorCalls).toEqual({ verify: 0, settle: 0 });
  });

  it('a payment that fails verification: payment-required at once, no task', async () => {
    const res = await modern(appWith(), 'tools/call', { name: 'paid', arguments: {} }, ALICE, {
      ...WITH_TASKS,
      ...payment('forged'),
    });
    expect(res.body.result).toMatchObject({
      isError: true,
      structuredContent: { error: expect.stringMatching(/verification failed/) },
    });
    expect(res.body.result.taskId).toBeUndefined();
    expect(runs.paid).toBeUndefined();
  });

  it('a good payment: a task; the handler runs in it and the payment is settled on its result', async () => {
    const app = appWith();
    const res = await modern(app, 'tools/call', { name: 'paid', arguments: {} }, ALICE, {
      ...WITH_TASKS,
      ...payment('ok'),
    });
    expect(res.body.result).toMatchObject({ resultType: 'task' });
    const { taskId } = res.body.result;
    let done: Record<string, unknown> = {};
    await until(async () => {
      done = (await call2026(app, 'tasks/get', { taskId })).body.result;
      return done.status === 'completed';
    }, 'the paid task to complete');
    expect(done.result).toMatchObject({
      content: [{ text: 'paid ran' }],
      _meta: { 'x402/payment-response': { success: true, transaction: '0xtx' } },
    });
    expect(facilitatorCalls).toEqual({ verify: 1, settle: 1 });
    expect(runs.paid).toBe(1);
  });
});

describe('tasks: admission before the task exists (issue 29 item 5), MCP 2025-11-25', () => {
  async function session(app: Express): Promise<Record<string, string>> {
    const init = await post(
      app,
      rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } }),
      ALICE,
    );
    return {
      ...ALICE,
      'Mcp-Session-Id': init.header['mcp-session-id'] as string,
      'MCP-Protocol-Version': '2025-11-25',
      Accept: 'application/json',
    };
  }

  it.each([
    ['bad arguments', 'strict', { n: 'x' }, /Invalid arguments/],
    ['no payment', 'paid', {}, /x402Version/],
  ])('%s: an isError result at once, and tasks/list stays empty', async (_why, name, args, text) => {
    const app = createApp(
      { logger: silentLogger(), sessions: {}, auth: { tokens: [{ token: 'alice-token', subject: 'alice' }] } },
      setup,
    );
    const headers = await session(app);
    const res = await post(app, rpc('tools/call', { name, arguments: args, task: { ttl: 60_000 } }, 2), headers);
    expect(res.body.result).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(text) }] });
    expect(res.body.result.task).toBeUndefined();
    const list = await post(app, rpc('tasks/list', {}, 3), headers);
    expect(list.body.result.tasks).toEqual([]);
  });
});

describe('tasks/update validates answers as a retry does (issue 29 item 6)', () => {
  it.each([
    ['an unknown action', { action: 'banana', content: 5 }],
    ['content that is not an object', { action: 'accept', content: 5 }],
    ['content with a nested object', { action: 'accept', content: { ok: { deep: true } } }],
    ['not an object', 'yes'],
  ])('refuses %s with -32602 and leaves the ask outstanding', async (_why, answer) => {
    const app = appWith();
    const { taskId } = (await call2026(app, 'tools/call', { name: 'confirm', arguments: {} })).body.result;
    let waiting: Record<string, unknown> = {};
    await until(async () => {
      waiting = (await call2026(app, 'tasks/get', { taskId })).body.result;
      return waiting.status === 'input_required';
    }, 'the ask');
    const key = Object.keys(waiting.inputRequests as object)[0] as string;
    const refused = await call2026(app, 'tasks/update', { taskId, inputResponses: { [key]: answer } });
    expect(refused.body.error).toMatchObject({
      code: -32602,
      message: `Invalid params: inputResponses.${key} is not a valid elicitation/create result`,
    });
    expect((await call2026(app, 'tasks/get', { taskId })).body.result).toMatchObject({
      status: 'input_required',
      inputRequests: { [key]: expect.any(Object) },
    });
    // A good answer afterwards is taken, and the handler sees it.
    await call2026(app, 'tasks/update', {
      taskId,
      inputResponses: { [key]: { action: 'accept', content: { ok: true } } },
    });
    let done: Record<string, unknown> = {};
    await until(async () => {
      done = (await call2026(app, 'tasks/get', { taskId })).body.result;
      return done.status === 'completed';
    }, 'the task to complete');
    expect(done.result).toMatchObject({ content: [{ text: '{"action":"accept","content":{"ok":true}}' }] });
  });
});

describe('a 2025 POSTed answer is validated as a retry is (issue 29 item 6, the same class)', () => {
  it.each([
    ['elicitation/create', { action: 'banana', content: 5 }],
    ['sampling/createMessage', { role: 'robot', content: { type: 'text', text: 'hi' } }],
    ['roots/list', { roots: [{ name: 'no uri' }] }],
  ] as const)('%s answered %j: the ask rejects, the handler never gets it', async (method, result) => {
    const channel = {
      canStream: true,
      send: async () => undefined,
      nextRequestId: () => 1,
      awaitAnswer: async () => ({
        answer: Promise.resolve({ jsonrpc: '2.0' as const, id: 1, result }),
        stop: () => undefined,
      }),
      deliver: async () => undefined,
      closeStream: () => undefined,
    };
    const asking = new StreamedClientRequests(channel).request(method, {}, 5_000, new AbortController().signal);
    await expect(asking).rejects.toThrow(`ctx: the client's answer to ${method} is not a valid ${method} result`);
  });
});
