// One upstream notification stream opened and read: the bounded opening, the checks of its answer, its messages.

import { ErrorCode } from '../../../core/jsonrpc/errors';
import { isObject } from '../../../core/jsonrpc/types';
import type { UpstreamMessage } from '../shared/upstream-client';
import { readSseEvents } from './upstream-sse';
import { MAX_UPSTREAM_MESSAGE_BYTES } from '../shared/upstream-wire';
import { mediaTypeOf, parseUpstreamJson, UpstreamFault } from './http-body';

/** Fetches `url` with the opening (up to the response headers) bounded by `timeoutMs`; the stream itself is not. */
export async function openStream(
  url: string,
  init: RequestInit,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<Response> {
  const limit = new AbortController();
  const timer = setTimeout(() => limit.abort(), timeoutMs);
  try {
    return await fetch(url, { ...init, signal: AbortSignal.any([signal, limit.signal]), redirect: 'error' });
  } finally {
    clearTimeout(timer);
  }
}

/** Whether an upstream answered with the stream asked for: 200 and `text/event-stream`. */
export function isEventStream(response: Response): boolean {
  return response.status === 200 && mediaTypeOf(response) === 'text/event-stream';
}

/** Drops a body unread. */
export async function discard(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}

/** True for a JSON-RPC error -32601 (Method not found); anything else, JSON or not, is false. */
export function isMethodNotFound(text: string): boolean {
  try {
    const refusal: unknown = JSON.parse(text);
    return isObject(refusal) && isObject(refusal.error) && refusal.error.code === ErrorCode.MethodNotFound;
  } catch {
    return false;
  }
}

/**
 * The messages of a stream, each a bounded JSON object; `onEventId` hears each event id (priming events included),
 * what a reconnecting client sends back as `Last-Event-ID`. A malformed or oversized event throws an UpstreamFault.
 */
export async function* streamMessages(
  response: Response,
  onEventId: (id: string) => void,
): AsyncGenerator<UpstreamMessage> {
  for await (const event of readSseEvents(response.body, MAX_UPSTREAM_MESSAGE_BYTES)) {
    if (event.id !== undefined) onEventId(event.id);
    if (event.data === '') continue;
    const message = parseUpstreamJson(event.data, 'an event');
    if (!isObject(message)) throw new UpstreamFault('sent an event that is not a JSON-RPC message');
    yield message;
  }
}
