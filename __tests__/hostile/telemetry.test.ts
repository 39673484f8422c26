// Clients (and upstreams) must not choose telemetry's cardinality (issue 29 §10): made-up methods, tool and prompt names,
// resource URIs, protocol versions and error codes never become metric attribute sets or span names.

import { SpanKind } from '@opentelemetry/api';
import type { McpRouter } from '../../lib';
import { createApp, notification, post, rpc } from '../helpers/create-app';
import { modern } from '../helpers/modern';
import { useOtel } from '../helpers/otel';
import { closeAfterEach, closeGatewaysAfterEach, gateway, serve, type Upstream } from '../features/gateway/upstreams';

closeGatewaysAfterEach();
closeAfterEach();

const otel = useOtel();

const OPERATION = 'mcp.server.operation.duration';
const KNOWN_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'];
const MAX_RAW = 1024;

function setup(mcp: McpRouter): void {
  mcp.tool({ name: 'add', description: 'Add', handler: () => 'sum' });
  mcp.prompt({ name: 'greet', description: 'Greets', get: () => 'hi' });
  mcp.resourceTemplate({ uriTemplate: 'files://{path}', name: 'file', read: (uri: string) => `contents of ${uri}` });
}

/** The distinct values of one attribute over the histogram's points (undefined: the attribute is absent). */
async function metricValues(key: string): Promise<unknown[]> {
  const points = await otel.histogram(OPERATION);
  return [...new Set(points.map((point) => point.attributes[key]))];
}

function spanNames(kind = SpanKind.SERVER): string[] {
  return [
    ...new Set(
      otel
        .spans()
        .filter((span) => span.kind === kind)
        .map((span) => span.name),
    ),
  ].sort();
}

describe('methods', () => {
  it('60 made-up request and notification methods: one _OTHER series and span name; the raw method only on the span, cut short', async () => {
    const app = createApp({}, setup);
    for (let i = 0; i < 20; i++) {
      await modern(app, `made/up/${i}`);
      await post(app, rpc(`legacy/made/up/${i}`), { 'MCP-Protocol-Version': '2025-06-18' });
      await post(app, notification(`notifications/made_up_${i}`), { 'MCP-Protocol-Version': '2025-06-18' });
    }
    await post(app, rpc('x'.repeat(10_000)), { 'MCP-Protocol-Version': '2025-06-18' });
    await modern(app, 'tools/list').expect(200);
    expect((await metricValues('mcp.method.name')).sort()).toEqual(['_OTHER', 'tools/list']);
    expect(spanNames()).toEqual(['_OTHER', 'tools/list']);
    const raw = otel.spans().map((span) => span.attributes['express_mcp_router.mcp.method.name_original']);
    expect(raw).toContain('made/up/7');
    expect(raw).toContain('notifications/made_up_3');
    expect(Math.max(...raw.map((value) => String(value ?? '').length))).toBeLessThanOrEqual(MAX_RAW + 1);
    expect(
      otel.spans().find((span) => span.name === 'tools/list')?.attributes[
        'express_mcp_router.mcp.method.name_original'
      ],
    ).toBeUndefined();
  });

  it('the notifications MCP defines keep their names', async () => {
    const app = createApp({}, setup);
    await post(app, notification('notifications/initialized'), { 'MCP-Protocol-Version': '2025-06-18' });
    await post(app, notification('notifications/roots/list_changed'), { 'MCP-Protocol-Version': '2025-06-18' });
    expect(spanNames()).toEqual(['notifications/initialized', 'notifications/roots/list_changed']);
  });
});

describe('tool and prompt names', () => {
  it('60 unknown tool and prompt names: span names stay tools/call and prompts/get; registered ones are named', async () => {
    const app = createApp({}, setup);
    for (let i = 0; i < 30; i++) {
      await modern(app, 'tools/call', { name: `made_up_${i}`, arguments: {} }).expect(200);
      await modern(app, 'prompts/get', { name: `made_up_${i}` }).expect(200);
    }
    await modern(app, 'tools/call', { name: 'n'.repeat(5000), arguments: {} });
    await modern(app, 'tools/call', { name: 'add', arguments: {} }).expect(200);
    await modern(app, 'prompts/get', { name: 'greet' }).expect(200);
    expect(spanNames()).toEqual(['prompts/get', 'prompts/get greet', 'tools/call', 'tools/call add']);
    const unknown = otel.spans().filter((span) => span.name === 'tools/call');
    expect(new Set(unknown.map((span) => span.attributes['gen_ai.tool.name']))).toEqual(new Set(['_OTHER']));
    expect(unknown.map((span) => span.attributes['express_mcp_router.gen_ai.tool.name_original'])).toContain(
      'made_up_4',
    );
    expect(
      Math.max(
        ...unknown.map((span) => String(span.attributes['express_mcp_router.gen_ai.tool.name_original']).length),
      ),
    ).toBeLessThanOrEqual(MAX_RAW + 1);
    expect(otel.spans().find((span) => span.name === 'prompts/get')?.attributes['gen_ai.prompt.name']).toBe('_OTHER');
    expect((await metricValues('gen_ai.tool.name')).sort()).toEqual(['add', undefined]);
  });
});

describe('resource URIs', () => {
  it('60 URIs read: the span name is resources/read (mcp.md: no URI by default), the URI only on the span, cut short', async () => {
    const app = createApp({}, setup);
    for (let i = 0; i < 30; i++) {
      await modern(app, 'resources/read', { uri: `files://doc-${i}` }).expect(200);
      await modern(app, 'resources/read', { uri: `nowhere://${i}` });
    }
    await modern(app, 'resources/read', { uri: `files://${'u'.repeat(5000)}` });
    expect(spanNames()).toEqual(['resources/read']);
    const uris = otel.spans().map((span) => String(span.attributes['mcp.resource.uri']));
    expect(uris).toContain('files://doc-9');
    expect(Math.max(...uris.map((uri) => uri.length))).toBeLessThanOrEqual(MAX_RAW + 1);
    expect(await metricValues('mcp.resource.uri')).toEqual([undefined]);
  });
});

describe('protocol versions and request ids', () => {
  it('made-up protocol versions never reach the histogram; a request id is cut short on the span', async () => {
    const app = createApp({ sessions: {} }, setup);
    for (let i = 0; i < 20; i++) {
      await post(
        app,
        rpc('initialize', {
          protocolVersion: `1999-01-${i}`,
          capabilities: {},
          clientInfo: { name: 't', version: '1' },
        }),
      );
      await post(
        app,
        rpc('initialize', { protocolVersion: { evil: i }, capabilities: 'not an object', clientInfo: 7 }),
      );
      await post(app, rpc('tools/list'), { 'MCP-Protocol-Version': `2030-01-${i}` });
    }
    const stateless = createApp({}, setup);
    await modern(
      stateless,
      'subscriptions/listen',
      { notifications: { toolsListChanged: true } },
      {},
      { 'io.modelcontextprotocol/protocolVersion': '2099-12-31' },
    );
    await post(stateless, rpc('ping', undefined, 'i'.repeat(10_000)), { 'MCP-Protocol-Version': '2025-06-18' });
    const versions = await metricValues('mcp.protocol.version');
    expect(versions.filter((version) => !KNOWN_REVISIONS.includes(version as string) && version !== '_OTHER')).toEqual(
      [],
    );
    const ids = otel.spans().map((span) => String(span.attributes['jsonrpc.request.id'] ?? ''));
    expect(Math.max(...ids.map((id) => id.length))).toBeLessThanOrEqual(MAX_RAW + 1);
  });
});

/** A 2025 upstream without sessions: one template, and a tool failing with the JSON-RPC code it is given. */
function hostileUpstream(): Promise<Upstream> {
  return serve((app) => {
    app.post('/mcp', (req, res) => {
      const { id, method, params } = req.body as { id?: number; method: string; params: Record<string, unknown> };
      if (id === undefined) return void res.status(202).end();
      const reply = (result: unknown): void => void res.json({ jsonrpc: '2.0', id, result });
      if (method === 'initialize')
        return reply({
          protocolVersion: '2025-06-18',
          capabilities: { tools: {}, resources: {} },
          serverInfo: { name: 'evil', version: '1' },
        });
      if (method === 'tools/list') return reply({ tools: [{ name: 'fail', inputSchema: { type: 'object' } }] });
      if (method === 'resources/templates/list')
        return reply({ resourceTemplates: [{ uriTemplate: 'files://{path}', name: 'file' }] });
      if (method === 'resources/list') return reply({ resources: [] });
      if (method === 'resources/read') return reply({ contents: [{ uri: params.uri, text: 'x' }] });
      if (method === 'tools/call')
        return void res.json({
          jsonrpc: '2.0',
          id,
          error: { code: (params.arguments as { code: number }).code, message: 'm'.repeat(100_000) },
        });
      res.json({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } });
    });
  });
}

describe('a gateway', () => {
  it("an upstream's made-up error codes do not make error.type series; its reads' CLIENT spans carry no URI in their name", async () => {
    const upstream = await hostileUpstream();
    const gw = await gateway(
      { sessions: false, rateLimit: false },
      (mcp) => void mcp.upstream({ prefix: 'evil', url: upstream.url }),
    );
    const app = { url: gw.url };
    const send = (method: string, params: Record<string, unknown>): Promise<Response> =>
      fetch(app.url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'MCP-Protocol-Version': '2025-06-18',
        },
        body: JSON.stringify(rpc(method, params)),
      });
    for (let i = 0; i < 30; i++) {
      await send('tools/call', { name: 'evil__fail', arguments: { code: 1000 + i } });
      await send('resources/read', { uri: `evil+files://doc-${i}` });
    }
    const errorTypes = (await metricValues('error.type')).filter((value) => value !== undefined);
    expect(errorTypes).toEqual(['_OTHER']);
    expect((await metricValues('rpc.response.status_code')).filter((value) => value !== undefined)).toEqual(['_OTHER']);
    expect(spanNames(SpanKind.CLIENT)).toEqual(['resources/read', 'tools/call fail']);
    expect(spanNames(SpanKind.SERVER)).toEqual(['resources/read', 'tools/call evil__fail']);
    const failed = otel.spans().find((span) => span.kind === SpanKind.SERVER && span.name === 'tools/call evil__fail');
    expect(failed?.attributes['error.type']).toBe('_OTHER');
    expect(failed?.attributes['rpc.response.status_code']).toMatch(/^10\d\d$/);
    expect((failed?.status.message ?? '').length).toBeLessThanOrEqual(MAX_RAW + 1);
  });
});
