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

/**
 * Places an order: checks the customer, the lines and the stock, then takes the units from stock. Shared by the
 * POST route and the order form's app-only tool (demo/apps/order-app.ts), so both refuse the same way.
 */
export function placeOrder(
  store: Store,
  customerId: unknown,
  lines: unknown,
): { order: Order } | { status: 400 | 409; error: string } {
  if (typeof customerId !== 'string' || !store.customers.has(customerId))
    return { status: 400, error: `Unknown customer '${String(customerId)}'.` };
  if (!Array.isArray(lines) || lines.length === 0 || !lines.every(isOrderLine))
    return { status: 400, error: 'lines must be a non-empty array of { productId, quantity }' };
  for (const line of lines) {
    const product = store.products.get(line.productId);
    if (!product) return { status: 400, error: `Unknown product '${line.productId}'.` };
    if (product.stock < line.quantity)
      return { status: 409, error: `Only ${product.stock} of '${product.name}' in stock.` };
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
  return { order };
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
    const placed = placeOrder(store, customerId, lines);
    if ('error' in placed) res.status(placed.status).json({ error: placed.error });
    else res.status(201).json(placed.order);
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
