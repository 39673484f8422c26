// Limits that keep one client from exhausting the server: per-tool timeouts, open streams and pending client requests per session.

import express from 'express';
import { CreateMessageRequestSchema, type CreateMessageResult } from '@modelcontextprotocol/sdk/types.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { mcpRouter, type McpRouter, type McpRouterOptions, type RequestContext } from '../../../lib';
import { connectClient, type ConnectedClient } from '../../helpers/connect-client';
import { silentLogger } from '../../helpers/messages';

/** A promise and the function that settles it. */
function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((item) => item.close()));
});

async function serve(
  options: Partial<McpRouterOptions>,
  setup: (mcp: McpRouter) => void,
  client?: Client,
): Promise<ConnectedClient> {
  const mcp = mcpRouter({ name: 'limits', version: '1.0.0', rateLimit: false, logger: silentLogger(), ...options });
  setup(mcp);
  const app = express();
  app.use('/mcp', mcp);
  const connected = await connectClient(app, '/mcp', {}, client);
  opened.push(connected, mcp);
  return connected;
}

describe('a tool timeoutMs', () => {
  it('aborts the handler and answers an isError result that says it timed out', async () => {
    const aborted = deferred<unknown>();
    const { client } = await serve({}, (mcp) =>
      mcp.tool({
        name: 'slow',
        description: 'Waits until it is told to stop',
        timeoutMs: 100,
        handler: (_args, ctx) =>
          new Promise((resolve) =>
            ctx.signal.addEventListener('abort', () => {
              aborted.resolve(ctx.signal.reason);
              resolve('too late');
            }),
          ),
      }),
    );
    const result = await client.callTool({ name: 'slow', arguments: {} });
    expect(result).toEqual({ content: [{ type: 'text', text: "Tool 'slow' timed out after 100 ms" }], isError: true });
    expect(String(await aborted.promise)).toBe("Error: Tool 'slow' timed out after 100 ms");
  });

  it('leaves a tool that finishes in time alone', async () => {
    const { client } = await serve({}, (mcp) =>
      mcp.tool({ name: 'quick', description: 'Answers at once', timeoutMs: 60_000, handler: () => 'done' }),
    );
    expect(await client.callTool({ name: 'quick', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'done' }],
    });
  });

  it.each([[0], [-5], [1.5], ['100']])('refuses timeoutMs %p at registration', (timeoutMs) => {
    const mcp = mcpRouter({ name: 'limits', version: '1.0.0', rateLimit: false });
    expect(() => mcp.tool({ name: 't', description: 'd', timeoutMs: timeoutMs as number, handler: () => 'x' })).toThrow(
      expect.objectContaining({
        code: 'ERR_MCP_INVALID_DEFINITION',
        message: "mcpRouter: tool 't' timeoutMs must be a positive number of milliseconds",
      }),
    );
  });
});

describe('sessions.maxStreams', () => {
  it('answers with JSON (progress dropped) while the session already holds its most open streams', async () => {
    const release = deferred();
    const holding = deferred();
    const { client } = await serve({ sessions: { maxStreams: 1 } }, (mcp) => {
      mcp.tool({
        name: 'hold',
        description: 'Opens a stream and keeps it open',
        handler: async (_args, ctx: RequestContext) => {
          await ctx.progress(1, 2);
          holding.resolve();
          await release.promise;
          return 'released';
        },
      });
      mcp.tool({
        name: 'report',
        description: 'Reports progress',
        handler: async (_args, ctx: RequestContext) => (await ctx.progress(1, 1), 'reported'),
      });
    });
    const held = client.callTool({ name: 'hold', arguments: {} }, undefined, { onprogress: () => undefined });
    await holding.promise;
    const progress: unknown[] = [];
    const report = await client.callTool({ name: 'report', arguments: {} }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    expect(report).toEqual({ content: [{ type: 'text', text: 'reported' }] });
    expect(progress).toEqual([]);
    release.resolve();
    expect(await held).toEqual({ content: [{ type: 'text', text: 'released' }] });
  });
});

describe('sessions.maxPendingRequests', () => {
  it('refuses a request to the client once the session has its most waiting', async () => {
    const answer = deferred<CreateMessageResult>();
    const asked = deferred();
    const client = new Client({ name: 'sampler', version: '1.0.0' }, { capabilities: { sampling: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, () => {
      asked.resolve();
      return answer.promise;
    });
    await serve(
      { sessions: { maxPendingRequests: 1 } },
      (mcp) =>
        mcp.tool({
          name: 'ask',
          description: 'Asks the client for a completion',
          handler: async (_args, ctx: RequestContext) =>
            JSON.stringify(
              await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 }),
            ),
        }),
      client,
    );

    const first = client.callTool({ name: 'ask', arguments: {} });
    await asked.promise;
    const second = await client.callTool({ name: 'ask', arguments: {} });
    expect(second).toEqual({
      content: [
        {
          type: 'text',
          text: 'ctx: 1 requests to the client are already waiting in this session (sessions.maxPendingRequests)',
        },
      ],
      isError: true,
    });
    answer.resolve({ role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'test' });
    const firstResult = await first;
    expect(JSON.parse((firstResult.content as Array<{ text: string }>)[0]?.text ?? '')).toEqual({
      role: 'assistant',
      content: { type: 'text', text: 'hello' },
      model: 'test',
    });
  });

  it('counts an ask before its answer subscription is awaited: two asks made at once never both pass a cap of one', async () => {
    const message = {
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text: 'hi' } }],
      maxTokens: 5,
    };
    const client = new Client({ name: 'sampler', version: '1.0.0' }, { capabilities: { sampling: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, () => ({
      role: 'assistant',
      content: { type: 'text', text: 'hello' },
      model: 'test',
    }));
    await serve(
      { sessions: { maxPendingRequests: 1 } },
      (mcp) =>
        mcp.tool({
          name: 'ask-twice',
          description: 'Asks the client twice at once',
          handler: async (_args, ctx: RequestContext) => {
            const outcomes = await Promise.allSettled([ctx.sample(message), ctx.sample(message)]);
            return outcomes.map((outcome) =>
              outcome.status === 'fulfilled' ? 'answered' : String(outcome.reason.message),
            );
          },
        }),
      client,
    );
    const result = await client.callTool({ name: 'ask-twice', arguments: {} });
    expect(result.structuredContent).toEqual({
      result: [
        'answered',
        'ctx: 1 requests to the client are already waiting in this session (sessions.maxPendingRequests)',
      ],
    });
  });
});
