// mcpRouter options: config errors at boot, bodyLimit and pageSize over HTTP, and the caller's object left untouched.

import { McpConfigError, mcpRouter, type McpRouterOptions } from '../lib';
import { DEFAULT_BODY_LIMIT, DEFAULT_PAGE_SIZE } from '../lib/options';
import { createApp, post, rpc, silentLogger } from './helpers/create-app';

const BASE = { name: 'test', version: '1.0.0' };

describe('mcpRouter options: config errors', () => {
  it.each<[string, unknown, string, RegExp]>([
    [
      "misspelt 'nmae'",
      { ...BASE, nmae: 'x' },
      'ERR_MCP_UNKNOWN_OPTION',
      /^mcpRouter: unknown option 'nmae'\. Did you mean 'name'\?$/,
    ],
    [
      "wrong case 'pagesize'",
      { ...BASE, pagesize: 10 },
      'ERR_MCP_UNKNOWN_OPTION',
      /^mcpRouter: unknown option 'pagesize'\. Did you mean 'pageSize'\?$/,
    ],
    [
      "misspelt 'bodyLimt'",
      { ...BASE, bodyLimt: '1mb' },
      'ERR_MCP_UNKNOWN_OPTION',
      /^mcpRouter: unknown option 'bodyLimt'\. Did you mean 'bodyLimit'\?$/,
    ],
    [
      "misspelt 'instructons'",
      { ...BASE, instructons: 'x' },
      'ERR_MCP_UNKNOWN_OPTION',
      /^mcpRouter: unknown option 'instructons'\. Did you mean 'instructions'\?$/,
    ],
    [
      "misspelt 'cache.ttl'",
      { ...BASE, cache: { ttl: 1000 } },
      'ERR_MCP_UNKNOWN_OPTION',
      /^mcpRouter: unknown option 'cache\.ttl'\. Did you mean 'cache\.ttlMs'\?$/,
    ],
    [
      "misspelt 'tasks.ttl'",
      { ...BASE, tasks: { ttl: 1000 } },
      'ERR_MCP_UNKNOWN_OPTION',
      /^mcpRouter: unknown option 'tasks\.ttl'\. Did you mean 'tasks\.ttlMs'\?$/,
    ],
    [
      'an unrelated key',
      { ...BASE, zzzzzzzz: true },
      'ERR_MCP_UNKNOWN_OPTION',
      /^mcpRouter: unknown option 'zzzzzzzz'\.$/,
    ],
    ['no options at all', undefined, 'ERR_MCP_INVALID_OPTION', /^mcpRouter: options must be an object/],
    ['null options', null, 'ERR_MCP_INVALID_OPTION', /^mcpRouter: options must be an object/],
    [
      'missing name',
      { version: '1.0.0' },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'name' must be a non-empty string/,
    ],
    [
      'empty name',
      { ...BASE, name: '' },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'name' must be a non-empty string, got ""$/,
    ],
    [
      'blank name',
      { ...BASE, name: '   ' },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'name' must be a non-empty string/,
    ],
    [
      'numeric name',
      { ...BASE, name: 42 },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'name' must be a non-empty string, got 42$/,
    ],
    [
      'missing version',
      { name: 'test' },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'version' must be a non-empty string/,
    ],
    [
      'empty version',
      { ...BASE, version: '' },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'version' must be a non-empty string/,
    ],
    [
      'pageSize 0',
      { ...BASE, pageSize: 0 },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'pageSize' must be a positive integer, got 0$/,
    ],
    [
      'pageSize -1',
      { ...BASE, pageSize: -1 },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'pageSize' must be a positive integer, got -1$/,
    ],
    [
      'pageSize 1.5',
      { ...BASE, pageSize: 1.5 },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'pageSize' must be a positive integer, got 1\.5$/,
    ],
    [
      'pageSize beyond the safe integers',
      { ...BASE, pageSize: 2 ** 53 },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'pageSize' must be a positive integer, got 9007199254740992$/,
    ],
    [
      "pageSize '10'",
      { ...BASE, pageSize: '10' },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'pageSize' must be a positive integer, got "10"$/,
    ],
    [
      'pageSize NaN',
      { ...BASE, pageSize: NaN },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'pageSize' must be a positive integer/,
    ],
    [
      'bodyLimit 0',
      { ...BASE, bodyLimit: 0 },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'bodyLimit' must be a positive number of bytes or text like '4mb', got 0$/,
    ],
    [
      "bodyLimit 'lots'",
      { ...BASE, bodyLimit: 'lots' },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'bodyLimit' must be .*, got "lots"$/,
    ],
    [
      'bodyLimit -1',
      { ...BASE, bodyLimit: -1 },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'bodyLimit' must be .*, got -1$/,
    ],
    ["bodyLimit ''", { ...BASE, bodyLimit: '' }, 'ERR_MCP_INVALID_OPTION', /^mcpRouter: option 'bodyLimit' must be/],
    [
      "bodyLimit '-5kb'",
      { ...BASE, bodyLimit: '-5kb' },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'bodyLimit' must be/,
    ],
    [
      'bodyLimit Infinity',
      { ...BASE, bodyLimit: Infinity },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'bodyLimit' must be/,
    ],
    [
      'bodyLimit true',
      { ...BASE, bodyLimit: true },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'bodyLimit' must be/,
    ],
    [
      'logger without warn',
      { ...BASE, logger: { error() {} } },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'logger' must be an object with error\(\) and warn\(\)/,
    ],
    [
      'logger a string',
      { ...BASE, logger: 'console' },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'logger' must be/,
    ],
    ['logger null', { ...BASE, logger: null }, 'ERR_MCP_INVALID_OPTION', /^mcpRouter: option 'logger' must be/],
    ['options an array', [], 'ERR_MCP_INVALID_OPTION', /^mcpRouter: options must be an object with at least 'name'/],
    [
      'allowedHosts a string',
      { ...BASE, allowedHosts: 'api.example.com' },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'allowedHosts' must be an array of host names, or false, got "api\.example\.com"$/,
    ],
    ['allowedHosts null', { ...BASE, allowedHosts: null }, 'ERR_MCP_INVALID_OPTION', /option 'allowedHosts' must be/],
    [
      'origins a bigint',
      { ...BASE, origins: 10n },
      'ERR_MCP_INVALID_OPTION',
      /option 'origins' must be .*, got bigint$/,
    ],
    ['bodyLimit 12abc', { ...BASE, bodyLimit: '12abc' }, 'ERR_MCP_INVALID_OPTION', /option 'bodyLimit' must be/],
    ['bodyLimit null', { ...BASE, bodyLimit: null }, 'ERR_MCP_INVALID_OPTION', /option 'bodyLimit' must be/],
    [
      'keepAliveMs past a timer',
      { ...BASE, keepAliveMs: 3e9 },
      'ERR_MCP_INVALID_OPTION',
      /option 'keepAliveMs' must be a positive number of milliseconds or false, at most 2147483647, got 3000000000$/,
    ],
    [
      'a null static token',
      { ...BASE, auth: { tokens: [null] } },
      'ERR_MCP_INVALID_OPTION',
      /option 'auth\.tokens\[0\]'/,
    ],
    [
      'icons not an array',
      { ...BASE, icons: 'icon.png' },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'icons' must be an array/,
    ],
    [
      'icon without src',
      { ...BASE, icons: [{ mimeType: 'image/png' }] },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'icons' must be an array/,
    ],
    [
      'icon with a numeric src',
      { ...BASE, icons: [{ src: 1 }] },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'icons' must be an array/,
    ],
    [
      'an icon whose src is a javascript: URL',
      { ...BASE, icons: [{ src: 'javascript:alert(1)' }] },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'icons' must be an array of \{ src, mimeType\?, sizes\?, theme\? \} with an http\(s\) or data: src/,
    ],
    [
      'a websiteUrl that is not an http(s) URL',
      { ...BASE, websiteUrl: 'javascript:alert(1)' },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'websiteUrl' must be an http\(s\) URL/,
    ],
    [
      'icons containing null',
      { ...BASE, icons: [null] },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'icons' must be an array/,
    ],
    [
      'title a number',
      { ...BASE, title: 3 },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'title' must be a string, got 3$/,
    ],
    [
      'ajv not an Ajv',
      { ...BASE, ajv: {} },
      'ERR_MCP_INVALID_OPTION',
      /^mcpRouter: option 'ajv' must be an Ajv2020 instance/,
    ],
  ])('%s → %s', (_label, options, code, message) => {
    let thrown: unknown;
    try {
      mcpRouter(options as McpRouterOptions);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(McpConfigError);
    expect(thrown).toMatchObject({ name: 'McpConfigError', code });
    expect((thrown as Error).message).toMatch(message);
  });

  it('accepts undefined for every optional option, as if it were absent', () => {
    expect(() =>
      mcpRouter({
        ...BASE,
        title: undefined,
        description: undefined,
        websiteUrl: undefined,
        icons: undefined,
        instructions: undefined,
        pageSize: undefined,
        bodyLimit: undefined,
        logger: undefined,
        ajv: undefined,
      }),
    ).not.toThrow();
  });

  it('has these defaults', () => {
    expect(DEFAULT_PAGE_SIZE).toBe(100);
    expect(DEFAULT_BODY_LIMIT).toBe(4 * 1024 * 1024);
  });
});

/** A ping whose JSON text is exactly `bytes` long (padded in `_meta`). */
function pingOfSize(bytes: number): string {
  const empty = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { pad: '' } } });
  const text = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'ping',
    params: { _meta: { pad: 'x'.repeat(bytes - empty.length) } },
  });
  expect(Buffer.byteLength(text)).toBe(bytes);
  return text;
}

describe('mcpRouter options: bodyLimit over HTTP', () => {
  it.each<[string | number, number]>([
    ['512kb', 512 * 1024],
    ['1mb', 1024 * 1024],
    ['1.5KB', 1536],
    [' 3000 ', 3000],
    ['2048b', 2048],
    [2048, 2048],
  ])('bodyLimit %j: %i bytes pass, one more is 413', async (bodyLimit, bytes) => {
    const app = createApp({ bodyLimit });
    const at = await post(app, pingOfSize(bytes));
    expect(at.status).toBe(200);
    expect(at.body).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    const over = await post(app, pingOfSize(bytes + 1));
    expect(over.status).toBe(413);
    expect(over.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: expect.stringContaining(String(bytes)) },
    });
  });

  it('defaults to 4 MB', async () => {
    const app = createApp();
    expect((await post(app, pingOfSize(DEFAULT_BODY_LIMIT))).status).toBe(200);
    expect((await post(app, pingOfSize(DEFAULT_BODY_LIMIT + 1))).status).toBe(413);
  });
});

describe('mcpRouter options: the caller’s object', () => {
  it('is never written to (frozen options and deep-frozen icons work)', async () => {
    const icons = Object.freeze([
      Object.freeze({ src: 'https://example.com/icon.png', mimeType: 'image/png', sizes: Object.freeze(['48x48']) }),
    ]);
    const logger = Object.freeze(silentLogger());
    const options = Object.freeze({
      ...BASE,
      title: 'Test',
      icons,
      pageSize: 5,
      bodyLimit: '64kb',
      logger,
      instructions: 'Be nice',
    });
    const before = JSON.stringify(options);

    const app = createApp(options as unknown as McpRouterOptions);
    const res = await post(
      app,
      rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } }),
    );

    expect(res.status).toBe(200);
    expect(res.body.result.serverInfo).toEqual({
      ...BASE,
      title: 'Test',
      icons: [{ src: 'https://example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'] }],
    });
    expect(res.body.result.instructions).toBe('Be nice');
    expect(JSON.stringify(options)).toBe(before);
  });

  it('is copied: changing it after mcpRouter() changes nothing', async () => {
    const icons = [{ src: 'https://example.com/a.png' }];
    const options: McpRouterOptions = { ...BASE, icons, pageSize: 1 };
    const app = createApp(options, (mcp) => {
      for (const name of ['a', 'b']) mcp.tool({ name, description: name, handler: () => name });
    });
    options.name = 'changed';
    options.pageSize = 50;
    icons[0]!.src = 'https://evil.example/x.png';
    icons.push({ src: 'https://example.com/b.png' });

    const init = await post(
      app,
      rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } }),
    );
    expect(init.body.result.serverInfo).toEqual({ ...BASE, icons: [{ src: 'https://example.com/a.png' }] });
    const list = await post(app, rpc('tools/list'));
    expect(list.body.result.tools.map((tool: { name: string }) => tool.name)).toEqual(['a']);
  });
});

describe('mcpRouter options: pageSize over HTTP', () => {
  it('pages tools/list with nextCursor until the last page', async () => {
    const app = createApp({ pageSize: 2 }, (mcp) => {
      for (const name of ['t1', 't2', 't3', 't4', 't5'])
        mcp.tool({ name, description: `tool ${name}`, handler: () => name });
    });
    const names = (res: { body: { result: { tools: Array<{ name: string }> } } }) =>
      res.body.result.tools.map((tool) => tool.name);

    const first = await post(app, rpc('tools/list'));
    expect(names(first)).toEqual(['t1', 't2']);
    expect(typeof first.body.result.nextCursor).toBe('string');

    const second = await post(app, rpc('tools/list', { cursor: first.body.result.nextCursor }));
    expect(names(second)).toEqual(['t3', 't4']);
    expect(typeof second.body.result.nextCursor).toBe('string');
    expect(second.body.result.nextCursor).not.toBe(first.body.result.nextCursor);

    const last = await post(app, rpc('tools/list', { cursor: second.body.result.nextCursor }));
    expect(names(last)).toEqual(['t5']);
    expect(last.body.result).not.toHaveProperty('nextCursor');

    // Cursors are stable: asking again gives the same page.
    const again = await post(app, rpc('tools/list', { cursor: first.body.result.nextCursor }));
    expect(names(again)).toEqual(['t3', 't4']);
  });

  it('sends no nextCursor when everything fits on one page', async () => {
    const app = createApp({ pageSize: 2 }, (mcp) => {
      for (const name of ['t1', 't2']) mcp.tool({ name, description: `tool ${name}`, handler: () => name });
    });
    const res = await post(app, rpc('tools/list'));
    expect(res.body.result.tools).toHaveLength(2);
    expect(res.body.result).not.toHaveProperty('nextCursor');
  });
});
