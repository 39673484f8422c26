// A small MCP client over Streamable HTTP on fetch, for the gateway: probes 2026 server/discover, falls back to a 2025 session.

import { stateful } from '../../../core/era-policy';
import { isObject } from '../../../core/jsonrpc/types';
import type { Era } from '../../../core/versions';
import { type AbortCause, type RequestLimits, withLimits } from './upstream-deadline';
import {
  clientHeaders,
  headers2026 as headers2026Of,
  params2026 as params2026Of,
  sessionHeaders as sessionHeadersOf,
  withRequestHeaders,
} from './upstream-envelope';
import { openUpstreamListener, type UpstreamLink } from './upstream-events';
import { deleteSession, exchange, type ExchangeOutcome, type ExchangeRequest } from './upstream-exchange';
import { UpstreamConnections } from './http-post';
import {
  checkStatus,
  discoverOrInitialize,
  type Handshake,
  type HandshakeContext,
  initialize,
  isLostSession,
  type UpstreamConnection,
} from './upstream-handshake';
import type {
  UpstreamClient,
  UpstreamListener,
  UpstreamListenOptions,
  UpstreamMessage,
  UpstreamRequestOptions,
  UpstreamRoot,
} from '../shared/upstream-client';
import { replyTo, resultOrThrow, serverRequestAnswer, upstreamError } from '../shared/upstream-wire';

export interface UpstreamClientOptions {
  /** The upstream's MCP endpoint. Never appears in an error message. */
  readonly url: string;
  /** How errors name the upstream ("Upstream \"weather\" …"): the gateway's own name for it, never its URL. */
  readonly label: string;
  /** Sent on every request (credentials for the upstream); a function is read again for each request. */
  readonly headers?: Record<string, string> | (() => Record<string, string>);
  /** The most one request (with its whole SSE reply) may take, in milliseconds. */
  readonly timeoutMs: number;
  /** The gateway's identity, sent in initialize and in the 2026 envelope. */
  readonly clientInfo: { readonly name: string; readonly version: string };
  /** The capabilities declared in a 2025 `initialize` (those the gateway relays to its callers); defaults to none. */
  readonly capabilities?: Record<string, unknown>;
  /** Told of each 401/403: the gateway's credentials are wrong, which its operator must hear of (the caller only gets -32603). */
  readonly onCredentialsRefused?: (status: number) => void;
  /** The answer to a `roots/list` the upstream asks outside any call (see {@link serverRequestAnswer}). Defaults to none. */
  readonly roots?: readonly UpstreamRoot[];
}

/**
 * Creates a client for one upstream. Nothing is sent until the first request: it probes with a 2026
 * `server/discover`, and an upstream that does not answer with a DiscoverResult gets a 2025 `initialize`.
 *
 * @throws {TypeError} for a timeoutMs that is not a positive number
 */
export function createUpstreamClient(options: UpstreamClientOptions): UpstreamClient {
  return new StreamableHttpClient(options);
}

/** One upstream's connection (a 2026 probe, or a 2025 session), the requests in flight on it and its listeners. */
class StreamableHttpClient implements UpstreamClient {
  readonly #options: UpstreamClientOptions;
  readonly #limits: RequestLimits;
  /** Also holds the URL, parsed once, and the client's keep-alive connections. */
  readonly #handshake: HandshakeContext;
  #connection: UpstreamConnection | undefined;
  #connecting: Promise<UpstreamConnection> | undefined;
  #closed = false;
  #nextId = 1;
  /** close() calls these: each aborts one request in flight. */
  readonly #inFlight = new Set<() => void>();
  readonly #listeners = new Set<UpstreamListener>();

  constructor(options: UpstreamClientOptions) {
    const { url, label, timeoutMs, clientInfo } = options;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
      throw new TypeError(
        `createUpstreamClient: timeoutMs must be a positive number of milliseconds, got ${String(timeoutMs)}`,
      );
    this.#options = options;
    this.#limits = { label, timeoutMs, inFlight: this.#inFlight };
    this.#handshake = {
      url: new URL(url),
      connections: new UpstreamConnections(),
      label,
      clientInfo,
      capabilities: options.capabilities ?? {},
      baseHeaders: () => this.#baseHeaders(),
      nextId: () => this.#nextId++,
      onCredentialsRefused: options.onCredentialsRefused,
    };
  }

  get era(): Era | undefined {
    return this.#connection?.era;
  }

  get protocolVersion(): string | undefined {
    return this.#connection?.protocolVersion;
  }

  get sessionId(): string | undefined {
    return this.#connection?.sessionId;
  }

  get capabilities(): Readonly<Record<string, unknown>> | undefined {
    return this.#connection?.capabilities;
  }

  request(
    method: string,
    params: Record<string, unknown> | undefined,
    requestOptions: UpstreamRequestOptions = {},
  ): Promise<unknown> {
    return this.#send(method, params, requestOptions, false);
  }

  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    const { label } = this.#options;
    if (this.#closed) throw upstreamError(label, 'client was closed');
    const current = await this.#connect();
    const era2026 = !stateful(current.era);
    const sentParams = era2026 ? this.#params2026(params) : params;
    const body: UpstreamMessage =
      sentParams === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params: sentParams };
    const headers = era2026 ? this.#headers2026(method, params) : this.#sessionHeaders(current);
    const outcome = await withLimits(this.#limits, undefined, (signal) => this.#exchange({ headers, body, signal }));
    // MCP transports: a notification the server accepts gets 202 and no body.
    if (outcome.status >= 300) throw upstreamError(label, `refused the notification (HTTP ${outcome.status})`);
  }

  listen(listenOptions: UpstreamListenOptions): UpstreamListener {
    const { url, label, timeoutMs } = this.#options;
    if (this.#closed) throw upstreamError(label, 'client was closed');
    const link: UpstreamLink<UpstreamConnection> = {
      url,
      timeoutMs,
      sessionHeaders: (current) => this.#sessionHeaders(current),
      headers2026: (method, params) => this.#headers2026(method, params),
      params2026: (params) => this.#params2026(params),
      reconnect: (lost) => this.#reconnect(lost),
      // Server requests outside a call have no caller to relay to: ping and roots/list are answered, the rest -32601.
      answerServerRequest: (current, message) => this.#answerServerRequest(current, message, undefined),
      connect: () => this.#connect(),
      request: (method, params) => this.#send(method, params, {}, false),
      nextId: () => this.#nextId++,
    };
    const listener = openUpstreamListener(link, listenOptions, () => this.#listeners.delete(listener));
    this.#listeners.add(listener);
    return listener;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const listener of [...this.#listeners]) listener.close();
    for (const abortOnClose of [...this.#inFlight]) abortOnClose();
    const current = this.#connection;
    this.#connection = undefined;
    if (current !== undefined) await this.#endSession(current);
    this.#handshake.connections.close();
  }

  #baseHeaders(): Record<string, string> {
    const { headers } = this.#options;
    return clientHeaders(typeof headers === 'function' ? headers() : headers);
  }

  #sessionHeaders(current: UpstreamConnection): Record<string, string> {
    return sessionHeadersOf(this.#baseHeaders(), current);
  }

  #headers2026(method: string, params: Record<string, unknown> | undefined): Record<string, string> {
    return headers2026Of(this.#baseHeaders(), method, params);
  }

  #params2026(
    params: Record<string, unknown> | undefined,
    capabilities?: Record<string, unknown>,
  ): Record<string, unknown> {
    return params2026Of(params, this.#options.clientInfo, capabilities);
  }

  /** One POST on the client's connections. */
  #exchange(request: Omit<ExchangeRequest, 'url' | 'connections'>): Promise<ExchangeOutcome> {
    return exchange({ ...request, url: this.#handshake.url, connections: this.#handshake.connections });
  }

  /** MCP transports › Session Management: a client that no longer needs its session SHOULD delete it. */
  async #endSession(current: UpstreamConnection): Promise<void> {
    if (stateful(current.era) && current.sessionId !== undefined)
      await deleteSession(this.#options.url, this.#sessionHeaders(current), this.#options.timeoutMs);
  }

  /** The first connection probes; after a lost 2025 session the upstream is known to be 2025, so it just initialises. */
  #connect(
    handshake: Handshake = (signal) => discoverOrInitialize(this.#handshake, signal),
  ): Promise<UpstreamConnection> {
    if (this.#connection !== undefined) return Promise.resolve(this.#connection);
    this.#connecting ??= withLimits(this.#limits, undefined, handshake).then(
      async (established) => {
        this.#connecting = undefined;
        // close() ran while the handshake finished: end the session it opened rather than leak it.
        if (this.#closed) {
          await this.#endSession(established);
          throw upstreamError(this.#options.label, 'client was closed');
        }
        this.#connection = established;
        return established;
      },
      (error: unknown) => {
        this.#connecting = undefined;
        throw error;
      },
    );
    return this.#connecting;
  }

  /** Forgets a lost 2025 session (once, however many requests saw it lost) and connects again. */
  #reconnect(lost: UpstreamConnection): Promise<UpstreamConnection> {
    if (this.#connection === lost) this.#connection = undefined;
    return this.#connect((signal) => initialize(this.#handshake, signal));
  }

  /** Posts a message of ours (a cancellation, a reply) on a 2025 session; failures are dropped. */
  #post(current: UpstreamConnection, body: UpstreamMessage): Promise<unknown> {
    return withLimits(this.#limits, undefined, (signal) =>
      this.#exchange({ headers: this.#sessionHeaders(current), body, signal }),
    ).catch(() => undefined);
  }

  #sendCancelled(current: UpstreamConnection, requestId: number, cause: AbortCause): void {
    // MCP 2025-11-25 › Cancellation: the client SHOULD tell the server it no longer wants the result.
    if (!stateful(current.era) || cause === 'closed') return;
    const reason = cause === 'timeout' ? 'timed out' : 'cancelled';
    void this.#post(current, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason } });
  }

  /** A 2025 server may send requests on a POST's stream: see {@link serverRequestAnswer}. */
  #answerServerRequest(
    current: UpstreamConnection,
    message: UpstreamMessage,
    onRequest: UpstreamRequestOptions['onRequest'],
  ): void {
    const params = isObject(message.params) ? message.params : undefined;
    const answer = serverRequestAnswer(String(message.method), params, onRequest, this.#options.roots ?? []);
    void replyTo(message.id, answer)
      .then((reply) => this.#post(current, reply))
      .catch(() => undefined);
  }

  async #send(
    method: string,
    params: Record<string, unknown> | undefined,
    requestOptions: UpstreamRequestOptions,
    retried: boolean,
  ): Promise<unknown> {
    const { label } = this.#options;
    if (this.#closed) throw upstreamError(label, 'client was closed');
    // Already cancelled: send nothing, not even the handshake.
    if (requestOptions.signal?.aborted) throw upstreamError(label, 'request was cancelled');
    const current = await this.#connect();
    const id = this.#nextId++;
    const era2026 = !stateful(current.era);
    const sentParams = era2026 ? this.#params2026(params, requestOptions.capabilities) : params;
    const body: UpstreamMessage =
      sentParams === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params: sentParams };
    const headers = withRequestHeaders(
      era2026 ? this.#headers2026(method, params) : this.#sessionHeaders(current),
      requestOptions.headers,
    );
    const onMessage = (message: UpstreamMessage): void => {
      if (!era2026 && typeof message.method === 'string' && message.id !== undefined)
        this.#answerServerRequest(current, message, requestOptions.onRequest);
      requestOptions.onMessage?.(message);
    };
    const outcome = await withLimits(
      this.#limits,
      requestOptions.signal,
      async (signal) => {
        const answer = await this.#exchange({ headers, body, signal, onMessage });
        checkStatus(answer, this.#options.onCredentialsRefused);
        return answer;
      },
      (cause) => this.#sendCancelled(current, id, cause),
    );
    // MCP transports › Session Management: 404 to a request with a session id means the session is gone; start a new one.
    if (!era2026 && current.sessionId !== undefined && isLostSession(outcome) && !retried) {
      await this.#reconnect(current);
      return this.#send(method, params, requestOptions, true);
    }
    if (outcome.kind === 'response') return resultOrThrow(outcome.message, label);
    throw upstreamError(label, `answered HTTP ${outcome.status} without a JSON-RPC response`);
  }
}
