// A fastmcp (TypeScript) server as a peer of the doctor's tests: Streamable HTTP on PORT, one tool, "listening" once up.

import { FastMCP } from 'fastmcp';
import * as z from 'zod/v4';

const server = new FastMCP({ name: 'fastmcp-peer', version: '1.0.0' });
server.addTool({
  name: 'add',
  description: 'Add two numbers',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => String(a + b),
});
await server.start({ transportType: 'httpStream', httpStream: { port: Number(process.env.PORT), host: '127.0.0.1' } });
process.stdout.write('listening\n');
