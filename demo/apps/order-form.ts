// The order form: a page of the demo app (GET /apps/order-form) rendered from the store's products and customers,
// which is also the view of an MCP App (demo/apps/order-app.ts): the same HTML, for the web and for MCP hosts.

import express, { type Router } from 'express';
import type { Store } from '../store/data';
import { lazyBundle } from './bundle';

/** Where the demo serves the page; the MCP App's HTML is what this route renders. */
export const ORDER_FORM_PATH = '/apps/order-form';

/** The view's script with the App SDK, built on first use (demo/apps/bundle.ts). */
const orderFormScript = lazyBundle('order-form-view.js');

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (char) => ESCAPES[char]!);

const STYLE = `
  body { font: 15px/1.4 system-ui, sans-serif; margin: 0; padding: 12px 16px; color: #1f2328; }
  h1 { font-size: 1.1rem; margin: 0 0 8px; }
  form { display: grid; grid-template-columns: max-content 1fr; gap: 6px 10px; align-items: center; max-width: 28rem; }
  button { grid-column: 2; justify-self: start; padding: 4px 14px; }
  #picked, #order-status { margin: 8px 0 0; }
  #picked:empty, #csp-violations:empty { display: none; }
  #order-status[data-state="placed"] { color: #1a7f37; font-weight: 600; }
  #order-status[data-state="error"] { color: #cf222e; }
  #csp-violations { font-size: 0.8rem; color: #57606a; }
`;

/**
 * The page: a form of the store's products (those in stock) and customers, and the view's script inlined.
 *
 * @param store - the demo store, read at each render (stock changes as orders are placed)
 * @param script - the view's bundled script
 */
function renderOrderForm(store: Store, script: string): string {
  const products = [...store.products.values()]
    .filter((product) => product.stock > 0)
    .map(
      (product) =>
        `<option value="${escapeHtml(product.id)}">${escapeHtml(product.name)} · ${product.price} € · ${product.stock} in stock</option>`,
    );
  const customers = [...store.customers.values()].map(
    (customer) => `<option value="${escapeHtml(customer.id)}">${escapeHtml(customer.name)}</option>`,
  );
  // "</script" inside the bundle would end the inline script early; esbuild escapes it in strings, and this in case.
  const inline = script.replace(/<\/script/gi, '<\\/script');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Order form · Demo coffee store</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Order form</h1>
<p id="picked" data-testid="picked" aria-live="polite"></p>
<form id="order-form" data-testid="order-form">
  <label for="product">Product</label><select id="product" name="productId">${products.join('')}</select>
  <label for="quantity">Quantity</label><input id="quantity" name="quantity" type="number" min="1" value="1">
  <label for="customer">Customer</label><select id="customer" name="customerId">${customers.join('')}</select>
  <button id="place" type="submit" data-testid="place-order" disabled>Place order</button>
</form>
<p id="order-status" data-testid="order-status" role="status" data-state="starting">Starting…</p>
<ul id="csp-violations" data-testid="csp-violations"></ul>
<script type="module">${inline}</script>
</body>
</html>
`;
}

/** The page's route: GET /apps/order-form, HTML rendered from the store. */
export function orderFormRouter(store: Store): Router {
  const router = express.Router();
  router.get(ORDER_FORM_PATH, async (_req, res, next) => {
    try {
      res.type('html').send(renderOrderForm(store, await orderFormScript()));
    } catch (error) {
      next(error);
    }
  });
  return router;
}
