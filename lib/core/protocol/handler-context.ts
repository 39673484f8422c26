// The handler context and what it runs in: request facts, the client state, progress, logging, and asks of the client.

import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import { isObject, type JsonRpcId, type JsonRpcRequest } from '../jsonrpc/types';
import {
  LOG_LEVELS,
  type AuthInfo,
  type ClientRequestOptions,
  type LogLevel,
  type RequestContext,
} from '../registry/request-context';
import { eraPolicy } from '../era-policy';
import { isAtLeast, type Era, type Revision } from '../versions';
import { LazyAbort, type Abortable, type AbortSource } from './abort';
import { CallLine } from './call-line';
import {
  CLIENT_REQUEST_CAPABILITY,
  type ClientChannel,
  type ClientRequestMethod,
  type ClientRequests,
} from './client-requests';

/**
 * What the server knows of its client: in 2025 negotiated by `initialize` and kept by the session; changed only by
 * the methods that return a {@link ClientUpdate} (initialize, logging/setLevel, resources/(un)subscribe), which the
 * transport then keeps. Where it comes from is the transport's business (the session; a 2026 request's `_meta`).
 */
export interface ClientState {
  readonly protocolVersion: Revision;
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
  readonly clientInfo: Readonly<Record<string, unknown>> | undefined;
  readonly logLevel: string | undefined;
  readonly subscriptions: readonly string[];
}

/** A method's result, and the changes it makes to the client state (for the transport to keep). */
export class ClientUpdate {
  constructor(
    readonly result: Record<string, unknown>,
    readonly changes: Partial<ClientState>,
  ) {}
}

/**
 * The client state the messages of one POST see. Each {@link ClientUpdate} replaces `client` (never changes it), so
 * a later message of a batch sees an earlier one's change, and the state the request came with stays as it was.
 */
export interface ClientView {
  client: ClientState;
}

/** What the transport knows about the HTTP request a message arrived in. */
export interface DispatchEnvironment {
  /** The era of the request, as the classifier found it. */
  readonly era: Era;
  /** Aborted when nothing can deliver the result any more (the caller hung up and cannot resume). */
  readonly signal: AbortSource;
  readonly sessionId: string | undefined;
  readonly auth: AuthInfo | undefined;
  /**
   * The client as the request comes with it: from its session, or a fresh one. Its `protocolVersion` is the
   * revision in force: the session's, or from `MCP-Protocol-Version`, or the assumed default.
   */
  readonly client: ClientState;
  /** Messages to the client while the request runs (progress, logs), and its answers to server→client requests. */
  readonly channel: ClientChannel;
  /** How `ctx.sample`, `ctx.elicit` and `ctx.listRoots` reach the client (the era's strategy). */
  readonly clientRequests: ClientRequests;
  /** The session's requests in flight, for `notifications/cancelled`; undefined without sessions. */
  readonly inflight: Map<string, Abortable> | undefined;
  /** Passes on a cancellation of a request not in flight here (another instance may run it); undefined for none. */
  readonly cancelElsewhere?: (key: string, reason: string) => void;
  /** The HTTP request's headers. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /**
   * The HTTP client's address (Express's `req.ip`, else the socket's); undefined without HTTP. A function: Express
   * works `req.ip` out anew on every read (trust proxy, X-Forwarded-For), and most requests never need it.
   */
  readonly clientAddress: () => string | undefined;
  /** The HTTP version of the request (`'1.1'`, `'2.0'`), for telemetry's `network.protocol.version`; undefined without HTTP. */
  readonly networkProtocolVersion?: string;
}

/** The key of a request id in maps: 1 and "1" are different requests. */
export function requestKey(id: JsonRpcId): string {
  return typeof id === 'number' ? `n${id}` : `s${id}`;
}

/** The handler context of one request. A class, so a request costs one object rather than a set of closures. */
export class HandlerContext implements RequestContext {
  readonly requestId: JsonRpcId;
  readonly era: Era;
  readonly protocolVersion: Revision;
  readonly sessionId: string | undefined;
  readonly auth: AuthInfo | undefined;
  readonly meta: Readonly<Record<string, unknown>> | undefined;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /**
   * Where this call's signal, notifications, asks and progress go: the request's route, or the task's once the call
   * became one (the call pipeline's task hook moves it). The pipeline's, not the handler's.
   */
  readonly line: CallLine;
  /** Set once the response is on its way: later progress is dropped (MCP progress: none after the response). */
  finished = false;
  private lastProgress = Number.NEGATIVE_INFINITY;
  /** Set by {@link holdAgainstCancellation}: the call has done what cannot be undone. */
  private held = false;

  /**
   * @param env - the transport's environment of this request
   * @param view - the client state as this request sees it (a batch's earlier messages may have changed it)
   * @param abort - whose `signal` aborts on cancellation or when the caller is gone (a {@link LazyAbort}
   *   makes it only if the handler reads `ctx.signal`)
   * @param clientRequestTimeoutMs - default time limit of `sample`, `elicit` and `listRoots`
   * @param clientRequests - how this request asks the client: the environment's, or a 2026 call's input_required round
   */
  constructor(
    origin: JsonRpcRequest,
    private readonly env: DispatchEnvironment,
    private readonly view: ClientView,
    abort: { readonly signal: AbortSignal },
    private readonly clientRequestTimeoutMs: number,
    clientRequests: ClientRequests = env.clientRequests,
  ) {
    this.line = new CallLine({
      abort,
      channel: env.channel,
      clientRequests,
      askEndsCall: clientRequests !== env.clientRequests,
    });
    this.requestId = origin.id;
    this.era = env.era;
    this.protocolVersion = env.client.protocolVersion;
    this.sessionId = env.sessionId;
    this.auth = env.auth;
    this.headers = env.headers;
    const meta = origin.params?._meta;
    this.meta = isObject(meta) ? meta : undefined;
  }

  get clientAddress(): string | undefined {
    return this.env.clientAddress();
  }

  get signal(): AbortSignal {
    return this.line.route.abort.signal;
  }

  async progress(progress: number, total?: number, message?: string): Promise<void> {
    // A task's progress goes to its status (SEP-2663: statusMessage; no progress notifications on tasks).
    const toTask = this.line.route.progress;
    if (toTask !== undefined) return toTask(progress, total, message);
    const token = this.meta?.progressToken;
    // MCP progress: only for a request that carried a token, strictly increasing, never after the response.
    if ((typeof token !== 'string' && typeof token !== 'number') || this.finished || !(progress > this.lastProgress))
      return;
    this.lastProgress = progress;
    const params: Record<string, unknown> = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined && isAtLeast(this.protocolVersion, '2025-03-26')) params.message = message;
    await this.line.route.channel.send({ jsonrpc: '2.0', method: 'notifications/progress', params });
  }

  async log(level: LogLevel, data: unknown, logger?: string): Promise<void> {
    const threshold = this.view.client.logLevel;
    const severity = LOG_LEVELS.indexOf(level);
    if (severity < 0)
      throw new TypeError(`ctx.log: unknown level '${String(level)}'; use one of ${LOG_LEVELS.join(', ')}`);
    // MCP 2026-07-28 (M4): log messages only when the request's _meta set io.modelcontextprotocol/logLevel.
    if (threshold === undefined && eraPolicy(this.era).logsOnlyWhenAsked) return;
    // MCP logging: after logging/setLevel, only messages at that level or more severe are sent.
    if (threshold !== undefined && severity < LOG_LEVELS.indexOf(threshold as LogLevel)) return;
    const params: Record<string, unknown> = { level, data };
    if (logger !== undefined) params.logger = logger;
    await this.line.route.channel.send({ jsonrpc: '2.0', method: 'notifications/message', params });
  }

  sample(
    params: { messages: unknown[]; maxTokens: number; [key: string]: unknown },
    options?: ClientRequestOptions,
  ): Promise<Record<string, unknown>> {
    // MCP 2025-11-25 sampling: tool use only when the client declared sampling.tools.
    if (
      (params.tools !== undefined || params.toolChoice !== undefined) &&
      !isObject(this.capability('sampling')?.tools)
    ) {
      return Promise.reject(
        this.undeclared(
          { sampling: { tools: {} } },
          'ctx.sample: the client did not declare sampling.tools, so tools and toolChoice cannot be sent',
        ),
      );
    }
    return this.request('sampling/createMessage', params, options);
  }

  elicit(
    params: { message: string; [key: string]: unknown },
    options?: ClientRequestOptions,
  ): Promise<Record<string, unknown>> {
    const declared = this.capability('elicitation');
    const mode = params.mode ?? 'form';
    // MCP 2025-11-25 elicitation: `elicitation: {}` means form mode only; URL mode must be declared.
    const modeDeclared =
      declared === undefined || Object.keys(declared).length === 0 ? mode === 'form' : isObject(declared[String(mode)]);
    if (declared !== undefined && !modeDeclared)
      return Promise.reject(
        this.undeclared(
          { elicitation: { [String(mode)]: {} } },
          `ctx.elicit: the client did not declare elicitation mode '${String(mode)}'`,
        ),
      );
    return this.request('elicitation/create', params, options);
  }

  listRoots(options?: ClientRequestOptions): Promise<Record<string, unknown>> {
    return this.request('roots/list', undefined, options);
  }

  closeStream(): void {
    this.line.route.channel.closeStream();
  }

  /** See {@link holdAgainstCancellation}. */
  hold(): void {
    this.held = true;
    const { abort } = this.line.route;
    if (abort instanceof LazyAbort) abort.hold();
  }

  /** Fires the call pipeline's task hook, when the call has one (see {@link CallLine}). */
  continueAsTask(): Promise<boolean> {
    return this.line.continueAsTask();
  }

  /**
   * What an ask of an undeclared capability throws: in 2025 an Error (a tool ends with `isError`); in 2026 the
   * protocol error the spec names (MCP 2026-07-28 M3: -32021 with `data.requiredCapabilities`, HTTP 400).
   */
  private undeclared(requiredCapabilities: Record<string, unknown>, message: string): Error {
    return eraPolicy(this.era).undeclaredAskIsProtocolError
      ? new JsonRpcError(ErrorCode.MissingRequiredClientCapability, message, { requiredCapabilities })
      : new Error(message);
  }

  private capability(name: string): Record<string, unknown> | undefined {
    const value = this.view.client.clientCapabilities[name];
    return isObject(value) ? value : undefined;
  }

  /** Asks the client through the era's strategy, once it declared the capability the request needs. */
  private async request(
    method: ClientRequestMethod,
    params: Record<string, unknown> | undefined,
    options: ClientRequestOptions | undefined,
  ): Promise<Record<string, unknown>> {
    const route = this.line.route;
    // A 2026 call asks through an input_required round, whose retry runs it again.
    if (this.held && route.askEndsCall)
      throw new Error(`ctx: ${method} cannot be sent after the call's payment settled (a retry would run it again)`);
    const capability = CLIENT_REQUEST_CAPABILITY[method];
    // MCP 2025-06-18 lifecycle: use only capabilities the client declared.
    if (this.capability(capability) === undefined)
      throw this.undeclared(
        { [capability]: {} },
        `ctx: the client did not declare the '${capability}' capability, so ${method} cannot be sent`,
      );
    return route.clientRequests.request(
      method,
      params,
      options?.timeoutMs ?? this.clientRequestTimeoutMs,
      this.signal,
      options?.key,
    );
  }
}

/**
 * Once a call has done what cannot be undone (the x402 guard sends a settlement), it ignores cancellation and its result
 * goes out (MCP: a receiver MAY ignore a cancellation it cannot honour); a 2026 call's later asks fail rather than end
 * it with input_required. `tasks/cancel` is not held. Nothing for a context the router did not make.
 */
export function holdAgainstCancellation(ctx: RequestContext): void {
  if (ctx instanceof HandlerContext) ctx.hold();
}

/**
 * What aborts a call, to be listened to: the call's own abort where the router made the context (no `AbortSignal` is
 * made for it unless something reads `ctx.signal`), else `ctx.signal`. It is the route's of this moment, as a read of
 * `ctx.signal` would be.
 */
export function callAbortOf(ctx: RequestContext): AbortSource {
  if (ctx instanceof HandlerContext) {
    const { abort } = ctx.line.route;
    if (abort instanceof LazyAbort) return abort;
  }
  return ctx.signal;
}
