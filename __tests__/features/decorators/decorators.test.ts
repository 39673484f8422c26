// Standard (TC39) decorators: a controller's tools, resources and prompts registered with mcp.register().

import express, { type Request, type Response } from 'express';
import { McpConfigError, mcpRouter, type RequestContext } from '../../../lib';
import { prompt, resource, tool } from '../../../lib/decorators';
import { connectClient, type ConnectedClient } from '../../helpers/connect-client';

class OrdersController {
  private readonly orders = new Map([['7', { id: '7', total: 42 }]]);

  @tool({ name: 'count_orders', description: 'Count the orders' })
  count(_args: Record<string, unknown>, ctx: RequestContext) {
    return { count: this.orders.size, caller: ctx.requestId !== undefined };
  }

  @tool({ description: 'Fetch an order by id', method: 'GET', path: '/orders/:id', name: 'get_order' })
  get(req: Request, res: Response) {
    const order = this.orders.get(String(req.params.id));
    if (order) res.json(order);
    else res.status(404).json({ error: 'no such order' });
  }

  @resource({ uriTemplate: 'orders://{id}', name: 'order', mimeType: 'application/json' })
  read(_uri: string, { id }: { id: string }) {
    return JSON.stringify(this.orders.get(id) ?? null);
  }

  @prompt({ name: 'summarize_order', description: 'Summarize an order', arguments: [{ name: 'id', required: true }] })
  summarize({ id }: { id: string }) {
    return `Summarize order ${id}, total ${this.orders.get(id)?.total ?? 'unknown'}`;
  }
}

describe('decorated controllers', () => {
  let connected: ConnectedClient;
  beforeAll(async () => {
    const mcp = mcpRouter({ name: 'decorated', version: '1.0.0', rateLimit: false });
    const registrations = mcp.register(new OrdersController());
    expect(registrations).toHaveLength(4);
    const app = express();
    app.use('/mcp', mcp);
    connected = await connectClient(app);
  });
  afterAll(() => connected?.close());

  it('registers plain methods as tools, bound to their instance', async () => {
    expect((await connected.client.callTool({ name: 'count_orders', arguments: {} })).structuredContent).toEqual({
      count: 1,
      caller: true,
    });
  });

  it('bridges decorated Express handlers like mcp.route', async () => {
    const { client } = connected;
    expect((await client.callTool({ name: 'get_order', arguments: { id: '7' } })).structuredContent).toEqual({
      id: '7',
      total: 42,
    });
    expect(await client.callTool({ name: 'get_order', arguments: { id: '8' } })).toEqual({
      content: [{ type: 'text', text: 'HTTP 404 Not Found: {"error":"no such order"}' }],
      isError: true,
    });
    const { tools } = await client.listTools();
    expect(tools.find((listed) => listed.name === 'get_order')).toMatchObject({
      inputSchema: { properties: { id: { type: 'string' } }, required: ['id'] },
      annotations: { readOnlyHint: true },
    });
  });

  it('registers resources and prompts next to the tools', async () => {
    const { client } = connected;
    expect((await client.readResource({ uri: 'orders://7' })).contents).toEqual([
      { uri: 'orders://7', mimeType: 'application/json', text: '{"id":"7","total":42}' },
    ]);
    expect((await client.getPrompt({ name: 'summarize_order', arguments: { id: '7' } })).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Summarize order 7, total 42' } },
    ]);
  });

  it('refuses an object without decorated methods', () => {
    const mcp = mcpRouter({ name: 'decorated', version: '1.0.0', rateLimit: false });
    expect(() => mcp.register({})).toThrow(McpConfigError);
  });
});
