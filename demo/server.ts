// The demo: a small store API that serves MCP at /mcp. Start it with `npm run demo` (PORT, default 3000).

import express from 'express';
import { mcpRouter, resourceLink } from '../lib';

interface Product {
  id: string;
  name: string;
  price: number;
  stock: number;
}

const products: Product[] = [
  { id: 'p1', name: 'Espresso beans', price: 14.5, stock: 40 },
  { id: 'p2', name: 'Grinder', price: 89, stock: 6 },
  { id: 'p3', name: 'Milk jug', price: 12, stock: 0 },
];

/** Builds the demo app; exported so tests can start it on a free port. */
export function createDemoApp(): express.Express {
  const mcp = mcpRouter({
    name: 'demo-store',
    version: '0.1.0',
    title: 'Demo store',
    instructions: 'A coffee-gear store. Use search_products to find items and product://{id} for details.',
  });

  mcp.tool({
    name: 'add',
    title: 'Add',
    description: 'Add two numbers',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
    annotations: { readOnlyHint: true },
    handler: ({ a, b }) => ({ sum: a + b }),
  });

  mcp.tool({
    name: 'search_products',
    title: 'Search products',
    description: 'Find products whose name contains the query; optionally only those in stock',
    inputSchema: {
      type: 'object',
      properties: { query: { type: 'string', minLength: 1 }, inStock: { type: 'boolean' } },
      required: ['query'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
    handler: ({ query, inStock }) => {
      const found = products.filter((p) => p.name.toLowerCase().includes(query.toLowerCase()) && (!inStock || p.stock > 0));
      if (found.length === 0) return `No product matches '${query}'.`;
      return { content: found.map((p) => resourceLink({ uri: `product://${p.id}`, name: p.name, mimeType: 'application/json' })) };
    },
  });

  mcp.tool({
    name: 'restock',
    description: 'Add units to a product’s stock; fails for an unknown product id',
    inputSchema: {
      type: 'object',
      properties: { id: { type: 'string' }, units: { type: 'integer', minimum: 1, maximum: 1000 } },
      required: ['id', 'units'],
    },
    annotations: { idempotentHint: false },
    handler: ({ id, units }) => {
      const product = products.find((p) => p.id === id);
      if (!product) throw new Error(`No product with id '${id}'. Use search_products to find ids.`);
      product.stock += units;
      return { id, stock: product.stock };
    },
  });

  mcp.resource({
    uri: 'store://catalog',
    name: 'catalog',
    title: 'Product catalog',
    mimeType: 'application/json',
    read: () => JSON.stringify(products),
  });

  mcp.resourceTemplate({
    uriTemplate: 'product://{id}',
    name: 'product',
    title: 'One product',
    mimeType: 'application/json',
    read: (uri, { id }) => {
      const product = products.find((p) => p.id === id);
      if (!product) return { text: JSON.stringify({ error: `no product ${id}` }) };
      return JSON.stringify(product);
    },
    complete: { id: (prefix) => products.map((p) => p.id).filter((id) => id.startsWith(prefix)) },
  });

  mcp.prompt({
    name: 'recommend',
    title: 'Recommend gear',
    description: 'Ask for a recommendation for a budget and a brewing style',
    arguments: [
      { name: 'budget', description: 'in euros', required: true },
      { name: 'style', description: 'espresso, filter, …', complete: (prefix) => ['espresso', 'filter', 'french press'].filter((s) => s.startsWith(prefix)) },
    ],
    get: ({ budget, style }) => `Recommend coffee gear from store://catalog for a budget of ${budget} euros${style ? ` and ${style} brewing` : ''}.`,
  });

  const app = express();
  app.get('/', (_req, res) => {
    res.type('text').send('Demo store. MCP endpoint: POST /mcp\n');
  });
  app.use('/mcp', mcp);
  return app;
}

if (require.main === module) {
  const port = Number(process.env.PORT ?? 3000);
  const host = process.env.HOST ?? '127.0.0.1';
  createDemoApp().listen(port, host, () => {
    const url = `http://${host}:${port}/mcp`;
    console.log(`MCP demo store at ${url}

Connect a client to it, e.g. the MCP Inspector: npx @modelcontextprotocol/inspector
(transport "Streamable HTTP", URL ${url}). README.md has a curl session.`);
  });
}
