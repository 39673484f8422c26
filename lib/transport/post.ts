// POST: body, classification, session and Accept checks; dispatch (a 2025 session's request, or a stateless 2026 one); the client state kept; the reply.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../jsonrpc/errors';
import type { ParsedMessage } from '../jsonrpc/envelope';
import type { JsonRpcId, JsonRpcMessage } from '../jsonrpc/types';
import type { McpLogger } from '../logger';
import type { AuthInfo } from '../registry/request-context';
import { LazyAbort } from '../protocol/abort';
import type { ClassifiedPost } from '../protocol/classify';
import { NO_CLIENT_REQUESTS } from '../protocol/client-requests';
import type { ClientState, DispatchEnvironment } from '../protocol/handler-context';
import type { Dispatcher, DispatchOutcome } from '../protocol/dispatcher';
import {
  ASSUMED_PROTOCOL_VERSION,
  isSupportedVersion,
  MODERN_PROTOCOL_VERSIONS,
  SUPPORTED_PROTOCOL_VERSIONS,
  type ProtocolVersion,
  type Revision,
} from '../versions';
import { createReplyNegotiator, type ResponseMode } from '../http/accept';
import { readJsonBody } from '../http/body';
import { PROTOCOL_VERSION_HEADER, SESSION_ID_HEADER } from '../http/headers';
import { isMcpHeader, mayRepeat, repeatedHeader } from '../http/repeated-headers';
import { sendHttpError } from '../http/http-error';
import { sendJson } from '../http/reply';
import type { SseOptions } from '../http/sse';
import type { SessionManager } from '../sessions/sessions';
import type { SessionRecord } from '../sessions/stores';
import { isListenRequest, type ListenStreams } from './listen';
import { PostReply, type ReplySession } from './post-reply';
import { loadNamedSession, sendSessionRequired, type LoadedSession } from './session-lookup';

/** What the POST handler needs, resolved once by the router. */
export interface PostHandlerConfig {
  readonly bodyLimit: number;
  readonly logger: McpLogger;
  readonly responseMode: ResponseMode;
  readonly sse: SseOptions;
  /** Undefined in stateless mode. */
  readonly sessions: SessionManager | undefined;
  /** The authenticated caller of a request, when the router authenticates. */
  readonly authOf: (req: IncomingMessage) => AuthInfo | undefined;
  /** The router's subscriptions/listen streams; undefined without them (then the method is not found). */
  readonly listenStreams: ListenStreams | undefined;
}

/** A session as a request sees it: loaded (or about to be created by initialize). */
interface RequestSession {
  readonly id: string;
  readonly record: SessionRecord | undefined;
  readonly reply: ReplySession | undefined;
}

/**
 * The client state of a request without a session, per revision: nothing known yet but the revision. Made once:
 * client state is never changed in place (a method returns a ClientUpdate), so requests can share it.
 */
const FRESH_CLIENTS: ReadonlyMap<Revision, ClientState> = new Map(
  [...SUPPORTED_PROTOCOL_VERSIONS, ...MODERN_PROTOCOL_VERSIONS].map((protocolVersion) => [
    protocolVersion,
    Object.freeze({
      protocolVersion,
      clientCapabilities: Object.freeze({}),
      clientInfo: undefined,
      logLevel: undefined,
      subscriptions: Object.freeze([]),
    }),
  ]),
);

/** No subscriptions: a 2026 request holds none (subscriptions/listen streams carry their own). */
const NO_SUBSCRIPTIONS: readonly string[] = Object.freeze([]);

/**
 * MCP 2026-07-28 transports: a method not found is HTTP 404, and the 2026 request errors (-32020…-32022) are 400;
 * every other error of a request that was served goes in-band on 200.
 */
const MODERN_ERROR_STATUS: Readonly<Record<number, number>> = Object.freeze({
  [ErrorCode.MethodNotFound]: 404,
  [ErrorCode.HeaderMismatch]: 400,
  [ErrorCode.MissingRequiredClientCapability]: 400,
  [ErrorCode.UnsupportedProtocolVersion]: 400,
});

function modernStatus(outcome: DispatchOutcome): number {
  if (outcome.kind !== 'answered' || Array.isArray(outcome.body) || !('error' in outcome.body)) return 200;
  return MODERN_ERROR_STATUS[outcome.body.error.code] ?? 200;
}

/** The ids of the requests in a POST (a batch's valid requests): what its stream will answer. */
function requestIdsOf(post: ClassifiedPost): JsonRpcId[] {
  const messages = Array.isArray(post.messages)
    ? (post.messages as readonly ParsedMessage[]).flatMap((parsed) => (parsed.ok ? [parsed.message] : []))
    : [post.messages as JsonRpcMessage];
  return messages.flatMap((message) =>
    'method' in message && 'id' in message && message.id !== undefined ? [message.id] : [],
  );
}

/** The client's address: Express's `req.ip` (which honours `trust proxy`), else the socket's. */
function clientAddressOf(req: IncomingMessage): string | undefined {
  return (req as IncomingMessage & { ip?: string }).ip ?? req.socket.remoteAddress;
}

/** The headers a modern request mirrors its body in: MCP's own but the session id (not an input of a modern request). */
function isMirrorHeader(name: string): boolean {
  return isMcpHeader(name) && !(name.length === SESSION_ID_HEADER.length && name.toLowerCase() === SESSION_ID_HEADER);
}

/** A mirror header sent more than once, by its name as sent; the raw lines are read only when a value may be joined. */
function repeatedMirror(req: IncomingMessage): string | undefined {
  return mayRepeat(req.headers, isMirrorHeader) ? repeatedHeader(req.rawHeaders, isMirrorHeader) : undefined;
}

/** A 2025 session's client state: what initialize negotiated is always a 2025 revision. */
function isSessionClient(client: ClientState): client is ClientState & { readonly protocolVersion: ProtocolVersion } {
  return isSupportedVersion(client.protocolVersion);
}

/**
 * Creates the POST handler of one router.
 *
 * @example
 * ```ts
 * const post = createPostHandler(dispatcher, { bodyLimit: 4_194_304, logger: console, responseMode: 'auto', sse: { keepAliveMs: 15_000, retryMs: 1_000 }, sessions, authOf: () => undefined, listenStreams: undefined });
 * await post(req, res);
 * ```
 */
export function createPostHandler(dispatcher: Dispatcher, config: PostHandlerConfig) {
  const { sessions } = config;
  const { classifier } = dispatcher;
  const negotiateReply = createReplyNegotiator();

  /** The session of a request whose body is read: prepared for initialize; answers 400 itself and returns undefined then. */
  function sessionOf(
    res: ServerResponse,
    manager: SessionManager,
    loaded: LoadedSession | undefined,
    initialize: boolean,
  ): RequestSession | undefined {
    if (initialize) {
      // A session is initialized once (the SDK answers a second initialize on a session 400 -32600, as here).
      if (loaded === undefined) return { id: manager.newId(), record: undefined, reply: undefined };
      sendHttpError(
        res,
        400,
        ErrorCode.InvalidRequest,
        'Invalid Request: this session is already initialized; initialize without Mcp-Session-Id to start a new one',
      );
      return undefined;
    }
    // MCP transports › Session Management: no session id → 400.
    if (loaded !== undefined)
      return {
        id: loaded.record.id,
        record: loaded.record,
        reply: { manager, live: loaded.live, protocolVersion: loaded.record.protocolVersion },
      };
    sendSessionRequired(res);
    return undefined;
  }

  /** Keeps what the dispatch changed: a new session for a successful initialize, else the session's client state. */
  async function keep(
    manager: SessionManager,
    session: RequestSession,
    post: ClassifiedPost,
    outcome: DispatchOutcome,
    headers: Record<string, string>,
    subject: string | undefined,
  ): Promise<void> {
    if (post.kind === 'initialize') {
      if (
        outcome.kind === 'answered' &&
        !('error' in outcome.body) &&
        outcome.client !== undefined &&
        isSessionClient(outcome.client)
      )
        await manager.create(session.id, outcome.client, subject);
      // A refused initialize creates no session, so it names none.
      else delete headers['Mcp-Session-Id'];
    } else if (outcome.client !== undefined && isSessionClient(outcome.client) && session.record && session.reply) {
      await manager.save({ ...session.record, ...outcome.client }, session.reply.live);
    }
  }

  /** Whether the reply can be JSON or SSE as the client accepts; answers 406 itself and returns undefined when neither. */
  function replyMode(req: IncomingMessage, res: ServerResponse, post: ClassifiedPost): ResponseMode | undefined {
    if (!post.holdsRequests) return config.responseMode;
    const negotiated = negotiateReply(req.headers.accept, config.responseMode);
    if (negotiated === undefined)
      sendHttpError(res, 406, ErrorCode.ServerError, 'Not Acceptable: accept application/json or text/event-stream');
    return negotiated;
  }

  /**
   * A 2026 request: stateless, its client state from its `_meta`, never remembered (MCP 2026-07-28). No session is
   * read or made; closing its stream cancels it (PostReply aborts a reply that cannot be resumed).
   */
  async function serveModern(
    req: IncomingMessage,
    res: ServerResponse,
    post: ClassifiedPost,
    auth: AuthInfo | undefined,
  ): Promise<void> {
    // MCP 2026-07-28 subscriptions/listen: a stream that outlives any dispatch, served by its own transport.
    if (config.listenStreams !== undefined && isListenRequest(post)) {
      config.listenStreams.open(req, res, post.messages, auth, clientAddressOf(req));
      return;
    }
    const mode = replyMode(req, res, post);
    if (mode === undefined) return;
    const { envelope } = post;
    const client: ClientState = envelope
      ? {
          protocolVersion: envelope.protocolVersion as Revision,
          clientCapabilities: envelope.clientCapabilities,
          clientInfo: envelope.clientInfo,
          logLevel: envelope.logLevel,
          subscriptions: NO_SUBSCRIPTIONS,
        }
      : (FRESH_CLIENTS.get(MODERN_PROTOCOL_VERSIONS[0]) as ClientState);
    const abort = new LazyAbort();
    const reply = new PostReply(res, mode, undefined, config, {}, abort);
    const env: DispatchEnvironment = {
      era: '2026',
      signal: abort,
      sessionId: undefined,
      auth,
      client,
      channel: reply,
      clientRequests: NO_CLIENT_REQUESTS,
      inflight: undefined,
      headers: req.headers,
      clientAddress: () => clientAddressOf(req),
      networkProtocolVersion: req.httpVersion,
    };
    const outcome = await dispatcher.dispatch(post, env);
    await reply.finish(outcome, modernStatus(outcome));
  }

  return async function mcpPostHandler(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // In the order clients are answered: the headers, the session they name, the body (MCP transports: an unknown
    // session is 404 at no more cost than the lookup), the classification, the session rules, Accept.
    const verdict = classifier.headers({
      protocolVersion: req.headers[PROTOCOL_VERSION_HEADER],
      repeated: repeatedMirror(req),
    });
    if (!verdict.ok) {
      sendJson(res, verdict.status, verdict.error);
      return;
    }
    const auth = config.authOf(req);
    // MCP 2026-07-28 versioning: a session id is not an input of a modern request, so under a header that may be
    // one no session is looked up: the body decides.
    const loaded =
      sessions === undefined || verdict.modernHeader !== undefined
        ? undefined
        : await loadNamedSession(req, res, sessions, auth?.subject, false);
    if (loaded === false) return;
    const body = await readJsonBody(req, config.bodyLimit);
    const headerRefusal = body.ok ? undefined : classifier.unreadable(verdict);
    if (headerRefusal !== undefined) {
      sendJson(res, headerRefusal.status, headerRefusal.error);
      return;
    }
    if (!body.ok) {
      sendHttpError(
        res,
        body.status,
        body.code,
        body.message,
        body.status === 413 ? { Connection: 'close' } : undefined,
      );
      return;
    }
    // Refusals that hold whatever the session state come before the session rules: one body, one answer.
    const classified = classifier.body(body.value, verdict, req.headers);
    if (!classified.ok) {
      sendJson(res, classified.status, classified.error);
      return;
    }
    const { post } = classified;
    if (post.era === '2026') {
      await serveModern(req, res, post, auth);
      return;
    }
    const session = sessions === undefined ? undefined : sessionOf(res, sessions, loaded, post.kind === 'initialize');
    if (sessions !== undefined && session === undefined) return;

    const mode = replyMode(req, res, post);
    if (mode === undefined) return;

    // With a session, its negotiated revision rules; the header only has to be a supported one.
    const client =
      session?.record ?? (FRESH_CLIENTS.get(post.headerVersion ?? ASSUMED_PROTOCOL_VERSION) as ClientState);
    // Aborted when the caller hangs up; a LazyAbort makes no AbortSignal unless a handler reads ctx.signal.
    const abort = new LazyAbort();
    const headers: Record<string, string> =
      session && post.kind === 'initialize' ? { 'Mcp-Session-Id': session.id } : {};
    // The ids are walked for a session's SSE stream only (a shared event store marks it open with them), not per POST.
    const reply = new PostReply(res, mode, session?.reply, config, headers, abort, () => requestIdsOf(post));
    const env: DispatchEnvironment = {
      era: post.era,
      signal: abort,
      sessionId: session?.id,
      auth,
      client,
      channel: reply,
      clientRequests: reply,
      inflight: session?.reply?.live.inflight,
      cancelElsewhere: sessions && session && ((key, reason) => sessions.cancelElsewhere(session.id, key, reason)),
      headers: req.headers,
      clientAddress: () => clientAddressOf(req),
      networkProtocolVersion: req.httpVersion,
    };
    const outcome = await dispatcher.dispatch(post, env);
    if (sessions !== undefined && session !== undefined)
      await keep(sessions, session, post, outcome, headers, auth?.subject);
    await reply.finish(outcome);
  };
}
