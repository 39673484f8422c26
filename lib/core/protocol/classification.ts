// What the request classifier tells: the header verdict, the classified POST (era, revision, kind, messages) or a refusal.

import type { ParsedMessage } from '../jsonrpc/envelope';
import type { JsonRpcFailure, JsonRpcMessage } from '../jsonrpc/types';
import type { Era, ProtocolVersion } from '../versions';
import type { RequestEnvelope } from './era-2026/request-meta';
import type { RequestHeaders } from './era-2026/request-headers';

/** The MCP header values a POST is classified by, read by the transport (whose names live in `edge/http/mcp-headers.ts`). */
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
  /** The client state a 2026 request carries in its `_meta` (undefined in the 2025 era, and for a 2026 notification without one). */
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
       * can tell whether it is a 2026 request, so no 2025 session is looked up for it.
       */
      readonly deferredHeader: string | undefined;
      /** An MCP header sent more than once ({@link PostHeaders.repeated}): a 2026 request is refused for it. */
      readonly repeated?: string;
    }
  | Refusal;

/** The verdict on a POST without MCP headers (for callers without HTTP). */
export const NO_MCP_HEADERS = Object.freeze({ ok: true, headerVersion: undefined, deferredHeader: undefined } as const);

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
   * @param headers - the HTTP request's headers, which a 2026 request's must agree with (SEP-2243); undefined for
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
