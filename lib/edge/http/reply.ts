// The single writer of HTTP replies with a JSON body (answers and errors) and of 202 Accepted.

import type { ServerResponse } from 'node:http';
import { failure } from '../../core/jsonrpc/envelope';
import { ErrorCode, JsonRpcError } from '../../core/jsonrpc/errors';
import type { JsonRpcResponse } from '../../core/jsonrpc/types';
import type { McpLogger } from '../../core/logger';

/** Writes `text` (already JSON) with its status and length. */
export function sendJsonText(
  res: ServerResponse,
  status: number,
  text: string,
  headers?: Record<string, string>,
): void {
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** Writes `body` as JSON. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  sendJsonText(res, status, JSON.stringify(body), headers);
}

/** MCP transports: a POST of only notifications or responses is answered 202 with no body. */
export function sendAccepted(res: ServerResponse): void {
  res.writeHead(202);
  res.end();
}

/**
 * JSON text of a response or batch. A result that cannot be serialised (a cycle, a BigInt) is replaced by
 * -32603 for that request and logged, so one bad handler result never breaks the reply.
 */
export function serializeResponses(body: JsonRpcResponse | JsonRpcResponse[], logger: McpLogger): string {
  try {
    return JSON.stringify(body);
  } catch {
    const safe = (response: JsonRpcResponse): string => {
      try {
        return JSON.stringify(response);
      } catch (err) {
        logger.error(
          err,
          `mcpRouter: the result of request ${JSON.stringify(response.id)} is not serialisable as JSON`,
        );
        return JSON.stringify(failure(response.id, new JsonRpcError(ErrorCode.InternalError, 'Internal error')));
      }
    };
    return Array.isArray(body) ? `[${body.map(safe).join(',')}]` : safe(body);
  }
}
