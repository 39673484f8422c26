// Captured HTTP response → CallToolResult (2xx → text/structuredContent, 3xx and ≥400 → isError: true).

import { isUtf8 } from 'node:buffer';
import { audioContent, embeddedResource, imageContent, textContent } from '../../core/registry/content';
import { errorResult, jsonResult, toCallToolResult, type CallToolResult } from '../../core/registry/tools';
import type { CompiledSchema } from '../../core/schema/validator';
import type { CapturedResponse } from '../../edge/host-routes/in-process';

/** Options of {@link toToolResult}. */
export interface ToToolResultOptions {
  /** The tool's compiled outputSchema: a 2xx result must then carry a JSON object that passes it. */
  validateOutput?: CompiledSchema;
  /** The tool's name, for messages. */
  toolName?: string;
  /** True when the tool's output schema is not an object schema: a JSON or text body is sent as `{ result: body }`. */
  wrapResult?: boolean;
}

/** Error bodies longer than this (in UTF-8 bytes) are cut, so one bad response cannot flood the model's context. */
export const MAX_ERROR_BODY_BYTES = 8 * 1024;

/** Where a binary 2xx body is embedded: it has no resource URI of its own. */
export const RESPONSE_BODY_URI = 'http-response://body';

// The phrases Node's http.STATUS_CODES uses (and Express sends); a value import of node:http is off-limits here.
const REASONS: Readonly<Record<number, string>> = Object.freeze({
  300: 'Multiple Choices',
  301: 'Moved Permanently',
  302: 'Found',
  303: 'See Other',
  304: 'Not Modified',
  305: 'Use Proxy',
  307: 'Temporary Redirect',
  308: 'Permanent Redirect',
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  407: 'Proxy Authentication Required',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  411: 'Length Required',
  412: 'Precondition Failed',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  416: 'Range Not Satisfiable',
  417: 'Expectation Failed',
  418: "I'm a Teapot",
  421: 'Misdirected Request',
  422: 'Unprocessable Entity',
  423: 'Locked',
  424: 'Failed Dependency',
  425: 'Too Early',
  426: 'Upgrade Required',
  428: 'Precondition Required',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  451: 'Unavailable For Legal Reasons',
});

/** `application/xml`, `text/*`, … : bodies a model can read as text although they are not JSON. */
const TEXTUAL =
  /^(text\/.+|application\/(xml|[^/]+\+xml|javascript|ecmascript|x-www-form-urlencoded|yaml|x-yaml|graphql))$/;
const JSON_TYPE = /^application\/(json|[^/]+\+json)$/;

interface MediaType {
  readonly type: string | undefined;
  readonly charset: string | undefined;
}

/**
 * Turns what a bridged route sent into a tool result. 2xx JSON becomes its JSON as text plus `structuredContent`:
 * an object as is, any other value (or any value, with `wrapResult`) as `{ result: value }`. Text becomes a text
 * block (plus `{ result: text }` with `wrapResult`); images, audio and other bytes become the matching block.
 * 3xx and 4xx become `isError` results a model can act on (4xx with the body, cut after 8 KB); 5xx become
 * `isError` results that say nothing of the server's internals.
 *
 * @param response - the captured status, headers and body
 * @param options - `validateOutput` (the tool's compiled outputSchema), `toolName` for messages, and `wrapResult`
 * @returns the result to send for `tools/call`
 * @example
 * ```ts
 * toToolResult({ status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from('{"id":7}') });
 * // → { content: [{ type: 'text', text: '{"id":7}' }], structuredContent: { id: 7 } }
 * toToolResult({ status: 404, headers: {}, body: Buffer.from('No user 7') });
 * // → { content: [{ type: 'text', text: 'HTTP 404 Not Found: No user 7' }], isError: true }
 * ```
 */
export function toToolResult(response: CapturedResponse, options: ToToolResultOptions = {}): CallToolResult {
  const { status, headers, body } = response;
  if (!Number.isInteger(status) || status < 200 || status > 599)
    return errorResult(`HTTP ${status}: unexpected response status`);
  // 5xx: the body may hold a stack trace or internal detail; the model only needs to know the call failed.
  if (status >= 500) return errorResult(`HTTP ${status}: the operation failed on the server`);
  const media = mediaTypeOf(headers);
  if (status >= 400) {
    const detail = errorBodyText(body, media);
    return errorResult(detail === '' ? statusLine(status) : `${statusLine(status)}: ${detail}`);
  }
  if (status >= 300) {
    const location = headerOf(headers, 'location');
    if (location === undefined)
      return errorResult(`${statusLine(status)} (no Location header; redirects are not followed)`);
    return errorResult(`${statusLine(status)}: redirects to ${location} (redirects are not followed)`);
  }
  const { result, notObject } = successResult(status, body, media, options.wrapResult === true);
  const { validateOutput, toolName } = options;
  if (validateOutput === undefined) return result;
  const who = toolName === undefined ? 'The tool' : `Tool '${toolName}'`;
  // MCP 2025-06-18 tools › Output Schema: with an outputSchema, structured results MUST conform to it.
  if (result.structuredContent === undefined) {
    return errorResult(
      `${who} returned output that does not match its outputSchema: ${notObject ?? 'no structured result'}`,
    );
  }
  const checked = validateOutput(result.structuredContent);
  return checked.ok
    ? result
    : errorResult(`${who} returned output that does not match its outputSchema: ${checked.message}`);
}

/** A 2xx body as content; `notObject` says why there is no `structuredContent`, when there is none. */
function successResult(
  status: number,
  body: Buffer,
  media: MediaType,
  wrap: boolean,
): { result: CallToolResult; notObject?: string } {
  if (status === 204 || body.length === 0) {
    return {
      result: { content: [textContent(`Done (HTTP ${status}, no content)`)] },
      notObject: 'the response has no body',
    };
  }
  const { type } = media;
  if (type !== undefined && JSON_TYPE.test(type)) {
    const text = decode(body, media.charset);
    const parsed = parseJson(text);
    if (!parsed.ok)
      return { result: { content: [textContent(text)] }, notObject: 'the response body is not valid JSON' };
    // MCP: structuredContent is an object; any other JSON body travels as { result: body }, as plain tools' values do.
    return { result: jsonResult(parsed.value, wrap) };
  }
  const notObject = `the response is ${type ?? 'untyped'}, not JSON`;
  // Text stays text, unless the tool's output schema is not an object schema: it then describes this text too.
  if (isText(body, media)) return { result: toCallToolResult(decode(body, media.charset), wrap), notObject };
  if (type?.startsWith('image/')) return { result: { content: [imageContent(body, type)] }, notObject };
  if (type?.startsWith('audio/')) return { result: { content: [audioContent(body, type)] }, notObject };
  const blob = embeddedResource({ uri: RESPONSE_BODY_URI, mimeType: type ?? 'application/octet-stream', blob: body });
  return { result: { content: [blob] }, notObject };
}

/** A 4xx body as text for the model: compact JSON, the text itself, or a note about binary data. */
function errorBodyText(body: Buffer, media: MediaType): string {
  if (body.length === 0) return '';
  const isJson = media.type !== undefined && JSON_TYPE.test(media.type);
  if (!isJson && !isText(body, media)) return `(${body.length} bytes of ${media.type ?? 'binary data'})`;
  const text = decode(body, media.charset);
  const parsed = isJson ? parseJson(text) : { ok: false as const };
  // Structured error bodies (RFC 9457 problem details, validation errors) go out as compact JSON.
  return truncate(parsed.ok ? JSON.stringify(parsed.value) : text.trim());
}

function isText(body: Buffer, media: MediaType): boolean {
  // No Content-Type: text when the bytes are valid UTF-8 (what Express's res.send(string) would have produced).
  return media.type === undefined ? isUtf8(body) : TEXTUAL.test(media.type);
}

function statusLine(status: number): string {
  const reason = REASONS[status];
  return reason === undefined ? `HTTP ${status}` : `HTTP ${status} ${reason}`;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** Decodes in the declared charset (UTF-8 when none or unknown); a leading byte-order mark is dropped. */
function decode(body: Buffer, charset: string | undefined): string {
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
    try {
      return new TextDecoder(charset).decode(body);
    } catch {
      // An unknown label: fall through to UTF-8, which most servers mean anyway.
    }
  }
  return new TextDecoder('utf-8').decode(body);
}

/** Cuts text to {@link MAX_ERROR_BODY_BYTES} UTF-8 bytes, on a character boundary, and says so. */
function truncate(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= MAX_ERROR_BODY_BYTES) return text;
  let end = MAX_ERROR_BODY_BYTES;
  // 0b10xxxxxx is a continuation byte: back off to the start of the character it belongs to.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return `${bytes.subarray(0, end).toString('utf8')}… (truncated: ${bytes.length} bytes in all)`;
}

function headerOf(headers: CapturedResponse['headers'], name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    const first = Array.isArray(value) ? value[0] : value;
    return first === undefined ? undefined : String(first);
  }
  return undefined;
}

/** `Application/JSON; charset="UTF-8"` → `{ type: 'application/json', charset: 'UTF-8' }`. */
function mediaTypeOf(headers: CapturedResponse['headers']): MediaType {
  const [essence = '', ...parameters] = (headerOf(headers, 'content-type') ?? '').split(';');
  const type = essence.trim().toLowerCase();
  let charset: string | undefined;
  for (const parameter of parameters) {
    const match = /^\s*charset\s*=\s*"?([^"\s]+)"?\s*$/i.exec(parameter);
    if (match) charset = match[1];
  }
  return { type: type === '' ? undefined : type, charset };
}
