// MCP 2026-07-28 input_required over HTTP against real express() apps: tools, prompts and resources ask, the client retries.

import type { Express } from 'express';
import { ErrorCode, type McpRouter, type McpRouterOptions, type RequestContext } from '../../lib';
import { createApp, silentLogger } from '../helpers/create-app';
import { modern } from '../helpers/modern';
import { Signal } from '../helpers/events';

const CAPS = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, sampling: {}, roots: {} } };
const YES = { action: 'accept', content: { ok: true } };
const SAMPLED = { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'm' };
const STATE_KEY = 'a-key-of-thirty-two-bytes-or-more!!';

/** How often each handler ran: a handler runs again on every retry, up to where it asks. */
let runs: Record<string, number>;

const confirm = (ctx: RequestContext, message: string) =>
  ctx.elicit({ message, requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } });

function setup(mcp: McpRouter): void {
  mcp.tool({
    name: 'book',
    description: 'Books seats after a confirmation',
    inputSchema: { type: 'object', properties: { seats: { type: 'integer' } }, required: ['seats'] },
    handler: async ({ seats }: { seats: number }, ctx) => {
      runs.book = (runs.book ?? 0) + 1;
      const answer = await confirm(ctx, `Book ${seats} seats?`);
      return answer.action === 'accept' ? `booked ${seats}` : 'not booked';
    },
  });
  mcp.tool({
    name: 'plan',
    description: 'Asks the user and the model together',
    handler: async (_args, ctx) => {
      const [answer, said] = await Promise.all([
        confirm(ctx, 'Plan?'),
        ctx.sample({ messages: [], maxTokens: 5 }, { key: 'capital' }),
      ]);
      return `${String(answer.action)} ${JSON.stringify(said.content)}`;
    },
  });
  mcp.prompt({
    name: 'greet',
    description: 'Greets the user by a name it asks for',
    get: async (_args, ctx) => {
      const answer = await ctx.elicit(
        { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } },
        { key: 'name' },
      );
      return `Hello, ${String((answer.content as { name?: unknown }).name)}`;
    },
  });
  mcp.resource({
    uri: 'docs://roots',
    name: 'roots',
    cache: { ttlMs: 60_000 },
    read: async (_uri, ctx) => {
      runs.roots = (runs.roots ?? 0) + 1;
      const listed = await ctx.listRoots({ key: 'roots' });
      return JSON.stringify(listed.roots);
    },
  });
}

function app(options: Partial<McpRouterOptions> = {}): Express {
  return createApp({ logger: silentLogger(), inputRequired: { stateKey: STATE_KEY }, ...options }, setup);
}

beforeEach(() => {
  runs = {};
});

describe('tools/call', () => {
  it('ends with input_required, then completes on the retry with the answer and the echoed state; the handler runs twice', async () => {
    const server = app();
    const first = await modern(server, 'tools/call', { name: 'book', arguments: { seats: 2 } }, {}, CAPS)
      .expect(200)
      .expect('Content-Type', /application\/json/);
    const { result } = first.body;
    expect(result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { 'elicitation-1': { method: 'elicitation/create', params: { message: 'Book 2 seats?' } } },
    });
    expect(typeof result.requestState).toBe('string');
    expect(result).not.toHaveProperty('ttlMs');
    expect(result).not.toHaveProperty('cacheScope');
    expect(result._meta).toHaveProperty(['io.modelcontextprotocol/serverInfo']);

    const retry = await modern(
      server,
      'tools/call',
      {
        name: 'book',
        arguments: { seats: 2 },
        inputResponses: { 'elicitation-1': YES },
        requestState: result.requestState,
      },
      {},
      CAPS,
    ).expect(200);
    expect(retry.body.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'booked 2' }] });
    expect(runs.book).toBe(2);
  });

  it("aborts the asking run's signal once the call is answered with input_required, so what it started stops (a forwarded upstream call)", async () => {
    let aborted: unknown;
    const abort = new Signal();
    const server = createApp({ logger: silentLogger(), inputRequired: { stateKey: STATE_KEY } }, (mcp) => {
      mcp.tool({
        name: 'ask_then_fetch',
        description: 'Asks; its signal says when its run is over',
        handler: async (_args, ctx) => {
          ctx.signal.addEventListener(
            'abort',
            () => {
              aborted = ctx.signal.reason;
              abort.notify();
            },
            { once: true },
          );
          await confirm(ctx, 'Go?');
          return 'went';
        },
      });
    });
    const first = await modern(server, 'tools/call', { name: 'ask_then_fetch', arguments: {} }, {}, CAPS).expect(200);
    expect(first.body.result.resultType).toBe('input_required');
    await abort.when(() => aborted !== undefined, 'the run’s signal to abort');
    expect(String(aborted)).toContain('input_required');
  });

  it('gathers the asks a handler awaits together into one input_required', async () => {
    const res = await modern(app(), 'tools/call', { name: 'plan', arguments: {} }, {}, CAPS).expect(200);
    expect(Object.keys(res.body.result.inputRequests).sort()).toEqual(['capital', 'elicitation-1']);
    const retry = await modern(
      app(),
      'tools/call',
      { name: 'plan', arguments: {}, inputResponses: { 'elicitation-1': YES, capital: SAMPLED } },
      {},
      CAPS,
    ).expect(200);
    expect(retry.body.result.content).toEqual([{ type: 'text', text: 'accept {"type":"text","text":"Paris"}' }]);
  });

  it('refuses a tampered requestState with -32602 in-band, without running the handler', async () => {
    const server = app();
    const first = await modern(server, 'tools/call', { name: 'book', arguments: { seats: 2 } }, {}, CAPS);
    const res = await modern(
      server,
      'tools/call',
      {
        name: 'book',
        arguments: { seats: 2 },
        inputResponses: { 'elicitation-1': YES },
        requestState: `${first.body.result.requestState}-TAMPERED`,
      },
      {},
      CAPS,
    ).expect(200);
    expect(res.body.error).toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringMatching(/integrity check/),
    });
    expect(runs.book).toBe(1);
  });

  it('refuses a state echoed on a call with other arguments, and one minted by a router with another key', async () => {
    const first = await modern(app(), 'tools/call', { name: 'book', arguments: { seats: 2 } }, {}, CAPS);
    const { requestState } = first.body.result;
    const other = await modern(
      app(),
      'tools/call',
      { name: 'book', arguments: { seats: 9 }, inputResponses: { 'elicitation-1': YES }, requestState },
      {},
      CAPS,
    );
    expect(other.body.error).toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringMatching(/another call/),
    });
    const elsewhere = await modern(
      app({ inputRequired: {} }),
      'tools/call',
      { name: 'book', arguments: { seats: 2 }, inputResponses: { 'elicitation-1': YES }, requestState },
      {},
      CAPS,
    );
    expect(elsewhere.body.error).toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringMatching(/integrity check/),
    });
  });

  it("refuses a state minted for another principal's token", async () => {
    const server = app({
      auth: {
        tokens: [
          { token: 'alice-token', subject: 'alice' },
          { token: 'mallory-token', subject: 'mallory' },
        ],
      },
    });
    const first = await modern(
      server,
      'tools/call',
      { name: 'book', arguments: { seats: 1 } },
      { Authorization: 'Bearer alice-token' },
      CAPS,
    ).expect(200);
    const params = {
      name: 'book',
      arguments: { seats: 1 },
      inputResponses: { 'elicitation-1': YES },
      requestState: first.body.result.requestState,
    };
    const stolen = await modern(server, 'tools/call', params, { Authorization: 'Bearer mallory-token' }, CAPS).expect(
      200,
    );
    expect(stolen.body.error).toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringMatching(/another call/),
    });
    const own = await modern(server, 'tools/call', params, { Authorization: 'Bearer alice-token' }, CAPS).expect(200);
    expect(own.body.result.content).toEqual([{ type: 'text', text: 'booked 1' }]);
  });

  it('asks again when the retry lacks the answer, and ignores keys nobody asked for', async () => {
    const res = await modern(
      app(),
      'tools/call',
      { name: 'book', arguments: { seats: 2 }, inputResponses: { other: YES } },
      {},
      CAPS,
    ).expect(200);
    expect(res.body.result.resultType).toBe('input_required');
    expect(Object.keys(res.body.result.inputRequests)).toEqual(['elicitation-1']);
  });

  it.each([
    ['inputResponses: null', { inputResponses: null }],
    ['an answer of the wrong shape', { inputResponses: { 'elicitation-1': 12345 } }],
    ['a requestState that is not a string', { requestState: { forged: true } }],
  ])('answers %s with -32602', async (_case, extra) => {
    const res = await modern(app(), 'tools/call', { name: 'book', arguments: { seats: 2 }, ...extra }, {}, CAPS).expect(
      200,
    );
    expect(res.body.error.code).toBe(ErrorCode.InvalidParams);
  });

  it('asks only for a capability the request declared: otherwise 400 -32021 naming it', async () => {
    const res = await modern(
      app(),
      'tools/call',
      { name: 'book', arguments: { seats: 2 } },
      {},
      { 'io.modelcontextprotocol/clientCapabilities': { sampling: {} } },
    ).expect(400);
    expect(res.body.error).toMatchObject({
      code: ErrorCode.MissingRequiredClientCapability,
      data: { requiredCapabilities: { elicitation: {} } },
    });
  });
});

describe('prompts/get and resources/read', () => {
  it('prompts/get asks under its explicit key and completes on the retry', async () => {
    const first = await modern(app(), 'prompts/get', { name: 'greet' }, {}, CAPS).expect(200);
    expect(first.body.result.inputRequests).toEqual({
      name: { method: 'elicitation/create', params: expect.objectContaining({ message: 'Name?' }) },
    });
    const retry = await modern(
      app(),
      'prompts/get',
      {
        name: 'greet',
        inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } },
        requestState: first.body.result.requestState,
      },
      {},
      CAPS,
    ).expect(200);
    expect(retry.body.result).toMatchObject({
      resultType: 'complete',
      messages: [{ role: 'user', content: { type: 'text', text: 'Hello, Ada' } }],
    });
  });

  it('resources/read asks for roots with no cache hints, and its complete result has them', async () => {
    const first = await modern(app(), 'resources/read', { uri: 'docs://roots' }, {}, CAPS).expect(200);
    expect(first.body.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { roots: { method: 'roots/list', params: {} } },
    });
    expect(first.body.result).not.toHaveProperty('ttlMs');
    const retry = await modern(
      app(),
      'resources/read',
      {
        uri: 'docs://roots',
        inputResponses: { roots: { roots: [{ uri: 'file:///w' }] } },
        requestState: first.body.result.requestState,
      },
      {},
      CAPS,
    ).expect(200);
    expect(retry.body.result).toMatchObject({
      resultType: 'complete',
      ttlMs: 60_000,
      contents: [{ uri: 'docs://roots', text: '[{"uri":"file:///w"}]' }],
    });
  });

  it('never answers input_required from a method that may not (lists ignore inputResponses and requestState)', async () => {
    for (const method of ['tools/list', 'prompts/list', 'resources/list']) {
      const res = await modern(app(), method, { inputResponses: { x: YES }, requestState: 'forged' }, {}, CAPS).expect(
        200,
      );
      expect(res.body.result.resultType).toBe('complete');
    }
  });
});

describe('no server→client request on a modern request', () => {
  it('replies with one JSON response even when the client accepts SSE: the ask travels in the result', async () => {
    const res = await modern(app(), 'tools/call', { name: 'plan', arguments: {} }, {}, CAPS).expect(200);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 7, result: { resultType: 'input_required' } });
    expect(res.body).not.toHaveProperty('method');
  });
});
