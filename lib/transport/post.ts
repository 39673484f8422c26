// POST: MCP-Protocol-Version, body, session and Accept checks; dispatch; the reply as JSON, SSE, 202 or an HTTP error.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../jsonrpc/errors';
import { isObject } from '../jsonrpc/types';
import type { McpLogger } from '../logger';
import type { AuthInfo } from '../registry/request-context';
import { LazyAbort } from '../protocol/abort';
import type { DispatchEnvironment, PeerState } from '../protocol/handler-context';
import type { Dispatcher } from '../protocol/dispatcher';
import { isInitializeRequest } from '../protocol/lifecycle';
import {
  ASSUMED_PROTOCOL_VERSION,
  isAtLeast,
  isSupportedVersion,
  SUPPORTED_PROTOCOL_VERSIONS,
  type ProtocolVersion,
} from '../versions';
import { createReplyNegotiator, type ResponseMode } from '../http/accept';
import { readJsonBody } from '../http/body';
import { PROTOCOL_VERSION_HEADER } from '../http/headers';
import { sendHttpError } from '../http/http-error';
import { PostReply, type ReplySession } from './post-reply';
import { sendJson } from '../http/reply';
import type { SessionManager } from '../sessions/sessions';
import type { SseOptions } from '../http/sse';
import type { SessionRecord } from '../sessions/stores';
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
}

/** A session as a request sees it: loaded (or about to be created by initialize). */
interface RequestSession {
  readonly id: string;
  readonly record: SessionRecord | undefined;
  readonly reply: ReplySession | undefined;
}

function freshPeer(protocolVersion: ProtocolVersion): PeerState {
  return { protocolVersion, clientCapabilities: {}, clientInfo: undefined, logLevel: undefined, subscriptions: [] };
}

/** True when the body holds at least one request (something that will be answered). */
function holdsRequests(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((message) => isObject(message) && 'method' in message && 'id' in message);
}

/**
 * Creates the POST handler of one router.
 *
 * @example
 * ```ts
 * router.post('/', createPostHandler(dispatcher, { bodyLimit, logger, responseMode: 'auto', sse, sessions }));
 * ```
 */
export function createPostHandler(dispatcher: Dispatcher, config: PostHandlerConfig) {
  const { sessions } = config;
  const negotiateReply = createReplyNegotiator();

  /** The session of a request whose body is read: prepared for initialize; answers 400 itself and returns undefined then. */
  function sessionOf(res: ServerResponse, manager: SessionManager, loaded: LoadedSession | undefined, initialize: boolean): RequestSession | undefined {
    if (initialize) {
      // The SDK's rule (spec-checklist S9): a session is initialized once.
      if (loaded === undefined) return { id: manager.newId(), record: undefined, reply: undefined };
      sendHttpError(res, 400, ErrorCode.InvalidRequest, 'Invalid Request: this session is already initialized; initialize without Mcp-Session-Id to start a new one');
      return undefined;
    }
    // MCP transports › Session Management: no session id → 400.
    if (loaded !== undefined) return { id: loaded.record.id, record: loaded.record, reply: { manager, live: loaded.live, protocolVersion: loaded.record.protocolVersion } };
    sendSessionRequired(res);
    return undefined;
  }

  return async function mcpPostHandler(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const versionHeader = req.headers[PROTOCOL_VERSION_HEADER];
    let headerVersion: ProtocolVersion | undefined;
    if (versionHeader !== undefined) {
      // MCP 2025-06-18 transports: an invalid or unsupported MCP-Protocol-Version MUST be answered 400.
      // Any supported revision is accepted, not only the negotiated one (spec-checklist V4).
      if (!isSupportedVersion(versionHeader)) {
        sendHttpError(res, 400, ErrorCode.ServerError, `Bad Request: unsupported MCP-Protocol-Version '${String(versionHeader)}'; supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`);
        return;
      }
      headerVersion = versionHeader;
    }
    const loaded = sessions === undefined ? undefined : await loadNamedSession(req, res, sessions, config.authOf(req)?.subject, false);
    if (loaded === false) return;
    const body = await readJsonBody(req, config.bodyLimit);
    if (!body.ok) {
      sendHttpError(res, body.status, body.code, body.message, body.status === 413 ? { Connection: 'close' } : undefined);
      return;
    }

    // Refusals that hold whatever the session state come first, and cost no session lookup.
    const refused = dispatcher.refusal(body.value);
    if (refused !== undefined) {
      sendJson(res, 400, refused);
      return;
    }
    const initialize = isInitializeRequest(body.value);
    const session = sessions === undefined ? undefined : sessionOf(res, sessions, loaded, initialize);
    if (sessions !== undefined && session === undefined) return;

    let mode: ResponseMode = config.responseMode;
    if (holdsRequests(body.value)) {
      const negotiated = negotiateReply(req.headers.accept, config.responseMode);
      if (negotiated === undefined) {
        sendHttpError(res, 406, ErrorCode.ServerError, 'Not Acceptable: accept application/json or text/event-stream');
        return;
      }
      mode = negotiated;
    }

    // With a session, its negotiated revision rules; the header only has to be a supported one.
    const peer = session?.record ?? freshPeer(headerVersion ?? ASSUMED_PROTOCOL_VERSION);
    const before = { logLevel: peer.logLevel, subscriptions: peer.subscriptions };
    const auth = config.authOf(req);
    // Aborted when the caller hangs up; a LazyAbort makes no AbortSignal unless a handler reads ctx.signal.
    const abort = new LazyAbort();
    const headers: Record<string, string> = session && initialize ? { 'Mcp-Session-Id': session.id } : {};
    const reply = new PostReply(res, mode, session?.reply, config, headers, abort);
    const env: DispatchEnvironment = {
      protocolVersion: peer.protocolVersion,
      // MCP 2025-06-18 removed batches; older clients, and stateless clients naming no revision, may send them.
      batchesAllowed: session?.record ? !isAtLeast(peer.protocolVersion, '2025-06-18') : headerVersion === undefined || !isAtLeast(headerVersion, '2025-06-18'),
      signal: abort,
      sessionId: session?.id,
      auth,
      peer,
      channel: reply,
      inflight: session?.reply?.live.inflight,
      headers: req.headers,
    };
    const outcome = await dispatcher.receive(body.value, env);

    if (sessions !== undefined && session !== undefined) {
      if (initialize && outcome.kind === 'answered' && !('error' in outcome.body)) {
        await sessions.create(session.id, peer, auth?.subject);
      } else if (initialize) {
        // A refused initialize creates no session, so it names none.
        delete headers['Mcp-Session-Id'];
      } else if (session.record && session.reply && (peer.logLevel !== before.logLevel || peer.subscriptions !== before.subscriptions)) {
        await sessions.save(session.record, session.reply.live);
      }
    }
    await reply.finish(outcome);
  };
}
