// Child process of session-memory.test.ts (run with --expose-gc): opens sessions holding the largest client data the
// limits allow, over real HTTP, and prints the heap before, with them open, and after deleting them, as one JSON line.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mcpRouter } from '../../lib';

// The jest project decides which Express major the child loads (express4 is an npm alias of express@4).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const express = require(process.env.MCP_TEST_EXPRESS ?? 'express') as typeof import('express');

const SESSIONS = Number(process.env.MCP_TEST_SESSIONS ?? 2000);
const MAX_CAPABILITIES_LENGTH = 2048;
const MAX_INFO_FIELD = 512;
const MAX_SUBSCRIPTIONS = 32;
const MAX_URI_LENGTH = 1024;

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

/** The heap after full collections, in bytes. */
function heapAfterGc(): number {
  for (let i = 0; i < 4; i++) gc?.();
  return process.memoryUsage().heapUsed;
}

/**
 * Capabilities of exactly the largest length, built to cost the heap most: many small objects under keys unique to
 * this session (shared key strings would be interned once for all sessions).
 */
function largestCapabilities(tag: string): Record<string, unknown> {
  const experimental: Record<string, unknown> = {};
  const capabilities = {
    roots: { listChanged: true },
    sampling: { tools: {} },
    elicitation: { form: {}, url: {} },
    experimental,
  };
  // The length is tracked as keys are added (`"<key>":{}` plus a comma after the first): stringifying the whole object
  // on each step made this loop quadratic, a third of the child's run. The exact size is checked below all the same.
  let length = JSON.stringify(capabilities).length;
  for (let i = 0; length < MAX_CAPABILITIES_LENGTH - 40; i++) {
    const key = `${tag}k${i}`;
    experimental[key] = {};
    length += JSON.stringify(key).length + 3 + (i === 0 ? 0 : 1);
  }
  if (JSON.stringify(capabilities).length !== length) throw new Error('capabilities length tracked wrongly');
  const room = MAX_CAPABILITIES_LENGTH - JSON.stringify(capabilities).length - `,"${tag}pad":""`.length;
  experimental[`${tag}pad`] = 'p'.repeat(room);
  if (JSON.stringify(capabilities).length !== MAX_CAPABILITIES_LENGTH)
    throw new Error('capabilities of the wrong size');
  return capabilities;
}

function largestClientInfo(tag: string): Record<string, string> {
  const field = (name: string): string => `${tag}${name}`.padEnd(MAX_INFO_FIELD, name[0]);
  return {
    name: field('name'),
    version: field('version'),
    title: field('title'),
    description: field('description'),
    websiteUrl: field('url'),
  };
}

async function main(): Promise<void> {
  const mcp = mcpRouter({
    name: 'memory',
    version: '1.0.0',
    rateLimit: false,
    logger: { error: () => undefined, warn: () => undefined },
    sessions: { max: SESSIONS * 2 },
  });
  mcp.resourceTemplate({ uriTemplate: 'notes://{id}', name: 'note', read: (_uri, { id }) => `${id}` });
  const app = express();
  app.use('/mcp', mcp);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

  function send(
    body: unknown,
    headers: Record<string, string> = {},
    method = 'POST',
  ): Promise<{ status: number; session?: string; text: string }> {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const request = http.request(
        {
          host: '127.0.0.1',
          port,
          path: '/mcp',
          method,
          agent,
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              session: response.headers['mcp-session-id'] as string | undefined,
              text: Buffer.concat(chunks).toString(),
            }),
          );
        },
      );
      request.on('error', reject);
      request.end(payload);
    });
  }

  /** Opens one session with the largest client data and 32 subscriptions of the longest URIs, in one batch. */
  async function openLargest(n: number): Promise<string> {
    const tag = `s${n}-`;
    // 2025-03-26 still allows batches: the 32 subscriptions go in one request.
    const init = await send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-03-26',
        capabilities: largestCapabilities(tag),
        clientInfo: largestClientInfo(tag),
      },
    });
    if (init.status !== 200 || init.session === undefined || init.text.includes('"error"'))
      throw new Error(`initialize failed: ${init.status} ${init.text.slice(0, 200)}`);
    const subscriptions = Array.from({ length: MAX_SUBSCRIPTIONS }, (_, i) => {
      const prefix = `notes://${tag}${i}-`;
      return {
        jsonrpc: '2.0',
        id: i + 2,
        method: 'resources/subscribe',
        params: { uri: prefix.padEnd(MAX_URI_LENGTH, 'u') },
      };
    });
    const subscribed = await send(subscriptions, { 'mcp-session-id': init.session });
    if (subscribed.status !== 200 || subscribed.text.includes('"error"'))
      throw new Error(`subscribe failed: ${subscribed.status} ${subscribed.text.slice(0, 300)}`);
    return init.session;
  }

  async function inParallel<T>(count: number, work: (n: number) => Promise<T>): Promise<T[]> {
    const results: T[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < count) {
          const n = next++;
          results[n] = await work(n);
        }
      }),
    );
    return results;
  }

  // Warm up (JIT, lazily built structures, sockets), then measure from a clean state.
  const warm = await inParallel(50, (n) => openLargest(-1 - n));
  await inParallel(warm.length, (n) => send(undefined, { 'mcp-session-id': warm[n] as string }, 'DELETE'));
  const before = heapAfterGc();
  /** Opens every session, measures, deletes them all, measures. */
  async function round(offset: number): Promise<{ open: number; after: number }> {
    const ids = await inParallel(SESSIONS, (n) => openLargest(offset + n));
    const open = heapAfterGc();
    const deleted = await inParallel(ids.length, (n) =>
      send(undefined, { 'mcp-session-id': ids[n] as string }, 'DELETE'),
    );
    if (deleted.some((response) => response.status !== 200 && response.status !== 204))
      throw new Error('a DELETE failed');
    return { open, after: heapAfterGc() };
  }
  const first = await round(0);
  // A second round tells capacity kept by Maps and caches (the same after both) from a leak (growing each round).
  const second = await round(SESSIONS);
  agent.destroy();
  await mcp.close();
  server.close();
  process.stdout.write(
    `${JSON.stringify({ sessions: SESSIONS, before, open: first.open, after: first.after, secondOpen: second.open, secondAfter: second.after })}\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${String((err as Error)?.stack ?? err)}\n`);
  process.exit(1);
});
