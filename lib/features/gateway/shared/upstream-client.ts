// What the mount asks of an upstream's client, whichever transport carries it (Streamable HTTP, stdio): requests, notifications, the notification stream.

import type { AbortSource } from '../../../core/protocol/abort';
import type { RequestContext } from '../../../core/registry/request-context';
import type { Era } from '../../../core/versions';

/** A JSON-RPC message read from an upstream: a request, a notification or a response. */
export type UpstreamMessage = Record<string, unknown>;

/** A root (MCP client features › Roots): a directory the upstream may work in. */
export interface UpstreamRoot {
  /** A `file://` URL (MCP 2025-11-25 roots › Root: the URI MUST be a `file://` URI in this revision). */
  uri: string;
  /** How the upstream may show it. */
  name?: string;
}

export interface UpstreamRequestOptions {
  /**
   * Aborts the request; a 2025 upstream is sent notifications/cancelled. An `AbortSignal`, or the call's own abort
   * (a {@link AbortSource}: listened to without making the call an `AbortSignal` it would not otherwise need).
   */
  readonly signal?: AbortSource;
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
  /** Keeps the upstream's notification stream open (2025 GET stream, 2026 subscriptions/listen, a child's stdout) until closed. */
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

/** Where each caller's requests go when every caller has a connection of its own (a stdio process per principal). */
export interface CallerPool {
  /** A client that sends each request over the caller's own connection. */
  clientFor(ctx: RequestContext): Pick<UpstreamClient, 'request'>;
  /** How many connections it holds now. */
  readonly size: number;
}

/** How a mount reaches its upstream: the client of the gateway's own requests, and per caller a pool or none. */
export interface UpstreamTransport {
  /** What the gateway's own requests (handshake, lists, notifications) and shared calls go through. */
  readonly client: UpstreamClient;
  /** With `processes: 'per-principal'`: where a caller's requests go. */
  readonly pool: CallerPool | undefined;
  /** Ends the client and every connection of the pool. */
  close(): Promise<void>;
}

/** Where a listener stands: its stream is open, it waits to reopen one, or the upstream offers none (it stopped). */
export type UpstreamListenState = 'open' | 'retrying' | 'unsupported';

export interface UpstreamListenOptions {
  /**
   * Receives each server notification of the stream (`notifications/tools/list_changed`, `…/resources/updated`,
   * and on 2026 the `notifications/subscriptions/acknowledged` that opens it). It must not throw; what it throws is ignored.
   */
  onNotification(message: UpstreamMessage): void;
  /** Told each change of state. */
  onState?(state: UpstreamListenState): void;
  /** The resources whose `notifications/resources/updated` the gateway wants. Defaults to none. */
  readonly resourceSubscriptions?: readonly string[];
  /** The reopening delays of an HTTP stream, doubled per failure with jitter. Defaults to `{ initialMs: 250, maxMs: 30000 }`. */
  readonly backoff?: { readonly initialMs?: number; readonly maxMs?: number };
}

export interface UpstreamListener {
  /** Replaces the resource subscriptions: a 2026 listen stream is reopened with them; a 2025 session is sent resources/(un)subscribe. */
  update(resourceSubscriptions: readonly string[]): void;
  /** Ends the stream and every retry; nothing of the listener is left running. */
  close(): void;
}
