// A message that claims the 2026 era in its `_meta` (MCP 2026-07-28): its envelope, the headers against it, the revision.

import { failure } from '../../jsonrpc/envelope';
import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors';
import { isJsonRpcId, type JsonRpcFailure, type JsonRpcMessage } from '../../jsonrpc/types';
import { eraOf, isVersion2026, PROTOCOL_VERSIONS_2026 } from '../../versions';
import type { Classification, HeaderVerdict, Refusal } from '../classification';
import { readEnvelope } from './request-meta';
import {
  headerMismatch,
  headerText,
  METHOD_HEADER,
  quoted,
  repeatedHeaderFault,
  standardHeaderFault,
  type RequestHeaders,
} from './request-headers';

/** The revisions a -32022 names as served. */
const supported = Object.freeze([...PROTOCOL_VERSIONS_2026]);

/** A POST refused as a whole: 400 with this JSON-RPC error body. */
export function refused(error: JsonRpcFailure): Refusal {
  return { ok: false, status: 400, error };
}

/** A body that is no acceptable JSON-RPC message or batch: 400 -32600, id null. */
export function invalidRequest(message: string): Refusal {
  return refused(failure(null, new JsonRpcError(ErrorCode.InvalidRequest, message)));
}

/** A refusal of one message, its id echoed (MCP 2026-07-28: error responses to a request carry its id). */
export function refusedMessage(message: Record<string, unknown>, error: JsonRpcError): Refusal {
  return refused(failure(isJsonRpcId(message.id) ? message.id : null, error));
}

/** MCP 2026-07-28 versioning: -32022 names what is served, and what was asked for when the request named it. */
export function unsupportedVersion(message: Record<string, unknown>, requested: unknown): Refusal {
  const data = typeof requested === 'string' ? { supported, requested } : { supported };
  const named = typeof requested === 'string' ? quoted(requested) : 'no revision';
  return refusedMessage(
    message,
    new JsonRpcError(
      ErrorCode.UnsupportedProtocolVersion,
      `Unsupported protocol version: the request names ${named}; this server serves ${supported.join(', ')}`,
      data,
    ),
  );
}

/** SEP-2243: the `Mcp-Method` header, when sent, names the body's method (-32020 otherwise). */
export function methodHeaderFault(
  raw: Record<string, unknown>,
  method: string,
  headers: RequestHeaders | undefined,
): Refusal | undefined {
  const methodHeader = headers && headerText(headers, METHOD_HEADER);
  if (methodHeader === undefined || methodHeader === method) return undefined;
  return refusedMessage(
    raw,
    headerMismatch(
      'Mcp-Method',
      `the Mcp-Method header names ${quoted(methodHeader)} but the body's method is ${quoted(method)}`,
    ),
  );
}

/** A message that claims the 2026 era: its envelope, then the headers against it, then the revision. */
export function judgeClaim(
  message: JsonRpcMessage & { method: string },
  verdict: HeaderVerdict & { ok: true },
  headers: RequestHeaders | undefined,
): Classification {
  const raw = message as unknown as Record<string, unknown>;
  const envelope = readEnvelope(raw.params);
  if (envelope instanceof JsonRpcError) return refusedMessage(raw, envelope);
  if (verdict.repeated !== undefined) return refusedMessage(raw, repeatedHeaderFault(verdict.repeated));
  const header = verdict.deferredHeader ?? verdict.headerVersion;
  if (header !== undefined && header !== envelope.protocolVersion) {
    return refusedMessage(
      raw,
      headerMismatch(
        'MCP-Protocol-Version',
        `the MCP-Protocol-Version header names ${quoted(header)} but _meta names ${quoted(envelope.protocolVersion)}`,
      ),
    );
  }
  const methodFault = methodHeaderFault(raw, message.method, headers);
  if (methodFault !== undefined) return methodFault;
  if (!isVersion2026(envelope.protocolVersion)) return unsupportedVersion(raw, envelope.protocolVersion);
  const kind = 'id' in message ? 'request' : 'notification';
  // SEP-2243: the headers every request must carry, once the revision is known to be served.
  const fault =
    kind === 'request' && headers !== undefined ? standardHeaderFault(message.method, raw.params, headers) : undefined;
  if (fault !== undefined) return refusedMessage(raw, fault);
  return {
    ok: true,
    post: {
      kind,
      era: eraOf(envelope.protocolVersion),
      headerVersion: undefined,
      holdsRequests: kind === 'request',
      messages: message,
      envelope,
    },
  };
}

/** An `initialize` whose envelope is valid and names a 2026 revision is a 2026 request (then answered -32601); any other is the 2025 handshake. */
export function isValidClaim2026(message: Record<string, unknown>): boolean {
  const envelope = readEnvelope(message.params);
  return !(envelope instanceof JsonRpcError) && isVersion2026(envelope.protocolVersion);
}
