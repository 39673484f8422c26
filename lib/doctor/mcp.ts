// The doctor's MCP client: JSON-RPC over POST in either era, replies read as JSON or SSE, and a 2025 session or 2026 envelope to list and call with.

import { LATEST_PROTOCOL_VERSION_2025, PROTOCOL_VERSIONS_2026 } from '../core/versions';
import { META_KEYS } from '../core/protocol/era-2026/request-meta';
import type { DoctorContext } from './context';
import { headerOf, send, type HttpReply } from './http';

/** How the doctor names itself to servers (MCP lifecycle › clientInfo). */
export const CLIENT_INFO = Object.freeze({ name: 'express-mcp-router-doctor', version: '1' });

/** The 2026-07-28 revision, the one the doctor speaks in that era. */
export const VERSION_2026 = PROTOCOL_VERSIONS_2026[0];

/** What a POST accepts: MCP transports › Sending Messages to the Server (the client MUST list both). */
export const ACCEPT_BOTH = 'application/json, text/event-stream';

/** One server-sent event: its `event` name, `data` lines joined, and `id`. */
export interface SseEvent {
  readonly event: string;
  readonly data: string;
  readonly id?: string;
}

/** Parses an SSE body (WHATWG HTML › server-sent events): events, and how many comment lines (keep-alives) it held. */
export function parseSse(text: string): { events: SseEvent[]; comments: number } {
  const events: SseEvent[] = [];
  let comments = 0;
  for (const block of text.split(/\r?\n\r?\n/)) {
    let event = 'message';
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith(':')) comments++;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') data.push(value);
      else if (field === 'event') event = value;
      else if (field === 'id') id = value;
    }
    if (data.length > 0) events.push({ event, data: data.join('\n'), ...(id === undefined ? {} : { id }) });
  }
  return { events, comments };
}

/** A JSON-RPC reply as the doctor reads it: the HTTP answer, how it came, and the response to its request. */
export interface RpcReply {
  readonly http: HttpReply;
  /** `json`, `sse`, or `other` (an empty or non-MCP body). */
  readonly format: 'json' | 'sse' | 'other';
  /** Every JSON-RPC message in the body, in order. */
  readonly messages: readonly Record<string, unknown>[];
  /** The response whose id is the request's. */
  readonly response?: Record<string, unknown>;
}

/** The `result` of a reply's response, when it is one. */
export function resultOf(reply: RpcReply): Record<string, unknown> | undefined {
  const result = reply.response?.result;
  return isRecord(result) ? result : undefined;
}

/** The `error` of a reply's response (or of a body that is an error with a null id), when it is one. */
export function errorOf(reply: RpcReply): { code?: unknown; message?: unknown; data?: unknown } | undefined {
  const error = (reply.response ?? reply.messages.find((m) => m.id === null))?.error;
  return isRecord(error) ? error : undefined;
}

/** True for a plain object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `n` and the noun, plural unless one: `1 tool`, `3 tools`. */
export function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** The start of a body, for a finding's detail. */
export function excerpt(text: string, length = 200): string {
  // Only the start is looked at: a body may be megabytes.
  const flat = text
    .slice(0, length * 4)
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > length ? `${flat.slice(0, length)}…` : flat;
}

/** The events of an SSE body that ended with their blank line; the one a cut interrupted is left out. */
function wholeEventsOf(body: string): string {
  const end = Math.max(body.lastIndexOf('\n\n') + 2, body.lastIndexOf('\n\r\n') + 3, 0);
  return body.slice(0, end);
}

function messagesOf(reply: HttpReply): { format: RpcReply['format']; messages: Record<string, unknown>[] } {
  const type = headerOf(reply, 'content-type') ?? '';
  const parse = (text: string): unknown[] => {
    try {
      const value: unknown = JSON.parse(text);
      return Array.isArray(value) ? value : [value];
    } catch {
      return [];
    }
  };
  // A body cut at the byte limit is parsed no further than its last whole part: a cut JSON text is never whole, and
  // parsing one (deeply nested, say) may cost far more memory than its bytes.
  if (type.includes('text/event-stream')) {
    const body = reply.truncated ? wholeEventsOf(reply.body) : reply.body;
    const events = parseSse(body).events.filter((e) => e.event === 'message');
    return { format: 'sse', messages: events.flatMap((e) => parse(e.data)).filter(isRecord) };
  }
  const messages = reply.truncated ? [] : parse(reply.body).filter(isRecord);
  return { format: messages.length > 0 && type.includes('json') ? 'json' : 'other', messages };
}

/** The `Authorization` header of a token (never logged, never printed), or none. */
export function bearerHeaders(token: string | undefined): Record<string, string> {
  return token === undefined ? {} : { authorization: `Bearer ${token}` };
}

/** The headers every request carries: the token, when one was given. */
export function baseHeaders(ctx: DoctorContext): Record<string, string> {
  return bearerHeaders(ctx.target.token);
}

/**
 * POSTs one JSON-RPC message to the endpoint and reads the answer. `id` undefined sends a notification.
 *
 * @example
 * ```ts
 * const reply = await post(ctx, 'tools/list', {}, 2, { 'mcp-session-id': id });
 * ```
 */
export async function post(
  ctx: DoctorContext,
  method: string,
  params: Record<string, unknown> | undefined,
  id: number | undefined,
  headers: Record<string, string> = {},
): Promise<RpcReply> {
  const message = { jsonrpc: '2.0', ...(id === undefined ? {} : { id }), method, ...(params ? { params } : {}) };
  const http = await send(ctx.http, {
    method: 'POST',
    url: ctx.target.url,
    headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...baseHeaders(ctx), ...headers },
    body: JSON.stringify(message),
  });
  const { format, messages } = messagesOf(http);
  const response = id === undefined ? undefined : messages.find((m) => m.id === id && !('method' in m));
  return { http, format, messages, ...(response ? { response } : {}) };
}

/** The 2025 `initialize` request's params: the newest 2025 revision, no capabilities. */
export const INITIALIZE_PARAMS = Object.freeze({
  protocolVersion: LATEST_PROTOCOL_VERSION_2025,
  capabilities: {},
  clientInfo: CLIENT_INFO,
});

/** A 2026-07-28 request's `_meta` (MCP 2026-07-28 per-request metadata: version and capabilities are required). */
export function envelope2026(): Record<string, unknown> {
  return {
    [META_KEYS.protocolVersion]: VERSION_2026,
    [META_KEYS.clientCapabilities]: {},
    [META_KEYS.clientInfo]: CLIENT_INFO,
  };
}

/** POSTs a 2026-07-28 request: the `_meta` envelope and the standard headers SEP-2243 requires (`Mcp-Method`, `Mcp-Name`). */
export function post2026(
  ctx: DoctorContext,
  method: string,
  params: Record<string, unknown>,
  id: number,
  headers: Record<string, string> = {},
): Promise<RpcReply> {
  const name = method === 'tools/call' || method === 'prompts/get' ? params.name : undefined;
  const meta = isRecord(params._meta) ? params._meta : {};
  return post(ctx, method, { ...params, _meta: { ...meta, ...envelope2026() } }, id, {
    'mcp-protocol-version': VERSION_2026,
    'mcp-method': method,
    ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
    ...headers,
  });
}

/** A way to send requests in one era: a 2025 session (or a stateless 2025 server) or 2026 requests. */
export interface Conversation {
  readonly era: '2025' | '2026';
  readonly sessionId?: string;
  /** The revision negotiated (2025) or spoken (2026). */
  readonly version: string;
  request(method: string, params: Record<string, unknown>, headers?: Record<string, string>): Promise<RpcReply>;
  /** Ends the 2025 session (DELETE), when there is one. */
  close(): Promise<void>;
}

/** Why no conversation could start: the server asked for a token, or neither era answered. */
export type Unopened = { readonly needsAuth: true } | { readonly needsAuth: false; readonly why: string };

/**
 * Starts a conversation in the 2025 era (initialize, initialized) and, when that fails, in the 2026 one
 * (`server/discover`).
 */
export async function converse(ctx: DoctorContext): Promise<Conversation | Unopened> {
  let nextId = 100;
  const init = await post(ctx, 'initialize', { ...INITIALIZE_PARAMS }, nextId++);
  if (init.http.status === 401) return { needsAuth: true };
  const result = resultOf(init);
  if (result !== undefined) {
    const sessionId = headerOf(init.http, 'mcp-session-id');
    const version = typeof result.protocolVersion === 'string' ? result.protocolVersion : LATEST_PROTOCOL_VERSION_2025;
    const headers = { 'mcp-protocol-version': version, ...(sessionId ? { 'mcp-session-id': sessionId } : {}) };
    await post(ctx, 'notifications/initialized', undefined, undefined, headers);
    return {
      era: '2025',
      version,
      ...(sessionId ? { sessionId } : {}),
      request: (method, params, extra = {}) => post(ctx, method, params, nextId++, { ...headers, ...extra }),
      close: () => endSession(ctx, sessionId).then(() => undefined),
    };
  }
  const discover = await post2026(ctx, 'server/discover', {}, nextId++);
  if (discover.http.status === 401) return { needsAuth: true };
  if (resultOf(discover) === undefined)
    return {
      needsAuth: false,
      why: `initialize answered ${init.http.status}, server/discover ${discover.http.status}`,
    };
  return {
    era: '2026',
    version: VERSION_2026,
    request: (method, params, extra = {}) => post2026(ctx, method, params, nextId++, extra),
    close: () => Promise.resolve(),
  };
}

/** DELETEs a 2025 session (MCP transports › Session Management: clients SHOULD end sessions they no longer need). */
export async function endSession(ctx: DoctorContext, sessionId: string | undefined): Promise<HttpReply | undefined> {
  if (sessionId === undefined) return undefined;
  try {
    return await send(ctx.http, {
      method: 'DELETE',
      url: ctx.target.url,
      headers: {
        'mcp-session-id': sessionId,
        'mcp-protocol-version': LATEST_PROTOCOL_VERSION_2025,
        ...baseHeaders(ctx),
      },
    });
  } catch {
    return undefined;
  }
}

/** Lists every tool through a conversation, page by page (at most `maxPages`), with the size of what was read. */
export async function listAllTools(
  conversation: Conversation,
  maxPages = 20,
): Promise<{ tools: Record<string, unknown>[]; bytes: number; error?: string; code?: number }> {
  const tools: Record<string, unknown>[] = [];
  let bytes = 0;
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const reply = await conversation.request('tools/list', cursor === undefined ? {} : { cursor });
    bytes += Buffer.byteLength(reply.http.body);
    if (reply.http.truncated) return { tools, bytes, error: `a page of the list is larger than the doctor reads` };
    const result = resultOf(reply);
    if (result === undefined || !Array.isArray(result.tools)) {
      const error = errorOf(reply);
      return error
        ? { tools, bytes, error: String(error.message), code: Number(error.code) }
        : { tools, bytes, error: `HTTP ${reply.http.status}` };
    }
    tools.push(...result.tools.filter(isRecord));
    cursor = typeof result.nextCursor === 'string' ? result.nextCursor : undefined;
    if (cursor === undefined) break;
  }
  return { tools, bytes };
}
