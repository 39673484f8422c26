// Trace context (SEP-414 `_meta`, the HTTP span), cancellation, the two histograms, and nothing recorded without a provider.

import express from 'express';
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import request from 'supertest';
import { createApp, MCP_ACCEPT, notification, post, rpc } from '../../helpers/create-app';
import { modern } from '../../helpers/modern';
import { startOtel, type TestOtel } from '../../helpers/otel';
import { mcpRouter, type McpRouter } from '../../../lib';
import { loadOpenTelemetryApi } from '../../../lib/features/telemetry/load-api';
import { API_GLOBALS } from '../../../lib/features/telemetry/otel-internals';
import { createTelemetry } from '../../../lib/features/telemetry/telemetry';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT_SPAN_ID = 'b7ad6b7169203331';
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_SPAN_ID}-01`;

function addTool(mcp: McpRouter): void {
  const inputSchema = {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
  };
  mcp.tool({
    name: 'add',
    description: 'Add',
    inputSchema,
    handler: ({ a, b }: { a: number; b: number }) => ({ sum: a + b }),
  });
}

/** An app whose first middleware makes an HTTP SERVER span active, as @opentelemetry/instrumentation-http would. */
function appWithHttpSpan(mcp: McpRouter): { app: express.Express; httpSpanIds: string[] } {
  const httpSpanIds: string[] = [];
  const app = express();
  app.use((_req, res, next) => {
    const span = trace.getTracer('http').startSpan('POST /mcp');
    httpSpanIds.push(span.spanContext().spanId);
    res.on('finish', () => span.end());
    context.with(trace.setSpan(context.active(), span), next);
  });
  app.use('/mcp', mcp);
  return { app, httpSpanIds };
}

describe('with an SDK registered', () => {
  let otel: TestOtel;
  beforeEach(() => {
    otel = startOtel();
  });
  afterEach(async () => {
    await otel?.stop();
  });

  it('takes its parent from params._meta.traceparent and links the HTTP span', async () => {
    const mcp = mcpRouter({ name: 't', version: '1', sessions: false });
    addTool(mcp);
    const { app, httpSpanIds } = appWithHttpSpan(mcp);
    await modern(
      app,
      'tools/call',
      { name: 'add', arguments: { a: 1, b: 2 } },
      {},
      { traceparent: TRACEPARENT, baggage: 'tenant=acme' },
    ).expect(200);
    const span = otel.span('tools/call add');
    expect(span.spanContext().traceId).toBe(TRACE_ID);
    expect(span.parentSpanContext?.spanId).toBe(PARENT_SPAN_ID);
    expect(span.links.map((link) => link.context.spanId)).toEqual(httpSpanIds);
  });

  it('without trace context in _meta, is a child of the HTTP span; the handler runs inside the span', async () => {
    const seen: (string | undefined)[] = [];
    const mcp = mcpRouter({ name: 't', version: '1', sessions: false });
    mcp.tool({
      name: 'peek',
      description: 'Peek',
      handler: () => (seen.push(trace.getActiveSpan()?.spanContext().spanId), 'ok'),
    });
    const { app, httpSpanIds } = appWithHttpSpan(mcp);
    await modern(app, 'tools/call', { name: 'peek', arguments: {} }).expect(200);
    const span = otel.span('tools/call peek');
    expect(span.parentSpanContext?.spanId).toBe(httpSpanIds[0]);
    expect(span.links).toEqual([]);
    expect(seen).toEqual([span.spanContext().spanId]);
  });

  it('a cancelled call: error.type "cancelled", status ERROR; the notifications/cancelled gets its own span', async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const app = createApp({ sessions: {} }, (mcp) =>
      mcp.tool({
        name: 'wait',
        description: 'Waits',
        handler: (_args: unknown, ctx) =>
          new Promise((resolve) => (started(), ctx.signal.addEventListener('abort', () => resolve('late')))),
      }),
    );
    const init = await post(
      app,
      rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } }),
    ).expect(200);
    const headers = {
      'Mcp-Session-Id': init.headers['mcp-session-id'] as string,
      'MCP-Protocol-Version': '2025-06-18',
    };
    const call = post(app, rpc('tools/call', { name: 'wait', arguments: {} }, 5), headers).then((res) => res);
    await running;
    await post(app, notification('notifications/cancelled', { requestId: 5, reason: 'bored' }), headers).expect(202);
    await call;
    const span = otel.span('tools/call wait');
    expect(span.attributes['error.type']).toBe('cancelled');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(otel.span('notifications/cancelled').status.code).toBe(SpanStatusCode.UNSET);
  });

  it('records mcp.server.operation.duration in seconds with the method, tool and error.type', async () => {
    const app = createApp({}, addTool);
    await modern(app, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } }).expect(200);
    await modern(app, 'tools/call', { name: 'nosuch', arguments: {} }).expect(200);
    const points = await otel.histogram('mcp.server.operation.duration');
    const ok = points.find((point) => point.attributes['gen_ai.tool.name'] === 'add');
    const failed = points.find((point) => point.attributes['error.type'] === '-32602');
    expect(ok?.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'mcp.protocol.version': '2026-07-28',
      'gen_ai.tool.name': 'add',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'network.protocol.version': '1.1',
    });
    expect(ok?.value.count).toBe(1);
    expect(ok?.value.sum).toBeLessThan(5);
    expect(failed?.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'error.type': '-32602',
      'rpc.response.status_code': '-32602',
    });
    // A name no tool has stays off the histogram and out of the span name (the span keeps it apart, as _OTHER's original).
    expect(failed?.attributes['gen_ai.tool.name']).toBeUndefined();
    expect(otel.span('tools/call').attributes['express_mcp_router.gen_ai.tool.name_original']).toBe('nosuch');
  });

  it('keeps the histogram to one attribute set however many unknown tool and prompt names clients send', async () => {
    const app = createApp({}, (mcp) => {
      addTool(mcp);
      mcp.prompt({ name: 'greet', description: 'Greets', get: () => 'hi' });
    });
    for (let i = 0; i < 40; i++) {
      await modern(app, 'tools/call', { name: `made_up_${i}`, arguments: {} }).expect(200);
      await modern(app, 'prompts/get', { name: `made_up_${i}` }).expect(200);
    }
    const points = await otel.histogram('mcp.server.operation.duration');
    expect(points.map((point) => point.attributes['mcp.method.name']).sort()).toEqual(['prompts/get', 'tools/call']);
    expect(points.map((point) => point.value.count)).toEqual([40, 40]);
  });

  it('records mcp.server.session.duration when a 2025 session ends', async () => {
    const app = createApp({ sessions: { allowDelete: true } });
    const init = await post(
      app,
      rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } }),
    ).expect(200);
    await request(app)
      .delete('/mcp')
      .set({
        'Mcp-Session-Id': init.headers['mcp-session-id'] as string,
        'MCP-Protocol-Version': '2025-06-18',
        Accept: MCP_ACCEPT,
      })
      .expect(200);
    const points = await otel.histogram('mcp.server.session.duration');
    expect(points).toHaveLength(1);
    expect(points[0]?.attributes).toMatchObject({ 'mcp.protocol.version': '2025-06-18' });
    expect(points[0]?.value.count).toBe(1);
  });

  it('records an in-memory session that ends with the router (reason closed), once', async () => {
    let router: McpRouter | undefined;
    const app = createApp({ sessions: {} }, (mcp) => {
      router = mcp;
    });
    await post(
      app,
      rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } }),
    ).expect(200);
    const before = (await otel.histogram('mcp.server.session.duration')).reduce(
      (sum, point) => sum + point.value.count,
      0,
    );
    await router?.close();
    await router?.close();
    const after = (await otel.histogram('mcp.server.session.duration')).reduce(
      (sum, point) => sum + point.value.count,
      0,
    );
    expect(after - before).toBe(1);
  });

  it('records nothing with telemetry: false', async () => {
    const app = createApp({ telemetry: false }, addTool);
    await modern(app, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } }).expect(200);
    expect(otel.spans()).toEqual([]);
    expect(await otel.histogram('mcp.server.operation.duration')).toEqual([]);
  });
});

describe('without an SDK', () => {
  it('records nothing and answers as usual when no provider is registered', async () => {
    const exporter = new InMemorySpanExporter();
    // A provider that exists but is not registered: the router must not find it.
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const app = createApp({}, addTool);
    const res = await modern(app, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } }).expect(200);
    expect(res.body.result.structuredContent).toEqual({ sum: 3 });
    expect(exporter.getFinishedSpans()).toEqual([]);
    await provider.shutdown();
  });

  it("finds registrations where the installed API keeps them (live()'s one-read fast path when nothing is registered)", async () => {
    // (The SDK of the describe above left the API's global object behind, with nothing registered in it.)
    const provider = new BasicTracerProvider();
    trace.setGlobalTracerProvider(provider);
    try {
      expect((globalThis as Record<symbol, unknown>)[API_GLOBALS]).toMatchObject({ trace: expect.anything() });
      expect(createTelemetry({ recordArguments: false, recordResults: false })?.live()).toBe(true);
    } finally {
      trace.disable();
      await provider.shutdown();
    }
    expect(createTelemetry({ recordArguments: false, recordResults: false })?.live()).toBe(false);
  });

  it('works without @opentelemetry/api installed', async () => {
    jest.resetModules();
    jest.doMock('@opentelemetry/api', () => {
      throw new Error("Cannot find module '@opentelemetry/api'");
    });
    const isolated = jest.requireActual<typeof import('../../../lib/features/telemetry/load-api')>(
      '../../../lib/features/telemetry/load-api',
    );
    expect(isolated.loadOpenTelemetryApi()).toBeUndefined();
    const { mcpRouter: freshRouter } = jest.requireActual<typeof import('../../../lib')>('../../../lib');
    const mcp = freshRouter({ name: 't', version: '1', sessions: false });
    addTool(mcp);
    const app = express();
    app.use('/mcp', mcp);
    const res = await modern(app, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } }).expect(200);
    expect(res.body.result.structuredContent).toEqual({ sum: 3 });
    jest.dontMock('@opentelemetry/api');
    expect(loadOpenTelemetryApi()).toBeDefined();
  });
});
