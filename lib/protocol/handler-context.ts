// The handler context: request facts, plus progress, logging and server→client requests over the caller's stream.

import { isObject, type JsonRpcId, type JsonRpcNotification, type JsonRpcRequest, type JsonRpcResponse } from '../jsonrpc/types';
import { LOG_LEVELS, type AuthInfo, type ClientRequestOptions, type LogLevel, type RequestContext } from '../registry/request-context';
import { isAtLeast, type ProtocolVersion } from '../versions';
import type { Abortable, AbortSource } from './abort';

/** What the server knows of its client: negotiated by `initialize`, changed by `logging/setLevel` and subscriptions. */
export interface PeerState {
  protocolVersion: ProtocolVersion;
  clientCapabilities: Readonly<Record<string, unknown>>;
  clientInfo: Readonly<Record<string, unknown>> | undefined;
  logLevel: string | undefined;
  subscriptions: readonly string[];
}

/** How messages reach the client while a request runs, and how its answers come back: provided by the transport. */
export interface ClientChannel {
  /** Whether anything can reach the client during this request (its reply can be an SSE stream). */
  readonly canStream: boolean;
  /** Sends a notification or a request on the stream of the request being served. */
  send(message: JsonRpcNotification | JsonRpcRequest): Promise<void>;
  /** A fresh id for a server→client request, never reused in the session (MCP: J4). */
  nextRequestId(): JsonRpcId;
  /** Starts waiting for the client's answer to the server→client request `id`; `stop()` gives up waiting. */
  awaitAnswer(id: JsonRpcId): Promise<{ readonly answer: Promise<JsonRpcResponse>; stop(): void }>;
  /** Hands a response the client POSTed to whoever waits for it. */
  deliver(response: JsonRpcResponse): Promise<void>;
  /** Ends the connection of this request's stream, keeping the stream resumable. */
  closeStream(): void;
}

/** A channel for requests that cannot stream (JSON replies, stateless mode): nothing reaches the client mid-request. */
export const NO_STREAM: ClientChannel = Object.freeze({
  canStream: false,
  send: async () => undefined,
  nextRequestId: () => 0,
  awaitAnswer: async () => ({ answer: new Promise<JsonRpcResponse>(() => undefined), stop: () => undefined }),
  deliver: async () => undefined,
  closeStream: () => undefined,
});

/** What the transport knows about the HTTP request a message arrived in. */
export interface DispatchEnvironment {
  /** The revision in force: the session's, or from `MCP-Protocol-Version`, or the assumed default. */
  readonly protocolVersion: ProtocolVersion;
  /** Whether JSON-RPC batches are allowed (2025-03-26 and older, or a client that named no revision). */
  readonly batchesAllowed: boolean;
  /** Aborted when nothing can deliver the result any more (the caller hung up and cannot resume). */
  readonly signal: AbortSource;
  readonly sessionId: string | undefined;
  readonly auth: AuthInfo | undefined;
  /** The client, as far as known; methods such as `initialize` and `logging/setLevel` change it. */
  readonly peer: PeerState;
  readonly channel: ClientChannel;
  /** The session's requests in flight, for `notifications/cancelled`; undefined without sessions. */
  readonly inflight: Map<string, Abortable> | undefined;
  /** The HTTP request's headers. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** The key of a request id in maps: 1 and "1" are different requests. */
export function requestKey(id: JsonRpcId): string {
  return typeof id === 'number' ? `n${id}` : `s${id}`;
}

const CAPABILITY_OF: Readonly<Record<string, string>> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

/** The handler context of one request. A class, so a request costs one object rather than a set of closures. */
export class HandlerContext implements RequestContext {
  readonly requestId: JsonRpcId;
  readonly protocolVersion: ProtocolVersion;
  readonly sessionId: string | undefined;
  readonly auth: AuthInfo | undefined;
  readonly meta: Readonly<Record<string, unknown>> | undefined;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Set once the response is on its way: later progress is dropped (MCP progress: none after the response). */
  finished = false;
  private lastProgress = Number.NEGATIVE_INFINITY;

  /**
   * @param env - the transport's environment of this request
   * @param abort - whose `signal` aborts on cancellation or when the caller is gone (a {@link LazyAbort}
   *   makes it only if the handler reads `ctx.signal`)
   * @param clientRequestTimeoutMs - default time limit of `sample`, `elicit` and `listRoots`
   */
  constructor(
    request: JsonRpcRequest,
    private readonly env: DispatchEnvironment,
    private readonly abort: { readonly signal: AbortSignal },
    private readonly clientRequestTimeoutMs: number,
  ) {
    this.requestId = request.id;
    this.protocolVersion = env.protocolVersion;
    this.sessionId = env.sessionId;
    this.auth = env.auth;
    this.headers = env.headers;
    const meta = request.params?._meta;
    this.meta = isObject(meta) ? meta : undefined;
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  async progress(progress: number, total?: number, message?: string): Promise<void> {
    const token = this.meta?.progressToken;
    // MCP progress: only for a request that carried a token, strictly increasing, never after the response.
    if ((typeof token !== 'string' && typeof token !== 'number') || this.finished || !(progress > this.lastProgress)) return;
    this.lastProgress = progress;
    const params: Record<string, unknown> = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined && isAtLeast(this.protocolVersion, '2025-03-26')) params.message = message;
    await this.env.channel.send({ jsonrpc: '2.0', method: 'notifications/progress', params });
  }

  async log(level: LogLevel, data: unknown, logger?: string): Promise<void> {
    const threshold = this.env.peer.logLevel;
    const severity = LOG_LEVELS.indexOf(level);
    if (severity < 0) throw new TypeError(`ctx.log: unknown level '${String(level)}'; use one of ${LOG_LEVELS.join(', ')}`);
    // MCP logging: after logging/setLevel, only messages at that level or more severe are sent.
    if (threshold !== undefined && severity < LOG_LEVELS.indexOf(threshold as LogLevel)) return;
    const params: Record<string, unknown> = { level, data };
    if (logger !== undefined) params.logger = logger;
    await this.env.channel.send({ jsonrpc: '2.0', method: 'notifications/message', params });
  }

  sample(params: { messages: unknown[]; maxTokens: number; [key: string]: unknown }, options?: ClientRequestOptions): Promise<Record<string, unknown>> {
    // MCP 2025-11-25 sampling: tool use only when the client declared sampling.tools.
    if ((params.tools !== undefined || params.toolChoice !== undefined) && !isObject(this.capability('sampling')?.tools)) {
      return Promise.reject(new Error('ctx.sample: the client did not declare sampling.tools, so tools and toolChoice cannot be sent'));
    }
    return this.request('sampling/createMessage', params, options);
  }

  elicit(params: { message: string; [key: string]: unknown }, options?: ClientRequestOptions): Promise<Record<string, unknown>> {
    const declared = this.capability('elicitation');
    const mode = params.mode ?? 'form';
    // MCP 2025-11-25 elicitation: `elicitation: {}` means form mode only; URL mode must be declared.
    const modeDeclared = declared === undefined || Object.keys(declared).length === 0 ? mode === 'form' : isObject(declared[String(mode)]);
    if (declared !== undefined && !modeDeclared) return Promise.reject(new Error(`ctx.elicit: the client did not declare elicitation mode '${String(mode)}'`));
    return this.request('elicitation/create', params, options);
  }

  listRoots(options?: ClientRequestOptions): Promise<Record<string, unknown>> {
    return this.request('roots/list', undefined, options);
  }

  closeStream(): void {
    this.env.channel.closeStream();
  }

  private capability(name: string): Record<string, unknown> | undefined {
    const value = this.env.peer.clientCapabilities[name];
    return isObject(value) ? value : undefined;
  }

  /** Sends a request to the client on this request's stream and waits for its answer, its time limit, or an abort. */
  private async request(method: string, params: Record<string, unknown> | undefined, options: ClientRequestOptions | undefined): Promise<Record<string, unknown>> {
    const capability = CAPABILITY_OF[method] as string;
    // MCP 2025-06-18 lifecycle: use only capabilities the client declared.
    if (this.capability(capability) === undefined) throw new Error(`ctx: the client did not declare the '${capability}' capability, so ${method} cannot be sent`);
    if (!this.env.channel.canStream) {
      throw new Error(`ctx: ${method} needs a streamed reply: the client must accept text/event-stream, the router must keep sessions, and responseMode must not be 'json'`);
    }
    if (this.signal.aborted) throw new Error(`ctx: ${method} not sent, the request was cancelled`);
    const id = this.env.channel.nextRequestId();
    const waiting = await this.env.channel.awaitAnswer(id);
    const timeoutMs = options?.timeoutMs ?? this.clientRequestTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    let givenUpWhy: string | undefined;
    const givenUp = new Promise<never>((_resolve, reject) => {
      const giveUp = (why: string): void => {
        givenUpWhy = why;
        reject(new Error(`ctx: ${why}`));
      };
      timer = setTimeout(() => giveUp(`the client did not answer ${method} within ${timeoutMs} ms`), timeoutMs);
      onAbort = () => giveUp(`${method} abandoned, the request was cancelled`);
      this.signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      await this.env.channel.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
      const response = await Promise.race([waiting.answer, givenUp]);
      if ('error' in response) throw new Error(`ctx: the client answered ${method} with error ${response.error.code}: ${response.error.message}`);
      return response.result;
    } catch (err) {
      // MCP lifecycle › Timeouts: on giving up, the server SHOULD send notifications/cancelled.
      if (givenUpWhy !== undefined) {
        await this.env.channel.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: givenUpWhy } }).catch(() => undefined);
      }
      throw err;
    } finally {
      clearTimeout(timer);
      if (onAbort) this.signal.removeEventListener('abort', onAbort);
      waiting.stop();
    }
  }
}
