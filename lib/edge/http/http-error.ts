// sendHttpError: the single writer of HTTP-level errors, as a JSON-RPC error body with id null.

import type { ServerResponse } from 'node:http';
import { failure } from '../../core/jsonrpc/envelope';
import { JsonRpcError } from '../../core/jsonrpc/errors';
import { sendJson } from './reply';

/**
 * Answers with an HTTP error status and a JSON-RPC error body (`id: null`: the request's id is unknown
 * or irrelevant at this level), never an HTML page.
 *
 * @param status - the HTTP status (400, 404, 405, 413, 415, …)
 * @param code - the JSON-RPC code of the body (-32700 for parse errors, -32000 for transport errors, …)
 * @param message - what went wrong and, where it helps, what to do
 * @param headers - extra headers, e.g. `Allow` on 405
 */
export function sendHttpError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers?: Record<string, string>,
): void {
  sendJson(res, status, failure(null, new JsonRpcError(code, message)), headers);
}
