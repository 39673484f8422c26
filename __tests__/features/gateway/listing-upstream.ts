// Test helper: this router as an upstream whose lists can be held back until an event (an upstream that lists late, as an `npx` start does), recording what reached it.

import type { NextFunction, Request, Response } from 'express';
import { mcpRouter } from '../../../lib';
import { Signal } from '../../helpers/events';
import { serve } from './upstreams';

/** What an upstream received: tool calls with their arguments, prompt gets, and resource reads. */
export interface Received {
  calls: { name: string; args: unknown }[];
  gets: string[];
  reads: string[];
}

/** What a listing upstream serves: each tool and prompt answers with the upstream's `who`, each read is `who read`. */
export interface ListedItems {
  tools: string[];
  prompts?: string[];
  resources: string[];
  templates: string[];
  /** A tool's `_meta.ui.resourceUri`, by tool name. */
  links?: Record<string, string>;
}

/**
 * Serves `items` as upstream `who`; `gate`, when given, holds every list request until it resolves, decided by an
 * event rather than a delay.
 */
export async function listingUpstream(
  who: string,
  items: ListedItems,
  gate?: Promise<void>,
): Promise<{ url: string; received: Received; listed: () => number; answeredList: Signal }> {
  const received: Received = { calls: [], gets: [], reads: [] };
  /** List requests answered (their responses sent): the gateway has them in hand. */
  let listed = 0;
  /** Told as each list request is answered. */
  const answeredList = new Signal();
  const served = await serve((app) => {
    const mcp = mcpRouter({ name: who, version: '1.0.0', logger: { error: jest.fn(), warn: jest.fn() } });
    for (const name of items.tools)
      mcp.tool({
        name,
        description: `${name} of ${who}`,
        ...(items.links?.[name] === undefined ? {} : { _meta: { ui: { resourceUri: items.links[name] } } }),
        inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
        handler: (args) => (received.calls.push({ name, args }), `${who} ran ${name}`),
      });
    for (const name of items.prompts ?? [])
      mcp.prompt({ name, get: () => (received.gets.push(name), [{ role: 'user', content: `${who} prompt ${name}` }]) });
    for (const uri of items.resources)
      mcp.resource({ uri, name: uri, read: (read) => (received.reads.push(read), `${who} read`) });
    for (const uriTemplate of items.templates)
      mcp.resourceTemplate({
        uriTemplate,
        name: uriTemplate,
        read: (read) => (received.reads.push(read), `${who} read`),
      });
    const held = (req: Request, res: Response, next: NextFunction): void => {
      const method = (req.body as { method?: unknown } | undefined)?.method;
      const list = typeof method === 'string' && method.endsWith('/list');
      if (list)
        res.on('finish', () => {
          listed++;
          answeredList.notify();
        });
      if (gate !== undefined && list) void gate.then(() => next());
      else next();
    };
    app.use('/mcp', held, mcp);
  });
  return { url: served.url, received, listed: () => listed, answeredList };
}

/** A gate and the function that opens it. */
export function release(): { gate: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  return { gate, open };
}
