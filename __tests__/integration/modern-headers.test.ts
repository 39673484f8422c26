// SEP-2243 over HTTP against real express() apps: the standard headers and Mcp-Param-* of MCP 2026-07-28 requests, their order among the other checks, and CORS.

import express from 'express';
import request from 'supertest';
import { mcpRouter, type McpRouter } from '../../lib';
import { createApp, post, rpc, silentLogger } from '../helpers/create-app';
import { MODERN, modern } from '../helpers/modern';

const b64 = (text: string): string => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;

function setup(mcp: McpRouter): void {
  mcp.tool({
    name: 'sql',
    description: 'Runs a query in a region',
    inputSchema: {
      type: 'object',
      properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' },
        shard: { type: 'integer', 'x-mcp-header': 'Shard' },
        dry: { type: 'boolean', 'x-mcp-header': 'Dry-Run' },
        target: { type: 'object', properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } } },
        query: { type: 'string' },
      },
      required: ['query'],
    },
    handler: (args: Record<string, unknown>) => args,
  });
  mcp.tool({
    name: 'secret',
    description: 'Only for admins',
    scopes: ['admin'],
    inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } },
    handler: () => 'classified',
  });
  mcp.resource({ uri: 'docs://café', name: 'cafe', read: () => 'menu' });
  mcp.prompt({ name: 'greet', description: 'Greets', get: () => 'Hi' });
}

function expectMismatch(res: request.Response, header: string): void {
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32020, data: { header } } });
  expect(res.body.error.message).toMatch(/^Bad Request: /);
}

describe('SEP-2243 standard headers on 2026 requests', () => {
  const app = createApp({ logger: silentLogger() }, setup);

  it.each([
    ['MCP-Protocol-Version', 'tools/list', {}, { 'MCP-Protocol-Version': undefined }],
    ['Mcp-Method', 'tools/list', {}, { 'Mcp-Method': undefined }],
    ['Mcp-Method', 'tools/list', {}, { 'Mcp-Method': 'prompts/list' }],
    ['Mcp-Method', 'tools/list', {}, { 'Mcp-Method': 'TOOLS/LIST' }],
    ['Mcp-Name', 'tools/call', { name: 'sql', arguments: { query: 'q' } }, { 'Mcp-Name': undefined }],
    ['Mcp-Name', 'tools/call', { name: 'sql', arguments: { query: 'q' } }, { 'Mcp-Name': 'wrong_tool_name' }],
    ['Mcp-Name', 'tools/call', { name: 'sql', arguments: { query: 'q' } }, { 'Mcp-Name': 'SQL' }],
    ['Mcp-Name', 'prompts/get', { name: 'greet' }, { 'Mcp-Name': 'great' }],
    ['Mcp-Name', 'resources/read', { uri: 'docs://café' }, { 'Mcp-Name': 'docs://cafe' }],
    ['Mcp-Name', 'resources/read', { uri: 'docs://café' }, { 'Mcp-Name': b64('docs://cafe') }],
  ])('400 -32020 naming %s: %s with %j', async (header, method, params, headers) => {
    expectMismatch(await modern(app, method, params, headers), header);
  });

  it('accepts header names in any case, whitespace around values, and a Base64 Mcp-Name', async () => {
    const body = rpc(
      'tools/list',
      {
        _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} },
      },
      7,
    );
    for (const name of ['mcp-method', 'MCP-METHOD']) {
      const res = await post(app, body, { 'mcp-protocol-version': MODERN, [name]: 'tools/list' });
      expect(res.status).toBe(200);
      expect(res.body.result.tools).toEqual([expect.objectContaining({ name: 'sql' })]);
    }
    const spaced = await modern(
      app,
      'tools/call',
      { name: 'sql', arguments: { query: 'q' } },
      { 'Mcp-Name': '   sql   ' },
    );
    expect(spaced.status).toBe(200);
    expect(spaced.body.result.isError).toBeUndefined();
    const read = await modern(app, 'resources/read', { uri: 'docs://café' }, { 'Mcp-Name': b64('docs://café') });
    expect(read.status).toBe(200);
    expect(read.body.result.contents[0]).toMatchObject({ uri: 'docs://café', text: 'menu' });
  });

  it('a notification needs no Mcp-Method, but one that disagrees is refused', async () => {
    const note = {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: {
        requestId: 1,
        _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} },
      },
    };
    await post(app, note, { 'MCP-Protocol-Version': MODERN }).expect(202);
    const res = await post(app, note, { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'notifications/progress' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: -32020, data: { header: 'Mcp-Method' } });
  });

  it('comes after the revision check (-32022) and before the method lookup (404 -32601)', async () => {
    const unsupported = await modern(
      app,
      'tools/list',
      {},
      { 'Mcp-Method': undefined, 'MCP-Protocol-Version': '2099-01-01' },
      { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' },
    );
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.error.code).toBe(-32022);
    expectMismatch(await modern(app, 'no/such/method', {}, { 'Mcp-Method': undefined }), 'Mcp-Method');
    const unknown = await modern(app, 'no/such/method');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe(-32601);
  });

  it('never applies to 2025 traffic: a session request needs none of them, and wrong ones are ignored', async () => {
    const stateful = createApp({ sessions: {}, logger: silentLogger() }, setup);
    const init = await post(
      stateful,
      rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } }),
    ).expect(200);
    const session = init.headers['mcp-session-id'] as string;
    const call = rpc('tools/call', { name: 'sql', arguments: { region: 'eu', query: 'q' } }, 2);
    const res = await post(stateful, call, {
      'Mcp-Session-Id': session,
      'MCP-Protocol-Version': '2025-11-25',
      'Mcp-Name': 'other',
      'Mcp-Param-Region': 'us',
    });
    expect(res.status).toBe(200);
    expect(res.body.result.structuredContent).toEqual({ region: 'eu', query: 'q' });
  });
});

describe('SEP-2243 Mcp-Param-* on 2026 tools/call', () => {
  const app = createApp({ logger: silentLogger() }, setup);
  const call = (args: Record<string, unknown>, headers: Record<string, string | undefined> = {}) =>
    modern(app, 'tools/call', { name: 'sql', arguments: { query: 'q', ...args } }, headers);

  it.each([
    ['a literal', { region: 'us-west1' }, { 'Mcp-Param-Region': 'us-west1' }],
    ['Base64 of non-ASCII', { region: 'Hello, 世界' }, { 'Mcp-Param-Region': '=?base64?SGVsbG8sIOS4lueVjA==?=' }],
    ['Base64 of leading spaces', { region: ' padded ' }, { 'Mcp-Param-Region': '=?base64?IHBhZGRlZCA=?=' }],
    [
      'a value without the suffix, taken literally',
      { region: '=?base64?SGVsbG8=' },
      { 'Mcp-Param-Region': '=?base64?SGVsbG8=' },
    ],
    [
      'a Base64-looking value without markers, taken literally',
      { region: 'SGVsbG8=' },
      { 'mcp-param-region': 'SGVsbG8=' },
    ],
    ['an integer compared as a number', { shard: 42 }, { 'Mcp-Param-Shard': '42.0' }],
    ['a boolean', { dry: true }, { 'Mcp-Param-Dry-Run': 'true' }],
    ['a nested property', { target: { zone: 'b' } }, { 'Mcp-Param-Zone': 'b' }],
    ['absent: no header expected, one sent anyway ignored', {}, { 'Mcp-Param-Region': 'whatever' }],
  ])('accepts %s', async (_label, args, headers) => {
    const res = await call(args, headers);
    expect(res.status).toBe(200);
    expect(res.body.result.isError).toBeUndefined();
  });

  it.each([
    ['the header missing while the body has the value', 'Mcp-Param-Region', { region: 'us-west1' }, {}],
    ['a different value', 'Mcp-Param-Region', { region: 'us-west1' }, { 'Mcp-Param-Region': 'us-east1' }],
    ['bad Base64 padding', 'Mcp-Param-Region', { region: 'Hello' }, { 'Mcp-Param-Region': '=?base64?SGVsbG8?=' }],
    ['non-alphabet Base64', 'Mcp-Param-Region', { region: 'Hello' }, { 'Mcp-Param-Region': '=?base64?SGVs!!!bG8=?=' }],
    ['a hexadecimal integer', 'Mcp-Param-Shard', { shard: 26 }, { 'Mcp-Param-Shard': '0x1a' }],
    ['a boolean in capitals', 'Mcp-Param-Dry-Run', { dry: false }, { 'Mcp-Param-Dry-Run': 'FALSE' }],
    ['a nested property', 'Mcp-Param-Zone', { target: { zone: 'a' } }, { 'Mcp-Param-Zone': 'b' }],
  ])('400 -32020 for %s', async (_label, header, args, headers) => {
    expectMismatch(await call(args, headers), header);
  });

  it('a value of the wrong type is refused by argument validation, not as a header', async () => {
    const res = await call({ shard: 'many' }, { 'Mcp-Param-Shard': 'many' });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({
      isError: true,
      content: [{ text: expect.stringContaining('shard: must be integer') }],
    });
  });

  it('a tool the caller may not use looks unknown, whatever its headers say', async () => {
    const guarded = createApp(
      {
        logger: silentLogger(),
        auth: {
          tokens: [
            { token: 'user', scopes: [] },
            { token: 'admin', scopes: ['admin'] },
          ],
        },
      },
      setup,
    );
    const secret = (token: string) =>
      modern(
        guarded,
        'tools/call',
        { name: 'secret', arguments: { region: 'eu' } },
        { Authorization: `Bearer ${token}`, 'Mcp-Param-Region': 'us' },
      );
    expect((await secret('user')).body.error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('secret'),
    });
    expectMismatch(await secret('admin'), 'Mcp-Param-Region');
  });
});

describe('CORS for Mcp-Param-* headers', () => {
  const preflight = (app: express.Express, requested: string) =>
    request(app).options('/mcp').set({
      Origin: 'https://app.example.com',
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': requested,
    });

  it('a preflight may ask for the Mcp-Param-* headers of x-mcp-header arguments, and for no other header of its own', async () => {
    const app = createApp({ origins: ['https://app.example.com'] }, setup);
    const res = await preflight(
      app,
      'content-type, mcp-method, mcp-name, mcp-param-region, Mcp-Param-Dry-Run, x-evil',
    ).expect(204);
    const allowed = (res.headers['access-control-allow-headers'] as string).toLowerCase().split(',');
    expect(allowed).toEqual(
      expect.arrayContaining([
        'content-type',
        'mcp-method',
        'mcp-name',
        'mcp-protocol-version',
        'mcp-param-region',
        'mcp-param-dry-run',
      ]),
    );
    expect(allowed).not.toContain('x-evil');
  });

  it('leaves a cors.allowedHeaders the user set as it is', async () => {
    const app = express();
    app.use(
      '/mcp',
      mcpRouter({
        name: 't',
        version: '1',
        sessions: false,
        origins: ['https://app.example.com'],
        cors: { allowedHeaders: 'Content-Type,X-Mine' },
      }),
    );
    const res = await preflight(app, 'mcp-param-region').expect(204);
    expect(res.headers['access-control-allow-headers']).toBe('Content-Type,X-Mine');
  });
});
