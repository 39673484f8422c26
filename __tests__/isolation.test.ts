// Two routers in one app share nothing, and registrations made or removed after mounting take effect at once.

import express from 'express';
import { mcpRouter, type McpRegistration, type McpRouter } from '../lib';
import { createApp, post, rpc, silentLogger } from './helpers/create-app';

const V = { 'MCP-Protocol-Version': '2025-11-25' };
const INIT = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } };

function twoRouters() {
  const a = mcpRouter({ name: 'alpha', version: '1.0.0', sessions: false, logger: silentLogger() });
  const b = mcpRouter({ name: 'beta', version: '2.0.0', pageSize: 1, sessions: false, logger: silentLogger() });
  const app = express();
  app.use('/a', a);
  app.use('/b', b);
  return { app, a, b };
}

describe('two routers in one app', () => {
  it('keep their own identity', async () => {
    const { app, a, b } = twoRouters();
    a.tool({ name: 'x', description: 'x', handler: () => 'x' });
    b.prompt({ name: 'p', description: 'p', get: () => 'p' });
    const initA = await post(app, rpc('initialize', INIT), {}, '/a');
    const initB = await post(app, rpc('initialize', INIT), {}, '/b');
    expect(initA.body.result.serverInfo).toEqual({ name: 'alpha', version: '1.0.0' });
    expect(initA.body.result.capabilities).toEqual({ logging: {}, tools: {} });
    expect(initB.body.result.serverInfo).toEqual({ name: 'beta', version: '2.0.0' });
    expect(initB.body.result.capabilities).toEqual({ logging: {}, prompts: {} });
  });

  it('do not see each other’s tools', async () => {
    const { app, a, b } = twoRouters();
    a.tool({ name: 'only_a', description: 'a', handler: () => 'from a' });
    b.tool({ name: 'only_b', description: 'b', handler: () => 'from b' });

    const onB = await post(app, rpc('tools/call', { name: 'only_a' }), V, '/b');
    expect(onB.status).toBe(200);
    expect(onB.body.error).toEqual({ code: -32602, message: expect.stringContaining('only_a') });
    const onA = await post(app, rpc('tools/call', { name: 'only_b' }), V, '/a');
    expect(onA.body.error.code).toBe(-32602);

    const listA = await post(app, rpc('tools/list'), V, '/a');
    expect(listA.body.result.tools.map((tool: { name: string }) => tool.name)).toEqual(['only_a']);
    const listB = await post(app, rpc('tools/list'), V, '/b');
    expect(listB.body.result.tools.map((tool: { name: string }) => tool.name)).toEqual(['only_b']);
  });

  it('do not share capabilities: a router with no tools has no tools/list', async () => {
    const { app, a } = twoRouters();
    a.tool({ name: 'only_a', description: 'a', handler: () => 'from a' });
    const res = await post(app, rpc('tools/list'), V, '/b');
    expect(res.body.error.code).toBe(-32601);
  });

  it('may each have a tool of the same name', async () => {
    const { app, a, b } = twoRouters();
    expect(() => a.tool({ name: 'same', description: 'a', handler: () => 'from a' })).not.toThrow();
    expect(() => b.tool({ name: 'same', description: 'b', handler: () => 'from b' })).not.toThrow();
    const fromA = await post(app, rpc('tools/call', { name: 'same' }), V, '/a');
    const fromB = await post(app, rpc('tools/call', { name: 'same' }), V, '/b');
    expect(fromA.body.result).toEqual({ content: [{ type: 'text', text: 'from a' }] });
    expect(fromB.body.result).toEqual({ content: [{ type: 'text', text: 'from b' }] });
  });

  it('compile schemas with the same $id separately', async () => {
    const { app, a, b } = twoRouters();
    const $id = 'https://example.com/schemas/args';
    a.tool({
      name: 'typed',
      description: 'wants a number',
      inputSchema: { $id, type: 'object', properties: { v: { type: 'number' } }, required: ['v'] },
      handler: ({ v }: { v: number }) => `a:${v}`,
    });
    b.tool({
      name: 'typed',
      description: 'wants a string',
      inputSchema: { $id, type: 'object', properties: { v: { type: 'string' } }, required: ['v'] },
      handler: ({ v }: { v: string }) => `b:${v}`,
    });

    const aOk = await post(app, rpc('tools/call', { name: 'typed', arguments: { v: 1 } }), V, '/a');
    expect(aOk.body.result).toEqual({ content: [{ type: 'text', text: 'a:1' }] });
    const aBad = await post(app, rpc('tools/call', { name: 'typed', arguments: { v: 'one' } }), V, '/a');
    expect(aBad.body.result.isError).toBe(true);

    const bOk = await post(app, rpc('tools/call', { name: 'typed', arguments: { v: 'one' } }), V, '/b');
    expect(bOk.body.result).toEqual({ content: [{ type: 'text', text: 'b:one' }] });
    const bBad = await post(app, rpc('tools/call', { name: 'typed', arguments: { v: 1 } }), V, '/b');
    expect(bBad.body.result.isError).toBe(true);
  });

  it('keep their own options (pageSize)', async () => {
    const { app, a, b } = twoRouters();
    for (const name of ['t1', 't2']) {
      a.tool({ name, description: name, handler: () => name });
      b.tool({ name, description: name, handler: () => name });
    }
    const listA = await post(app, rpc('tools/list'), V, '/a');
    const listB = await post(app, rpc('tools/list'), V, '/b');
    expect(listA.body.result.tools).toHaveLength(2);
    expect(listA.body.result).not.toHaveProperty('nextCursor');
    expect(listB.body.result.tools).toHaveLength(1);
    expect(typeof listB.body.result.nextCursor).toBe('string');
  });
});

describe('registrations after mounting', () => {
  it('tools added after mounting are listed and callable at once; removed ones disappear at once', async () => {
    let mcp!: McpRouter;
    const app = createApp({ logger: silentLogger() }, (router) => (mcp = router));
    const names = async (): Promise<string[]> =>
      (await post(app, rpc('tools/list'), V)).body.result.tools.map((tool: { name: string }) => tool.name);

    // Nothing registered yet: the tools capability does not exist.
    expect((await post(app, rpc('tools/list'), V)).body.error.code).toBe(-32601);

    const first: McpRegistration = mcp.tool({ name: 'first', description: 'first', handler: () => 'one' });
    expect(await names()).toEqual(['first']);
    const init = await post(app, rpc('initialize', INIT));
    expect(init.body.result.capabilities).toEqual({ logging: {}, tools: {} });

    const second = mcp.tool({ name: 'second', description: 'second', handler: () => 'two' });
    expect(await names()).toEqual(['first', 'second']);
    expect((await post(app, rpc('tools/call', { name: 'second' }), V)).body.result).toEqual({
      content: [{ type: 'text', text: 'two' }],
    });

    expect(first.remove()).toBe(true);
    expect(first.remove()).toBe(false);
    expect(await names()).toEqual(['second']);
    const gone = await post(app, rpc('tools/call', { name: 'first' }), V);
    expect(gone.body.error).toEqual({ code: -32602, message: expect.stringContaining('first') });

    // Re-registering a removed name works, and the capability never shrinks, even with no tools left.
    mcp.tool({ name: 'first', description: 'first again', handler: () => 'uno' });
    expect(await names()).toEqual(['second', 'first']);
    second.remove();
    expect((await post(app, rpc('tools/call', { name: 'first' }), V)).body.result).toEqual({
      content: [{ type: 'text', text: 'uno' }],
    });
  });

  it('keeps a tools capability with an empty list once the last tool is removed', async () => {
    let mcp!: McpRouter;
    const app = createApp({}, (router) => (mcp = router));
    mcp.tool({ name: 'only', description: 'only', handler: () => 'x' }).remove();
    const list = await post(app, rpc('tools/list'), V);
    expect(list.body).toEqual({ jsonrpc: '2.0', id: 1, result: { tools: [] } });
  });

  it('prompts and resources added after mounting are visible at once', async () => {
    let mcp!: McpRouter;
    const app = createApp({}, (router) => (mcp = router));
    mcp.prompt({ name: 'hello', description: 'hi', get: () => 'hello there' });
    const resource = mcp.resource({
      uri: 'docs://late',
      name: 'late',
      mimeType: 'text/plain',
      read: () => 'late text',
    });

    const prompt = await post(app, rpc('prompts/get', { name: 'hello' }), V);
    expect(prompt.body.result.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'hello there' } }]);
    const read = await post(app, rpc('resources/read', { uri: 'docs://late' }), V);
    expect(read.body.result).toEqual({ contents: [{ uri: 'docs://late', mimeType: 'text/plain', text: 'late text' }] });

    resource.remove();
    const gone = await post(app, rpc('resources/read', { uri: 'docs://late' }), V);
    expect(gone.body.error).toEqual({ code: -32002, message: expect.any(String), data: { uri: 'docs://late' } });
  });
});
