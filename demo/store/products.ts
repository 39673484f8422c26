// The legacy products API. Three of its routes became MCP tools by wrapping their handlers in mcp.route():
// Each tool learns its route's full path (/api/products/:id) and runs through the whole app, API-key check included.

import express, { type RequestHandler, type Router } from 'express';
import type { McpRouter } from '../../lib';
import { CATEGORIES, type Product, type Store } from './data';

const productSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    category: { enum: CATEGORIES },
    price: { type: 'number' },
    stock: { type: 'integer' },
  },
  required: ['id', 'name', 'category', 'price', 'stock'],
} as const;

export function productsRouter(store: Store, mcp: McpRouter): Router {
  const listProducts: RequestHandler = (req, res) => {
    const { category, inStock } = req.query;
    let products: Product[] = [...store.products.values()];
    if (typeof category === 'string') products = products.filter((product) => product.category === category);
    if (inStock === 'true') products = products.filter((product) => product.stock > 0);
    res.json({ products });
  };

  const getProduct: RequestHandler = (req, res) => {
    const product = store.products.get(String(req.params.id));
    if (product) res.json(product);
    else res.status(404).json({ error: `No product '${String(req.params.id)}'. list_products shows the ids.` });
  };

  const restock: RequestHandler = (req, res) => {
    const product = store.products.get(String(req.params.id));
    const units = (req.body as { units?: unknown } | undefined)?.units;
    if (!product) {
      res.status(404).json({ error: `No product '${String(req.params.id)}'.` });
    } else if (typeof units !== 'number' || !Number.isInteger(units) || units < 1) {
      res.status(400).json({ error: 'units must be a positive integer' });
    } else {
      product.stock += units;
      res.json(product);
      // Clients subscribed to the catalog or to this product read it again (the playground's Subscribe button).
      mcp.notifyResourceUpdated('store://catalog');
      mcp.notifyResourceUpdated(`product://${product.id}`);
    }
  };

  const router = express.Router();
  router.get(
    '/',
    mcp.route(
      {
        name: 'list_products',
        description: 'List the products, optionally of one category or only those in stock',
        input: {
          query: { type: 'object', properties: { category: { enum: CATEGORIES }, inStock: { type: 'boolean' } } },
        },
        output: {
          type: 'object',
          properties: { products: { type: 'array', items: productSchema } },
          required: ['products'],
        },
      },
      listProducts,
    ),
  );
  router.get(
    '/:id',
    mcp.route({ name: 'get_product', description: 'Fetch one product by id', output: productSchema }, getProduct),
  );
  router.post(
    '/:id/restock',
    mcp.route(
      {
        name: 'restock_product',
        description: "Add units to a product's stock",
        input: {
          body: {
            type: 'object',
            properties: { units: { type: 'integer', minimum: 1, maximum: 1000 } },
            required: ['units'],
          },
        },
        scopes: ['store:write'],
      },
      restock,
    ),
  );
  return router;
}
