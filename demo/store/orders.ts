// The legacy orders API, untouched: its routes are declared as MCP tools in demo/server.ts with
// mcp.exposeRoutes(), which dispatches through the whole app (API-key middleware and body parser included).

import express, { type Router } from 'express';
import type { Order, OrderLine, Store } from './data';

function isOrderLine(value: unknown): value is OrderLine {
  const line = value as OrderLine | null;
  return (
    typeof line === 'object' &&
    line !== null &&
    typeof line.productId === 'string' &&
    Number.isInteger(line.quantity) &&
    line.quantity > 0
  );
}

export function ordersRouter(store: Store): Router {
  const router = express.Router();

  router.get('/', (req, res) => {
    const { status, customerId } = req.query;
    const orders = [...store.orders.values()].filter(
      (order) =>
        (status === undefined || order.status === status) &&
        (customerId === undefined || order.customerId === customerId),
    );
    res.json({ orders });
  });

  router.get('/:id', (req, res) => {
    const order = store.orders.get(req.params.id);
    if (order) res.json(order);
    else res.status(404).json({ error: `No order '${req.params.id}'.` });
  });

  router.post('/', (req, res) => {
    const { customerId, lines } = (req.body ?? {}) as { customerId?: unknown; lines?: unknown };
    if (typeof customerId !== 'string' || !store.customers.has(customerId)) {
      res.status(400).json({ error: `Unknown customer '${String(customerId)}'.` });
      return;
    }
    if (!Array.isArray(lines) || lines.length === 0 || !lines.every(isOrderLine)) {
      res.status(400).json({ error: 'lines must be a non-empty array of { productId, quantity }' });
      return;
    }
    for (const line of lines) {
      const product = store.products.get(line.productId);
      if (!product) {
        res.status(400).json({ error: `Unknown product '${line.productId}'.` });
        return;
      }
      if (product.stock < line.quantity) {
        res.status(409).json({ error: `Only ${product.stock} of '${product.name}' in stock.` });
        return;
      }
    }
    let total = 0;
    for (const line of lines) {
      const product = store.products.get(line.productId)!;
      product.stock -= line.quantity;
      total += product.price * line.quantity;
    }
    const order: Order = {
      id: store.nextOrderId(),
      customerId,
      lines: lines.map(({ productId, quantity }) => ({ productId, quantity })),
      total: Math.round(total * 100) / 100,
      status: 'placed',
      createdAt: new Date().toISOString(),
    };
    store.orders.set(order.id, order);
    res.status(201).json(order);
  });

  router.post('/:id/cancel', (req, res) => {
    const order = store.orders.get(req.params.id);
    if (!order) {
      res.status(404).json({ error: `No order '${req.params.id}'.` });
    } else if (order.status !== 'placed') {
      res.status(409).json({ error: `Order ${order.id} is ${order.status}; only placed orders can be cancelled.` });
    } else {
      for (const line of order.lines) {
        const product = store.products.get(line.productId);
        if (product) product.stock += line.quantity;
      }
      order.status = 'cancelled';
      res.json(order);
    }
  });

  return router;
}
