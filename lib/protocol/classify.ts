// The request classifier: one POSTed body and its MCP headers in; era, revision, message kind and batch facts out, or a refusal.

import { failure, parseMessage, type ParsedMessage } from '../jsonrpc/envelope';
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import { isObject, type JsonRpcFailure, type JsonRpcMessage } from '../jsonrpc/types';
import { SUPPORTED_PROTOCOL_VERSIONS, type Era, type ProtocolVersion } from '../versions';
import { isInitializeRequest } from './lifecycle';

/** The MCP header values a POST is classified by, read by the transport (whose names live in `http/headers.ts`). */
export interface PostHeaders {
  /** `MCP-Protocol-Version`, as received. */
  readonly protocolVersion: string | string[] | undefined;
}

/** What a POST holds: `initialize` starts a 2025 session; `request`s are answered; the rest get 202. */
export type PostKind = 'initialize' | 'request' | 'notification' | 'response' | 'batch';

/** A POST the router serves: its era, the revision its header names, and its parsed messages. */
export interface ClassifiedPost {
  readonly kind: PostKind;
  readonly era: Era;
  /** The revision `MCP-Protocol-Version` names; undefined without the header (a session's own revision then rules). */
  readonly headerVersion: ProtocolVersion | undefined;
  /** Whether anything in it will be answered (a request, or a batch holding one): only then does Accept matter. */
  readonly holdsRequests: boolean;
  /** The message, or each element of a batch as parsed (an invalid element is answered with its own error). */
  readonly messages: JsonRpcMessage | readonly ParsedMessage[];
}

/** A POST refused as a whole: the HTTP status and the JSON-RPC error body. */
export interface Refusal {
  readonly ok: false;
  readonly status: 400;
  readonly error: JsonRpcFailure;
}

/** What the headers alone say, before the body is read: the revision they name, or a refusal. */
export type HeaderVerdict = { readonly ok: true; readonly headerVersion: ProtocolVersion | undefined } | Refusal;

/** The outcome of classifying one POST: served, or refused as a whole. */
export type Classification = { readonly ok: true; readonly post: ClassifiedPost } | Refusal;

/** The classifier of one router, in two steps that run once per POST: the headers, then the body. */
export interface Classifier {
  /**
   * Before the body is read or a session looked up: what the headers alone refuse, so that a bad header costs
   * neither (MCP 2025-06-18 transports: an invalid or unsupported MCP-Protocol-Version MUST be answered 400).
   */
  headers(headers: PostHeaders): HeaderVerdict;
  /** The body decides, the header's verdict cross-checks: the era, the message kind, the batch facts, or a refusal. */
  body(body: unknown, headerVersion: ProtocolVersion | undefined): Classification;
}

/** Limits the classifier enforces, resolved once by the router. */
export interface ClassifierLimits {
  /** Most messages in one batch. */
  readonly maxBatchLength: number;
}

function refused(error: JsonRpcFailure): Refusal {
  return { ok: false, status: 400, error };
}

function invalidRequest(message: string): Refusal {
  return refused(failure(null, new JsonRpcError(ErrorCode.InvalidRequest, message)));
}

function kindOf(message: JsonRpcMessage): PostKind {
  if (!('method' in message)) return 'response';
  if (!('id' in message)) return 'notification';
  return message.method === 'initialize' ? 'initialize' : 'request';
}

/**
 * Creates the classifier of one router (MCP versioning: the body decides, headers cross-check). The transport runs
 * it once per POST: `headers` first, then, after the session named is found, `body`, so every refusal keeps the
 * precedence clients see today. Every POST is of the 2025 era for now (the 2026 `_meta` claim is the next step).
 * What the body step refuses, whatever the session: a body that is not a JSON-RPC message (-32600, the id echoed
 * when readable); an empty batch, one longer than `maxBatchLength`, or one holding `initialize` (MCP 2025-03-26
 * lifecycle: -32600). Whether the revision in force allows a batch at all depends on the session: the dispatcher
 * decides that.
 *
 * @example
 * ```ts
 * const classifier = createClassifier({ maxBatchLength: 100 });
 * const verdict = classifier.headers({ protocolVersion: '2025-11-25' }); // { ok: true, headerVersion: '2025-11-25' }
 * classifier.body({ jsonrpc: '2.0', id: 1, method: 'ping' }, '2025-11-25');
 * // { ok: true, post: { kind: 'request', era: '2025', headerVersion: '2025-11-25', holdsRequests: true, messages: { … } } }
 * ```
 */
export function createClassifier(limits: ClassifierLimits): Classifier {
  // The verdicts that accept, made once: a request costs a lookup, not an object.
  const accepted = new Map<string | undefined, HeaderVerdict>([undefined, ...SUPPORTED_PROTOCOL_VERSIONS].map((headerVersion) => [headerVersion, Object.freeze({ ok: true, headerVersion })]));
  return {
    headers({ protocolVersion }) {
      // Any revision spoken is accepted, not only the session's: the SDKs send their own latest before negotiating.
      const verdict = typeof protocolVersion === 'object' ? undefined : accepted.get(protocolVersion);
      if (verdict !== undefined) return verdict;
      const message = `Bad Request: unsupported MCP-Protocol-Version '${String(protocolVersion)}'; supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`;
      return refused(failure(null, new JsonRpcError(ErrorCode.ServerError, message)));
    },
    body(body, headerVersion) {
      if (!Array.isArray(body)) {
        const parsed = parseMessage(body);
        if (!parsed.ok) return refused(parsed.error);
        const kind = kindOf(parsed.message);
        return { ok: true, post: { kind, era: '2025', headerVersion, holdsRequests: kind === 'request' || kind === 'initialize', messages: parsed.message } };
      }
      if (body.length === 0) return invalidRequest('Invalid Request: an empty batch');
      if (body.length > limits.maxBatchLength) return invalidRequest(`Invalid Request: a batch holds at most ${limits.maxBatchLength} messages`);
      // MCP 2025-03-26 lifecycle: initialize MUST NOT be part of a batch.
      if (body.some(isInitializeRequest)) return invalidRequest('Invalid Request: initialize must not be part of a batch');
      const holdsRequests = body.some((message) => isObject(message) && 'method' in message && 'id' in message);
      return { ok: true, post: { kind: 'batch', era: '2025', headerVersion, holdsRequests, messages: body.map(parseMessage) } };
    },
  };
}
