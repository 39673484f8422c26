// The legacy customers controller. Decorating its methods made them MCP tools, a resource and a prompt;
// demo/server.ts registers an instance with mcp.register(). The Express routes use the same methods.

import express, { type Request, type Response, type Router } from 'express';
import { ErrorCode, JsonRpcError } from '../../lib';
import { prompt, resource, tool } from '../../lib/decorators';
import type { Store } from './data';

export class CustomersController {
  constructor(private readonly store: Store) {}

  @tool({
    name: 'list_customers',
    description: 'List the customers (id, name, tier)',
    method: 'GET',
    path: '/customers',
  })
  list(_req: Request, res: Response): void {
    res.json({ customers: [...this.store.customers.values()].map(({ id, name, tier }) => ({ id, name, tier })) });
  }

  @tool({
    name: 'get_customer',
    description: 'Fetch a customer by id, with their orders',
    method: 'GET',
    path: '/customers/:id',
  })
  get(req: Request, res: Response): void {
    const customer = this.store.customers.get(String(req.params.id));
    if (!customer) {
      res.status(404).json({ error: `No customer '${String(req.params.id)}'. list_customers shows the ids.` });
      return;
    }
    res.json({ ...customer, orders: this.ordersOf(customer.id) });
  }

  @resource({ uriTemplate: 'customer://{id}', name: 'customer', title: 'One customer', mimeType: 'application/json' })
  read(uri: string, { id }: { id: string }): string {
    const customer = this.store.customers.get(id);
    if (!customer) throw new JsonRpcError(ErrorCode.ResourceNotFound, `No customer '${id}'.`, { uri });
    return JSON.stringify({ ...customer, orders: this.ordersOf(id) });
  }

  @prompt({
    name: 'follow_up_email',
    title: 'Follow-up email',
    description: "Draft a friendly follow-up email about a customer's latest order",
    arguments: [{ name: 'customerId', description: 'e.g. c1', required: true }],
  })
  followUp({ customerId }: { customerId: string }): string {
    const customer = this.store.customers.get(customerId);
    if (!customer)
      throw new JsonRpcError(ErrorCode.InvalidParams, `No customer '${customerId}'. list_customers shows the ids.`);
    const latest = this.ordersOf(customerId).at(-1);
    const about = latest
      ? `their order ${latest.id} (${latest.status}, ${latest.total} EUR)`
      : 'their first order with us';
    return `Write a short, friendly email to ${customer.name} <${customer.email}> about ${about}. Read customer://${customerId} for details.`;
  }

  /** The legacy routes, served by the same methods. */
  routes(): Router {
    const router = express.Router();
    router.get('/', (req, res) => this.list(req, res));
    router.get('/:id', (req, res) => this.get(req, res));
    return router;
  }

  private ordersOf(customerId: string) {
    return [...this.store.orders.values()].filter((order) => order.customerId === customerId);
  }
}
