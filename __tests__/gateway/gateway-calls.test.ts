// Calls through the gateway against real upstreams (SDK v1 2025, SDK v2 2026, this router in both eras) from the SDK v1 and v2 clients: results, errors, faults, timeouts, progress, cancellation, _meta and Mcp-Param-* headers.

import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { Client as V2Client, ProtocolError as V2ProtocolError, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { ProtocolError } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { ErrorCode, JsonRpcError, mcpRouter, type McpRouter } from '../../lib';
import { closeAfterEach, closeGatewaysAfterEach, routerCallUpstream, sdkV1CallUpstream, sdkV2CallUpstream, serve, serveGateway, stopUpstream, waitFor, type Received, type Upstream } from './upstreams';

closeGatewaysAfterEach();
closeAfterEach();

const SUM = { content: [{ type: 'text', text: '5' }], structuredContent: { sum: 5 } };
const FAILED = { content: [{ type: 'text', text: 'disk full' }], isError: true };
const MODERN_ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

const clients: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

/** The SDK v1 client: it speaks 2025-11-25 (initialize, a session). */
async function v1Client(url: string): Promise<V1Client> {
  const client = new V1Client({ name: 'v1-caller', version: '1.0.0' });
  await client.connect(new V1Transport(new URL(url)));
  clients.push(client);
  return client;
}

/** The SDK v2 client pinned to 2026-07-28 (server/discover, the per-request envelope, no session). */
async function v2Client(url: string): Promise<V2Client> {
  const client = new V2Client({ name: 'v2-caller', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new V2Transport(new URL(url)));
  clients.push(client);
  return client;
}

/** What a call returned that the upstream made (the gateway's own serverInfo `_meta` of a 2026 answer left aside). */
function upstreamPart(result: Record<string, unknown>): Record<string, unknown> {
  const { content, structuredContent, isError } = result;
  return Object.fromEntries(Object.entries({ content, structuredContent, isError }).filter(([, value]) => value !== undefined));
}

/** What `call` rejected with. */
async function caught(call: Promise<unknown>): Promise<{ code: number; message: string; data?: unknown }> {
  const error: unknown = await call.then(() => undefined, (reason: unknown) => reason);
  expect(error).toBeDefined();
  return error as { code: number; message: string; data?: unknown };
}

/** A POST to the gateway, its answer read whole: a JSON body or the messages of an SSE stream. */
async function post(url: string, body: Record<string, unknown>, headers: Record<string, string>, signal?: AbortSignal): Promise<Record<string, unknown>[]> {
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body), signal });
  const text = await res.text();
  if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) return [JSON.parse(text) as Record<string, unknown>];
  return text.split('\n').filter((line) => line.startsWith('data: ') && line.length > 6).map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
}

/** A 2026 tools/call POST (no session), with the envelope and the standard headers. */
function modernCall(url: string, name: string, args: Record<string, unknown>, meta: Record<string, unknown> = {}, signal?: AbortSignal): Promise<Record<string, unknown>[]> {
  const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args, _meta: { ...MODERN_ENVELOPE, ...meta } } };
  return post(url, body, { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': name }, signal);
}

function routerTools(mcp: McpRouter): void {
  mcp.tool({ name: 'add', description: 'Adds', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } }, handler: ({ a, b }: { a: number; b: number }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }) });
  mcp.tool({ name: 'fail', description: 'Fails as a tool', handler: () => FAILED });
}

/** The four kinds of upstream, each with `add` (content and structuredContent) and `fail` (an isError result). */
const UPSTREAMS = [
  { kind: 'SDK v1 McpServer', era: '2025', start: (received?: Received[]) => sdkV1CallUpstream((server) => {
    server.registerTool('add', { description: 'Adds', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }));
    server.registerTool('fail', { description: 'Fails as a tool' }, async () => ({ content: [{ type: 'text', text: 'disk full' }], isError: true }));
  }, received) },
  { kind: 'SDK v2 McpServer', era: '2026', start: (received?: Received[]) => sdkV2CallUpstream((server) => {
    server.registerTool('add', { description: 'Adds', inputSchema: z.object({ a: z.number(), b: z.number() }) }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }));
    server.registerTool('fail', { description: 'Fails as a tool', inputSchema: z.object({}) }, async () => ({ content: [{ type: 'text', text: 'disk full' }], isError: true }));
  }, received) },
  { kind: 'this router (both eras)', era: '2026', start: (received?: Received[]) => routerCallUpstream({}, routerTools, received) },
  { kind: "this router (eras: ['2025'], sessions)", era: '2025', start: (received?: Received[]) => routerCallUpstream({ eras: ['2025'], sessions: {} }, routerTools, received) },
] as const;

describe.each(UPSTREAMS)('a call to a $era upstream ($kind)', ({ era, start }) => {
  it.each([
    { caller: 'SDK v1 client (2025)', connect: v1Client },
    { caller: 'SDK v2 client (2026)', connect: v2Client },
  ])("from the $caller gets the upstream's results untouched (content, structuredContent, isError)", async ({ connect }) => {
    const upstream = await start();
    const gateway = await serveGateway({}, (mcp) => [mcp.upstream({ prefix: 'up', url: upstream.url })]);
    expect(gateway.handles[0]!.status().era).toBe(era);
    const client = await connect(gateway.url);
    expect(upstreamPart(await client.callTool({ name: 'up__add', arguments: { a: 2, b: 3 } }))).toEqual(SUM);
    expect(upstreamPart(await client.callTool({ name: 'up__fail', arguments: {} }))).toEqual(FAILED);
  });
});
