// What the two ways of serving a POST share: the handler's settings, the reply negotiation, the client's address, a fresh client state.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpLogger } from '../../core/logger';
import type { AuthInfo } from '../../core/registry/request-context';
import type { ClassifiedPost } from '../../core/protocol/classify';
import type { ClientState } from '../../core/protocol/handler-context';
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
