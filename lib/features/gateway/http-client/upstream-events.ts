// An upstream's notification stream kept open for the gateway: the 2025 GET stream or the 2026 subscriptions/listen stream, reopened with backoff.

import { stateful } from '../../../core/era-policy';
import { LAST_EVENT_ID_HEADER } from '../../../edge/http/headers';
import { LISTEN_METHOD } from '../../../edge/listen/listen-protocol';
import type { Era } from '../../../core/versions';
import { Backoff } from '../shared/backoff';
import type {
  UpstreamListener,
  UpstreamListenOptions,
  UpstreamListenState,
  UpstreamMessage,
} from '../shared/upstream-client';
import { discard, isEventStream, isMethodNotFound, openStream, streamMessages } from './upstream-stream';
import { MAX_UPSTREAM_MESSAGE_BYTES } from '../shared/upstream-wire';
import { readBoundedText } from './http-body';

/** The first wait before reopening a stream that failed, in milliseconds. */
const DEFAULT_LISTEN_INITIAL_BACKOFF_MS = 250;
/** The longest wait before reopening a stream, in milliseconds; a stream that stayed up this long resets the backoff. */
const DEFAULT_LISTEN_MAX_BACKOFF_MS = 30_000;

const LISTEN_ACKNOWLEDGED = 'notifications/subscriptions/acknowledged';

/** What a listener needs of its client's connection. */
export interface ListenConnection {
  readonly era: Era;
  readonly sessionId: string | undefined;
}

/** What the upstream client lends a listener: its connection and the headers and envelope it builds (internal). */
export interface UpstreamLink<C extends ListenConnection> {
  readonly url: string;
  /** The most the opening of a stream (up to its headers) may take. */
  readonly timeoutMs: number;
  connect(): Promise<C>;
  /** Forgets a lost 2025 session and initialises again. */
  reconnect(lost: C): Promise<C>;
  sessionHeaders(current: C): Record<string, string>;
  modernHeaders(method: string, params: Record<string, unknown> | undefined): Record<string, string>;
  modernParams(params: Record<string, unknown> | undefined): Record<string, unknown>;
  answerServerRequest(current: C, message: UpstreamMessage): void;
  request(method: string, params: Record<string, unknown>): Promise<unknown>;
  nextId(): number;
}

/** How one attempt ended: reopen at once (after an update or a lost session), wait and retry, or stop for good. */
type AttemptEnd = 'reopen' | 'lost-session' | 'retry' | 'unsupported';

function checkBackoff(options: UpstreamListenOptions): { initialMs: number; maxMs: number } {
  const initialMs = options.backoff?.initialMs ?? DEFAULT_LISTEN_INITIAL_BACKOFF_MS;
  const maxMs = options.backoff?.maxMs ?? DEFAULT_LISTEN_MAX_BACKOFF_MS;
  if (!Number.isFinite(initialMs) || initialMs <= 0 || !Number.isFinite(maxMs) || maxMs < initialMs) {
    throw new TypeError(
      `listen: backoff needs 0 < initialMs <= maxMs (finite milliseconds), got initialMs ${String(initialMs)}, maxMs ${String(maxMs)}`,
    );
  }
  return { initialMs, maxMs };
}

/**
 * Opens an upstream's notification stream and keeps it open until `close()`: on a 2025 upstream the session's GET
 * stream (MCP 2025-11-25 transports › Listening for Messages from the Server), on a 2026 one a `subscriptions/listen`
 * stream (MCP 2026-07-28 subscriptions). A stream that ends, breaks or sends an event that is not a bounded JSON
 * message is reopened after a jittered exponential backoff; 405 (or a listen answered -32601) means the upstream
 * offers none: the state becomes `'unsupported'` and nothing is retried.
 *
 * @param onClosed - called once by close(), so the client can forget the listener
 * @throws {TypeError} for backoff bounds that are not 0 < initialMs <= maxMs
 */
export function openUpstreamListener<C extends ListenConnection>(
  link: UpstreamLink<C>,
  options: UpstreamListenOptions,
  onClosed: () => void,
): UpstreamListener {
  const { initialMs, maxMs } = checkBackoff(options);
  let uris: readonly string[] = [...new Set(options.resourceSubscriptions ?? [])];
  let closed = false;
  let state: UpstreamListenState | undefined;
  let era: Era | undefined;
  /** Aborts the attempt under way (its fetch and stream). */
  let attempt: AbortController | undefined;
  let reopenRequested = false;
  let sleeping: { timer: NodeJS.Timeout; wake: () => void } | undefined;
  /** MCP transports › Resumability: the last event id seen on the session's GET stream, sent back as Last-Event-ID. */
  let lastEventId: string | undefined;
  let openedAt: number | undefined;

  const setState = (next: UpstreamListenState): void => {
    if (state === next || closed) return;
    state = next;
    try {
      options.onState?.(next);
    } catch {
      // The gateway's callback failing must not end the stream.
    }
  };
  const deliver = (message: UpstreamMessage): void => {
    try {
      options.onNotification(message);
    } catch {
      // As above.
    }
  };

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        sleeping = undefined;
        resolve();
      };
      const timer = setTimeout(wake, ms);
      sleeping = { timer, wake };
    });
  }

  const open = (init: RequestInit, signal: AbortSignal): Promise<Response> =>
    openStream(link.url, init, link.timeoutMs, signal);

  /** The messages of a stream, recording when it opened and the last event id. */
  function messagesOf(response: Response): AsyncGenerator<UpstreamMessage> {
    openedAt = Date.now();
    return streamMessages(response, (id) => {
      lastEventId = id;
    });
  }

  /** MCP 2025-11-25 resources › Subscriptions: a session subscribes per URI; failures (no subscribe capability) are ignored. */
  function subscribeSession(method: 'resources/subscribe' | 'resources/unsubscribe', list: readonly string[]): void {
    for (const uri of list) void link.request(method, { uri }).catch(() => undefined);
  }

  async function listenSession(current: C, signal: AbortSignal): Promise<AttemptEnd> {
    const headers: Record<string, string> = { ...link.sessionHeaders(current), Accept: 'text/event-stream' };
    if (lastEventId !== undefined) headers[LAST_EVENT_ID_HEADER] = lastEventId;
    const response = await open({ method: 'GET', headers }, signal);
    // MCP 2025-11-25 transports: 405 means the server offers no stream at this endpoint.
    if (response.status === 405) return discard(response).then(() => 'unsupported');
    // MCP transports › Session Management: 404 to a request with a session id: the session is gone, start a new one.
    if (response.status === 404 && current.sessionId !== undefined) {
      await discard(response);
      lastEventId = undefined;
      await link.reconnect(current);
      return 'lost-session';
    }
    if (!isEventStream(response)) return discard(response).then(() => 'retry');
    setState('open');
    subscribeSession('resources/subscribe', uris);
    for await (const message of messagesOf(response)) {
      if (typeof message.method !== 'string') continue;
      if (message.id !== undefined) link.answerServerRequest(current, message);
      else deliver(message);
    }
    return 'retry';
  }

  async function listenModern(signal: AbortSignal): Promise<AttemptEnd> {
    const id = link.nextId();
    const notifications: Record<string, unknown> = {
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
    };
    if (uris.length > 0) notifications.resourceSubscriptions = uris;
    const params = { notifications };
    const headers = {
      ...link.modernHeaders(LISTEN_METHOD, params),
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    };
    const body = JSON.stringify({ jsonrpc: '2.0', id, method: LISTEN_METHOD, params: link.modernParams(params) });
    const response = await open({ method: 'POST', headers, body }, signal);
    if (response.status === 405) return discard(response).then(() => 'unsupported');
    if (!isEventStream(response)) {
      // A refusal comes as one JSON-RPC error; -32601 means the upstream has no listen (MCP 2026-07-28 subscriptions).
      if (response.status >= 500) return discard(response).then(() => 'retry');
      return isMethodNotFound(await readBoundedText(response.body, MAX_UPSTREAM_MESSAGE_BYTES))
        ? 'unsupported'
        : 'retry';
    }
    for await (const message of messagesOf(response)) {
      // The listen request's own response ends the stream (Graceful Closure, or an error): open a new one.
      if (message.id === id && !('method' in message)) return 'retry';
      if (typeof message.method !== 'string' || message.id !== undefined) continue;
      if (message.method === LISTEN_ACKNOWLEDGED) setState('open');
      deliver(message);
    }
    return 'retry';
  }

  async function attemptOnce(): Promise<AttemptEnd> {
    const controller = new AbortController();
    attempt = controller;
    reopenRequested = false;
    openedAt = undefined;
    try {
      const current = await link.connect();
      era = current.era;
      if (closed || reopenRequested) return 'reopen';
      const end = stateful(current.era)
        ? await listenSession(current, controller.signal)
        : await listenModern(controller.signal);
      return reopenRequested ? 'reopen' : end;
    } catch {
      // Unreachable, refused, broken or malformed: all retried; the error text (which may hold the URL) is dropped.
      return reopenRequested ? 'reopen' : 'retry';
    } finally {
      attempt = undefined;
    }
  }

  async function run(): Promise<void> {
    const backoff = new Backoff({ initialMs, maxMs, jitter: true });
    let previous: AttemptEnd | undefined;
    while (!closed) {
      const end = await attemptOnce();
      if (closed) return;
      if (end === 'unsupported') {
        setState('unsupported');
        return;
      }
      // A stream that stayed up as long as the longest wait resets the backoff; one that keeps dropping backs off.
      if (openedAt !== undefined && Date.now() - openedAt >= maxMs) backoff.reset();
      const immediate = end === 'reopen' || (end === 'lost-session' && previous !== 'lost-session');
      previous = end;
      if (immediate) continue;
      setState('retrying');
      await sleep(backoff.next());
    }
  }

  void run();

  return {
    update(next) {
      const previous = uris;
      uris = [...new Set(next)];
      if (closed) return;
      if (era !== undefined && stateful(era)) {
        if (state !== 'open') return;
        subscribeSession(
          'resources/subscribe',
          uris.filter((uri) => !previous.includes(uri)),
        );
        subscribeSession(
          'resources/unsubscribe',
          previous.filter((uri) => !uris.includes(uri)),
        );
        return;
      }
      reopenRequested = true;
      attempt?.abort();
      sleeping?.wake();
    },
    close() {
      if (closed) return;
      closed = true;
      attempt?.abort();
      sleeping?.wake();
      onClosed();
    },
  };
}
