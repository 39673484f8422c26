// The hostile suites' requests and checks: JSON-RPC bodies, a HEAD then a ping on one raw connection, a router over
// its rate limit on a fake clock, the expected auth challenge, and the path parameters a bridged route must refuse.

import { connect, type Socket } from 'node:net';
import { MCP_ACCEPT } from '../helpers/messages';
import { auth, Host, REQUIRED_SCOPE, rpc, seen, TOKENS } from './host';
import { within, type WireResponse } from './wire';

/** The error of a JSON-RPC error body. */
export function errorOf(res: WireResponse): { code: number; message: string; data?: unknown } {
  return (res.json as { error: { code: number; message: string } }).error;
}

/** The result of a JSON-RPC success body. */
export function resultOf(res: WireResponse): Record<string, unknown> {
  return (res.json as { result: Record<string, unknown> }).result;
}

/** The text of a tool result's single text block. */
export function textOf(result: Record<string, unknown>): string {
  const content = result.content as Array<{ type: string; text?: string }>;
  return content.map((block) => block.text ?? '').join('\n');
}

/**
 * Sends HEAD on a raw keep-alive connection and, once its headers arrive, a ping on the same connection: a HEAD
 * response that never ends holds the connection (HTTP/1.1 answers in order), and the ping is never answered.
 */
export async function headThenPing(
  host: Host,
  session: string,
): Promise<{ status: number; after: 'answered' | 'closed' | 'stuck' }> {
  const { port } = new URL(host.origin);
  const socket = connect(Number(port), '127.0.0.1');
  const common = `Host: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKENS.alice}\r\nMcp-Session-Id: ${session}\r\nMCP-Protocol-Version: 2025-11-25\r\n`;
  const ping = JSON.stringify(rpc('ping', undefined, 'after-head'));
  let received = '';
  let closed = false;
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1');
  });
  socket.on('close', () => {
    closed = true;
  });
  socket.write(`HEAD /mcp HTTP/1.1\r\n${common}Accept: text/event-stream\r\n\r\n`);
  try {
    await within(
      whenSocket(socket, () => received.includes('\r\n\r\n') || closed),
      2_000,
      'the HEAD response headers',
    );
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0);
    const headers = Object.fromEntries(
      received
        .slice(0, received.indexOf('\r\n\r\n'))
        .split('\r\n')
        .slice(1)
        .map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    );
    seen.push({ who: 'alice', res: { status, headers, text: '', json: undefined } });
    if (!closed)
      socket.write(
        `POST /mcp HTTP/1.1\r\n${common}Accept: ${MCP_ACCEPT}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(ping)}\r\n\r\n${ping}`,
      );
    const after = await within(
      whenSocket(socket, () => (received.match(/HTTP\/1\.1 \d{3}/g) ?? []).length >= 2 || closed),
      2_000,
      'the next request on the HEAD connection',
    )
      .then(() =>
        (received.match(/HTTP\/1\.1 \d{3}/g) ?? []).length >= 2 ? ('answered' as const) : ('closed' as const),
      )
      .catch(() => 'stuck' as const);
    return { status, after };
  } finally {
    socket.destroy();
  }
}

/** Resolves once `done()` is true, checked on each of the socket's events (after the listeners that record them). */
export function whenSocket(socket: Socket, done: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = (): void => {
      if (!done()) return;
      socket.off('data', check).off('close', check);
      resolve();
    };
    socket.on('data', check).on('close', check);
    check();
  });
}

/** Fake timers (the rate-limit window), real ticks: HTTP still flows. */
export function useFakeClock(): void {
  jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
}

/** alice's answer to `body`, sent right after a ping used up her limit of one request a second. */
export async function overTheLimit(body: unknown): Promise<WireResponse> {
  useFakeClock();
  const host = await Host.start({ sessions: false, rateLimit: { limit: 1, windowMs: 1_000 } });
  try {
    expect((await host.post('alice', rpc('ping', undefined, 'first'))).status).toBe(200);
    return await host.post('alice', body);
  } finally {
    await host.close();
    jest.useRealTimers();
  }
}

/** The challenge prefix: RFC 6750 + RFC 9728 (the metadata URL carries the test server's port). */
export const challenge = (error?: string): RegExp =>
  new RegExp(
    `^Bearer ${error === undefined ? '' : `error="${error}", error_description="[^"]+", `}resource_metadata="http://127\\.0\\.0\\.1:\\d+/mcp/\\.well-known/oauth-protected-resource", scope="${REQUIRED_SCOPE}"$`,
  );

export const expectChallenge =
  (error?: string) =>
  (res: WireResponse): void => {
    expect(res.headers['www-authenticate']).toMatch(challenge(error));
  };

/** A bridged call must be refused before any route runs ("HTTP 404 …" would mean a route ran), in a text naming `id`. */
export const refusedId = (result: Record<string, unknown>): void => {
  expect(result.isError).toBe(true);
  expect(textOf(result)).not.toMatch(/^HTTP /);
  expect(textOf(result)).toMatch(/\bargument ['"`]?id\b/i);
};

/**
 * Values of `id` that are, or decode to, a dot segment (or are empty): refused, since URLs remove dot segments and
 * `/api/users/../orders` is `/api/orders`, another route.
 */
export const REFUSED_IDS = ['..', '.', '%2e%2e', '%2E%2e', '..%2f', '.%2e', '%2e.', '%2e', '%252e%252e', 'a/../b', ''];
/** Values of `id` the route must see exactly as sent: encoded into one path segment, never reinterpreted. */
export const LITERALS = ['a/b', '?x', '#x', '100%', 'é', '%41', 'a b+c', '...'];

/** `depth` nested objects in params. */
export const deep = (depth: number): string =>
  `{"jsonrpc":"2.0","id":"deep","method":"tools/list","params":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
