// The router's own JSON body reader: Content-Type, size limit, UTF-8, nesting depth — or a body the host app already parsed; a bounded prefix for refusals.

import { parse as parseContentType } from 'content-type';
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { ErrorCode } from '../../core/jsonrpc/errors';
import { repeatedHeader } from './repeated-headers';
import { bodyDigestRefusal } from './body-digest';

/** A body read as JSON, or the HTTP error to answer with. */
export type BodyResult =
  | { readonly ok: true; readonly value: unknown }
  | {
      readonly ok: false;
      readonly status: number;
      readonly code: number;
      readonly message: string;
      readonly headers?: Record<string, string>;
    };

/** JSON nested deeper than this is refused before parsing: no message needs it, and deep values exhaust stacks later. */
export const MAX_JSON_DEPTH = 128;

/** What body-parser (`express.json()`) leaves on a request it parsed. */
type MaybeParsed = IncomingMessage & { body?: unknown; _body?: boolean };

function refuse(status: number, code: number, message: string): BodyResult {
  return { ok: false, status, code, message };
}

const PARSE_ERROR = (why: string): BodyResult => refuse(400, ErrorCode.ParseError, `Parse error: ${why}`);

/** MCP transports: the client POSTs `Content-Type: application/json` (UTF-8, JSON-RPC messages are UTF-8). */
function checkContentType(header: string | undefined): BodyResult | undefined {
  // RFC 9110 §8.3 media types (quoted parameters, case, whitespace) parsed by `content-type`, body-parser's parser.
  const { type, parameters } = parseContentType(header ?? '');
  if (type !== 'application/json') {
    return refuse(
      415,
      ErrorCode.ServerError,
      `Unsupported Media Type: send Content-Type: application/json (got ${header ? `'${header}'` : 'none'})`,
    );
  }
  const charset = parameters.charset?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    return refuse(
      415,
      ErrorCode.ServerError,
      `Unsupported Media Type: JSON-RPC messages are UTF-8 (got charset=${charset})`,
    );
  }
  return undefined;
}

/** Whether a header name, in any case, is `Content-Type` (no string is made for the others). */
function isContentTypeName(name: string): boolean {
  return name.length === 12 && name.toLowerCase() === 'content-type';
}

/**
 * The body is read as it comes: a coded one (gzip…) would be refused as bad UTF-8 or, worse, read as if plain. RFC 9110
 * §8.4.1: a content coding the server does not accept gets 415. (A body a parser before the router decoded is used.)
 */
function checkContentEncoding(header: string | undefined): BodyResult | undefined {
  if (header === undefined || onlyCoding(header, 'identity')) return undefined;
  return refuse(
    415,
    ErrorCode.ServerError,
    `Unsupported Media Type: send the body without Content-Encoding (got '${clippedForMessage(header)}')`,
  );
}

/**
 * Node undoes `chunked` framing only: a body sent with another transfer coding (`gzip, chunked`) arrives still coded.
 * RFC 9112 §6.1: a transfer coding the server does not understand gets 501.
 */
function checkTransferEncoding(header: string | undefined): BodyResult | undefined {
  if (header === undefined || onlyCoding(header, 'chunked')) return undefined;
  return refuse(
    501,
    ErrorCode.ServerError,
    `Not Implemented: send the body plain or chunked, without another Transfer-Encoding (got '${clippedForMessage(header)}')`,
  );
}

/**
 * Whether a list of codings (Node joins repeated lines into one) names `coding` alone, in any case: empty members are
 * ignored (RFC 9110 §5.6.1), as Node's parser ignores them.
 */
function onlyCoding(header: string, coding: 'identity' | 'chunked'): boolean {
  return header.split(',').every((member) => {
    const name = member.trim();
    return name === '' || name.toLowerCase() === coding;
  });
}

/** A header's value as an error quotes it: at most 80 characters. */
function clippedForMessage(value: string): string {
  return value.length > 80 ? `${value.slice(0, 80)}…` : value;
}

/** True when a JSON text opens more than `MAX_JSON_DEPTH` arrays/objects at once (strings are skipped). */
function tooDeepText(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** The same check for a value some other middleware already parsed. */
function tooDeepValue(root: unknown): boolean {
  const stack: Array<[unknown, number]> = [[root, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop() as [unknown, number];
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_JSON_DEPTH) return true;
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
  return false;
}

function parseText(bytes: Buffer): BodyResult {
  // isUtf8 checks in place; a fatal TextDecoder per request cost more than the JSON.parse after it.
  if (!isUtf8(bytes)) return PARSE_ERROR('the body is not valid UTF-8');
  // A byte-order mark is dropped, as TextDecoder (and so fetch's res.json()) drops it.
  const hasBom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const text = bytes.toString('utf8', hasBom ? 3 : 0);
  // Depth can only exceed the limit in a text longer than the limit: short bodies skip the scan.
  if (text.length > MAX_JSON_DEPTH && tooDeepText(text))
    return PARSE_ERROR(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    // Only a failed parse needs to know why: an empty body gets its own message.
    return PARSE_ERROR(
      text.trim() === '' ? 'the body is empty; send one JSON-RPC message' : 'the body is not valid JSON',
    );
  }
}

/**
 * The request's bytes, up to `limit` (413 beyond, the rest drained unkept): the one reader of request streams, for
 * JSON-RPC bodies and the sign-in endpoints' forms.
 */
export function readBodyBytes(
  req: IncomingMessage,
  limit: number,
): Promise<Buffer | Extract<BodyResult, { ok: false }>> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: Buffer | Extract<BodyResult, { ok: false }>): void => {
      req.removeListener('data', onData).removeListener('end', onEnd).removeListener('error', onError);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        finish({
          ok: false,
          status: 413,
          code: ErrorCode.ServerError,
          message: `Payload Too Large: the body exceeds ${limit} bytes`,
        });
        req.resume(); // drain what is still coming, without keeping it
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => finish(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    const onError = (): void =>
      finish({
        ok: false,
        status: 400,
        code: ErrorCode.ParseError,
        message: 'Parse error: the request body could not be read',
      });
    req.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

async function readStream(req: IncomingMessage, limit: number): Promise<BodyResult> {
  const bytes = await readBodyBytes(req, limit);
  if (!Buffer.isBuffer(bytes)) return bytes;
  const digestRefusal = bodyDigestRefusal(req, bytes);
  return digestRefusal === undefined ? parseText(bytes) : { ok: false, ...digestRefusal };
}

/**
 * Reads the POST body as JSON. When the host app ran `express.json()` (or another parser) first, the
 * parsed `req.body` is used, since the stream is already spent.
 *
 * @param limit - largest body in bytes (HTTP 413 beyond)
 */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  // Node keeps the first of two Content-Type lines; a proxy that reads the last would judge another body than ours.
  // (Requests made in process, without raw lines, have nothing to compare.)
  if (req.rawHeaders !== undefined && repeatedHeader(req.rawHeaders, isContentTypeName) !== undefined)
    return refuse(400, ErrorCode.ServerError, 'Bad Request: Content-Type was sent more than once');
  const contentTypeError = checkContentType(req.headers['content-type']);
  if (contentTypeError) return contentTypeError;
  const consumed = consumedBody(req);
  if (consumed !== undefined) {
    const { body } = consumed;
    // A DPoP proof's content_digest is checked on the bytes: a raw body the host kept can be, a parsed one cannot.
    const bytes = typeof body === 'string' || Buffer.isBuffer(body) ? Buffer.from(body) : undefined;
    const digestRefusal = bodyDigestRefusal(req, bytes);
    if (digestRefusal !== undefined) return { ok: false, ...digestRefusal };
    if (bytes !== undefined) return parseText(bytes);
    if (body === undefined)
      return refuse(
        500,
        ErrorCode.InternalError,
        'Internal error: another middleware consumed the request body without parsing it',
      );
    return tooDeepValue(body)
      ? PARSE_ERROR(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`)
      : { ok: true, value: body };
  }
  if (declaredOver(req, limit))
    return refuse(413, ErrorCode.ServerError, `Payload Too Large: the body exceeds ${limit} bytes`);
  const encodingError =
    checkTransferEncoding(req.headers['transfer-encoding']) ?? checkContentEncoding(req.headers['content-encoding']);
  if (encodingError) return encodingError;
  return readStream(req, limit);
}

/** What a middleware before the router (`express.json()`, …) left of a body it already read: the stream is spent. */
export function consumedBody(req: IncomingMessage): { readonly body: unknown } | undefined {
  const parsed = req as MaybeParsed;
  return parsed._body === true || req.readableEnded ? { body: parsed.body } : undefined;
}

/** True when `Content-Length` says the body is larger than `limit`: it need not be read to be refused. */
export function declaredOver(req: IncomingMessage, limit: number): boolean {
  return Number(req.headers['content-length']) > limit;
}

/** The start of a body, for a refusal that only glances at it. */
export type BodyPrefix =
  /** The host app parsed the body already (`express.json()` before the router). */
  | { readonly kind: 'parsed'; readonly value: unknown }
  /** At most the first `bytes` of the body, as UTF-8 (a character cut at the end is replaced). */
  | { readonly kind: 'text'; readonly text: string }
  /** Not read: not JSON, or declared larger than the limit (then `close`, as its 413 would). */
  | { readonly kind: 'unread'; readonly close: boolean };

/**
 * Reads at most the first `bytes` of a JSON body, for an answer that refuses the request (a 429): the rest is
 * neither kept nor parsed, so the refusal costs less than the work it refuses. Node reads the rest off the
 * connection and drops it, and the connection serves its next request: closing it instead would cut off a client
 * still sending, which then sees a reset (EPIPE in Node's http client), not the refusal. A body declared larger
 * than `limit` is not read at all.
 *
 * @param bytes - how much to read at most (whatever the first chunk holds beyond it is ignored)
 * @param limit - the body limit of the router
 */
export function readBodyPrefix(req: IncomingMessage, bytes: number, limit: number): Promise<BodyPrefix> {
  if (checkContentType(req.headers['content-type']) !== undefined)
    return Promise.resolve({ kind: 'unread', close: false });
  const consumed = consumedBody(req);
  if (consumed !== undefined) {
    const { body } = consumed;
    if (typeof body === 'string') return Promise.resolve({ kind: 'text', text: body.slice(0, bytes) });
    if (Buffer.isBuffer(body)) return Promise.resolve({ kind: 'text', text: body.toString('utf8', 0, bytes) });
    return Promise.resolve({ kind: 'parsed', value: body });
  }
  if (declaredOver(req, limit)) return Promise.resolve({ kind: 'unread', close: true });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (): void => {
      req
        .removeListener('data', onData)
        .removeListener('end', finish)
        .removeListener('error', finish)
        .removeListener('close', finish);
      // Flowing with no listener: what still comes is dropped as it arrives.
      req.resume();
      // Buffer.concat stops at its length: at most `bytes` are copied, however large the chunks were.
      resolve({ kind: 'text', text: Buffer.concat(chunks, Math.min(size, bytes)).toString('utf8') });
    };
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= bytes) finish();
    };
    req.on('data', onData).on('end', finish).on('error', finish).on('close', finish);
  });
}
