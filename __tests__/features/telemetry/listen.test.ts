// subscriptions/listen gets its SERVER span too: ended with the acknowledgment (a stream is not an operation), or with the refusal.

import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { SpanStatusCode } from '@opentelemetry/api';
import { createApp, MCP_ACCEPT, rpc } from '../../helpers/create-app';
import { envelope, modern, MODERN } from '../../helpers/modern';
import { useOtel } from '../../helpers/otel';

const otel = useOtel();

const addTool = (mcp: import('../../../lib').McpRouter): void => {
  mcp.tool({ name: 'noop', description: 'Nothing', handler: () => 'ok' });
};

it('a listen stream: span "subscriptions/listen", ended once the stream is acknowledged', async () => {
  const app = createApp({}, addTool);
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const { port } = server.address() as AddressInfo;
  const abort = new AbortController();
  try {
    const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      signal: abort.signal,
      headers: {
        'Content-Type': 'application/json',
        Accept: MCP_ACCEPT,
        'MCP-Protocol-Version': MODERN,
        'Mcp-Method': 'subscriptions/listen',
      },
      body: JSON.stringify(
        rpc('subscriptions/listen', { notifications: { toolsListChanged: true }, _meta: envelope() }, 9),
      ),
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('acknowledged')) text += new TextDecoder().decode((await reader.read()).value);
    const span = otel.span('subscriptions/listen');
    expect(span.attributes).toMatchObject({
      'mcp.method.name': 'subscriptions/listen',
      'jsonrpc.request.id': '9',
      'mcp.protocol.version': MODERN,
      'client.address': expect.any(String),
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(
      (await otel.histogram('mcp.server.operation.duration')).map((point) => point.attributes['mcp.method.name']),
    ).toEqual(['subscriptions/listen']);
  } finally {
    abort.abort();
    await new Promise((resolve) => server.close(resolve));
  }
});

it('a refused listen request: error.type is the JSON-RPC code', async () => {
  const app = createApp({}, addTool);
  await modern(app, 'subscriptions/listen', { notifications: 'all' }).expect(200);
  const span = otel.span('subscriptions/listen');
  expect(span.attributes).toMatchObject({ 'error.type': '-32602', 'rpc.response.status_code': '-32602' });
  expect(span.status.code).toBe(SpanStatusCode.ERROR);
});
