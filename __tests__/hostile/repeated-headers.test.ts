// Issue 29 item 4: a repeated MCP header (two lines of one name) is refused, never joined into a value that matches
// the body ("eu" + "us" → "eu, us") while a proxy routing on the first line acts on another value.

import { once } from 'node:events';
import { connect, type AddressInfo } from 'node:net';
import request from 'supertest';
import type { McpRouter } from '../../lib';
import { createApp, MCP_ACCEPT, rpc, silentLogger } from '../helpers/create-app';
import { envelope, MODERN } from '../helpers/modern';

let runs = 0;

function setup(mcp: McpRouter): void {
  mcp.tool({
    name: 'sql',
    description: 'Runs a query in a region',
    inputSchema: {
      type: 'object',
      properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, query: { type: 'string' } },
      required: ['query'],
    },
    handler: () => {
      runs += 1;
      return 'ran';
    },
  });
  mcp.resource({ uri: 'docs://a,b', name: 'comma', read: () => 'comma' });
}

/** A POST of `body` whose headers are given as sent: an array value is one header line per element. */
function postWith(
  app: ReturnType<typeof createApp>,
  body: unknown,
  headers: Record<string, string | string[]>,
): request.Test {
  const test = request(app).post('/mcp').set('Content-Type', 'application/json').set('Accept', MCP_ACCEPT);
  for (const [name, value] of Object.entries(headers)) test.set(name, value as string);
  return test.send(body as object);
}

/** A modern request (id 7, with its `_meta` envelope) whose headers are given as sent. */
function send(
  app: ReturnType<typeof createApp>,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string | string[]>,
): request.Test {
  return postWith(app, rpc(method, { ...params, _meta: envelope() }, 7), headers);
}

const CALL = { name: 'sql', arguments: { region: 'eu, us', query: 'select 1' } };
const STANDARD = { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/call', 'Mcp-Name': 'sql' };

describe('repeated MCP headers (issue 29 item 4)', () => {
  const app = createApp({ logger: silentLogger() }, setup);
  beforeEach(() => {
    runs = 0;
  });

  it('refuses two Mcp-Param-Region lines whose joined value matches the argument: 400 -32020 naming the header, the tool not run', async () => {
    const res = await send(app, 'tools/call', CALL, { ...STANDARD, 'Mcp-Param-Region': ['eu', 'us'] });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32020, data: { header: 'Mcp-Param-Region' } },
    });
    expect(res.body.error.message).toMatch(/sent more than once/);
    expect(runs).toBe(0);
  });

  it('accepts one Mcp-Param-Region line holding the comma, as the argument does', async () => {
    const res = await send(app, 'tools/call', CALL, { ...STANDARD, 'Mcp-Param-Region': 'eu, us' });
    expect(res.status).toBe(200);
    expect(res.body.result.content[0].text).toBe('ran');
    expect(runs).toBe(1);
  });

  it.each([
    ['MCP-Protocol-Version', { 'MCP-Protocol-Version': [MODERN, MODERN] }],
    ['Mcp-Method', { 'Mcp-Method': ['tools/call', 'tools/call'] }],
    ['Mcp-Name', { 'Mcp-Name': ['sql', 'sql'] }],
    ['Mcp-Param-Region', { 'Mcp-Param-Region': ['eu, us', 'eu, us'] }],
  ])('refuses a repeated %s even when every line agrees with the body: 400 -32020', async (header, headers) => {
    const res = await send(app, 'tools/call', CALL, { ...STANDARD, 'Mcp-Param-Region': 'eu, us', ...headers });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ id: 7, error: { code: -32020, data: { header } } });
    expect(runs).toBe(0);
  });

  it('refuses a repeated Mcp-Name on a resource read of a URI holding a comma', async () => {
    const res = await send(
      app,
      'resources/read',
      { uri: 'docs://a,b' },
      { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'resources/read', 'Mcp-Name': ['docs://a,b', 'docs://a,b'] },
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ id: 7, error: { code: -32020, data: { header: 'Mcp-Name' } } });
  });

  it('refuses a repeated MCP-Protocol-Version on a 2025 request with 400 -32000 (the 2025 era never answers -32020)', async () => {
    const res = await postWith(app, rpc('tools/list', {}, 3), { 'MCP-Protocol-Version': ['2025-11-25', '2025-11-25'] });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
    expect(res.body.error.message).toMatch(/MCP-Protocol-Version header is sent more than once/);
  });

  it('serves a 2025 request with a repeated 2026-only header it does not read', async () => {
    const res = await postWith(app, rpc('tools/call', { name: 'sql', arguments: { query: 'q' } }, 3), {
      'Mcp-Param-Region': ['eu', 'us'],
    });
    expect(res.status).toBe(200);
    expect(runs).toBe(1);
  });
});

describe('a repeated Content-Type', () => {
  const app = createApp({ logger: silentLogger() }, setup);

  /** A 2025 tools/call whose Content-Type lines are exactly `types`, over a raw socket (clients send one of each). */
  async function withContentTypes(types: string[]): Promise<{ status: number; body: Record<string, unknown> }> {
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const body = JSON.stringify(rpc('tools/call', { name: 'sql', arguments: { query: 'select 1' } }, 9));
      const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
      const lines = [
        'POST /mcp HTTP/1.1',
        'Host: 127.0.0.1',
        `Accept: ${MCP_ACCEPT}`,
        'MCP-Protocol-Version: 2025-11-25',
        ...types.map((type) => `Content-Type: ${type}`),
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Connection: close',
      ];
      socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
      let raw = '';
      for await (const chunk of socket) raw += String(chunk);
      const [head = '', text = ''] = raw.split('\r\n\r\n');
      return { status: Number(head.split(' ')[1]), body: JSON.parse(text) as Record<string, unknown> };
    } finally {
      server.close();
    }
  }

  it.each([
    ['application/json, then text/plain', ['application/json', 'text/plain']],
    ['text/plain, then application/json', ['text/plain', 'application/json']],
    ['application/json twice, once with another charset', ['application/json', 'application/json; charset=latin1']],
  ])(
    '%s: 400 -32000 whatever the order (a proxy reading the other line would judge another body), not run',
    async (_name, types) => {
      runs = 0;
      const { status, body } = await withContentTypes(types);
      expect(status).toBe(400);
      expect(body).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32000, message: 'Bad Request: Content-Type was sent more than once' },
      });
      expect(runs).toBe(0);
    },
  );

  it('serves one Content-Type line', async () => {
    runs = 0;
    const { status } = await withContentTypes(['application/json']);
    expect(status).toBe(200);
    expect(runs).toBe(1);
  });
});
