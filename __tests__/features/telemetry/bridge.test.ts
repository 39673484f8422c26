// A bridged route runs in an INTERNAL span `{METHOD} {route}` under the tools/call span; the route's own spans nest under it.

import express from 'express';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { getRPCMetadata, RPCType, setRPCMetadata, type RPCMetadata } from '@opentelemetry/core';
import { modern } from '../../helpers/modern';
import { useOtel } from '../../helpers/otel';
import { mcpRouter } from '../../../lib';

const otel = useOtel();

function bridgedApp(): express.Express {
  const app = express();
  const mcp = mcpRouter({ name: 't', version: '1', sessions: false });
  app.get('/users/:id', (req, res) => {
    trace.getTracer('app').startSpan('db.lookup').end();
    res.json({ id: req.params.id });
  });
  app.get('/broken', () => {
    throw new Error('boom');
  });
  mcp.exposeRoutes(app, [
    { method: 'GET', path: '/users/:id', name: 'get_user', description: 'One user' },
    { method: 'GET', path: '/broken', name: 'broken', description: 'Fails' },
  ]);
  app.use('/mcp', mcp);
  // The app's own error handler keeps the expected failure out of the test output.
  app.use(
    (_err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) =>
      void res.status(500).json({ error: 'boom' }),
  );
  return app;
}

it('tools/call → INTERNAL "GET /users/:id" → the route\'s own span', async () => {
  await modern(bridgedApp(), 'tools/call', { name: 'get_user', arguments: { id: '42' } }).expect(200);
  const call = otel.span('tools/call get_user');
  const route = otel.span('GET /users/:id');
  const own = otel.span('db.lookup');
  expect(route.kind).toBe(SpanKind.INTERNAL);
  expect(route.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
  expect(route.attributes).toEqual({
    'http.request.method': 'GET',
    'http.route': '/users/:id',
    'http.response.status_code': 200,
  });
  expect(own.parentSpanContext?.spanId).toBe(route.spanContext().spanId);
  expect(route.status.code).toBe(SpanStatusCode.UNSET);
});

it('a route that fails: its span has error.type "500"; the call is a tool_error', async () => {
  await modern(bridgedApp(), 'tools/call', { name: 'broken', arguments: {} }).expect(200);
  const route = otel.span('GET /broken');
  expect(route.attributes).toMatchObject({ 'http.response.status_code': 500, 'error.type': '500' });
  expect(route.status.code).toBe(SpanStatusCode.ERROR);
  expect(otel.span('tools/call broken').attributes['error.type']).toBe('tool_error');
});

it("a bridged route cannot rename the MCP POST's HTTP span: the route holder of the HTTP instrumentation is not passed in", async () => {
  // What @opentelemetry/instrumentation-http does for each request the HTTP server receives (so not for the bridge's
  // in-process one), and instrumentation-express for each route it runs.
  const outer: RPCMetadata = { type: RPCType.HTTP, span: trace.getTracer('http').startSpan('POST') };
  const app = express();
  app.use('/mcp', (_req, _res, next) => context.with(setRPCMetadata(context.active(), outer), next));
  const mcp = mcpRouter({ name: 't', version: '1', sessions: false });
  let seen: RPCMetadata | undefined | 'not called';
  app.get('/users/:id', (req, res) => {
    seen = getRPCMetadata(context.active());
    if (seen?.type === RPCType.HTTP) seen.route = '/users/:id';
    res.json({ id: req.params.id });
  });
  mcp.exposeRoutes(app, [{ method: 'GET', path: '/users/:id', name: 'get_user', description: 'One user' }]);
  app.use('/mcp', mcp);
  seen = 'not called';
  await modern(app, 'tools/call', { name: 'get_user', arguments: { id: '42' } }).expect(200);
  expect(seen).toBeUndefined();
  expect(outer.route).toBeUndefined();
  outer.span.end();
});
