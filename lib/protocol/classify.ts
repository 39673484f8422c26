// The request classifier: one POSTed body and its MCP headers in; era, revision, message kind and batch facts out, or a refusal.

import { failure, parseMessage, type ParsedMessage } from '../jsonrpc/envelope';
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import { isJsonRpcId, isObject, type JsonRpcFailure, type JsonRpcMessage } from '../jsonrpc/types';
import {
  isModernVersion,
  MODERN_PROTOCOL_VERSIONS,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Era,
  type ProtocolVersion,
} from '../versions';
import { isInitializeRequest } from './lifecycle';
import { claimsModernEra, readEnvelope, type RequestEnvelope } from './request-meta';
import {
  headerMismatch,
  headerText,
  METHOD_HEADER,
  PROTOCOL_VERSION_HEADER,
  quoted,
  repeatedHeaderFault,
  standardHeaderFault,
  type RequestHeaders,
} from './request-headers';

/** The MCP header values a POST is classified by, read by the transport (whose names live in `http/headers.ts`). */
export interface PostHeaders {
  /** `MCP-Protocol-Version`, as received. */
  readonly protocolVersion: string | string[] | undefined;
  /**
   * An MCP header the request sent more than once (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`),
   * by its name as sent; undefined when none was. Read from the raw header lines by the transport: Node joins a
   * repeated header's values with ", ", which could then pass for one value holding a comma.
   */
  readonly repeated?: string;
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
  /** The client state a modern request carries in its `_meta` (undefined in the 2025 era, and for a modern notification without one). */
  readonly envelope?: RequestEnvelope;
}

/** A POST refused as a whole: the HTTP status and the JSON-RPC error body. */
export interface Refusal {
  readonly ok: false;
  readonly status: 400;
  readonly error: JsonRpcFailure;
}

/** What the headers alone say, before the body is read: the revision they name, or a refusal. */
export type HeaderVerdict =
  | {
      readonly ok: true;
      /** A 2025 revision the header names; undefined without the header, or when it names another era. */
      readonly headerVersion: ProtocolVersion | undefined;
      /**
       * The header's text when it names no 2025 revision served (2026-07-28, a later or unknown one): only the body
       * can tell whether it is a modern request, so no 2025 session is looked up for it.
       */
      readonly modernHeader: string | undefined;
      /** An MCP header sent more than once ({@link PostHeaders.repeated}): a modern request is refused for it. */
      readonly repeated?: string;
    }
  | Refusal;

/** The verdict on a POST without MCP headers (for callers without HTTP). */
export const NO_MCP_HEADERS = Object.freeze({ ok: true, headerVersion: undefined, modernHeader: undefined } as const);

/** The outcome of classifying one POST: served, or refused as a whole. */
export type Classification = { readonly ok: true; readonly post: ClassifiedPost } | Refusal;

/** The classifier of one router, in two steps that run once per POST: the headers, then the body. */
export interface Classifier {
  /**
   * Before the body is read or a session looked up: what the headers alone refuse, so that a bad header costs
   * neither (MCP 2025-06-18 transports: an invalid or unsupported MCP-Protocol-Version MUST be answered 400).
   */
  headers(headers: PostHeaders): HeaderVerdict;
  /**
   * The body decides, the headers cross-check: the era, the message kind, the batch facts, or a refusal.
   *
   * @param verdict - what {@link Classifier.headers} said
   * @param headers - the HTTP request's headers, which a modern request's must agree with (SEP-2243); undefined for
   *   a caller without HTTP, whose messages carry no headers to check
   */
  body(body: unknown, verdict: HeaderVerdict & { ok: true }, headers?: RequestHeaders): Classification;
  /**
   * When the body cannot be read (not JSON, too large, malformed): the refusal the header earns on its own, if any,
   * so that a header the 2025 path refused is still refused first.
   */
  unreadable(verdict: HeaderVerdict & { ok: true }): Refusal | undefined;
}

/** Limits and choices the classifier enforces, resolved once by the router. */
export interface ClassifierLimits {
  /** Most messages in one batch. */
  readonly maxBatchLength: number;
  /** The eras served: a request of another era is refused as the spec says (MCP 2026-07-28 versioning). */
  readonly eras: readonly Era[];
}

function refused(error: JsonRpcFailure): Refusal {
  return { ok: false, status: 400, error };
}

function invalidRequest(message: string): Refusal {
  return refused(failure(null, new JsonRpcError(ErrorCode.InvalidRequest, message)));
}

/** A refusal of one message, its id echoed (MCP 2026-07-28: error responses to a request carry its id). */
function refusedMessage(message: Record<string, unknown>, error: JsonRpcError): Refusal {
  return refused(failure(isJsonRpcId(message.id) ? message.id : null, error));
}

function kindOf(message: JsonRpcMessage): PostKind {
  if (!('method' in message)) return 'response';
  if (!('id' in message)) return 'notification';
  return message.method === 'initialize' ? 'initialize' : 'request';
}

/**
 * Creates the classifier of one router (MCP 2026-07-28 versioning: the body decides, headers cross-check). The
 * transport runs it once per POST: `headers` first, then, after the body is read (and, for a 2025 request, the
 * session named is found), `body`, so every refusal keeps the precedence clients see.
 *
 * A message whose `params._meta` holds `io.modelcontextprotocol/protocolVersion` claims the 2026 era and is served
 * statelessly, whatever session it names; `initialize`, batches, posted responses and messages without a claim are
 * of the 2025 era. What the body step refuses, whatever the session: a body that is not a JSON-RPC message (-32600,
 * the id echoed when readable); an empty batch, one longer than `maxBatchLength`, one holding `initialize` (MCP
 * 2025-03-26 lifecycle: -32600) or a modern message; a modern claim with a malformed envelope (-32602), headers
 * that disagree with it (-32020) or a revision not served (-32022); a modern header without a claim (-32602).
 * Whether the revision in force allows a batch at all depends on the session: the dispatcher decides that.
 *
 * @example
 * ```ts
 * const classifier = createClassifier({ maxBatchLength: 100, eras: ['2025', '2026'] });
 * const verdict = classifier.headers({ protocolVersion: '2025-11-25' }); // { ok: true, headerVersion: '2025-11-25', modernHeader: undefined }
 * if (verdict.ok) classifier.body({ jsonrpc: '2.0', id: 1, method: 'ping' }, verdict);
 * // { ok: true, post: { kind: 'request', era: '2025', headerVersion: '2025-11-25', holdsRequests: true, messages: { … } } }
 * ```
 */
export function createClassifier(limits: ClassifierLimits): Classifier {
  const serves2025 = limits.eras.includes('2025');
  const serves2026 = limits.eras.includes('2026');
  // The verdicts that accept a 2025 header, made once: a request costs a lookup, not an object.
  const accepted = new Map<string | undefined, HeaderVerdict>(
    [undefined, ...SUPPORTED_PROTOCOL_VERSIONS].map((headerVersion) => [
      headerVersion,
      Object.freeze({ ok: true, headerVersion, modernHeader: undefined }),
    ]),
  );
  const supported = Object.freeze([...MODERN_PROTOCOL_VERSIONS]);

  /** MCP 2026-07-28 versioning: -32022 names what is served, and what was asked for when the request named it. */
  function unsupportedVersion(message: Record<string, unknown>, requested: unknown): Refusal {
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

  /**
   * MCP 2025-06-18 transports: an unsupported MCP-Protocol-Version is 400 (-32000, as the SDKs answer it); a repeated
   * one (Node joined its values) is said to be repeated.
   */
  function unsupportedHeader(protocolVersion: string | string[] | undefined, repeated: string | undefined): Refusal {
    const served = serves2025 ? SUPPORTED_PROTOCOL_VERSIONS : MODERN_PROTOCOL_VERSIONS;
    const message =
      repeated?.toLowerCase() === PROTOCOL_VERSION_HEADER
        ? 'Bad Request: the MCP-Protocol-Version header is sent more than once; send it once'
        : `Bad Request: unsupported MCP-Protocol-Version '${String(protocolVersion)}'; supported: ${served.join(', ')}`;
    return refused(failure(null, new JsonRpcError(ErrorCode.ServerError, message)));
  }

  /** A body that cannot be read, or a batch, carries no claim: a header deferred to it is judged as the 2025 path judged it. */
  function unreadable(verdict: { modernHeader: string | undefined; repeated?: string }): Refusal | undefined {
    const header = verdict.modernHeader;
    return header !== undefined && serves2025 && !isModernVersion(header)
      ? unsupportedHeader(header, verdict.repeated)
      : undefined;
  }

  /** A message that claims the modern era: its envelope, then the headers against it, then the revision. */
  function modern(
    message: JsonRpcMessage & { method: string },
    verdict: HeaderVerdict & { ok: true },
    headers: RequestHeaders | undefined,
  ): Classification {
    const raw = message as unknown as Record<string, unknown>;
    const envelope = readEnvelope(raw.params);
    if (envelope instanceof JsonRpcError) return refusedMessage(raw, envelope);
    if (verdict.repeated !== undefined) return refusedMessage(raw, repeatedHeaderFault(verdict.repeated));
    const header = verdict.modernHeader ?? verdict.headerVersion;
    if (header !== undefined && header !== envelope.protocolVersion) {
      return refusedMessage(
        raw,
        headerMismatch(
          'MCP-Protocol-Version',
          `the MCP-Protocol-Version header names ${quoted(header)} but _meta names ${quoted(envelope.protocolVersion)}`,
        ),
      );
    }
    const methodHeader = headers && headerText(headers, METHOD_HEADER);
    if (methodHeader !== undefined && methodHeader !== message.method) {
      return refusedMessage(
        raw,
        headerMismatch(
          'Mcp-Method',
          `the Mcp-Method header names ${quoted(methodHeader)} but the body's method is ${quoted(message.method)}`,
        ),
      );
    }
    if (!isModernVersion(envelope.protocolVersion)) return unsupportedVersion(raw, envelope.protocolVersion);
    const kind = 'id' in message ? 'request' : 'notification';
    // SEP-2243: the headers every request must carry, once the revision is known to be served.
    const fault =
      kind === 'request' && headers !== undefined
        ? standardHeaderFault(message.method, raw.params, headers)
        : undefined;
    if (fault !== undefined) return refusedMessage(raw, fault);
    return {
      ok: true,
      post: {
        kind,
        era: '2026',
        headerVersion: undefined,
        holdsRequests: kind === 'request',
        messages: message,
        envelope,
      },
    };
  }

  /** A single message without a valid modern claim, on a router that serves the 2026 era. */
  function unclaimed(
    message: JsonRpcMessage,
    verdict: HeaderVerdict & { ok: true },
    headers: RequestHeaders | undefined,
  ): Classification | undefined {
    const header = verdict.modernHeader;
    const raw = message as unknown as Record<string, unknown>;
    const kind = kindOf(message);
    if (!serves2025) {
      // Modern only: notifications are accepted and dropped; initialize and requests name no revision served.
      if (kind === 'notification')
        return {
          ok: true,
          post: { kind, era: '2026', headerVersion: undefined, holdsRequests: false, messages: message },
        };
      if (kind === 'response')
        return refusedMessage(
          raw,
          new JsonRpcError(
            ErrorCode.InvalidRequest,
            'Invalid Request: JSON-RPC responses cannot be posted to this endpoint (it serves MCP 2026-07-28 only)',
          ),
        );
      // A modern-only server names its revisions in the error to initialize (MCP 2026-07-28 versioning, SHOULD).
      return unsupportedVersion(
        raw,
        kind === 'initialize' && isObject(raw.params) ? raw.params.protocolVersion : header,
      );
    }
    if (header === undefined) return undefined;
    // Without a claim, a header naming a revision not served is refused as the 2025 path always refused it.
    if (!isModernVersion(header)) return unsupportedHeader(header, verdict.repeated);
    // MCP 2026-07-28 versioning: initialize is the 2025 handshake; under a modern header the two disagree.
    if (kind === 'initialize')
      return refusedMessage(
        raw,
        headerMismatch(
          'MCP-Protocol-Version',
          `initialize is the 2025 handshake, but the MCP-Protocol-Version header names ${quoted(header)}`,
        ),
      );
    if (kind === 'response')
      return refusedMessage(
        raw,
        new JsonRpcError(
          ErrorCode.InvalidRequest,
          'Invalid Request: a JSON-RPC response answers a 2025 session request; the 2026 era has none',
        ),
      );
    const { method } = message as { method: string };
    if (verdict.repeated !== undefined) return refusedMessage(raw, repeatedHeaderFault(verdict.repeated));
    if (kind === 'notification') {
      const methodHeader = headers && headerText(headers, METHOD_HEADER);
      if (methodHeader !== undefined && methodHeader !== method)
        return refusedMessage(
          raw,
          headerMismatch(
            'Mcp-Method',
            `the Mcp-Method header names ${quoted(methodHeader)} but the body's method is ${quoted(method)}`,
          ),
        );
      return {
        ok: true,
        post: { kind, era: '2026', headerVersion: undefined, holdsRequests: false, messages: message },
      };
    }
    // MCP 2026-07-28 (per-request metadata): a modern request without its envelope is 400 -32602.
    const missing = `Invalid params: the MCP-Protocol-Version header names ${quoted(header)}, but params._meta lacks "io.modelcontextprotocol/protocolVersion" and "io.modelcontextprotocol/clientCapabilities"`;
    return refusedMessage(raw, new JsonRpcError(ErrorCode.InvalidParams, missing));
  }

  function judgeHeaders(protocolVersion: string | string[] | undefined, repeated: string | undefined): HeaderVerdict {
    // Any revision spoken is accepted, not only the session's: the SDKs send their own latest before negotiating.
    const verdict = typeof protocolVersion === 'object' ? undefined : accepted.get(protocolVersion);
    if (verdict !== undefined && serves2025) return verdict;
    // Any other revision is the body's to judge: a claim naming it gets -32022 with what is served (MCP 2026-07-28 M2).
    if (typeof protocolVersion === 'string' && serves2026)
      return { ok: true, headerVersion: undefined, modernHeader: protocolVersion };
    if (protocolVersion === undefined) return NO_MCP_HEADERS;
    return unsupportedHeader(protocolVersion, repeated);
  }

  function legacy(message: JsonRpcMessage, headerVersion: ProtocolVersion | undefined): Classification {
    const kind = kindOf(message);
    return {
      ok: true,
      post: {
        kind,
        era: '2025',
        headerVersion,
        holdsRequests: kind === 'request' || kind === 'initialize',
        messages: message,
      },
    };
  }

  return {
    headers({ protocolVersion, repeated }) {
      const verdict = judgeHeaders(protocolVersion, repeated);
      // A repeated header is rare: only then is the verdict a new object rather than one made once.
      return repeated === undefined || !verdict.ok ? verdict : { ...verdict, repeated };
    },
    unreadable,
    body(body, verdict, headers) {
      if (!Array.isArray(body)) {
        const parsed = parseMessage(body);
        if (!parsed.ok) return refused(parsed.error);
        const { message } = parsed;
        if (!serves2026) return legacy(message, verdict.headerVersion);
        const raw = message as unknown as Record<string, unknown>;
        // A claim with a 2025 revision inside is refused -32022 like any revision not served, as the SDK does.
        if (
          'method' in message &&
          claimsModernEra(raw) &&
          !(kindOf(message) === 'initialize' && !validModernClaim(raw))
        )
          return modern(message, verdict, headers);
        return unclaimed(message, verdict, headers) ?? legacy(message, verdict.headerVersion);
      }
      if (!serves2025)
        return invalidRequest(
          'Invalid Request: JSON-RPC batches are not served here (MCP 2026-07-28 requests are single messages)',
        );
      // A batch is of the 2025 era: a header naming no revision served is refused as that era always refused it.
      const deferred = unreadable(verdict);
      if (deferred !== undefined) return deferred;
      if (body.length === 0) return invalidRequest('Invalid Request: an empty batch');
      if (body.length > limits.maxBatchLength)
        return invalidRequest(`Invalid Request: a batch holds at most ${limits.maxBatchLength} messages`);
      // MCP 2025-03-26 lifecycle: initialize MUST NOT be part of a batch.
      if (body.some(isInitializeRequest))
        return invalidRequest('Invalid Request: initialize must not be part of a batch');
      // MCP 2026-07-28 versioning: a modern request is a single message; a batch holding one is refused whole.
      if (
        serves2026 &&
        (verdict.modernHeader !== undefined || body.some((message) => isObject(message) && claimsModernEra(message)))
      ) {
        return invalidRequest('Invalid Request: a JSON-RPC batch cannot carry MCP 2026-07-28 requests');
      }
      const holdsRequests = body.some((message) => isObject(message) && 'method' in message && 'id' in message);
      return {
        ok: true,
        post: {
          kind: 'batch',
          era: '2025',
          headerVersion: verdict.headerVersion,
          holdsRequests,
          messages: body.map(parseMessage),
        },
      };
    },
  };
}

/** An `initialize` whose envelope is valid and names a 2026 revision is a modern request (then answered -32601); any other is the 2025 handshake. */
function validModernClaim(message: Record<string, unknown>): boolean {
  const envelope = readEnvelope(message.params);
  return !(envelope instanceof JsonRpcError) && isModernVersion(envelope.protocolVersion);
}
