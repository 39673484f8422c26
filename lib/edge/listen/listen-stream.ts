// subscriptions/listen over HTTP (MCP 2026-07-28): the long-lived SSE reply, subscribed to the server event bus, bounded per caller, ended by the router's close.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode, JsonRpcError } from '../../core/jsonrpc/errors';
import { isObject, type JsonRpcFailure, type JsonRpcRequest } from '../../core/jsonrpc/types';
import type { ClassifiedPost } from '../../core/protocol/classify';
import type { McpObserver, ObservedOperation } from '../../core/observe/observer';
import { META_KEYS } from '../../core/protocol/era-2026/request-meta';
import {
  forListenStream,
  LISTEN_METHOD,
  listenAcknowledgment,
  listenCompletion,
  listenRefusal,
  readListenFilter,
  type ListenFilter,
} from './listen-protocol';
import { callerKey } from '../../core/registry/call-limit';
import type { AuthInfo } from '../../core/registry/request-context';
import type { OfferedFeatures } from '../../core/registry/registry';
import { parseAccept } from '../http/accept';
import { sendJson } from '../http/reply';
import { OWED_EVENT, SseConnection, type SseOptions } from '../http/sse';
import { notificationOf, type ServerEventBus } from '../store/server-events';

/** What the listen streams of one router need, resolved once by the router. */
export interface ListenSettings {
  /** Most listen streams one caller (principal, else client address) may hold open at once. */
  readonly maxStreamsPerPrincipal: number;
  /** Most listen streams open at once on the router, all callers together. */
  readonly maxStreams: number;
  /** Most URIs in one stream's `resourceSubscriptions` (the router's `sessions.maxSubscriptions`). */
  readonly maxUris: number;
  readonly sse: SseOptions;
  /** The router's observer: each listen request observed until its acknowledgment or refusal (a SERVER span). */
  readonly telemetry?: McpObserver | undefined;
}

/** A listen request let in, with what it listens to and whose stream it is; or refused, with its status and error. */
type Admission =
  | { readonly ok: true; readonly filter: ListenFilter; readonly key: string }
  | { readonly ok: false; readonly status: number; readonly body: JsonRpcFailure };

/** One open listen stream: how to end it gracefully. */
interface OpenStream {
  readonly connection: SseConnection;
  readonly id: JsonRpcRequest['id'];
}

/** The one method a listen stream's observer names (the span of the request that opened it). */
function isListenMethod(method: string): boolean {
  return method === LISTEN_METHOD;
}

/** True for a 2026 POST that opens a listen stream: a single `subscriptions/listen` request. */
export function isListenRequest(post: ClassifiedPost): post is ClassifiedPost & { readonly messages: JsonRpcRequest } {
  const message = post.messages;
  return post.kind === 'request' && !Array.isArray(message) && 'method' in message && message.method === LISTEN_METHOD;
}

/**
 * The listen streams of one router. Each stream subscribes to the router's server event bus, the one the 2025 GET
 * streams hear, so `mcp.tool(...)`, `remove()` and `mcp.notifyResourceUpdated(uri)` reach the open streams of both
 * eras; it unsubscribes when the client hangs up (MCP 2026-07-28: closing the stream cancels the subscription).
 *
 * @example
 * ```ts
 * const listen = new ListenStreams(serverEvents, () => registry.features, { maxStreamsPerPrincipal: 16, maxStreams: 10_000, maxUris: 32, sse });
 * if (isListenRequest(post)) listen.open(req, res, post.messages, auth, clientAddress);
 * await listen.close(); // each stream gets its completion result, then ends
 * ```
 */
export class ListenStreams {
  readonly #open = new Set<OpenStream>();
  /** Open streams per caller key; a key is removed with its last stream, so the map holds only callers with streams. */
  readonly #perCaller = new Map<string, number>();
  #closed = false;

  constructor(
    private readonly events: ServerEventBus,
    private readonly features: () => OfferedFeatures,
    private readonly settings: ListenSettings,
    /** Pending first loads (an upstream's first lists, bounded by its listTimeoutMs); undefined when none. */
    private readonly loaded: () => Promise<void> | undefined = () => undefined,
  ) {}

  /** How many listen streams are open. */
  get size(): number {
    return this.#open.size;
  }

  /**
   * Answers a listen request: refused with its JSON-RPC error and HTTP status, or a stream that stays open: the
   * acknowledgment first, then the requested notifications, until the client hangs up or the router closes.
   */
  open(
    req: IncomingMessage,
    res: ServerResponse,
    request: JsonRpcRequest,
    auth: AuthInfo | undefined,
    clientAddress: string | undefined,
  ): void {
    // The acknowledgment names the kinds offered: an upstream's first lists may still bring some.
    const loading = this.loaded();
    if (loading !== undefined) {
      void loading.then(() => this.open(req, res, request, auth, clientAddress));
      return;
    }
    const operation = this.#trace(request, clientAddress, req.httpVersion);
    const admission = this.#admit(req, request, callerKey(auth?.subject, undefined, clientAddress));
    if (!admission.ok) {
      operation?.end(admission.body);
      sendJson(res, admission.status, admission.body);
      return;
    }
    this.#attach(res, request.id, admission.filter, admission.key, operation);
  }

  /** Whether a listen request may open a stream (in the order clients are answered), and what it listens to. */
  #admit(req: IncomingMessage, request: JsonRpcRequest, key: string): Admission {
    const { id } = request;
    const refuse = (status: number, code: number, message: string): Admission => ({
      ok: false,
      status,
      body: listenRefusal(id, code, message),
    });
    // The stream is the whole answer: a client that cannot read SSE cannot listen (MCP 2026-07-28 transports).
    if (!parseAccept(req.headers.accept).sse)
      return refuse(
        406,
        ErrorCode.ServerError,
        'Not Acceptable: subscriptions/listen replies with a stream; accept text/event-stream',
      );
    if (this.#closed) return refuse(503, ErrorCode.ServerError, 'Service Unavailable: the server is shutting down');
    let filter: ListenFilter;
    try {
      filter = readListenFilter(request.params ?? {}, this.features(), this.settings.maxUris);
    } catch (err) {
      // MCP 2026-07-28 transports: an error of a request that was served goes in-band, on 200.
      const error = err instanceof JsonRpcError ? err : new JsonRpcError(ErrorCode.InternalError, 'Internal error');
      return refuse(200, error.code, error.message);
    }
    // Each stream holds a socket (a file descriptor) and a subscription: the router's bound comes before the caller's.
    // 503, not 429: the server is full, whoever asks (RFC 9110 §15.6.4).
    if (this.#open.size >= this.settings.maxStreams)
      return refuse(
        503,
        ErrorCode.ServerError,
        `Service Unavailable: ${this.#open.size} listen streams are open on this server (listen.maxStreams); try again later`,
      );
    const held = this.#perCaller.get(key) ?? 0;
    if (held >= this.settings.maxStreamsPerPrincipal)
      return refuse(
        429,
        ErrorCode.ServerError,
        `Too Many Requests: ${held} listen streams are already open for this caller (listen.maxStreamsPerPrincipal); close one first`,
      );
    return { ok: true, filter, key };
  }

  /** Opens an admitted stream: counted for its caller until it ends, acknowledged, then subscribed to the bus. */
  #attach(
    res: ServerResponse,
    id: JsonRpcRequest['id'],
    filter: ListenFilter,
    key: string,
    operation: ObservedOperation | undefined,
  ): void {
    this.#perCaller.set(key, (this.#perCaller.get(key) ?? 0) + 1);
    const uris = new Set(filter.resourceSubscriptions);
    let unsubscribe: (() => void) | undefined;
    let stream: OpenStream | undefined;
    const connection = new SseConnection(res, this.settings.sse, {});
    connection.whenClosed(() => {
      // Once, however the stream ends: the client hung up, or the router closed it.
      unsubscribe?.();
      if (stream !== undefined) this.#open.delete(stream);
      const left = (this.#perCaller.get(key) ?? 1) - 1;
      if (left > 0) this.#perCaller.set(key, left);
      else this.#perCaller.delete(key);
    });
    // The client may be gone already: the connection started closed and has released its place.
    if (!connection.open) {
      operation?.end(null);
      return;
    }
    stream = { id, connection };
    this.#open.add(stream);
    // The acknowledgment is written before the stream hears any event (MUST be the first message).
    connection.event(undefined, JSON.stringify(listenAcknowledgment(id, filter)));
    // The span is the request's, not the stream's: it ends once the stream is acknowledged, so hours of listening
    // do not count as one operation's duration (mcp.server.operation.duration).
    operation?.end({ jsonrpc: '2.0', id, result: {} });
    unsubscribe = this.events.subscribe((event) => {
      const message = forListenStream(id, filter, uris, notificationOf(event));
      if (message !== undefined) connection.event(undefined, JSON.stringify(message));
    });
  }

  /** The observed operation (SERVER span) of a listen request, when the observer records. */
  #trace(
    request: JsonRpcRequest,
    clientAddress: string | undefined,
    httpVersion: string,
  ): ObservedOperation | undefined {
    const { telemetry } = this.settings;
    if (telemetry === undefined || !telemetry.live()) return undefined;
    const meta = request.params?._meta;
    const version = isObject(meta) ? meta[META_KEYS.protocolVersion] : undefined;
    return telemetry.begin(request, {
      protocolVersion: typeof version === 'string' ? version : 'unknown',
      sessionId: undefined,
      clientAddress: () => clientAddress,
      networkProtocolVersion: httpVersion,
      knownMethod: isListenMethod,
    });
  }

  /**
   * Ends every listen stream gracefully (MCP 2026-07-28 subscriptions › Graceful Closure): its completion result,
   * then the end of the stream. Later listen requests are refused with 503.
   */
  close(): void {
    this.#closed = true;
    for (const { connection, id } of [...this.#open]) {
      connection.event(undefined, JSON.stringify(listenCompletion(id)), OWED_EVENT);
      connection.end();
    }
  }
}
