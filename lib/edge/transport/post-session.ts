// A POST of the session era (MCP 2025): the session rules, the dispatch with the session's client state, what it changed kept.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../../core/jsonrpc/errors';
import type { ParsedMessage } from '../../core/jsonrpc/envelope';
import type { JsonRpcId, JsonRpcMessage } from '../../core/jsonrpc/types';
import type { AuthInfo } from '../../core/registry/request-context';
import { LazyAbort } from '../../core/protocol/abort';
import type { ClassifiedPost } from '../../core/protocol/classify';
import type { ClientState } from '../../core/protocol/handler-context';
import type { DispatchOutcome } from '../../core/protocol/dispatcher';
import { ASSUMED_PROTOCOL_VERSION, isVersion2025, type ProtocolVersion } from '../../core/versions';
import { sendHttpError } from '../http/http-error';
import type { LiveSession, SessionChannel } from '../sessions/session-channel';
import type { SessionManager } from '../sessions/sessions';
import type { SessionRecord } from '../store/session-stores';
import { PostReply } from './post-reply';
import { dispatchEnvironment, freshClient, type PostServing } from './post-serving';
import { sendSessionRequired, type LoadedSession } from './session-lookup';

/** A session as a request sees it: loaded (or about to be created by initialize). */
interface RequestSession {
  readonly id: string;
  readonly record: SessionRecord | undefined;
  readonly live: LiveSession | undefined;
  readonly channel: SessionChannel | undefined;
}

/** The ids of the requests in a POST (a batch's valid requests): what its stream will answer. */
function requestIdsOf(post: ClassifiedPost): JsonRpcId[] {
  const ids: JsonRpcId[] = [];
  // Plain loops, not flatMaps: this runs for every SSE reply of a session.
  if (!Array.isArray(post.messages)) addRequestId(ids, post.messages as JsonRpcMessage);
  else for (const parsed of post.messages as readonly ParsedMessage[]) if (parsed.ok) addRequestId(ids, parsed.message);
  return ids;
}

function addRequestId(ids: JsonRpcId[], message: JsonRpcMessage): void {
  if ('method' in message && 'id' in message && message.id !== undefined) ids.push(message.id);
}

/** A 2025 session's client state: what initialize negotiated is always a 2025 revision. */
function isSessionClient(client: ClientState): client is ClientState & { readonly protocolVersion: ProtocolVersion } {
  return isVersion2025(client.protocolVersion);
}

/** The session of a request whose body is read: prepared for initialize; answers 400 itself and returns undefined then. */
function sessionOf(
  res: ServerResponse,
  manager: SessionManager,
  loaded: LoadedSession | undefined,
  initialize: boolean,
): RequestSession | undefined {
  if (initialize) {
    // A session is initialized once (the SDK answers a second initialize on a session 400 -32600, as here).
    if (loaded === undefined) return { id: manager.newId(), record: undefined, live: undefined, channel: undefined };
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
      live: loaded.live,
      channel: manager.channel(loaded.live, loaded.record.protocolVersion),
    };
  sendSessionRequired(res);
  return undefined;
}

/** Keeps what the dispatch changed: a new session for a successful initialize, else the session's client state. */
async function keepSessionState(
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
  } else if (outcome.client !== undefined && isSessionClient(outcome.client) && session.record && session.live) {
    await manager.save({ ...session.record, ...outcome.client }, session.live);
  }
}

/**
 * Serves a request of the session era: in its session (or, with `sessions: false`, with a fresh client state of the
 * revision its header names).
 *
 * @param loaded - the session the request named, looked up before its body was read
 */
export async function serveSession(
  serving: PostServing,
  req: IncomingMessage,
  res: ServerResponse,
  post: ClassifiedPost,
  auth: AuthInfo | undefined,
  loaded: LoadedSession | undefined,
): Promise<void> {
  const { config, dispatcher } = serving;
  const { sessions } = config;
  const session = sessions === undefined ? undefined : sessionOf(res, sessions, loaded, post.kind === 'initialize');
  if (sessions !== undefined && session === undefined) return;

  const mode = serving.replyMode(req, res, post);
  if (mode === undefined) return;

  // With a session, its negotiated revision rules; the header only has to be a supported one.
  const client = session?.record ?? freshClient(post.headerVersion ?? ASSUMED_PROTOCOL_VERSION);
  // Aborted when the caller hangs up; a LazyAbort makes no AbortSignal unless a handler reads ctx.signal.
  const abort = new LazyAbort();
  const headers: Record<string, string> = session && post.kind === 'initialize' ? { 'Mcp-Session-Id': session.id } : {};
  // The ids are walked for a session's SSE stream only (a shared event store marks it open with them), not per POST.
  const reply = new PostReply(
    res,
    mode,
    session?.channel,
    config,
    headers,
    post.holdsRequests ? abort : undefined,
    () => requestIdsOf(post),
  );
  const env = dispatchEnvironment(req, post, auth, {
    signal: abort,
    sessionId: session?.id,
    client,
    channel: reply,
    clientRequests: reply,
    inflight: session?.channel?.inflight,
    cancelElsewhere: sessions && session && ((key, reason) => sessions.cancelElsewhere(session.id, key, reason)),
  });
  const outcome = await dispatcher.dispatch(post, env);
  if (sessions !== undefined && session !== undefined)
    await keepSessionState(sessions, session, post, outcome, headers, auth?.subject);
  await reply.finish(outcome);
}
