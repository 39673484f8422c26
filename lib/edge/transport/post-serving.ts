// What serving a POST takes in either era: the handler's settings, the reply negotiation, the dispatch environment, a fresh client state.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpLogger } from '../../core/logger';
import type { AuthInfo } from '../../core/registry/request-context';
import type { ClassifiedPost } from '../../core/protocol/classify';
import type { AbortSource } from '../../core/protocol/abort';
import type { ClientChannel, ClientRequests } from '../../core/protocol/client-requests';
import type { ClientState, DispatchEnvironment } from '../../core/protocol/handler-context';
import type { Dispatcher } from '../../core/protocol/dispatcher';
import { PROTOCOL_VERSIONS_2025, PROTOCOL_VERSIONS_2026, type Era, type Revision } from '../../core/versions';
import type { ResponseMode } from '../http/accept';
import type { SseOptions } from '../http/sse';
import type { SessionManager } from '../sessions/sessions';
import type { ListenStreams } from '../listen/listen-stream';

/** What the POST handler needs, resolved once by the router. */
export interface PostHandlerConfig {
  readonly bodyLimit: number;
  readonly logger: McpLogger;
  readonly responseMode: ResponseMode;
  readonly sse: SseOptions;
  /** Most messages in one batch (the classifier's limit). */
  readonly maxBatchLength: number;
  /** The eras served (the router's `eras`): the classifier refuses a request of another. */
  readonly eras: readonly Era[];
  /** Undefined in stateless mode. */
  readonly sessions: SessionManager | undefined;
  /** The authenticated caller of a request, when the router authenticates. */
  readonly authOf: (req: IncomingMessage) => AuthInfo | undefined;
  /** The router's subscriptions/listen streams; undefined without them (then the method is not found). */
  readonly listenStreams: ListenStreams | undefined;
}

/** One classified POST on its way to the dispatcher: what serving it in either era needs. */
export interface PostServing {
  readonly dispatcher: Dispatcher;
  readonly config: PostHandlerConfig;
  /** Whether the reply can be JSON or SSE as the client accepts; answers 406 itself and returns undefined when neither. */
  replyMode(req: IncomingMessage, res: ServerResponse, post: ClassifiedPost): ResponseMode | undefined;
}

/** What serving a POST decides of its dispatch's environment; the rest comes from the HTTP request. */
export interface DispatchParts {
  readonly signal: AbortSource;
  /** The session the request runs in; absent without one. */
  readonly sessionId?: string | undefined;
  readonly client: ClientState;
  readonly channel: ClientChannel;
  readonly clientRequests: ClientRequests;
  /** The session's requests in flight; absent without a session. */
  readonly inflight?: DispatchEnvironment['inflight'];
  readonly cancelElsewhere?: DispatchEnvironment['cancelElsewhere'];
}

/**
 * The environment of one POST's dispatch, built here for both eras: the HTTP request's era, caller, headers, address
 * and HTTP version, with the parts its era decides.
 */
export function dispatchEnvironment(
  req: IncomingMessage,
  post: ClassifiedPost,
  auth: AuthInfo | undefined,
  parts: DispatchParts,
): DispatchEnvironment {
  return {
    era: post.era,
    signal: parts.signal,
    sessionId: parts.sessionId,
    auth,
    client: parts.client,
    channel: parts.channel,
    clientRequests: parts.clientRequests,
    inflight: parts.inflight,
    cancelElsewhere: parts.cancelElsewhere,
    headers: req.headers,
    clientAddress: () => clientAddressOf(req),
    networkProtocolVersion: req.httpVersion,
  };
}

/** The client's address: Express's `req.ip` (which honours `trust proxy`), else the socket's. */
export function clientAddressOf(req: IncomingMessage): string | undefined {
  return (req as IncomingMessage & { ip?: string }).ip ?? req.socket.remoteAddress;
}

/**
 * The client state of a request without a session, per revision: nothing known yet but the revision. Made once:
 * client state is never changed in place (a method returns a ClientUpdate), so requests can share it.
 */
const FRESH_CLIENTS: ReadonlyMap<Revision, ClientState> = new Map(
  [...PROTOCOL_VERSIONS_2025, ...PROTOCOL_VERSIONS_2026].map((protocolVersion) => [
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

/** The client state of a request under `revision` that brings none (no session, no envelope). */
export function freshClient(revision: Revision): ClientState {
  return FRESH_CLIENTS.get(revision) as ClientState;
}
