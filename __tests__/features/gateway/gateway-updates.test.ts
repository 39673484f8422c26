// Gateway: an upstream's resource updates reach the downstream callers subscribed to the resource, under its <prefix>+ URI.

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { mcpRouter, type McpRouter } from '../../../lib';
import { Signal } from '../../helpers/events';
import { closeAfterEach, hasAnswered, routerUpstreamWithApi, type Upstream } from './upstreams';
import { scaled } from '../../helpers/time-scale';

closeAfterEach();

const opened: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of opened.splice(0).reverse()) await close();
});

async function gatewayFor(url: string): Promise<{ gateway: McpRouter; url: string }> {
  const gateway = mcpRouter({ name: 'gateway', version: '1.0.0', logger: { error: jest.fn(), warn: jest.fn() } });
  gateway.upstream({ prefix: 'up', url, listTimeoutMs: scaled(3000) });
  const app = express();
  app.use('/mcp', gateway);
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  opened.push(async () => {
    await gateway.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return { gateway, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` };
}

describe.each([
  [
    'a 2026 upstream (listen stream)',
    {},
    (upstream: Upstream) =>
      hasAnswered(upstream, 'subscriptions/listen', (params) =>
        Boolean(
          (
            params as { notifications: { resourceSubscriptions?: string[] } }
          ).notifications.resourceSubscriptions?.includes('docs://readme'),
        ),
      ),
  ],
  [
    'a 2025 upstream (GET stream, resources/subscribe)',
    { eras: ['2025' as const] },
    (upstream: Upstream) => hasAnswered(upstream, 'resources/subscribe'),
  ],
])('resource updates from %s', (_label, options, subscribed) => {
  it('reach a downstream session subscribed to the prefixed URI, and no update of another resource does', async () => {
    const { upstream, mcp } = await routerUpstreamWithApi(options);
    mcp.resource({ uri: 'docs://other', name: 'other', read: () => 'other' });
    const { url } = await gatewayFor(upstream.url);
    const client = new Client({ name: 'downstream', version: '1.0.0' });
    const updates: string[] = [];
    const updated = new Signal();
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updates.push(notification.params.uri);
      updated.notify();
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    opened.push(() => client.close());
    const listed = await client.listResources();
    expect(listed.resources.map((resource) => resource.uri).sort()).toEqual(['up+docs://other', 'up+docs://readme']);
    await client.subscribeResource({ uri: 'up+docs://readme' });
    // The gateway's own subscription upstream is made when the lists arrive; the upstream keeps it before answering.
    await upstream.recorded.when(() => subscribed(upstream), "the gateway's subscription upstream");
    mcp.notifyResourceUpdated('docs://other');
    mcp.notifyResourceUpdated('docs://readme');
    await updated.when(() => updates.length > 0, 'a resource update');
    // docs://other went first down the same streams: relayed, it would have arrived before.
    expect(updates).toEqual(['up+docs://readme']);
  });
});
