// A small MCP client over Streamable HTTP on fetch, for the gateway: probes 2026 server/discover, falls back to a 2025 session.

import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import { isObject } from '../jsonrpc/types';
import { isSupportedVersion, LATEST_PROTOCOL_VERSION, type Era } from '../versions';
import {
  openUpstreamListener,
  type UpstreamLink,
  type UpstreamListener,
  type UpstreamListenOptions,
} from './upstream-events';
import { deleteSession, exchange, type ExchangeOutcome, type UpstreamMessage } from './upstream-exchange';
import { encodeHeaderValue, replyTo, UpstreamFault } from './upstream-wire';

/** The 2026 revision the client speaks (MCP 2026-07-28). */
const MODERN_VERSION = '2026-07-28';
const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_CAPABILITIES_META = 'io.modelcontextprotocol/clientCapabilities';
const CLIENT_INFO_META = 'io.modelcontextprotocol/clientInfo';
/**
 * MCP 2026-07-28 logging: a server sends log messages only for a request whose `_meta` sets a level. The gateway asks
 * for all of them; relaying them through the caller's ctx.log applies the caller's own level.
 */
const LOG_LEVEL_META = 'io.modelcontextprotocol/logLevel';
/** The body field `Mcp-Name` mirrors, by method (MCP 2026-07-28 transports › Standard Request Headers; SEP-2663 for tasks). */
const NAME_FIELD: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

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
}

export interface UpstreamRequestOptions {
  /** Aborts the request; a 2025 upstream is sent notifications/cancelled. */
  readonly signal?: AbortSignal;
  /**
   * Receives the notifications (progress, log) that come on the request's SSE reply, and the server requests, which
   * the client has already answered (a 2025 `ping` with `{}`, anything else with -32601). It must not throw.
   */
  readonly onMessage?: (message: UpstreamMessage) => void;
  /**
   * Answers the server requests of a 2025 upstream that come on the request's SSE reply (sampling, elicitation,
   * roots): resolves with the result, or rejects (a JsonRpcError keeps its code; anything else is -32603). Without
   * it, they get -32601. `ping` is always answered `{}`.
   */
  readonly onRequest?: (method: string, params: Record<string, unknown> | undefined) => Promise<unknown>;
  /** Sent with this request only, beside the client's `headers`: per-caller credentials, forwarded headers. */
  readonly headers?: Record<string, string>;
  /** A 2026 request's `io.modelcontextprotocol/clientCapabilities` (the caller's); defaults to none. */
  readonly capabilities?: Record<string, unknown>;
}

export interface UpstreamClient {
  /** Sends a request and resolves with its result; rejects with a JsonRpcError (the upstream's own, or -32603). */
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    options?: UpstreamRequestOptions,
  ): Promise<unknown>;
  /** Sends a notification; resolves once the upstream accepted it. */
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
  /** Keeps the upstream's notification stream open (2025 GET stream, 2026 subscriptions/listen) until closed: see upstream-events.ts. */
  listen(options: UpstreamListenOptions): UpstreamListener;
  /** Aborts everything in flight, ends every listener and deletes the 2025 session. */
  close(): Promise<void>;
  /** Undefined until connected. */
  readonly era: Era | undefined;
  readonly protocolVersion: string | undefined;
  /** The 2025 session, when the upstream keeps one. */
  readonly sessionId: string | undefined;
  /** The server capabilities of the initialize or server/discover result (`listChanged`, `subscribe`); undefined until connected. */
  readonly capabilities: Readonly<Record<string, unknown>> | undefined;
}

interface Connection {
  readonly era: Era;
  readonly protocolVersion: string;
  readonly sessionId: string | undefined;
  readonly capabilities: Readonly<Record<string, unknown>>;
}

/** Why a request's signal fired: the caller, the time limit, or close(). */
type AbortCause = 'cancelled' | 'timeout' | 'closed';

/** Headers the protocol sets, which a request's own headers never replace. */
const PROTOCOL_HEADERS: ReadonlySet<string> = new Set([
  'mcp-protocol-version',
  'mcp-session-id',
  'mcp-method',
  'mcp-name',
  'content-type',
  'accept',
]);

/** The client's headers with a request's own on top (they replace the client's of the same name), protocol headers kept. */
function withRequestHeaders(
  headers: Record<string, string>,
  own: Record<string, string> | undefined,
): Record<string, string> {
  if (own === undefined) return headers;
  const merged: Record<string, string> = {};
  const replaced = new Set(Object.keys(own).map((name) => name.toLowerCase()));
  for (const [name, value] of Object.entries(headers))
    if (PROTOCOL_HEADERS.has(name.toLowerCase()) || !replaced.has(name.toLowerCase())) merged[name] = value;
  for (const [name, value] of Object.entries(own)) if (!PROTOCOL_HEADERS.has(name.toLowerCase())) merged[name] = value;
  return merged;
}

/**
 * Whether a 2025 upstream says the session is gone: 404 (MCP transports › Session Management), or the 400 "No valid
 * session ID" that servers built on the SDK v1 examples answer instead, after a restart.
 */
function isLostSession(outcome: ExchangeOutcome): boolean {
  if (outcome.status === 404) return true;
  if (outcome.status !== 400 || outcome.kind !== 'response' || !isObject(outcome.message.error)) return false;
  const message = outcome.message.error.message;
  return typeof message === 'string' && /session/i.test(message);
}

/** A -32603 naming the upstream by its label: `Upstream "fs" exited (code 1)` (shared by the HTTP and stdio clients). */
export function upstreamError(label: string, phrase: string): JsonRpcError {
  return new JsonRpcError(ErrorCode.InternalError, `Upstream "${label}" ${phrase}`);
}

/** The upstream's own JSON-RPC error, verbatim; a malformed one is a fault. */
export function resultOrThrow(message: UpstreamMessage, label: string): unknown {
  if ('error' in message) {
    const error = message.error;
    if (!isObject(error) || !Number.isInteger(error.code) || typeof error.message !== 'string')
      throw upstreamError(label, 'sent a malformed JSON-RPC error');
    throw new JsonRpcError(error.code as number, error.message, error.data);
  }
  return message.result;
}

/** MCP 2026-07-28 › server/discover: a DiscoverResult lists the revisions served; ours must be among them. */
function isDiscoverResult(outcome: ExchangeOutcome): outcome is Extract<ExchangeOutcome, { kind: 'response' }> {
  if (outcome.kind !== 'response' || outcome.status !== 200 || !isObject(outcome.message.result)) return false;
  const versions = outcome.message.result.supportedVersions;
  return Array.isArray(versions) && versions.includes(MODERN_VERSION);
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
  let connection: Connection | undefined;
  let connecting: Promise<Connection> | undefined;
  let closed = false;
  let nextId = 1;
  /** close() calls these: each aborts one request in flight. */
  const inFlight = new Set<() => void>();
  const listeners = new Set<UpstreamListener>();

  const baseHeaders = (): Record<string, string> => ({
    ...(typeof options.headers === 'function' ? options.headers() : options.headers),
  });

  function sessionHeaders(current: Connection): Record<string, string> {
    const headers = baseHeaders();
    // MCP 2025-06-18 transports › Protocol Version Header: sent on every request after initialize.
    headers['MCP-Protocol-Version'] = current.protocolVersion;
    if (current.sessionId !== undefined) headers['Mcp-Session-Id'] = current.sessionId;
    return headers;
  }

  function modernHeaders(method: string, params: Record<string, unknown> | undefined): Record<string, string> {
    const headers = baseHeaders();
    headers['MCP-Protocol-Version'] = MODERN_VERSION;
    headers['Mcp-Method'] = method;
    const field = NAME_FIELD[method];
    const name = field === undefined ? undefined : params?.[field];
    if (typeof name === 'string') headers['Mcp-Name'] = encodeHeaderValue(name);
    return headers;
  }

  /** MCP 2026-07-28: every request carries the client's state in `params._meta`, beside what the caller put there. */
  function modernParams(
    params: Record<string, unknown> | undefined,
    capabilities: Record<string, unknown> = {},
  ): Record<string, unknown> {
    const meta = isObject(params?._meta) ? params._meta : {};
    return {
      ...params,
      _meta: {
        ...meta,
        [PROTOCOL_VERSION_META]: MODERN_VERSION,
        [CLIENT_CAPABILITIES_META]: capabilities,
        [CLIENT_INFO_META]: clientInfo,
        [LOG_LEVEL_META]: 'debug',
      },
    };
  }

  /** Runs `work` under a signal that fires on the caller's abort, the time limit, or close(); maps the cause to an error. */
  async function withLimits<T>(
    signal: AbortSignal | undefined,
    work: (signal: AbortSignal) => Promise<T>,
    onAbort?: (cause: AbortCause) => void,
  ): Promise<T> {
    const controller = new AbortController();
    let cause: AbortCause | undefined;
    const abort = (why: AbortCause): void => {
      if (cause !== undefined) return;
      cause = why;
      controller.abort();
      onAbort?.(why);
    };
    const timer = setTimeout(() => abort('timeout'), timeoutMs);
    const onCallerAbort = (): void => abort('cancelled');
    if (signal?.aborted) abort('cancelled');
    signal?.addEventListener('abort', onCallerAbort, { once: true });
    const abortOnClose = (): void => abort('closed');
    inFlight.add(abortOnClose);
    try {
      return await work(controller.signal);
    } catch (error) {
      if (cause === 'timeout') throw upstreamError(label, `did not answer within ${timeoutMs} ms`);
      if (cause === 'cancelled') throw upstreamError(label, 'request was cancelled');
      if (cause === 'closed') throw upstreamError(label, 'client was closed');
      if (error instanceof UpstreamFault) throw upstreamError(label, error.message);
      if (error instanceof JsonRpcError) throw error;
      throw upstreamError(label, 'failed');
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onCallerAbort);
      inFlight.delete(abortOnClose);
    }
  }

  /** The statuses no message makes sense of: credentials refused, upstream failure. */
  function checkStatus(outcome: ExchangeOutcome): void {
    if (outcome.status === 401 || outcome.status === 403) {
      options.onCredentialsRefused?.(outcome.status);
      throw new UpstreamFault(`refused the gateway's credentials (HTTP ${outcome.status})`);
    }
    if (outcome.status >= 500) throw new UpstreamFault(`failed (HTTP ${outcome.status})`);
  }

  async function initialize(signal: AbortSignal): Promise<Connection> {
    const body = {
      jsonrpc: '2.0',
      id: nextId++,
      method: 'initialize',
      params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: options.capabilities ?? {}, clientInfo },
    };
    const outcome = await exchange({ url, headers: baseHeaders(), body, signal });
    checkStatus(outcome);
    if (outcome.kind !== 'response')
      throw new UpstreamFault(`answered initialize with HTTP ${outcome.status} and no MCP message`);
    const result = resultOrThrow(outcome.message, label);
    const version = isObject(result) ? result.protocolVersion : undefined;
    // MCP 2025-11-25 lifecycle › Version Negotiation: a revision the client does not speak means disconnect.
    if (!isSupportedVersion(version))
      throw new UpstreamFault('answered initialize with a protocol version the gateway does not speak');
    const capabilities = isObject(result) && isObject(result.capabilities) ? result.capabilities : {};
    const established: Connection = {
      era: '2025',
      protocolVersion: version,
      sessionId: outcome.sessionId,
      capabilities,
    };
    const initialized = await exchange({
      url,
      headers: sessionHeaders(established),
      body: { jsonrpc: '2.0', method: 'notifications/initialized' },
      signal,
    });
    checkStatus(initialized);
    if (initialized.status >= 300)
      throw new UpstreamFault(`refused notifications/initialized (HTTP ${initialized.status})`);
    return established;
  }

  async function discoverOrInitialize(signal: AbortSignal): Promise<Connection> {
    const body = { jsonrpc: '2.0', id: nextId++, method: 'server/discover', params: modernParams(undefined) };
    const probe = await exchange({ url, headers: modernHeaders('server/discover', undefined), body, signal });
    checkStatus(probe);
    if (isDiscoverResult(probe)) {
      const capabilities =
        isObject(probe.message.result) && isObject(probe.message.result.capabilities)
          ? probe.message.result.capabilities
          : {};
      return { era: '2026', protocolVersion: MODERN_VERSION, sessionId: undefined, capabilities };
    }
    // Not a 2026 server: 400 -32022 (a 2026 server without our revision), 404 / -32601 (no server/discover), or a
    // 2025-only server's 400 (a request without a session). MCP 2026-07-28 › Backward Compatibility: try initialize.
    return initialize(signal);
  }

  /** MCP transports › Session Management: a client that no longer needs its session SHOULD delete it. */
  async function endSession(current: Connection): Promise<void> {
    if (current.era === '2025' && current.sessionId !== undefined)
      await deleteSession(url, sessionHeaders(current), AbortSignal.timeout(timeoutMs));
  }

  /** The first connection probes; after a lost 2025 session the upstream is known to be 2025, so it just initialises. */
  function connect(
    handshake: (signal: AbortSignal) => Promise<Connection> = discoverOrInitialize,
  ): Promise<Connection> {
    if (connection !== undefined) return Promise.resolve(connection);
    connecting ??= withLimits(undefined, handshake).then(
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
  function reconnect(lost: Connection): Promise<Connection> {
    if (connection === lost) connection = undefined;
    return connect(initialize);
  }

  function sendCancelled(current: Connection, requestId: number, cause: AbortCause): void {
    // MCP 2025-11-25 › Cancellation: the client SHOULD tell the server it no longer wants the result.
    if (current.era !== '2025' || cause === 'closed') return;
    const body = {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId, reason: cause === 'timeout' ? 'timed out' : 'cancelled' },
    };
    void withLimits(undefined, (signal) => exchange({ url, headers: sessionHeaders(current), body, signal })).catch(
      () => undefined,
    );
  }

  /**
   * A 2025 server may send requests on a POST's stream: `ping` is answered `{}`, the rest by `onRequest` (the gateway
   * relays sampling, elicitation and roots to its caller) or, without it, -32601, so an upstream never waits for an
   * answer that will not come (MCP 2025-11-25 lifecycle › Capability Negotiation).
   */
  function answerServerRequest(
    current: Connection,
    message: UpstreamMessage,
    onRequest: UpstreamRequestOptions['onRequest'],
  ): void {
    const method = String(message.method);
    const params = isObject(message.params) ? message.params : undefined;
    const answer: Promise<unknown> =
      method === 'ping'
        ? Promise.resolve({})
        : onRequest === undefined
          ? Promise.reject(
              new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: the gateway does not serve ${method}`),
            )
          : onRequest(method, params);
    void replyTo(message.id, answer)
      .then((reply) =>
        withLimits(undefined, (signal) => exchange({ url, headers: sessionHeaders(current), body: reply, signal })),
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
    const modern = current.era === '2026';
    const sentParams = modern ? modernParams(params, requestOptions.capabilities) : params;
    const body: UpstreamMessage =
      sentParams === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params: sentParams };
    const headers = withRequestHeaders(
      modern ? modernHeaders(method, params) : sessionHeaders(current),
      requestOptions.headers,
    );
    const outcome = await withLimits(
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
      const modern = current.era === '2026';
      const sentParams = modern ? modernParams(params) : params;
      const body: UpstreamMessage =
        sentParams === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params: sentParams };
      const headers = modern ? modernHeaders(method, params) : sessionHeaders(current);
      const outcome = await withLimits(undefined, (signal) => exchange({ url, headers, body, signal }));
      // MCP transports: a notification the server accepts gets 202 and no body.
      if (outcome.status >= 300) throw upstreamError(label, `refused the notification (HTTP ${outcome.status})`);
    },
    listen(listenOptions) {
      if (closed) throw upstreamError(label, 'client was closed');
      const link: UpstreamLink<Connection> = {
        url,
        timeoutMs,
        sessionHeaders,
        modernHeaders,
        modernParams,
        reconnect,
        // Server requests outside a call have no caller to relay to: ping is answered, the rest -32601.
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
