// A small MCP client over Streamable HTTP on fetch, for the gateway: probes 2026 server/discover, falls back to a 2025 session.

import { stateful } from '../../../core/era-policy';
import { isObject } from '../../../core/jsonrpc/types';
import type { Era } from '../../../core/versions';
import { type AbortCause, type RequestLimits, withLimits } from './upstream-deadline';
import {
  clientHeaders,
  modernHeaders as modernHeadersOf,
  modernParams as modernParamsOf,
  sessionHeaders as sessionHeadersOf,
  withRequestHeaders,
} from './upstream-envelope';
import { openUpstreamListener, type UpstreamLink } from './upstream-events';
import { deleteSession, exchange, type ExchangeOutcome } from './upstream-exchange';
import {
  checkStatus as checkStatusOf,
  discoverOrInitialize,
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
 */
export function createUpstreamClient(options: UpstreamClientOptions): UpstreamClient {
  const { url, label, timeoutMs, clientInfo } = options;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
    throw new TypeError(
      `createUpstreamClient: timeoutMs must be a positive number of milliseconds, got ${String(timeoutMs)}`,
    );
  let connection: UpstreamConnection | undefined;
  let connecting: Promise<UpstreamConnection> | undefined;
  let closed = false;
  let nextId = 1;
  /** close() calls these: each aborts one request in flight. */
  const inFlight = new Set<() => void>();
  const listeners = new Set<UpstreamListener>();

  const baseHeaders = (): Record<string, string> =>
    clientHeaders(typeof options.headers === 'function' ? options.headers() : options.headers);

  const sessionHeaders = (current: UpstreamConnection): Record<string, string> =>
    sessionHeadersOf(baseHeaders(), current);
  const modernHeaders = (method: string, params: Record<string, unknown> | undefined): Record<string, string> =>
    modernHeadersOf(baseHeaders(), method, params);
  const modernParams = (params: Record<string, unknown> | undefined, capabilities?: Record<string, unknown>) =>
    modernParamsOf(params, clientInfo, capabilities);
  const limits: RequestLimits = { label, timeoutMs, inFlight };
  const handshakeContext: HandshakeContext = {
    url,
    label,
    clientInfo,
    capabilities: options.capabilities ?? {},
    baseHeaders,
    nextId: () => nextId++,
    onCredentialsRefused: options.onCredentialsRefused,
  };
  const checkStatus = (outcome: ExchangeOutcome): void => checkStatusOf(outcome, options.onCredentialsRefused);

  /** MCP transports › Session Management: a client that no longer needs its session SHOULD delete it. */
  async function endSession(current: UpstreamConnection): Promise<void> {
    if (stateful(current.era) && current.sessionId !== undefined)
      await deleteSession(url, sessionHeaders(current), AbortSignal.timeout(timeoutMs));
  }

  /** The first connection probes; after a lost 2025 session the upstream is known to be 2025, so it just initialises. */
  function connect(
    handshake: (signal: AbortSignal) => Promise<UpstreamConnection> = (signal) =>
      discoverOrInitialize(handshakeContext, signal),
  ): Promise<UpstreamConnection> {
    if (connection !== undefined) return Promise.resolve(connection);
    connecting ??= withLimits(limits, undefined, handshake).then(
      async (established) => {
        connecting = undefined;
        // close() ran while the handshake finished: end the session it opened rather than leak it.
        if (closed) {
          await endSession(established);
          throw upstreamError(label, 'client was closed');
        }
        connection = established;
        return established;
      },
      (error: unknown) => {
        connecting = undefined;
        throw error;
      },
    );
    return connecting;
  }

  /** Forgets a lost 2025 session (once, however many requests saw it lost) and connects again. */
  function reconnect(lost: UpstreamConnection): Promise<UpstreamConnection> {
    if (connection === lost) connection = undefined;
    return connect((signal) => initialize(handshakeContext, signal));
  }

  function sendCancelled(current: UpstreamConnection, requestId: number, cause: AbortCause): void {
    // MCP 2025-11-25 › Cancellation: the client SHOULD tell the server it no longer wants the result.
    if (!stateful(current.era) || cause === 'closed') return;
    const body = {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId, reason: cause === 'timeout' ? 'timed out' : 'cancelled' },
    };
    void withLimits(limits, undefined, (signal) =>
      exchange({ url, headers: sessionHeaders(current), body, signal }),
    ).catch(() => undefined);
  }

  /** A 2025 server may send requests on a POST's stream: see {@link serverRequestAnswer}. */
  function answerServerRequest(
    current: UpstreamConnection,
    message: UpstreamMessage,
    onRequest: UpstreamRequestOptions['onRequest'],
  ): void {
    const params = isObject(message.params) ? message.params : undefined;
    const answer = serverRequestAnswer(String(message.method), params, onRequest, options.roots ?? []);
    void replyTo(message.id, answer)
      .then((reply) =>
        withLimits(limits, undefined, (signal) =>
          exchange({ url, headers: sessionHeaders(current), body: reply, signal }),
        ),
      )
      .catch(() => undefined);
  }

  async function send(
    method: string,
    params: Record<string, unknown> | undefined,
    requestOptions: UpstreamRequestOptions,
    retried: boolean,
  ): Promise<unknown> {
    if (closed) throw upstreamError(label, 'client was closed');
    // Already cancelled: send nothing, not even the handshake.
    if (requestOptions.signal?.aborted) throw upstreamError(label, 'request was cancelled');
    const current = await connect();
    const id = nextId++;
    const modern = !stateful(current.era);
    const sentParams = modern ? modernParams(params, requestOptions.capabilities) : params;
    const body: UpstreamMessage =
      sentParams === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params: sentParams };
    const headers = withRequestHeaders(
      modern ? modernHeaders(method, params) : sessionHeaders(current),
      requestOptions.headers,
    );
    const outcome = await withLimits(
      limits,
      requestOptions.signal,
      async (signal) => {
        const onMessage = (message: UpstreamMessage): void => {
          if (!modern && typeof message.method === 'string' && message.id !== undefined)
            answerServerRequest(current, message, requestOptions.onRequest);
          requestOptions.onMessage?.(message);
        };
        const answer = await exchange({ url, headers, body, signal, onMessage });
        checkStatus(answer);
        return answer;
      },
      (cause) => sendCancelled(current, id, cause),
    );
    // MCP transports › Session Management: 404 to a request with a session id means the session is gone; start a new one.
    if (!modern && current.sessionId !== undefined && isLostSession(outcome) && !retried) {
      await reconnect(current);
      return send(method, params, requestOptions, true);
    }
    if (outcome.kind === 'response') return resultOrThrow(outcome.message, label);
    throw upstreamError(label, `answered HTTP ${outcome.status} without a JSON-RPC response`);
  }

  return {
    request: (method, params, requestOptions = {}) => send(method, params, requestOptions, false),
    async notify(method, params) {
      if (closed) throw upstreamError(label, 'client was closed');
      const current = await connect();
      const modern = !stateful(current.era);
      const sentParams = modern ? modernParams(params) : params;
      const body: UpstreamMessage =
        sentParams === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params: sentParams };
      const headers = modern ? modernHeaders(method, params) : sessionHeaders(current);
      const outcome = await withLimits(limits, undefined, (signal) => exchange({ url, headers, body, signal }));
      // MCP transports: a notification the server accepts gets 202 and no body.
      if (outcome.status >= 300) throw upstreamError(label, `refused the notification (HTTP ${outcome.status})`);
    },
    listen(listenOptions) {
      if (closed) throw upstreamError(label, 'client was closed');
      const link: UpstreamLink<UpstreamConnection> = {
        url,
        timeoutMs,
        sessionHeaders,
        modernHeaders,
        modernParams,
        reconnect,
        // Server requests outside a call have no caller to relay to: ping and roots/list are answered, the rest -32601.
        answerServerRequest: (current, message) => answerServerRequest(current, message, undefined),
        connect: () => connect(),
        request: (method, params) => send(method, params, {}, false),
        nextId: () => nextId++,
      };
      const listener = openUpstreamListener(link, listenOptions, () => listeners.delete(listener));
      listeners.add(listener);
      return listener;
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const listener of [...listeners]) listener.close();
      for (const abortOnClose of [...inFlight]) abortOnClose();
      const current = connection;
      connection = undefined;
      if (current !== undefined) await endSession(current);
    },
    get era() {
      return connection?.era;
    },
    get protocolVersion() {
      return connection?.protocolVersion;
    },
    get sessionId() {
      return connection?.sessionId;
    },
    get capabilities() {
      return connection?.capabilities;
    },
  };
}
