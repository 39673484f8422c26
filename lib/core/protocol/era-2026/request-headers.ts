// The MCP 2026-07-28 request headers (SEP-2243): their names, the `=?base64?…?=` value encoding, and the checks of a 2026 request's headers against its body.

import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors';
import { isObject } from '../../jsonrpc/types';
import type { HeaderParam } from '../../registry/header-params';

/** A request's headers as Node holds them: names lowercased, duplicates of most headers joined with ", ". */
export type RequestHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** Request header naming the protocol revision (MCP 2025-06-18 and later). */
export const PROTOCOL_VERSION_HEADER = 'mcp-protocol-version';
/** The method of a 2026 request, mirrored from its body. */
export const METHOD_HEADER = 'mcp-method';
/** The `params.name` or `params.uri` of a 2026 `tools/call`, `prompts/get` or `resources/read`. */
export const NAME_HEADER = 'mcp-name';

/**
 * The body field `Mcp-Name` mirrors, by method (MCP 2026-07-28 transports › Standard Request Headers): checked here,
 * written by the gateway's upstream client.
 */
// SEP-2663 Streamable HTTP: Routing Headers: tasks/get, tasks/update and tasks/cancel mirror params.taskId.
export const NAME_SOURCE: Readonly<Record<string, 'name' | 'uri' | 'taskId'>> = Object.freeze({
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
});

const BASE64_PREFIX = '=?base64?';
const BASE64_SUFFIX = '?=';
/** Canonical RFC 4648 Base64, padding required: the SEP-2243 test cases refuse bad padding and non-alphabet characters. */
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** RFC 9110 §5.5 field value characters: visible ASCII, space and tab. */
const FIELD_VALUE = /^[\x20-\x7e\t]*$/;
/** A decimal number, so that `0x1a`, `1e3` or ` 42` never pass as 26, 1000 or 42. */
const DECIMAL = /^-?\d+(?:\.\d+)?$/;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

function isOws(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

function hasEdgeWhitespace(text: string): boolean {
  return text.length > 0 && (isOws(text.charCodeAt(0)) || isOws(text.charCodeAt(text.length - 1)));
}

/**
 * A header's value with RFC 9110 optional whitespace stripped; undefined when absent. Node already strips it and
 * joins repeated headers with ", " (a repeated header then disagrees with the body, as it should).
 */
export function headerText(headers: RequestHeaders, name: string): string | undefined {
  const value = headers[name];
  if (value === undefined) return undefined;
  const text = typeof value === 'string' ? value : value.join(', ');
  // Node has stripped it already: the regular expression runs only for a host that did not.
  return hasEdgeWhitespace(text) ? text.replace(/^[ \t]+|[ \t]+$/g, '') : text;
}

/** Whether a value has the `=?base64?…?=` form (the markers are case-sensitive). */
function isWrapped(value: string): boolean {
  return (
    value.length >= BASE64_PREFIX.length + BASE64_SUFFIX.length &&
    value.startsWith(BASE64_PREFIX) &&
    value.endsWith(BASE64_SUFFIX)
  );
}

/**
 * An `Mcp-Name` or `Mcp-Param-*` value as the client meant it: a value wrapped in `=?base64?…?=` (markers
 * case-sensitive) is the UTF-8 its canonical Base64 encodes; any other is literal. Undefined when it cannot be what a
 * client sent: a wrapped value that is not canonical Base64 or not UTF-8, or a literal with characters outside
 * visible ASCII, space and tab (MCP 2026-07-28 transports › Value Encoding: servers MUST reject those).
 *
 * @example
 * ```ts
 * decodeHeaderValue('=?base64?SGVsbG8=?='); // 'Hello'
 * decodeHeaderValue('=?base64?SGVsbG8?=');  // undefined (bad padding)
 * decodeHeaderValue('us-west1');            // 'us-west1'
 * ```
 */
export function decodeHeaderValue(value: string): string | undefined {
  if (isWrapped(value)) {
    const encoded = value.slice(BASE64_PREFIX.length, value.length - BASE64_SUFFIX.length);
    if (!CANONICAL_BASE64.test(encoded)) return undefined;
    try {
      return UTF8.decode(Buffer.from(encoded, 'base64'));
    } catch {
      return undefined;
    }
  }
  return FIELD_VALUE.test(value) ? value : undefined;
}

/** RFC 9110 §5.5 visible ASCII and space, with no whitespace at either end: sent as is. */
const PLAIN_HEADER_VALUE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/**
 * An `Mcp-Name` value as MCP 2026-07-28 transports › Value Encoding asks: plain visible ASCII as is, anything else
 * (non-ASCII, control characters, edge whitespace, empty) as `=?base64?<UTF-8 in Base64>?=`. A plain value that
 * itself looks like the wrapped form is wrapped too, so the server never decodes what was meant literally.
 */
export function encodeHeaderValue(value: string): string {
  if (PLAIN_HEADER_VALUE.test(value) && !isWrapped(value)) return value;
  return `${BASE64_PREFIX}${Buffer.from(value, 'utf8').toString('base64')}${BASE64_SUFFIX}`;
}

/** Longest value quoted in an error message: a header may be 16 KiB and a body value megabytes. */
const QUOTED_LENGTH = 80;

/** A header or body value as error messages quote it: JSON, cut short. */
export function quoted(value: string | number | boolean): string {
  if (typeof value !== 'string') return String(value);
  return JSON.stringify(value.length > QUOTED_LENGTH ? `${value.slice(0, QUOTED_LENGTH)}…` : value);
}

/** MCP 2026-07-28 transports › Server Validation: 400 with -32020 (HeaderMismatch); `data.header` names the header at fault. */
export function headerMismatch(header: string, text: string): JsonRpcError {
  return new JsonRpcError(ErrorCode.HeaderMismatch, `Bad Request: ${text}`, { header });
}

/** The lower-case prefix of the headers that mirror a tool's arguments (SEP-2243 `Mcp-Param-{Name}`). */
const PARAM_PREFIX = 'mcp-param-';

/** Names of the headers a 2026 request mirrors its body in, as the spec spells them (for errors naming one). */
const SPELLED: Readonly<Record<string, string>> = Object.freeze({
  [PROTOCOL_VERSION_HEADER]: 'MCP-Protocol-Version',
  [METHOD_HEADER]: 'Mcp-Method',
  [NAME_HEADER]: 'Mcp-Name',
});

/**
 * A 2026 request that sends one of its MCP headers more than once: 400 -32020 naming it. Node joins the values
 * with ", ", so `Mcp-Param-Region: eu` + `Mcp-Param-Region: us` would otherwise match an argument "eu, us" while a
 * load balancer routing on the first value routes to "eu" (MCP 2026-07-28 transports › Server Validation: the
 * headers must say what the body says, and a repeated one says two things).
 *
 * @param name - the header's name as sent
 */
export function repeatedHeaderFault(name: string): JsonRpcError {
  const lower = name.toLowerCase();
  const header = Object.hasOwn(SPELLED, lower)
    ? (SPELLED[lower] as string)
    : lower.startsWith(PARAM_PREFIX)
      ? `Mcp-Param-${name.slice(PARAM_PREFIX.length)}`
      : name;
  return headerMismatch(header, `the ${header} header is sent more than once; send it once`);
}

/**
 * The standard headers a 2026 request must carry, checked against its body (MCP 2026-07-28 transports › Standard
 * Request Headers, Server Validation): `MCP-Protocol-Version` and `Mcp-Method` on every request, and `Mcp-Name`
 * matching `params.name` (`tools/call`, `prompts/get`) or `params.uri` (`resources/read`) when the body has it.
 * The values are compared with the body elsewhere for the first two (the classifier, before the revision is judged).
 *
 * @returns the -32020 error to answer with, or undefined when the headers agree with the body
 */
export function standardHeaderFault(
  method: string,
  params: unknown,
  headers: RequestHeaders,
): JsonRpcError | undefined {
  if (headerText(headers, PROTOCOL_VERSION_HEADER) === undefined) {
    return headerMismatch(
      'MCP-Protocol-Version',
      'the MCP-Protocol-Version header is required on an MCP 2026-07-28 request',
    );
  }
  if (headerText(headers, METHOD_HEADER) === undefined) {
    return headerMismatch(
      'Mcp-Method',
      `the Mcp-Method header is required on an MCP 2026-07-28 request (the body's method is ${quoted(method)})`,
    );
  }
  const source = Object.hasOwn(NAME_SOURCE, method) ? NAME_SOURCE[method] : undefined;
  const expected = source !== undefined && isObject(params) ? params[source] : undefined;
  if (typeof expected !== 'string') return undefined;
  const sent = headerText(headers, NAME_HEADER);
  if (sent === undefined)
    return headerMismatch(
      'Mcp-Name',
      `the Mcp-Name header is required on ${method}: it mirrors params.${source as string}`,
    );
  const decoded = decodeHeaderValue(sent);
  if (decoded === undefined)
    return headerMismatch(
      'Mcp-Name',
      'the Mcp-Name header is not a valid header value: use =?base64?…?= with canonical Base64 for other characters',
    );
  if (decoded !== expected)
    return headerMismatch(
      'Mcp-Name',
      `the Mcp-Name header names ${quoted(decoded)} but params.${source as string} is ${quoted(expected)}`,
    );
  return undefined;
}

function valueAt(args: Readonly<Record<string, unknown>>, path: readonly string[]): unknown {
  let value: unknown = args;
  for (const key of path) {
    if (!isObject(value) || !Object.hasOwn(value, key)) return undefined;
    value = value[key];
  }
  return value;
}

/** Whether a body value is of its declared type: else no header is expected (null, absent) or validation refuses it (-32602). */
function hasDeclaredType(param: HeaderParam, value: unknown): value is string | number | boolean {
  if (param.type === 'integer') return Number.isInteger(value);
  return typeof value === param.type;
}

/** Whether a decoded header value says what the body's value says: integers compare as numbers (`42.0` is 42). */
function agrees(text: string, value: string | number | boolean): boolean {
  if (typeof value === 'number') return DECIMAL.test(text) && Number(text) === value;
  return text === String(value);
}

/**
 * The `Mcp-Param-{Name}` headers of a 2026 `tools/call`, checked against its arguments (MCP 2026-07-28 transports ›
 * Server Behavior for Custom Headers): each argument the body holds (not null) must come with its header, decoding
 * to the same value. A body value of the wrong type is left to argument validation (-32602).
 *
 * @returns the -32020 error to answer with, or undefined when every header agrees
 */
export function paramHeaderFault(
  params: readonly HeaderParam[],
  args: Readonly<Record<string, unknown>>,
  headers: RequestHeaders,
): JsonRpcError | undefined {
  for (const param of params) {
    const value = valueAt(args, param.path);
    if (!hasDeclaredType(param, value)) continue;
    const name = param.path.join('.');
    const sent = headerText(headers, param.key);
    if (sent === undefined)
      return headerMismatch(param.header, `the ${param.header} header is required: it mirrors argument '${name}'`);
    const decoded = decodeHeaderValue(sent);
    if (decoded === undefined)
      return headerMismatch(
        param.header,
        `the ${param.header} header is not a valid header value: use =?base64?…?= with canonical Base64 for other characters`,
      );
    if (!agrees(decoded, value))
      return headerMismatch(
        param.header,
        `the ${param.header} header says ${quoted(decoded)} but argument '${name}' is ${quoted(value)}`,
      );
  }
  return undefined;
}
