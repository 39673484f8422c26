// What the store offers over MCP besides its bridged routes: a tool with progress, a paid tool (x402, paid through
// the package's test facilitator, express-mcp-router/x402/testing), the catalog as a resource, one product per URI
// (with completions), and a prompt.

import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorCode, JsonRpcError, type McpRouter } from '../lib';
import { x402Guard, type PaymentRequirements } from '../lib/x402';
import { testFacilitator } from '../lib/x402-testing';
import type { Store } from './store/data';

const STYLES = ['espresso', 'filter', 'french press', 'pour-over'];

/**
 * The price of premium_stock_forecast: 0.01 USDC (6 decimals, so 10000 atomic units) on Base Sepolia, a test
 * network; payTo is a made-up address. The test facilitator never touches the chain anyway.
 */
export const FORECAST_PRICE: PaymentRequirements = {
  scheme: 'exact',
  network: 'eip155:84532',
  amount: '10000',
  asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  payTo: '0x000000000000000000000000000000000000dEaD',
  maxTimeoutSeconds: 60,
  extra: { name: 'USDC', version: '2', decimals: 6 },
};
/** Units each product sells a day, in the demo's imaginary sales history. */
const DAILY_SALES = 0.5;

export function registerStoreMcp(mcp: McpRouter, store: Store): void {
  mcp.tool({
    name: 'audit_inventory',
    title: 'Audit inventory',
    description:
      'Count the stock of every product, reporting progress as it goes; returns the units, their value and what runs low',
    inputSchema: {
      type: 'object',
      properties: {
        delayMs: {
          type: 'integer',
          minimum: 0,
          maximum: 1000,
          default: 100,
          description: 'Pause per product, to watch the progress',
        },
        lowStockBelow: {
          type: 'integer',
          minimum: 1,
          default: 5,
          description: 'Report products with fewer units than this',
        },
      },
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        products: { type: 'integer' },
        units: { type: 'integer' },
        value: { type: 'number' },
        lowStock: { type: 'array', items: { type: 'string' } },
      },
      required: ['products', 'units', 'value', 'lowStock'],
    },
    annotations: { readOnlyHint: true },
    async handler({ delayMs = 100, lowStockBelow = 5 }, ctx) {
      const products = [...store.products.values()];
      await ctx.log('info', `Auditing ${products.length} products`, 'audit');
      let units = 0;
      let value = 0;
      const lowStock: string[] = [];
      for (const [index, product] of products.entries()) {
        // Cancellation (or the caller going away) aborts the pause, and with it the audit.
        await sleep(delayMs, undefined, { signal: ctx.signal });
        units += product.stock;
        value += product.stock * product.price;
        if (product.stock < lowStockBelow) {
          lowStock.push(product.id);
          await ctx.log('warning', `${product.name}: ${product.stock} left`, 'audit');
        }
        await ctx.progress(index + 1, products.length, `Counted ${product.name}`);
      }
      return { products: products.length, units, value: Math.round(value * 100) / 100, lowStock };
    },
  });

  mcp.tool({
    name: 'premium_stock_forecast',
    title: 'Stock forecast (paid)',
    description:
      'Which products run out within the next days and how many units to reorder. Costs 0.01 USDC a call (x402; the demo takes a test payment)',
    inputSchema: {
      type: 'object',
      properties: {
        days: { type: 'integer', minimum: 1, maximum: 90, default: 30, description: 'How far ahead to forecast' },
      },
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
    guards: [x402Guard({ facilitator: testFacilitator(), accepts: [FORECAST_PRICE] })],
    handler({ days = 30 }) {
      const needed = Math.ceil(days * DAILY_SALES);
      const reorder = [...store.products.values()]
        .filter((product) => product.stock < needed)
        .map((product) => ({
          id: product.id,
          name: product.name,
          stock: product.stock,
          runsOutInDays: Math.floor(product.stock / DAILY_SALES),
          reorder: needed - product.stock,
        }));
      return { days, reorder };
    },
  });

  mcp.resource({
    uri: 'store://catalog',
    name: 'catalog',
    title: 'Product catalog',
    description: 'Every product with its price and stock',
    mimeType: 'application/json',
    read: () => JSON.stringify([...store.products.values()]),
  });

  mcp.resourceTemplate({
    uriTemplate: 'product://{id}',
    name: 'product',
    title: 'One product',
    mimeType: 'application/json',
    read: (uri, { id = '' }) => {
      const product = store.products.get(id);
      // MCP resources › Error Handling: an unknown resource is -32002 with its URI.
      if (!product) throw new JsonRpcError(ErrorCode.ResourceNotFound, `No product '${id}'.`, { uri });
      return JSON.stringify(product);
    },
    complete: { id: (prefix) => [...store.products.keys()].filter((id) => id.startsWith(prefix)) },
  });

  mcp.prompt({
    name: 'recommend',
    title: 'Recommend gear',
    description: 'Ask for coffee gear that fits a budget and a brewing style',
    arguments: [
      { name: 'budget', description: 'In euros', required: true },
      {
        name: 'style',
        description: 'Brewing style',
        complete: (prefix) => STYLES.filter((style) => style.startsWith(prefix)),
      },
    ],
    get: ({ budget, style }) =>
      `Recommend coffee gear from store://catalog (only what is in stock) for a budget of ${budget} euros${style ? ` and ${style} brewing` : ''}. Explain each choice in one line.`,
  });
}
