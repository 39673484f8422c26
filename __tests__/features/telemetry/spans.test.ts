// SERVER spans of the MCP semantic conventions: attributes per method, errors, isError, cancellation, batches, notifications.

import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { createApp, notification, post, rpc, silentLogger } from '../../helpers/create-app';
import { modern, MODERN } from '../../helpers/modern';
import { useOtel } from '../../helpers/otel';
import type { McpRouter } from '../../../lib';

const otel = useOtel();

function setup(mcp: McpRouter): void {
  mcp.tool({
    name: 'add',
    description: 'Add',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
    handler: ({ a, b }: { a: number; b: number }) => ({ sum: a + b }),
  });
  mcp.tool({
    name: 'fail',
    description: 'Fails',
    handler: () => {
      throw new Error('nope');
    },
  });
  mcp.prompt({ name: 'greet', description: 'Greets', get: () => 'hi' });
  mcp.resource({ uri: 'mem://readme', name: 'readme', read: () => 'hello' });
}

describe('SERVER spans (2026 requests)', () => {
  it('tools/call: "tools/call add" with the conventions\' attributes', async () => {
    const app = createApp({}, setup);
    await modern(app, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } }).expect(200);
    const span = otel.span('tools/call add');
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'mcp.protocol.version': MODERN,
      'gen_ai.tool.name': 'add',
      'gen_ai.operation.name': 'execute_tool',
      'jsonrpc.request.id': '7',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'network.protocol.version': '1.1',
      'client.address': expect.any(String),
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.instrumentationScope.name).toBe('express-mcp-router');
  });

  it('records arguments and results only when opted in', async () => {
    const app = createApp({ telemetry: { recordArguments: true, recordResults: true } }, setup);
    await modern(app, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } }).expect(200);
    const { attributes } = otel.span('tools/call add');
    expect(JSON.parse(attributes['gen_ai.tool.call.arguments'] as string)).toEqual({ a: 1, b: 2 });
    expect(JSON.parse(attributes['gen_ai.tool.call.result'] as string)).toMatchObject({
      structuredContent: { sum: 3 },
    });
  });

  it.each([
    ['prompts/get', 'prompts/get greet', { name: 'greet' }, { 'gen_ai.prompt.name': 'greet' }],
    // mcp.md: a resource URI is no low-cardinality target: the span is named by the method, the URI an attribute.
    ['resources/read', 'resources/read', { uri: 'mem://readme' }, { 'mcp.resource.uri': 'mem://readme' }],
    ['tools/list', 'tools/list', {}, {}],
    ['server/discover', 'server/discover', {}, {}],
  ])('%s: span "%s"', async (method, name, params, extra) => {
    const app = createApp({}, setup);
    await modern(app, method, params).expect(200);
    const span = otel.span(name);
    expect(span.attributes).toMatchObject({
      'mcp.method.name': method,
      'jsonrpc.request.id': '7',
      'mcp.protocol.version': MODERN,
      ...extra,
    });
    expect(span.attributes['gen_ai.operation.name']).toBeUndefined();
    expect(span.attributes['error.type']).toBeUndefined();
  });

  it('an unknown tool: span "tools/call" (the name a client made up is no span name), error.type and rpc.response.status_code "-32602", status ERROR', async () => {
    const app = createApp({}, setup);
    await modern(app, 'tools/call', { name: 'nosuch', arguments: {} }).expect(200);
    const span = otel.span('tools/call');
    expect(span.attributes).toMatchObject({
      'gen_ai.tool.name': '_OTHER',
      'express_mcp_router.gen_ai.tool.name_original': 'nosuch',
      'error.type': '-32602',
      'rpc.response.status_code': '-32602',
    });
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('an isError result: error.type "tool_error", status ERROR, no rpc.response.status_code', async () => {
    const app = createApp({ logger: silentLogger() }, setup);
    await modern(app, 'tools/call', { name: 'fail', arguments: {} }).expect(200);
    const span = otel.span('tools/call fail');
    expect(span.attributes['error.type']).toBe('tool_error');
    expect(span.attributes['rpc.response.status_code']).toBeUndefined();
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
  });
});

describe('SERVER spans (2025 sessions)', () => {
  it('initialize, then a call in the session: mcp.session.id; a notification gets a short span; a batch a span per message', async () => {
    const app = createApp({ sessions: {} }, setup);
    const init = await post(
      app,
      rpc('initialize', { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } }),
    ).expect(200);
    const sessionId = init.headers['mcp-session-id'] as string;
    const headers = { 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': '2025-03-26' };
    await post(app, notification('notifications/initialized'), headers).expect(202);
    await post(app, [rpc('tools/list', {}, 2), rpc('prompts/get', { name: 'greet' }, 3)], headers).expect(200);
    expect(otel.span('initialize').attributes).toMatchObject({
      'mcp.method.name': 'initialize',
      'jsonrpc.request.id': '1',
    });
    expect(otel.span('notifications/initialized').attributes).toMatchObject({
      'mcp.method.name': 'notifications/initialized',
      'mcp.session.id': sessionId,
    });
    expect(otel.span('notifications/initialized').attributes['jsonrpc.request.id']).toBeUndefined();
    expect(otel.span('tools/list').attributes).toMatchObject({
      'mcp.session.id': sessionId,
      'mcp.protocol.version': '2025-03-26',
      'jsonrpc.request.id': '2',
    });
    expect(otel.span('prompts/get greet').attributes).toMatchObject({
      'mcp.session.id': sessionId,
      'jsonrpc.request.id': '3',
    });
  });

  it.each([
    ['a revision the server supports', '2025-06-18', '2025-06-18'],
    ['one it does not (it answers with its latest)', '2024-01-01', '2025-11-25'],
  ])(
    'initialize with %s: mcp.protocol.version is the negotiated revision, on the span and the histogram',
    async (_case, proposed, negotiated) => {
      const app = createApp({ sessions: {} }, setup);
      const init = await post(
        app,
        rpc('initialize', { protocolVersion: proposed, capabilities: {}, clientInfo: { name: 't', version: '1' } }),
      ).expect(200);
      expect(init.body.result.protocolVersion).toBe(negotiated);
      expect(otel.span('initialize').attributes['mcp.protocol.version']).toBe(negotiated);
      const points = await otel.histogram('mcp.server.operation.duration');
      expect(
        points.find((point) => point.attributes['mcp.method.name'] === 'initialize')?.attributes[
          'mcp.protocol.version'
        ],
      ).toBe(negotiated);
    },
  );
});
