// The demo's stdio upstream: a small "roaster" MCP server (the SDK v1 McpServer over stdin/stdout) that the store
// mounts with mcp.upstream({ prefix: 'roaster', command: process.execPath, args: [… this file] }), so clients see
// roaster__roast_schedule and roaster__plan_tasting, which asks the user a question through the gateway (elicitation).
//
// Run by the router as a child process (demo/server.ts); by hand: `npx tsx demo/stdio-upstream.ts`, then type
// JSON-RPC lines. stdout is the MCP channel: nothing else may be written to it.

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as z from 'zod/v4';

/** One batch on the roaster's week plan. */
export interface Roast {
  readonly day: string;
  readonly coffee: string;
  readonly roast: 'light' | 'medium' | 'medium-dark';
  readonly kg: number;
}

/** The week's roasts, in order: fixed, so the demo and its tests read the same plan. */
export const ROASTS: readonly Roast[] = [
  { day: 'Monday', coffee: 'House espresso blend', roast: 'medium-dark', kg: 12 },
  { day: 'Tuesday', coffee: 'Ethiopia Guji', roast: 'light', kg: 6 },
  { day: 'Wednesday', coffee: 'Colombia Huila', roast: 'medium', kg: 8 },
  { day: 'Thursday', coffee: 'House espresso blend', roast: 'medium-dark', kg: 12 },
  { day: 'Friday', coffee: 'Kenya Nyeri', roast: 'light', kg: 5 },
];

/** Brewing methods a tasting can use, with the roasts that suit each and the grams per cup. */
const METHODS = {
  espresso: { roasts: ['medium-dark', 'medium'], gramsPerCup: 18 },
  filter: { roasts: ['light', 'medium'], gramsPerCup: 15 },
  'french press': { roasts: ['medium', 'medium-dark'], gramsPerCup: 20 },
} as const satisfies Record<string, { roasts: readonly Roast['roast'][]; gramsPerCup: number }>;
type Method = keyof typeof METHODS;

/** What plan_tasting asks the user (MCP elicitation: a flat object of primitive properties). */
const TASTING_QUESTION = {
  type: 'object' as const,
  properties: {
    guests: {
      type: 'integer' as const,
      title: 'Guests',
      description: 'How many people taste',
      minimum: 1,
      maximum: 12,
    },
    method: { type: 'string' as const, title: 'Brewing method', enum: Object.keys(METHODS) },
  },
  required: ['guests', 'method'],
};

/** A tool result with the same data as text (for clients that read only content) and as structuredContent. */
function structured(data: Record<string, unknown>): {
  content: [{ type: 'text'; text: string }];
  structuredContent: Record<string, unknown>;
} {
  return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
}

/** The roaster server, not yet connected to a transport. */
export function createRoasterServer(): McpServer {
  const server = new McpServer(
    { name: 'demo-roaster', version: '1.0.0', title: 'Roastery' },
    {
      instructions:
        "The roastery's week: roast_schedule lists the batches; plan_tasting asks how many guests and which brewing method, then picks the coffees.",
    },
  );

  server.registerTool(
    'roast_schedule',
    {
      title: 'Roast schedule',
      description: "This week's roasting batches, optionally only one coffee's",
      inputSchema: {
        coffee: z.string().optional().describe('Only batches whose coffee contains this (case-insensitive)'),
      },
      annotations: { readOnlyHint: true },
    },
    ({ coffee }) => {
      const word = coffee?.toLowerCase() ?? '';
      const roasts = ROASTS.filter((roast) => roast.coffee.toLowerCase().includes(word));
      return structured({ roasts, totalKg: roasts.reduce((sum, roast) => sum + roast.kg, 0) });
    },
  );

  server.registerTool(
    'plan_tasting',
    {
      title: 'Plan a tasting',
      description:
        "Plans a cupping of this week's roasts: asks you how many guests and which brewing method (elicitation), then picks the coffees and the beans to grind",
      annotations: { readOnlyHint: true },
    },
    async () => {
      let answer;
      try {
        answer = await server.server.elicitInput({
          mode: 'form',
          message: 'Plan a tasting: how many guests, and which brewing method?',
          requestedSchema: TASTING_QUESTION,
        });
      } catch (err) {
        // The caller could not be asked (its client declared no elicitation: the gateway answers so at once).
        return {
          isError: true,
          content: [
            {
              type: 'text',
              text: `plan_tasting needs to ask you two questions, and your client cannot answer them (${err instanceof Error ? err.message : 'no reason'})`,
            },
          ],
        };
      }
      if (answer.action !== 'accept' || answer.content === undefined)
        return structured({ planned: false, reason: `You chose ${answer.action}: no tasting planned.` });
      const guests = Number(answer.content.guests);
      const method = String(answer.content.method) as Method;
      const { roasts, gramsPerCup } = METHODS[method];
      const coffees = [
        ...new Set(
          ROASTS.filter((roast) => (roasts as readonly string[]).includes(roast.roast)).map((roast) => roast.coffee),
        ),
      ];
      return structured({ planned: true, guests, method, coffees, gramsOfEach: guests * gramsPerCup });
    },
  );

  server.registerResource(
    'green-stock',
    'roaster://green-stock',
    {
      title: 'Green coffee stock',
      description: 'Unroasted beans in the warehouse, in kg',
      mimeType: 'application/json',
    },
    (uri) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'application/json',
          text: JSON.stringify({ 'Ethiopia Guji': 40, 'Colombia Huila': 55, 'Kenya Nyeri': 18, 'Brazil Cerrado': 120 }),
        },
      ],
    }),
  );
  return server;
}

if (require.main === module) {
  createRoasterServer()
    .connect(new StdioServerTransport())
    .catch((error: unknown) => {
      // stderr: the router logs it under the upstream's name.
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    });
}
