// RequestContext: what every tool, resource, prompt and completion handler receives besides its arguments.

import type { JsonRpcId } from '../jsonrpc/types';
import type { Era, Revision } from '../versions';

/** An RFC 5424 severity, as MCP logging names it (`ctx.log`, `logging/setLevel`, a 2026 request's `logLevel`). */
export type LogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

/** Every {@link LogLevel}, least severe first: the order a level threshold compares in. */
export const LOG_LEVELS = Object.freeze([
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] as const satisfies readonly LogLevel[]);

// The list names every level (the union is written out for the reader and the API reference; this keeps both one).
true satisfies LogLevel extends (typeof LOG_LEVELS)[number] ? true : never;

/** Options of a request the server sends to the client (`ctx.sample`, `ctx.elicit`, `ctx.listRoots`). */
export interface ClientRequestOptions {
  /** Give up (and send `notifications/cancelled`) after this long. Defaults to the router's `clientRequestTimeoutMs`. */
  timeoutMs?: number;
  /**
   * The ask's key in an MCP 2026-07-28 `input_required` result, and so in the retry's `inputResponses`. Defaults to
   * one derived from call order: `elicitation-1`, `sampling-1`, `roots-1`, then `-2`… A 2025 session ignores it.
   */
  key?: string;
}

/** Who is calling, as established by authentication. */
export interface AuthInfo {
  /** The principal (user or client) the token belongs to. */
  readonly subject: string;
  /** The scopes the token grants. */
  readonly scopes: readonly string[];
  /** When the token expires, in seconds since the epoch. */
  readonly expiresAt?: number;
  /** Any other claims the verifier chose to pass on. */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/**
 * Passed as the last argument to every handler. One is made per request and it is only valid while
 * that request runs.
 */
export interface RequestContext {
  /** The JSON-RPC id of the request being served. */
  readonly requestId: JsonRpcId;
  /**
   * The protocol era of the request: `'2025'` (initialize and sessions) or `'2026'` (stateless requests); the same
   * handler serves both.
   */
  readonly era: Era;
  /** The protocol revision in force for this request: negotiated (2025), or named by the request's `_meta` (2026). */
  readonly protocolVersion: Revision;
  /**
   * Aborted when the request is cancelled or the caller goes away, and (2026) once the call is answered with
   * `input_required` while the handler still awaits an ask (the retry runs it again): pass it on to `fetch`,
   * databases, timers.
   */
  readonly signal: AbortSignal;
  /** The MCP session, when the router keeps sessions. */
  readonly sessionId: string | undefined;
  /** The authenticated caller, when the router (or the host app) authenticates requests. */
  readonly auth: AuthInfo | undefined;
  /** The request's `_meta` object (e.g. `progressToken`), as sent. */
  readonly meta: Readonly<Record<string, unknown>> | undefined;
  /** The HTTP headers of the MCP request (lower-case names), e.g. to forward `authorization` to an API. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The HTTP client's address: Express's `req.ip` (so `trust proxy` applies), else the socket's. */
  readonly clientAddress?: string;
  /**
   * Reports progress (`notifications/progress`) when the caller asked for it with `_meta.progressToken`;
   * otherwise does nothing. Values that do not increase, and calls after the result, are dropped (MCP progress).
   */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** Sends a log message (`notifications/message`) unless it is below the level the client set with `logging/setLevel`. */
  log(level: LogLevel, data: unknown, logger?: string): Promise<void>;
  /**
   * Asks the client's model for a completion (`sampling/createMessage`) and resolves with its result.
   *
   * @throws Error when the client did not declare `sampling`, the reply cannot be streamed, or it times out
   */
  sample(
    params: { messages: unknown[]; maxTokens: number; [key: string]: unknown },
    options?: ClientRequestOptions,
  ): Promise<Record<string, unknown>>;
  /**
   * Asks the user for input (`elicitation/create`) and resolves with `{ action, content? }`.
   *
   * @throws Error when the client did not declare `elicitation` (or its `url` mode for `mode: 'url'`), or it times out
   */
  elicit(
    params: { message: string; [key: string]: unknown },
    options?: ClientRequestOptions,
  ): Promise<Record<string, unknown>>;
  /** Asks the client for its roots (`roots/list`). @throws Error when the client did not declare `roots` */
  listRoots(options?: ClientRequestOptions): Promise<Record<string, unknown>>;
  /**
   * For a tool registered with `taskStart: 'handler'`: turns the call into a task from here on, when the caller asked
   * for one (2025: a `task` param; 2026: the tasks extension declared). The caller gets the task handle at once;
   * the handler runs on as the task, and what it returns becomes the task's result. Asks made before (`ctx.elicit`…)
   * went through the call itself (2026: `input_required` retries). Resolves true when the call became a task, false
   * when it goes on as a plain call (no task asked for, or the tool does not start tasks from its handler).
   */
  continueAsTask(): Promise<boolean>;
  /**
   * Ends the HTTP connection of this request's SSE stream without ending the stream (MCP 2025-11-25 polling):
   * what follows is kept, and the client resumes with GET + `Last-Event-ID`. Does nothing without sessions.
   */
  closeStream(): void;
}
