// POST: checks MCP-Protocol-Version, reads the body, dispatches, and replies JSON, 202 or an HTTP error.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../jsonrpc/errors';
import type { McpLogger } from '../logger';
import type { DispatchEnvironment } from '../protocol/context';
import type { Dispatcher } from '../protocol/dispatcher';
import { ASSUMED_PROTOCOL_VERSION, isSupportedVersion, SUPPORTED_PROTOCOL_VERSIONS, type ProtocolVersion } from '../protocol/versions';
import { readJsonBody } from './body';
import { PROTOCOL_VERSION_HEADER } from './headers';
import { sendHttpError } from './http-error';
import { sendAccepted, sendJson, sendJsonText, serializeResponses } from './reply';

/** What the POST handler needs, resolved once by the router. */
export interface PostHandlerConfig {
  readonly bodyLimit: number;
  readonly logger: McpLogger;
}

/**
 * Creates the POST handler of one router.
 *
 * @example
 * ```ts
 * router.post('/', createPostHandler(dispatcher, { bodyLimit: 4 * 1024 * 1024, logger: console }));
 * ```
 */
export function createPostHandler(dispatcher: Dispatcher, config: PostHandlerConfig) {
  return async function mcpPostHandler(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const versionHeader = req.headers[PROTOCOL_VERSION_HEADER];
    // MCP 2025-06-18 transports: an invalid or unsupported MCP-Protocol-Version MUST be answered 400.
    // Any supported revision is accepted, not only the negotiated one (clients send older ones; see spec-checklist V4).
    let protocolVersion: ProtocolVersion = ASSUMED_PROTOCOL_VERSION;
    if (versionHeader !== undefined) {
      if (!isSupportedVersion(versionHeader)) {
        sendHttpError(res, 400, ErrorCode.ServerError, `Bad Request: unsupported MCP-Protocol-Version '${String(versionHeader)}'; supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`);
        return;
      }
      protocolVersion = versionHeader;
    }
    const body = await readJsonBody(req, config.bodyLimit);
    if (!body.ok) {
      sendHttpError(res, body.status, body.code, body.message, body.status === 413 ? { Connection: 'close' } : undefined);
      return;
    }

    const controller = new AbortController();
    // Nothing can resume a plain JSON reply, so a caller that hangs up no longer wants the work.
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    const env: DispatchEnvironment = {
      protocolVersion,
      versionFromHeader: versionHeader !== undefined,
      signal: controller.signal,
      sessionId: undefined,
      auth: undefined,
    };
    const outcome = await dispatcher.receive(body.value, env);
    if (res.writableEnded || res.destroyed) return;
    if (outcome.kind === 'accepted') sendAccepted(res);
    else if (outcome.kind === 'rejected') sendJson(res, 400, outcome.error);
    else sendJsonText(res, 200, serializeResponses(outcome.body, config.logger));
  };
}
