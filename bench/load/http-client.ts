// A small MCP-over-HTTP client for the load child: keep-alive requests, sessions opened and closed, SSE read.

import { dpopProof } from './dpop-proofs';
import { Agent, request, type IncomingHttpHeaders } from 'node:http';

/** Where and how to call one server: its URL and the headers every request carries. */
export interface Target {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Every request carries a fresh DPoP proof by the bench key for its `Authorization: DPoP` token (server (fd)). */
  readonly dpop?: boolean;
}

/** A whole HTTP reply. */
export interface HttpReply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** The revision bench clients ask for, and name in MCP-Protocol-Version on stateless servers. */
export const PROTOCOL_VERSION = '2025-11-25';

/** The body of `initialize` every bench client sends. */
export const INITIALIZE_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'bench-client', version: '1.0.0' },
  },
});

const INITIALIZED_BODY = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });

/** A keep-alive agent holding at most `connections` sockets, like a load generator's fixed connections. */
export function keepAliveAgent(connections: number): Agent {
  return new Agent({ keepAlive: true, maxSockets: connections });
}

/** Sends one request and reads the whole reply (with a fresh DPoP proof when the target takes them). */
export async function send(
  method: 'POST' | 'DELETE',
  target: Target,
  body: string | undefined,
  agent: Agent,
  extraHeaders: Record<string, string> = {},
): Promise<HttpReply> {
  const headers = { ...target.headers, ...extraHeaders };
  if (target.dpop) headers.dpop = await dpopProof(method, target);
  return new Promise((resolve, reject) => {
    const req = request(target.url, { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The JSON-RPC messages of a reply: the JSON body, or every `data:` line of an SSE body (priming events skipped). */
export function messagesOf(reply: HttpReply): unknown[] {
  if (!String(reply.headers['content-type']).startsWith('text/event-stream'))
    return reply.body === '' ? [] : [JSON.parse(reply.body)];
  return reply.body
    .split('\n')
    .filter((line) => line.startsWith('data:') && line.slice(5).trim() !== '')
    .map((line) => JSON.parse(line.slice(5)));
}

/** A session a client holds: the headers that name it on every later request. */
export interface OpenedSession {
  readonly sessionId: string;
  readonly protocolVersion: string;
}

/** MCP lifecycle: `initialize`, then `notifications/initialized` (202) on the new session. */
export async function openSession(target: Target, agent: Agent): Promise<OpenedSession> {
  const reply = await send('POST', target, INITIALIZE_BODY, agent);
  const sessionId = reply.headers['mcp-session-id'];
  if (reply.status !== 200 || typeof sessionId !== 'string')
    throw new Error(`initialize answered ${reply.status} without Mcp-Session-Id: ${reply.body.slice(0, 200)}`);
  const [message] = messagesOf(reply) as Array<{ result?: { protocolVersion?: string } }>;
  const protocolVersion = message?.result?.protocolVersion;
  if (protocolVersion === undefined)
    throw new Error(`initialize returned no protocolVersion: ${reply.body.slice(0, 200)}`);
  const session = { sessionId, protocolVersion };
  const initialized = await send('POST', target, INITIALIZED_BODY, agent, sessionHeaders(session));
  if (initialized.status !== 202) throw new Error(`notifications/initialized answered ${initialized.status}`);
  return session;
}

/** The headers a request in `session` carries (MCP transports: session id and negotiated revision). */
export function sessionHeaders(session: OpenedSession): Record<string, string> {
  return { 'mcp-session-id': session.sessionId, 'mcp-protocol-version': session.protocolVersion };
}

/** Ends a session with DELETE; resolves whether the server knew it. */
export async function closeSession(target: Target, session: OpenedSession, agent: Agent): Promise<boolean> {
  const reply = await send('DELETE', target, undefined, agent, sessionHeaders(session));
  return reply.status === 200 || reply.status === 204;
}

/** Runs `work(i)` for i in [0, count) on `workers` concurrent loops; resolves when all are done. */
export async function inParallel(
  count: number,
  workers: number,
  work: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const loop = async (): Promise<void> => {
    while (next < count) await work(next++);
  };
  await Promise.all(Array.from({ length: Math.min(workers, count) }, loop));
}
