// POST: the headers, the session they name, the body, one classification; then served in the request's era (post-session.ts, post-stateless.ts).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../../core/jsonrpc/errors';
import { stateful } from '../../core/era-policy';
import { createClassifier, type ClassifiedPost } from '../../core/protocol/classify';
import type { Dispatcher } from '../../core/protocol/dispatcher';
import { createReplyNegotiator, type ResponseMode } from '../http/accept';
import { readJsonBody } from '../http/body';
import { PROTOCOL_VERSION_HEADER, SESSION_ID_HEADER } from '../http/mcp-headers';
import { isMcpHeader, mayRepeat, repeatedHeader } from '../http/repeated-headers';
import { sendHttpError } from '../http/http-error';
import { sendJson } from '../http/reply';
import { serveSession } from './post-session';
import { serveStateless } from './post-stateless';
import type { PostHandlerConfig, PostServing } from './post-serving';
import { loadNamedSession } from './session-lookup';

export type { PostHandlerConfig } from './post-serving';

/** The headers a 2026 request mirrors its body in: MCP's own but the session id (not an input of a 2026 request). */
function isMirrorHeader(name: string): boolean {
  return isMcpHeader(name) && !(name.length === SESSION_ID_HEADER.length && name.toLowerCase() === SESSION_ID_HEADER);
}

/** A mirror header sent more than once, by its name as sent; the raw lines are read only when a value may be joined. */
function repeatedMirror(req: IncomingMessage): string | undefined {
  return mayRepeat(req.headers, isMirrorHeader) ? repeatedHeader(req.rawHeaders, isMirrorHeader) : undefined;
}

/**
 * Creates the POST handler of one router. It owns the router's classifier and runs it once per POST, in two steps:
 * the headers before the session lookup and the body read (so a bad header costs neither, and an unknown session is
 * 404 before the body is read), then the body; the classification then goes with the request to the dispatcher.
 *
 * @example
 * ```ts
 * const post = createPostHandler(dispatcher, { bodyLimit: 4_194_304, logger: console, responseMode: 'auto', sse: { keepAliveMs: 15_000, retryMs: 1_000 }, maxBatchLength: 100, eras: ['2025', '2026'], sessions, authOf: () => undefined, listenStreams: undefined });
 * await post(req, res);
 * ```
 */
export function createPostHandler(dispatcher: Dispatcher, config: PostHandlerConfig) {
  const { sessions } = config;
  const classifier = createClassifier({ maxBatchLength: config.maxBatchLength, eras: config.eras });
  const negotiateReply = createReplyNegotiator();
  const serving: PostServing = {
    dispatcher,
    config,
    replyMode(req: IncomingMessage, res: ServerResponse, post: ClassifiedPost): ResponseMode | undefined {
      if (!post.holdsRequests) return config.responseMode;
      const negotiated = negotiateReply(req.headers.accept, config.responseMode);
      if (negotiated === undefined)
        sendHttpError(res, 406, ErrorCode.ServerError, 'Not Acceptable: accept application/json or text/event-stream');
      return negotiated;
    },
  };

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
    // MCP 2026-07-28 versioning: a session id is not an input of a 2026 request, so under a header that may be
    // one no session is looked up: the body decides.
    const loaded =
      sessions === undefined || verdict.deferredHeader !== undefined
        ? undefined
        : await loadNamedSession(req, res, sessions, auth?.subject, false);
    if (loaded === false) return;
    const body = await readJsonBody(req, config.bodyLimit);
    if (!body.ok) {
      // A header the 2025 path refuses is refused first, whatever the body.
      const refusal = classifier.unreadable(verdict);
      if (refusal !== undefined) sendJson(res, refusal.status, refusal.error);
      else
        sendHttpError(
          res,
          body.status,
          body.code,
          body.message,
          body.status === 413 ? { Connection: 'close' } : body.headers,
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
    if (stateful(post.era)) await serveSession(serving, req, res, post, auth, loaded);
    else await serveStateless(serving, req, res, post, auth);
  };
}
