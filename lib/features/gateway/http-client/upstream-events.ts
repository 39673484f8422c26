// An upstream's notification stream kept open for the gateway: the 2025 GET stream or the 2026 subscriptions/listen stream, reopened with backoff.

import { stateful } from '../../../core/era-policy';
import { LAST_EVENT_ID_HEADER } from '../../../edge/http/mcp-headers';
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
  headers2026(method: string, params: Record<string, unknown> | undefined): Record<string, string>;
  params2026(params: Record<string, unknown> | undefined): Record<string, unknown>;
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
  return new NotificationStream(link, options, onClosed);
}

/** One listener: the attempt under way, the wait before the next, and what a reopened stream resumes from. */
class NotificationStream<C extends ListenConnection> implements UpstreamListener {
  readonly #link: UpstreamLink<C>;
  readonly #options: UpstreamListenOptions;
  readonly #onClosed: () => void;
  readonly #maxMs: number;
  readonly #backoff: Backoff;
  #uris: readonly string[];
  #closed = false;
  #state: UpstreamListenState | undefined;
  #era: Era | undefined;
  /** Aborts the attempt under way (its fetch and stream). */
  #attempt: AbortController | undefined;
  #reopenRequested = false;
  #sleeping: { readonly timer: NodeJS.Timeout; readonly wake: () => void } | undefined;
  /** MCP transports › Resumability: the last event id seen on the session's GET stream, sent back as Last-Event-ID. */
  #lastEventId: string | undefined;
  #openedAt: number | undefined;

  constructor(link: UpstreamLink<C>, options: UpstreamListenOptions, onClosed: () => void) {
    const { initialMs, maxMs } = checkBackoff(options);
    this.#link = link;
    this.#options = options;
    this.#onClosed = onClosed;
    this.#maxMs = maxMs;
    this.#backoff = new Backoff({ initialMs, maxMs, jitter: true });
    this.#uris = [...new Set(options.resourceSubscriptions ?? [])];
    void this.#run();
  }

  update(next: readonly string[]): void {
    const previous = this.#uris;
    const uris = [...new Set(next)];
    this.#uris = uris;
    if (this.#closed) return;
    if (this.#era !== undefined && stateful(this.#era)) {
      if (this.#state !== 'open') return;
      this.#subscribeSession(
        'resources/subscribe',
        uris.filter((uri) => !previous.includes(uri)),
      );
      this.#subscribeSession(
        'resources/unsubscribe',
        previous.filter((uri) => !uris.includes(uri)),
      );
      return;
    }
    this.#reopenRequested = true;
    this.#attempt?.abort();
    this.#sleeping?.wake();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#attempt?.abort();
    this.#sleeping?.wake();
    this.#onClosed();
  }

  #setState(next: UpstreamListenState): void {
    if (this.#state === next || this.#closed) return;
    this.#state = next;
    try {
      this.#options.onState?.(next);
    } catch {
      // The gateway's callback failing must not end the stream.
    }
  }

  #deliver(message: UpstreamMessage): void {
    try {
      this.#options.onNotification(message);
    } catch {
      // As above.
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.#sleeping = undefined;
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.#sleeping = { timer, wake };
    });
  }

  #open(init: RequestInit, signal: AbortSignal): Promise<Response> {
    return openStream(this.#link.url, init, this.#link.timeoutMs, signal);
  }

  /** The messages of a stream, recording when it opened and the last event id. */
  #messagesOf(response: Response): AsyncGenerator<UpstreamMessage> {
    this.#openedAt = Date.now();
    return streamMessages(response, (id) => {
      this.#lastEventId = id;
    });
  }

  /** MCP 2025-11-25 resources › Subscriptions: a session subscribes per URI; failures (no subscribe capability) are ignored. */
  #subscribeSession(method: 'resources/subscribe' | 'resources/unsubscribe', list: readonly string[]): void {
    for (const uri of list) void this.#link.request(method, { uri }).catch(() => undefined);
  }

  async #listenSession(current: C, signal: AbortSignal): Promise<AttemptEnd> {
    const headers: Record<string, string> = { ...this.#link.sessionHeaders(current), Accept: 'text/event-stream' };
    if (this.#lastEventId !== undefined) headers[LAST_EVENT_ID_HEADER] = this.#lastEventId;
    const response = await this.#open({ method: 'GET', headers }, signal);
    // MCP 2025-11-25 transports: 405 means the server offers no stream at this endpoint.
    if (response.status === 405) return discard(response).then(() => 'unsupported');
    // MCP transports › Session Management: 404 to a request with a session id: the session is gone, start a new one.
    if (response.status === 404 && current.sessionId !== undefined) {
      await discard(response);
      this.#lastEventId = undefined;
      await this.#link.reconnect(current);
      return 'lost-session';
    }
    if (!isEventStream(response)) return discard(response).then(() => 'retry');
    this.#setState('open');
    this.#subscribeSession('resources/subscribe', this.#uris);
    for await (const message of this.#messagesOf(response)) {
      if (typeof message.method !== 'string') continue;
      if (message.id !== undefined) this.#link.answerServerRequest(current, message);
      else this.#deliver(message);
    }
    return 'retry';
  }

  async #listen2026(signal: AbortSignal): Promise<AttemptEnd> {
    const id = this.#link.nextId();
    const notifications: Record<string, unknown> = {
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
    };
    if (this.#uris.length > 0) notifications.resourceSubscriptions = this.#uris;
    const params = { notifications };
    const headers = {
      ...this.#link.headers2026(LISTEN_METHOD, params),
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    };
    const body = JSON.stringify({ jsonrpc: '2.0', id, method: LISTEN_METHOD, params: this.#link.params2026(params) });
    const response = await this.#open({ method: 'POST', headers, body }, signal);
    if (response.status === 405) return discard(response).then(() => 'unsupported');
    if (!isEventStream(response)) {
      // A refusal comes as one JSON-RPC error; -32601 means the upstream has no listen (MCP 2026-07-28 subscriptions).
      if (response.status >= 500) return discard(response).then(() => 'retry');
      return isMethodNotFound(await readBoundedText(response.body, MAX_UPSTREAM_MESSAGE_BYTES))
        ? 'unsupported'
        : 'retry';
    }
    for await (const message of this.#messagesOf(response)) {
      // The listen request's own response ends the stream (Graceful Closure, or an error): open a new one.
      if (message.id === id && !('method' in message)) return 'retry';
      if (typeof message.method !== 'string' || message.id !== undefined) continue;
      if (message.method === LISTEN_ACKNOWLEDGED) this.#setState('open');
      this.#deliver(message);
    }
    return 'retry';
  }

  async #attemptOnce(): Promise<AttemptEnd> {
    const controller = new AbortController();
    this.#attempt = controller;
    this.#reopenRequested = false;
    this.#openedAt = undefined;
    try {
      const current = await this.#link.connect();
      this.#era = current.era;
      if (this.#closed || this.#reopenRequested) return 'reopen';
      const end = stateful(current.era)
        ? await this.#listenSession(current, controller.signal)
        : await this.#listen2026(controller.signal);
      return this.#reopenRequested ? 'reopen' : end;
    } catch {
      // Unreachable, refused, broken or malformed: all retried; the error text (which may hold the URL) is dropped.
      return this.#reopenRequested ? 'reopen' : 'retry';
    } finally {
      this.#attempt = undefined;
    }
  }

  async #run(): Promise<void> {
    let previous: AttemptEnd | undefined;
    while (!this.#closed) {
      const end = await this.#attemptOnce();
      if (this.#closed) return;
      if (end === 'unsupported') {
        this.#setState('unsupported');
        return;
      }
      // A stream that stayed up as long as the longest wait resets the backoff; one that keeps dropping backs off.
      if (this.#openedAt !== undefined && Date.now() - this.#openedAt >= this.#maxMs) this.#backoff.reset();
      const immediate = end === 'reopen' || (end === 'lost-session' && previous !== 'lost-session');
      previous = end;
      if (immediate) continue;
      this.#setState('retrying');
      await this.#sleep(this.#backoff.next());
    }
  }
}
