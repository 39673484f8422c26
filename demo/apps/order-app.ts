// The order form as an MCP App (SEP-1865, io.modelcontextprotocol/ui): its ui:// resource, the model-visible
// order_form tool that opens it, and the app-only submit_order_form tool its button calls through the host.

import type { McpAppRegistration, McpRouter } from '../../lib';
import type { Product, Store } from '../store/data';
import { placeOrder } from '../store/orders';
import { ORDER_FORM_PATH } from './order-form';

/** What a non-UI client reads in order_form's result, and what the view shows above the form. */
function describe(product: Product, quantity: number): string {
  return (
    `Order form for ${quantity} × ${product.name} (${product.price} € each, ${product.stock} in stock). ` +
    'Pick the customer and place the order in the form, or call place_order with a customerId (list_customers).'
  );
}

/**
 * Registers the order form's app and its two tools. The app's HTML is the demo's own page, GET /apps/order-form,
 * rendered through the demo app for each read: the same template and data a browser gets.
 */
export function registerOrderApp(mcp: McpRouter, store: Store): McpAppRegistration {
  // SEP-1865 "UI Resource Format": the view's script is inlined in the page, so its CSP declares no origin at all:
  // the host allows the document's own inline code and nothing else (no fetch, no image from anywhere).
  const app = mcp.app({
    name: 'order-form',
    title: 'Order form',
    description: 'The order form app: pick a product, a quantity and a customer, and place the order',
    route: ORDER_FORM_PATH,
    csp: { connectDomains: [], resourceDomains: [] },
    prefersBorder: true,
  });

  mcp.tool({
    name: 'order_form',
    title: 'Order form',
    description: 'Open the order form for a product (a UI in hosts that render MCP Apps, a summary elsewhere)',
    inputSchema: {
      type: 'object',
      properties: {
        productId: { type: 'string', description: 'The product to order (list_products shows the ids)' },
        quantity: { type: 'integer', minimum: 1, default: 1 },
      },
      required: ['productId'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
    // SEP-1865 "Resource Discovery": the tool names its app; visible to the model and to the app (the default).
    ui: 'order-form',
    handler({ productId, quantity = 1 }: { productId: string; quantity?: number }) {
      const product = store.products.get(productId);
      if (!product)
        return {
          isError: true,
          content: [{ type: 'text', text: `No product '${productId}'. list_products shows the ids.` }],
        };
      return {
        content: [{ type: 'text', text: describe(product, quantity) }],
        structuredContent: { productId, quantity, name: product.name, price: product.price, stock: product.stock },
      };
    },
  });

  mcp.tool({
    name: 'submit_order_form',
    title: 'Submit the order form',
    description: "Place the order the order form's user filled in (called by the app, not the model)",
    inputSchema: {
      type: 'object',
      properties: {
        productId: { type: 'string' },
        quantity: { type: 'integer', minimum: 1 },
        customerId: { type: 'string' },
      },
      required: ['productId', 'quantity', 'customerId'],
      additionalProperties: false,
    },
    scopes: ['store:write'],
    // SEP-1865 "Visibility": ['app'] keeps it out of the model's tools; only the app calls it, through its host.
    ui: { app: 'order-form', visibility: ['app'] },
    handler({ productId, quantity, customerId }: { productId: string; quantity: number; customerId: string }) {
      const placed = placeOrder(store, customerId, [{ productId, quantity }]);
      if ('error' in placed) return { isError: true, content: [{ type: 'text', text: placed.error }] };
      const { order } = placed;
      const name = store.products.get(productId)?.name ?? productId;
      return {
        content: [{ type: 'text', text: `Order ${order.id} placed: ${quantity} × ${name}, ${order.total} €.` }],
        structuredContent: { ...order },
      };
    },
  });
  return app;
}
