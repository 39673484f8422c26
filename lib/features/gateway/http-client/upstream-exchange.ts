// One POST to an upstream MCP server and its answer: the JSON-RPC message that answers it (from a JSON or SSE reply), or the bare HTTP status.

import { isObject } from '../../../core/jsonrpc/types';
import type { AbortSource } from '../../../core/protocol/abort';
import { readSseData } from './upstream-sse';
import type { UpstreamMessage } from '../shared/upstream-client';
import { MAX_UPSTREAM_MESSAGE_BYTES } from '../shared/upstream-wire';
import { mediaTypeOf, parseUpstreamJson, UpstreamFault } from './http-body';
import { post, type PostAnswer, type UpstreamConnections } from './http-post';

/** What a POST came back with. */
export type ExchangeOutcome =
  /** The JSON-RPC response to the posted request (on any status: 2026 errors come on 400 and 404). */
  | {
      readonly kind: 'response';
      readonly status: number;
      readonly message: UpstreamMessage;
      readonly sessionId: string | undefined;
    }
  /** Accepted with no body (202 to a notification), or a status with no JSON-RPC answer. */
  | { readonly kind: 'status'; readonly status: number; readonly sessionId: string | undefined };

export interface ExchangeRequest {
  readonly url: URL;
  /** The client's pool of keep-alive connections. */
  readonly connections: UpstreamConnections;
  readonly headers: Record<string, string>;
  /** The JSON-RPC message posted. */
  readonly body: UpstreamMessage;
  readonly signal: AbortSource;
  /** Receives every other message of an SSE reply: progress, log and other notifications, server requests. */
  readonly onMessage?: ((message: UpstreamMessage) => void) | undefined;
}

/** True for a JSON-RPC response (a result or an error) to request `id`; a null id answers a request the server could not read. */
function answers(message: unknown, id: unknown): message is UpstreamMessage {
  return isObject(message) && ('result' in message || 'error' in message) && (message.id === id || message.id === null);
}

/**
 * Posts `body` and reads the answer. MCP transports › Sending Messages to the Server: a request gets either one JSON
 * object or an SSE stream that ends with its response; a notification gets 202. Throws {@link UpstreamFault} for a
 * transport failure or a body that is not MCP; the caller maps statuses (401/403, 5xx, a lost session's 404).
 */
/** Requests whose repetition changes nothing on the upstream: lists, reads, ping, discovery. */
const REPEATABLE: ReadonlySet<string> = new Set([
  'ping',
  'server/discover',
  'tools/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
]);

export async function exchange(request: ExchangeRequest): Promise<ExchangeOutcome> {
  let response: PostAnswer;
  try {
    response = await post({
      url: request.url,
      headers: {
        ...request.headers,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(request.body),
      signal: request.signal,
      connections: request.connections,
      repeatable: 'method' in request.body && REPEATABLE.has(String(request.body.method)),
    });
  } catch (error) {
    if (request.signal.aborted) throw error;
    throw new UpstreamFault('could not be reached');
  }
  const status = response.status;
  const sessionId = response.header('mcp-session-id');
  // Statuses the caller answers without the body: never read (nor pass on) a challenge or an error page.
  if (status === 401 || status === 403 || status >= 500) {
    response.discard();
    return { kind: 'status', status, sessionId };
  }
  // A posted response (the answer to a server request) is not itself answered: MCP transports › 202 Accepted.
  const id = 'method' in request.body ? request.body.id : undefined;
  const type = mediaTypeOf(response.header('content-type'));
  if (type === 'text/event-stream' && id !== undefined) {
    for await (const data of readSseData(response.stream(), MAX_UPSTREAM_MESSAGE_BYTES)) {
      const message = parseUpstreamJson(data, 'an event');
      if (answers(message, id)) return { kind: 'response', status, message, sessionId };
      if (isObject(message)) request.onMessage?.(message);
    }
    throw new UpstreamFault('ended its event stream without answering');
  }
  const text = await response.text(MAX_UPSTREAM_MESSAGE_BYTES);
  if (text === undefined) throw new UpstreamFault(`sent a body larger than ${MAX_UPSTREAM_MESSAGE_BYTES} bytes`);
  if (type === 'application/json' && text.trim() !== '') {
    const message = parseUpstreamJson(text, 'a body');
    if (answers(message, id)) return { kind: 'response', status, message, sessionId };
    if (status < 300)
      throw new UpstreamFault(`answered with JSON that is not a response to the request (HTTP ${status})`);
  } else if (status < 300 && id !== undefined) {
    throw new UpstreamFault(`answered HTTP ${status} without an MCP message`);
  }
  return { kind: 'status', status, sessionId };
}

/** Deletes a 2025 session (MCP transports › Session Management); failures are ignored, the session then just expires. */
export async function deleteSession(url: string, headers: Record<string, string>, timeoutMs: number): Promise<void> {
  try {
    const signal = AbortSignal.timeout(timeoutMs);
    const response = await fetch(url, { method: 'DELETE', headers, signal, redirect: 'error' });
    await response.body?.cancel().catch(() => undefined);
  } catch {
    // Nothing to do: the upstream ends idle sessions on its own.
  }
}
