// PostReply: the reply to one POST — plain JSON, or an SSE stream opened when something must reach the client first.

import type { ServerResponse } from 'node:http';
import type { JsonRpcId, JsonRpcMessage, JsonRpcResponse } from '../jsonrpc/types';
import type { McpLogger } from '../logger';
import type { Abortable } from '../protocol/abort';
import {
  StreamedClientRequests,
  type ClientChannel,
  type ClientRequestMethod,
  type ClientRequests,
} from '../protocol/client-requests';
import { requestKey } from '../protocol/handler-context';
import type { DispatchOutcome } from '../protocol/dispatcher';
import { isAtLeast, type ProtocolVersion } from '../versions';
import type { ResponseMode } from '../http/accept';
import { OutboundStream } from '../sessions/outbound-stream';
import { ErrorCode } from '../jsonrpc/errors';
import { sendHttpError } from '../http/http-error';
import { sendAccepted, sendJson, sendJsonText, serializeResponses } from '../http/reply';
import type { LiveSession, SessionManager } from '../sessions/sessions';
import { SseConnection, type SseOptions } from '../http/sse';

/** The session a POST belongs to, if the router keeps sessions. */
export interface ReplySession {
  readonly manager: SessionManager;
  readonly live: LiveSession;
  readonly protocolVersion: ProtocolVersion;
}

/** Settings shared by every reply of a router. */
export interface ReplySettings {
  readonly sse: SseOptions;
  readonly logger: McpLogger;
}

/** The bus topic on which the answer to a server→client request travels back. */
function answerTopic(sessionId: string, id: JsonRpcId): string {
  return `mcp:answer:${sessionId}:${requestKey(id)}`;
}

/**
 * Replies to one POST and is the {@link ClientChannel} of the requests in it: messages they emit open an
 * SSE stream (unless the reply must be JSON), and the response goes last on it (MCP transports: POST). It is
 * also their {@link ClientRequests}: today's strategy, made only when a handler asks the client something.
 */
export class PostReply implements ClientChannel, ClientRequests {
  private stream: OutboundStream | undefined;
  private finished = false;
  private asks: StreamedClientRequests | undefined;

  /**
   * @param mode - the negotiated reply: `json`, `sse`, or `auto` (JSON until something must be streamed)
   * @param headers - extra headers of the reply (`Mcp-Session-Id` after initialize)
   * @param abort - aborted when the caller hangs up and nothing can resume the reply
   * @param requestIdsOf - the requests of the POST, which its stream answers: asked only when a session's stream opens
   */
  constructor(
    private readonly res: ServerResponse,
    private mode: ResponseMode,
    private readonly session: ReplySession | undefined,
    private readonly settings: ReplySettings,
    private readonly headers: Record<string, string>,
    abort: Abortable,
    private readonly requestIdsOf: () => readonly JsonRpcId[] = () => [],
  ) {
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
    return this.session?.manager.settings.events !== undefined;
  }

  send(message: JsonRpcMessage): Promise<void> {
    // A JSON reply has no room for messages before the response: they are dropped.
    if (this.mode === 'json' || this.finished || !this.mayOpenStream()) return Promise.resolve();
    // Not an async function: every progress notification passes here, and each async layer costs a promise.
    return this.openStream().send(message);
  }

  nextRequestId(): JsonRpcId {
    return this.session ? this.session.live.nextRequestId++ : 0;
  }

  async awaitAnswer(id: JsonRpcId): Promise<{ answer: Promise<JsonRpcResponse>; stop(): void }> {
    const session = this.session;
    if (session === undefined) return { answer: new Promise<JsonRpcResponse>(() => undefined), stop: () => undefined };
    const { live, manager } = session;
    if (live.pendingRequests >= manager.settings.maxPendingRequests) {
      throw new Error(
        `ctx: ${live.pendingRequests} requests to the client are already waiting in this session (sessions.maxPendingRequests)`,
      );
    }
    let resolve: (response: JsonRpcResponse) => void = () => undefined;
    const answer = new Promise<JsonRpcResponse>((done) => (resolve = done));
    const unsubscribe = await manager.settings.bus.subscribe(answerTopic(live.id, id), (message) =>
      resolve(message as JsonRpcResponse),
    );
    live.pendingRequests++;
    return {
      answer,
      stop: () => {
        live.pendingRequests--;
        void unsubscribe();
      },
    };
  }

  async deliver(response: JsonRpcResponse): Promise<void> {
    if (this.session === undefined || response.id === null) return;
    await this.session.manager.settings.bus.publish(answerTopic(this.session.live.id, response.id), response);
  }

  closeStream(): void {
    // Only 2025-11-25 clients get a priming event to resume from; before it, a stream SHOULD NOT close early.
    const primed = this.session !== undefined && isAtLeast(this.session.protocolVersion, '2025-11-25');
    if (!this.resumable || !primed || this.mode === 'json' || this.finished || !this.mayOpenStream()) return;
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
      this.session?.live.streams.delete(stream.id);
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
    if (session !== undefined && !session.manager.isOpen(session.live.id)) {
      sendHttpError(
        this.res,
        404,
        ErrorCode.ServerError,
        'Session not found: it ended while the request ran; initialize a new session',
      );
    } else if (this.mode !== 'json') {
      this.openStream();
      void this.stream?.end();
      if (this.stream) session?.live.streams.delete(this.stream.id);
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
    const { live, manager } = this.session;
    if (live.streams.size < manager.settings.maxStreams) return true;
    if (this.mode !== 'json')
      manager.settings.logger.warn(
        `mcpRouter: session ${live.id} has ${live.streams.size} open streams (sessions.maxStreams); replying with JSON`,
      );
    this.mode = 'json';
    return false;
  }

  /** @param complete - the reply is complete already (see {@link SseConnection}) */
  private openStream(complete = false): OutboundStream {
    if (this.stream !== undefined) return this.stream;
    const session = this.session;
    const stream = session
      ? session.manager.newStream(session.live.id, this.requestIdsOf())
      : new OutboundStream(undefined, this.settings.logger);
    const touch = session ? () => session.manager.touch(session.live.id) : undefined;
    stream.attach(new SseConnection(this.res, this.settings.sse, this.headers, touch, () => undefined, complete));
    if (session) {
      session.live.streams.set(stream.id, stream);
      // MCP 2025-11-25: a priming event (id, empty data) first, so the client can resume even before any message.
      if (this.resumable && isAtLeast(session.protocolVersion, '2025-11-25'))
        void stream.prime(this.settings.sse.retryMs);
    }
    this.stream = stream;
    return stream;
  }
}
