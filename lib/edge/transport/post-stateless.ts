// A POST of a stateless era (MCP 2026-07-28): its client state from its `_meta`, no session read or made; listen streams handed over.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '../../core/registry/request-context';
import { errorStatus } from '../../core/era-policy';
import { LazyAbort } from '../../core/protocol/abort';
import type { ClassifiedPost } from '../../core/protocol/classify';
import { NO_CLIENT_REQUESTS } from '../../core/protocol/client-requests';
import type { ClientState } from '../../core/protocol/handler-context';
import type { DispatchOutcome } from '../../core/protocol/dispatcher';
import { PROTOCOL_VERSIONS_2026, type Era, type Revision } from '../../core/versions';
import { isListenRequest } from '../listen/listen-stream';
import { PostReply } from './post-reply';
import { clientAddressOf, dispatchEnvironment, freshClient, type PostServing } from './post-serving';

/** No subscriptions: a stateless request holds none (subscriptions/listen streams carry their own). */
const NO_SUBSCRIPTIONS: readonly string[] = Object.freeze([]);

/** The HTTP status of an answered POST in `era`: an error with its own status (era-policy.ts), else 200. */
function statusOf(era: Era, outcome: DispatchOutcome): number {
  if (outcome.kind !== 'answered' || Array.isArray(outcome.body) || !('error' in outcome.body)) return 200;
  return errorStatus(era, outcome.body.error.code);
}

/** The client state a stateless request carries in its `_meta` (a notification without one: a fresh client). */
function clientOf(post: ClassifiedPost): ClientState {
  const { envelope } = post;
  return envelope
    ? {
        protocolVersion: envelope.protocolVersion as Revision,
        clientCapabilities: envelope.clientCapabilities,
        clientInfo: envelope.clientInfo,
        logLevel: envelope.logLevel,
        subscriptions: NO_SUBSCRIPTIONS,
      }
    : freshClient(PROTOCOL_VERSIONS_2026[0]);
}

/**
 * Serves a stateless request: never remembered (MCP 2026-07-28). Closing its stream cancels it (PostReply aborts a
 * reply that cannot be resumed); it asks the client nothing over the stream (its asks are `input_required` results).
 */
export async function serveStateless(
  serving: PostServing,
  req: IncomingMessage,
  res: ServerResponse,
  post: ClassifiedPost,
  auth: AuthInfo | undefined,
): Promise<void> {
  const { config, dispatcher } = serving;
  // MCP 2026-07-28 subscriptions/listen: a stream that outlives any dispatch, served by its own transport.
  if (config.listenStreams !== undefined && isListenRequest(post)) {
    config.listenStreams.open(req, res, post.messages, auth, clientAddressOf(req));
    return;
  }
  const mode = serving.replyMode(req, res, post);
  if (mode === undefined) return;
  const abort = new LazyAbort();
  const reply = new PostReply(res, mode, undefined, config, {}, abort);
  const env = dispatchEnvironment(req, post, auth, {
    signal: abort,
    client: clientOf(post),
    channel: reply,
    clientRequests: NO_CLIENT_REQUESTS,
  });
  const outcome = await dispatcher.dispatch(post, env);
  await reply.finish(outcome, statusOf(post.era, outcome));
}
