// PostReply: the reply to one POST — plain JSON, or an SSE stream opened when something must reach the client first.

import type { ServerResponse } from 'node:http';
import type { JsonRpcId, JsonRpcMessage, JsonRpcResponse } from '../../core/jsonrpc/types';
import type { McpLogger } from '../../core/logger';
import type { Abortable } from '../../core/protocol/abort';
import {
  StreamedClientRequests,
  type ClientChannel,
  type ClientRequestMethod,
  type ClientRequests,
} from '../../core/protocol/client-requests';
import type { DispatchOutcome } from '../../core/protocol/dispatcher';
import type { ResponseMode } from '../http/accept';
import { OutboundStream } from '../streams/outbound-stream';
import { ErrorCode } from '../../core/jsonrpc/errors';
import { sendHttpError } from '../http/http-error';
import { sendAccepted, sendJson, sendJsonText, serializeResponses } from '../http/reply';
import type { SessionChannel } from '../sessions/session-channel';
import { SseConnection, type SseOptions } from '../http/sse';

/** Settings shared by every reply of a router. */
export interface ReplySettings {
  readonly sse: SseOptions;
  readonly logger: McpLogger;
}

/**
 * Replies to one POST and is the {@link ClientChannel} of the requests in it: messages they emit open an
 * SSE stream (unless the reply must be JSON), and the response goes last on it (MCP transports: POST). It is
 * also their {@link ClientRequests}: the session era's strategy, made only when a handler asks the client something. What
 * belongs to the session (stream caps, request ids, answers routed back) is its {@link SessionChannel}'s.
 */
export class PostReply implements ClientChannel, ClientRequests {
  private stream: OutboundStream | undefined;
  private finished = false;
  private asks: StreamedClientRequests | undefined;

  /**
   * @param mode - the negotiated reply: `json`, `sse`, or `auto` (JSON until something must be streamed)
   * @param headers - extra headers of the reply (`Mcp-Session-Id` after initialize)
   * @param abort - aborted when the caller hangs up and nothing can resume the reply; undefined for a POST that holds
   *   no request (notifications and responses run no handler that could hear of it)
   * @param requestIdsOf - the requests of the POST, which its stream answers: asked only when a session's stream opens
   */
  constructor(
    private readonly res: ServerResponse,
    private mode: ResponseMode,
    private readonly session: SessionChannel | undefined,
    private readonly settings: ReplySettings,
    private readonly headers: Record<string, string>,
    abort: Abortable | undefined,
    private readonly requestIdsOf: () => readonly JsonRpcId[] = () => [],
  ) {
    if (abort !== undefined)
      res.once('close', () => {
        // MCP transports: a disconnect is not a cancellation while the stream can be resumed.
        if (!this.finished && !(this.stream !== undefined && this.resumable))
          abort.abort(new Error('the client disconnected'));
      });
  }

  request(
    method: ClientRequestMethod,
    params: Record<string, unknown> | undefined,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    this.asks ??= new StreamedClientRequests(this);
    return this.asks.request(method, params, timeoutMs, signal);
  }

  /** Server→client requests need a stream to go out on and a session to route the answer back. */
  get canStream(): boolean {
    return this.mode !== 'json' && this.session !== undefined && this.mayOpenStream();
  }

  private get resumable(): boolean {
    return this.session?.resumable === true;
  }

  send(message: JsonRpcMessage): Promise<void> {
    // A JSON reply has no room for messages before the response: they are dropped.
    if (this.mode === 'json' || this.finished || !this.mayOpenStream()) return Promise.resolve();
    // Not an async function: every progress notification passes here, and each async layer costs a promise.
    return this.openStream().send(message);
  }

  nextRequestId(): JsonRpcId {
    return this.session ? this.session.nextRequestId() : 0;
  }

  async awaitAnswer(id: JsonRpcId): Promise<{ answer: Promise<JsonRpcResponse>; stop(): void }> {
    if (this.session === undefined)
      return { answer: new Promise<JsonRpcResponse>(() => undefined), stop: () => undefined };
    return this.session.awaitAnswer(id);
  }

  async deliver(response: JsonRpcResponse): Promise<void> {
    await this.session?.deliver(response);
  }

  closeStream(): void {
    // Only 2025-11-25 clients get a priming event to resume from; before it, a stream SHOULD NOT close early.
    if (this.session?.primes !== true || this.mode === 'json' || this.finished || !this.mayOpenStream()) return;
    // The stream opens first (if it had not), so the client holds an event id to resume from.
    void this.openStream().detach();
  }

  /**
   * Writes the outcome: on the stream if one is open (or SSE is forced), else as JSON or 202/400.
   *
   * @param status - of a JSON answer (a 2026 error's status: 404 for an unknown method, 400 for -32020…-32022)
   */
  async finish(outcome: DispatchOutcome, status = 200): Promise<void> {
    this.finished = true;
    // A stream opened only now carries a complete reply: its headers need not go out ahead of it.
    // An error with its own status (2026) goes as JSON: the status is the answer a client branches on.
    if (
      this.stream === undefined &&
      this.mode === 'sse' &&
      outcome.kind === 'answered' &&
      status === 200 &&
      this.mayOpenStream()
    )
      this.openStream(true);
    const stream = this.stream;
    if (stream !== undefined) {
      if (outcome.kind === 'answered') {
        for (const response of Array.isArray(outcome.body) ? outcome.body : [outcome.body]) await stream.send(response);
      }
      await stream.end();
      this.session?.closeStream(stream);
      return;
    }
    if (this.res.writableEnded || this.res.destroyed) return;
    if (outcome.kind === 'unanswered') this.finishUnanswered();
    else if (outcome.kind === 'accepted') sendAccepted(this.res);
    else if (outcome.kind === 'rejected') sendJson(this.res, 400, outcome.error, this.headers);
    else sendJsonText(this.res, status, serializeResponses(outcome.body, this.settings.logger), this.headers);
  }

  /**
   * A POST of requests must get JSON or a stream, never 202 (MCP transports), even when no response may be
   * sent: its session ended → 404; cancelled → a stream that ends without a result, or 204 for a JSON-only reply.
   */
  private finishUnanswered(): void {
    const session = this.session;
    if (session !== undefined && !session.open) {
      sendHttpError(
        this.res,
        404,
        ErrorCode.ServerError,
        'Session not found: it ended while the request ran; initialize a new session',
      );
    } else if (this.mode !== 'json') {
      this.openStream();
      void this.stream?.end();
      if (this.stream) session?.closeStream(this.stream);
    } else {
      this.res.writeHead(204);
      this.res.end();
    }
  }

  /**
   * Whether this reply may become (or already is) a stream: a session holds at most `maxStreams` open at once.
   * Past the cap the reply stays JSON; the first refusal is logged.
   */
  private mayOpenStream(): boolean {
    if (this.stream !== undefined || this.session === undefined) return true;
    if (this.session.admitsStream(this.mode !== 'json')) return true;
    this.mode = 'json';
    return false;
  }

  /** @param complete - the reply is complete already (see {@link SseConnection}) */
  private openStream(complete = false): OutboundStream {
    if (this.stream !== undefined) return this.stream;
    const session = this.session;
    const stream = session
      ? session.openStream(this.requestIdsOf())
      : new OutboundStream(undefined, this.settings.logger);
    const touch = session ? () => session.touch() : undefined;
    stream.attach(new SseConnection(this.res, this.settings.sse, this.headers, touch, complete));
    // MCP 2025-11-25: a priming event (id, empty data) first, so the client can resume even before any message.
    if (session?.primes === true) void stream.prime(this.settings.sse.retryMs);
    this.stream = stream;
    return stream;
  }
}
