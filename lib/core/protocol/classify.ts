// The request classifier: one POSTed body and its MCP headers in; era, revision, message kind and batch facts out, or a refusal.

import { failure, parseMessage } from '../jsonrpc/envelope';
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import { isObject, type JsonRpcMessage } from '../jsonrpc/types';
import { SESSION_ERA, servesSessions, servesStateless } from '../era-policy';
import {
  eraOf,
  isVersion2026,
  PROTOCOL_VERSIONS_2026,
  PROTOCOL_VERSIONS_2025,
  type Era,
  type ProtocolVersion,
} from '../versions';
import {
  NO_MCP_HEADERS,
  type Classification,
  type Classifier,
  type ClassifierLimits,
  type HeaderVerdict,
  type PostHeaders,
  type PostKind,
  type Refusal,
} from './classification';
import {
  invalidRequest,
  judgeClaim,
  methodHeaderFault,
  refused,
  refusedMessage,
  unsupportedVersion,
  isValidClaim2026,
} from './era-2026/classify-claim';
import { isInitializeRequest } from './methods/lifecycle-methods';
import { claimsEra2026 } from './era-2026/request-meta';
import {
  headerMismatch,
  PROTOCOL_VERSION_HEADER,
  quoted,
  repeatedHeaderFault,
  type RequestHeaders,
} from './era-2026/request-headers';

// The classification's types live in classification.ts; callers import them from here with the classifier.
export * from './classification';

/** What a message is, for the transport: `initialize`, another request, a notification, or a posted response. */
function kindOf(message: JsonRpcMessage): PostKind {
  if (!('method' in message)) return 'response';
  if (!('id' in message)) return 'notification';
  return message.method === 'initialize' ? 'initialize' : 'request';
}

/** A message of the 2025 era, as served: its kind, and the revision its header named. */
function sessionPost(message: JsonRpcMessage, headerVersion: ProtocolVersion | undefined): Classification {
  const kind = kindOf(message);
  const holdsRequests = kind === 'request' || kind === 'initialize';
  return { ok: true, post: { kind, era: SESSION_ERA, headerVersion, holdsRequests, messages: message } };
}

/** A notification served in `era` without a claim: accepted (and answered by nothing). */
function acceptedNotification(message: JsonRpcMessage, era: Era): Classification {
  return {
    ok: true,
    post: { kind: 'notification', era, headerVersion: undefined, holdsRequests: false, messages: message },
  };
}

/**
 * The classifier of one router (MCP 2026-07-28 versioning: the body decides, headers cross-check). The transport runs
 * it once per POST: `headers` first, then, after the body is read (and, for a 2025 request, the session named is
 * found), `body`, so every refusal keeps the precedence clients see. Pure: its verdicts depend on its inputs and on
 * the eras served, nothing else.
 *
 * A message whose `params._meta` holds `io.modelcontextprotocol/protocolVersion` claims the 2026 era and is served
 * statelessly, whatever session it names; `initialize`, batches, posted responses and messages without a claim are
 * of the 2025 era. What the body step refuses, whatever the session: a body that is not a JSON-RPC message (-32600,
 * the id echoed when readable); an empty batch, one longer than `maxBatchLength`, one holding `initialize` (MCP
 * 2025-03-26 lifecycle: -32600) or a 2026 message; a 2026 claim with a malformed envelope (-32602), headers
 * that disagree with it (-32020) or a revision not served (-32022); a 2026 header without a claim (-32602).
 * Whether the revision in force allows a batch at all depends on the session: the dispatcher decides that.
 */
class RequestClassifier implements Classifier {
  private readonly serves2025: boolean;
  private readonly serves2026: boolean;
  /** The era of a notification a 2026-only router accepts without a revision named: its newest. */
  private readonly newestEra = eraOf(PROTOCOL_VERSIONS_2026[0]);
  /** The verdicts that accept a 2025 header, made once: a request costs a lookup, not an object. */
  private readonly accepted: ReadonlyMap<string | undefined, HeaderVerdict>;
  /** Every revision this endpoint speaks, newest first: a client told only the 2025 ones would not try 2026-07-28. */
  private readonly served: readonly string[];

  constructor(private readonly limits: ClassifierLimits) {
    this.serves2025 = servesSessions(limits.eras);
    this.serves2026 = servesStateless(limits.eras);
    this.accepted = new Map(
      [undefined, ...PROTOCOL_VERSIONS_2025].map((headerVersion) => [
        headerVersion,
        Object.freeze({ ok: true, headerVersion, deferredHeader: undefined }),
      ]),
    );
    this.served = [
      ...(this.serves2026 ? PROTOCOL_VERSIONS_2026 : []),
      ...(this.serves2025 ? PROTOCOL_VERSIONS_2025 : []),
    ];
  }

  headers({ protocolVersion, repeated }: PostHeaders): HeaderVerdict {
    const verdict = this.judgeHeaders(protocolVersion, repeated);
    // A repeated header is rare: only then is the verdict a new object rather than one made once.
    return repeated === undefined || !verdict.ok ? verdict : { ...verdict, repeated };
  }

  /** A body that cannot be read, or a batch, carries no claim: a header deferred to it is judged as the 2025 path judged it. */
  unreadable(verdict: { deferredHeader: string | undefined; repeated?: string }): Refusal | undefined {
    const header = verdict.deferredHeader;
    return header !== undefined && this.serves2025 && !isVersion2026(header)
      ? this.unsupportedHeader(header, verdict.repeated)
      : undefined;
  }

  body(body: unknown, verdict: HeaderVerdict & { ok: true }, headers?: RequestHeaders): Classification {
    if (Array.isArray(body)) return this.batch(body, verdict);
    const parsed = parseMessage(body);
    if (!parsed.ok) return refused(parsed.error);
    const { message } = parsed;
    if (!this.serves2026) return sessionPost(message, verdict.headerVersion);
    const raw = message as unknown as Record<string, unknown>;
    // A claim with a 2025 revision inside is refused -32022 like any revision not served, as the SDK does.
    if ('method' in message && claimsEra2026(raw) && !(kindOf(message) === 'initialize' && !isValidClaim2026(raw)))
      return judgeClaim(message, verdict, headers);
    return this.unclaimed(message, verdict, headers) ?? sessionPost(message, verdict.headerVersion);
  }

  private judgeHeaders(protocolVersion: string | string[] | undefined, repeated: string | undefined): HeaderVerdict {
    // Any revision spoken is accepted, not only the session's: the SDKs send their own latest before negotiating.
    const verdict = typeof protocolVersion === 'object' ? undefined : this.accepted.get(protocolVersion);
    if (verdict !== undefined && this.serves2025) return verdict;
    // Any other revision is the body's to judge: a claim naming it gets -32022 with what is served (MCP 2026-07-28 M2).
    if (typeof protocolVersion === 'string' && this.serves2026)
      return { ok: true, headerVersion: undefined, deferredHeader: protocolVersion };
    if (protocolVersion === undefined) return NO_MCP_HEADERS;
    return this.unsupportedHeader(protocolVersion, repeated);
  }

  /**
   * MCP 2025-06-18 transports: an unsupported MCP-Protocol-Version is 400 (-32000, as the SDKs answer it); a repeated
   * one (Node joined its values) is said to be repeated.
   */
  private unsupportedHeader(protocolVersion: string | string[] | undefined, repeated: string | undefined): Refusal {
    const message =
      repeated?.toLowerCase() === PROTOCOL_VERSION_HEADER
        ? 'Bad Request: the MCP-Protocol-Version header is sent more than once; send it once'
        : `Bad Request: unsupported MCP-Protocol-Version '${String(protocolVersion)}'; supported: ${this.served.join(', ')}`;
    return refused(failure(null, new JsonRpcError(ErrorCode.ServerError, message)));
  }

  /** A single message without a valid 2026 claim, on a router that serves the 2026 era; undefined: a 2025 message. */
  private unclaimed(
    message: JsonRpcMessage,
    verdict: HeaderVerdict & { ok: true },
    headers: RequestHeaders | undefined,
  ): Classification | undefined {
    if (!this.serves2025) return this.unclaimedOn2026Only(message, verdict.deferredHeader);
    const header = verdict.deferredHeader;
    if (header === undefined) return undefined;
    // Without a claim, a header naming a revision not served is refused as the 2025 path always refused it.
    if (!isVersion2026(header)) return this.unsupportedHeader(header, verdict.repeated);
    const raw = message as unknown as Record<string, unknown>;
    const kind = kindOf(message);
    // MCP 2026-07-28 versioning: initialize is the 2025 handshake; under a 2026 header the two disagree.
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
    if (verdict.repeated !== undefined) return refusedMessage(raw, repeatedHeaderFault(verdict.repeated));
    if (kind === 'notification')
      return (
        methodHeaderFault(raw, (message as { method: string }).method, headers) ??
        acceptedNotification(message, eraOf(header))
      );
    // MCP 2026-07-28 (per-request metadata): a 2026 request without its envelope is 400 -32602.
    const missing = `Invalid params: the MCP-Protocol-Version header names ${quoted(header)}, but params._meta lacks "io.modelcontextprotocol/protocolVersion" and "io.modelcontextprotocol/clientCapabilities"`;
    return refusedMessage(raw, new JsonRpcError(ErrorCode.InvalidParams, missing));
  }

  /** 2026 only: notifications are accepted and dropped; initialize and requests name no revision served. */
  private unclaimedOn2026Only(message: JsonRpcMessage, header: string | undefined): Classification {
    const raw = message as unknown as Record<string, unknown>;
    const kind = kindOf(message);
    if (kind === 'notification') return acceptedNotification(message, this.newestEra);
    if (kind === 'response')
      return refusedMessage(
        raw,
        new JsonRpcError(
          ErrorCode.InvalidRequest,
          'Invalid Request: JSON-RPC responses cannot be posted to this endpoint (it serves MCP 2026-07-28 only)',
        ),
      );
    // A 2026-only server names its revisions in the error to initialize (MCP 2026-07-28 versioning, SHOULD).
    return unsupportedVersion(raw, kind === 'initialize' && isObject(raw.params) ? raw.params.protocolVersion : header);
  }

  /** A batch: of the 2025 era, within its limits, holding neither initialize nor a 2026 message. */
  private batch(body: unknown[], verdict: HeaderVerdict & { ok: true }): Classification {
    if (!this.serves2025)
      return invalidRequest(
        'Invalid Request: JSON-RPC batches are not served here (MCP 2026-07-28 requests are single messages)',
      );
    // A batch is of the 2025 era: a header naming no revision served is refused as that era always refused it.
    const deferred = this.unreadable(verdict);
    if (deferred !== undefined) return deferred;
    if (body.length === 0) return invalidRequest('Invalid Request: an empty batch');
    if (body.length > this.limits.maxBatchLength)
      return invalidRequest(`Invalid Request: a batch holds at most ${this.limits.maxBatchLength} messages`);
    // MCP 2025-03-26 lifecycle: initialize MUST NOT be part of a batch.
    if (body.some(isInitializeRequest))
      return invalidRequest('Invalid Request: initialize must not be part of a batch');
    // MCP 2026-07-28 versioning: a 2026 request is a single message; a batch holding one is refused whole.
    if (
      this.serves2026 &&
      (verdict.deferredHeader !== undefined || body.some((message) => isObject(message) && claimsEra2026(message)))
    )
      return invalidRequest('Invalid Request: a JSON-RPC batch cannot carry MCP 2026-07-28 requests');
    const holdsRequests = body.some((message) => isObject(message) && 'method' in message && 'id' in message);
    return {
      ok: true,
      post: {
        kind: 'batch',
        era: SESSION_ERA,
        headerVersion: verdict.headerVersion,
        holdsRequests,
        messages: body.map(parseMessage),
      },
    };
  }
}

/**
 * Creates the classifier of one router (see {@link RequestClassifier}).
 *
 * @example
 * ```ts
 * const classifier = createClassifier({ maxBatchLength: 100, eras: ['2025', '2026'] });
 * const verdict = classifier.headers({ protocolVersion: '2025-11-25' }); // { ok: true, headerVersion: '2025-11-25', deferredHeader: undefined }
 * if (verdict.ok) classifier.body({ jsonrpc: '2.0', id: 1, method: 'ping' }, verdict);
 * // { ok: true, post: { kind: 'request', era: '2025', headerVersion: '2025-11-25', holdsRequests: true, messages: { … } } }
 * ```
 */
export function createClassifier(limits: ClassifierLimits): Classifier {
  return new RequestClassifier(limits);
}
