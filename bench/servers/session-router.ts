// Scenario `session-per-call`, this router with the shared `lookup` tool. argv[2]: `defaults` ((e)'s options: sessions on,
// in-memory stores, `rateLimit: false` as the SDK servers have none) or `stateless` ((d)'s options).

import express from 'express';
import { mcpRouter, type McpRouterOptions } from '../../lib';
import { serveForBench } from './control';
import { SERVER_INFO } from './common';
import { LOOKUP_DESCRIPTION, LOOKUP_INPUT_SCHEMA, lookupTool, toolArgs } from './session-tool';

const VARIANTS = {
  defaults: { rateLimit: false },
  stateless: { sessions: false, responseMode: 'json', rateLimit: false },
} satisfies Record<string, Omit<McpRouterOptions, 'name' | 'version'>>;

async function main(): Promise<void> {
  const variant = process.argv[2];
  if (variant !== 'defaults' && variant !== 'stateless')
    throw new Error(`bench/servers/session-router.ts: variant must be defaults or stateless, got ${String(variant)}`);
  const { redisUrl, serviceUrl } = toolArgs(process.argv, 3);
  const lookup = await lookupTool(redisUrl, serviceUrl);
  const mcp = mcpRouter({ ...SERVER_INFO, ...VARIANTS[variant] } as McpRouterOptions);
  mcp.tool({
    name: 'lookup',
    description: LOOKUP_DESCRIPTION,
    inputSchema: LOOKUP_INPUT_SCHEMA,
    handler: ({ key }) => lookup(key),
  });
  const app = express();
  app.use('/mcp', mcp);
  serveForBench(app);
}

void main();
