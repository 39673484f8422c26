// McpObserver: what the router's layers tell whoever watches them (messages served, sessions ended, calls made for a request), and the observer that watches nothing.

import type { JsonRpcResponse } from '../jsonrpc/types';
import type { MessageSetting, ObservedMessage } from './observed-message';

/** One message being served, observed from its start to its response. */
export interface ObservedOperation {
  /** Runs `fn` inside the operation, so what the handler observes nests under it. */
  run<T>(fn: () => T): T;
  /** Ends the operation from the response (null: cancelled, no response sent); later calls do nothing. */
  end(response: JsonRpcResponse | null): void;
  /** Ends the operation for a value thrown while serving. */
  fail(err: unknown): void;
}

/** A call made for the current operation (an upstream, a facilitator, an in-process route), as its owner sees it. */
export interface ChildSpan {
  /** Writes the call's trace context into a `_meta` object or a header map (SEP-414: trace context in `params._meta`). */
  inject(meta: Record<string, unknown>): void;
  setAttribute(key: string, value: string | number): void;
  /** Marks the call failed with an `error.type` (the same rule as the operations served). */
  fail(errorType: string): void;
}

/**
 * The router's observer: the dispatcher, the listen streams and the sessions report to it, and the features wrap the
 * calls they make for a request in its child spans. The names it records are those of `semconv.ts`. The telemetry
 * feature implements it over OpenTelemetry; {@link NO_OBSERVER} records nothing.
 */
export interface McpObserver {
  /** Whether anything would be recorded now: callers skip the other methods' work when not. */
  live(): boolean;
  /** Serves one request or notification through `run`, observed from its start to its response. */
  serve(
    message: ObservedMessage,
    setting: MessageSetting,
    run: () => Promise<JsonRpcResponse | null>,
  ): Promise<JsonRpcResponse | null>;
  /** Starts observing a message served outside `serve` (a subscriptions/listen stream); its owner ends it. */
  begin(message: ObservedMessage, setting: MessageSetting): ObservedOperation;
  /**
   * Records a 2025 session's lifetime.
   *
   * @param reason - why it ended: `evicted` (the server gave up on it) counts as an error; deleted, expired, closed not
   */
  sessionEnded(durationMs: number, protocolVersion: string | undefined, reason: string): void;
  /**
   * Runs `run` as a child of the current operation: `client` for a call this server makes for a request (an upstream
   * MCP server, a payment facilitator), `internal` for an in-process one (a bridged route). A thrown value fails it.
   */
  childSpan<T>(
    kind: 'client' | 'internal',
    name: string,
    attributes: Readonly<Record<string, string | number>>,
    run: (span: ChildSpan) => Promise<T>,
  ): Promise<T>;
}

/** The child span of a call nothing records. */
export const NO_SPAN: ChildSpan = Object.freeze({
  inject: () => undefined,
  setAttribute: () => undefined,
  fail: () => undefined,
});

const NO_OPERATION: ObservedOperation = Object.freeze({
  run: <T>(fn: () => T): T => fn(),
  end: () => undefined,
  fail: () => undefined,
});

/**
 * The observer that records nothing: what a component made apart from a router observes with by default.
 *
 * @example
 * ```ts
 * const facilitator = x402Facilitator({ url }, NO_OBSERVER);
 * ```
 */
export const NO_OBSERVER: McpObserver = Object.freeze({
  live: () => false,
  serve: (_message: ObservedMessage, _setting: MessageSetting, run: () => Promise<JsonRpcResponse | null>) => run(),
  begin: () => NO_OPERATION,
  sessionEnded: () => undefined,
  childSpan: <T>(
    _kind: 'client' | 'internal',
    _name: string,
    _attributes: Readonly<Record<string, string | number>>,
    run: (span: ChildSpan) => Promise<T>,
  ): Promise<T> => run(NO_SPAN),
});
