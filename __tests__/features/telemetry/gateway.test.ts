// The gateway's upstream calls are CLIENT spans, and the upstream hears their trace context in `_meta` (SEP-414), not the caller's.

import { SpanKind } from '@opentelemetry/api';
import request from 'supertest';
import { MCP_ACCEPT, rpc } from '../../helpers/messages';
import { envelope, MODERN } from '../../helpers/modern';
import { useOtel } from '../../helpers/otel';
import {
  closeAfterEach,
  closeGatewaysAfterEach,
  routerCallUpstream,
  serveGateway,
  type Received,
} from '../gateway/upstreams';

closeGatewaysAfterEach();
closeAfterEach();

const otel = useOtel();

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN_ID = '00f067aa0ba902b7';

it("a tool call through the gateway: SERVER span → CLIENT span (upstream named) → the upstream's SERVER span, one trace", async () => {
  const received: Received[] = [];
  const upstream = await routerCallUpstream(
    { sessions: false },
    (mcp) => mcp.tool({ name: 'echo', description: 'Echo', handler: () => 'hi' }),
    received,
  );
  const { url } = await serveGateway({ sessions: false }, (mcp) => [
    mcp.upstream({ name: 'backend', url: upstream.url }),
  ]);
  const meta = envelope({ traceparent: `00-${TRACE_ID}-${CALLER_SPAN_ID}-01` });
  await request(url)
    .post('')
    .set({
      'Content-Type': 'application/json',
      Accept: MCP_ACCEPT,
      'MCP-Protocol-Version': MODERN,
      'Mcp-Method': 'tools/call',
      'Mcp-Name': 'echo',
    })
    .send(rpc('tools/call', { name: 'echo', arguments: {}, _meta: meta }, 3))
    .expect(200);

  const calls = otel.spans().filter((span) => span.name === 'tools/call echo');
  const gatewaySpan = calls.find(
    (span) => span.kind === SpanKind.SERVER && span.parentSpanContext?.spanId === CALLER_SPAN_ID,
  );
  const client = calls.find((span) => span.kind === SpanKind.CLIENT);
  const upstreamSpan = calls.find((span) => span.kind === SpanKind.SERVER && span !== gatewaySpan);
  expect(gatewaySpan?.spanContext().traceId).toBe(TRACE_ID);
  expect(client?.parentSpanContext?.spanId).toBe(gatewaySpan?.spanContext().spanId);
  expect(client?.attributes).toMatchObject({
    'mcp.method.name': 'tools/call',
    'gen_ai.tool.name': 'echo',
    'express_mcp_router.upstream.name': 'backend',
    'server.address': '127.0.0.1',
    'server.port': upstream.port,
  });
  expect(upstreamSpan?.parentSpanContext?.spanId).toBe(client?.spanContext().spanId);
  expect(upstreamSpan?.spanContext().traceId).toBe(TRACE_ID);
  // The upstream heard the CLIENT span's traceparent, not the caller's.
  const forwarded = received.find((entry) => entry.rpc === 'tools/call')?.meta?.traceparent;
  expect(forwarded).toBe(`00-${TRACE_ID}-${client?.spanContext().spanId}-01`);
});
