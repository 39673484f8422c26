// Tool arguments into a route path: each value percent-encoded into its own segment, or refused, naming the argument.

import { McpConfigError } from '../../options/config-error';
import { parsePath, pathParamsOf, type PathPart } from './path-template';

/** A route path, read once, that tool arguments fill. */
export interface PathTemplate {
  /** Every parameter name, once, in order of appearance. */
  readonly names: readonly string[];
  /** The names that may be left out: those found only in optional parts (`{/:id}`, `/:id?`). */
  readonly optional: readonly string[];
  /** The path with `values` in place, or why a value cannot be carried (a message naming the argument). */
  fill(values: Readonly<Record<string, unknown>>): FilledPath;
}

/** The outcome of {@link PathTemplate.fill}. */
export type FilledPath =
  { readonly ok: true; readonly path: string } | { readonly ok: false; readonly message: string };

type Part =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'param'; readonly name: string; readonly pattern?: RegExp; readonly source?: string }
  | { readonly kind: 'splat'; readonly name: string | undefined }
  | { readonly kind: 'group'; readonly parts: readonly Part[]; readonly names: readonly string[] };

type Filled = { readonly path: string } | { readonly message: string };

/** A UTF-16 code unit with no partner: `encodeURIComponent` throws a URIError on it, and UTF-8 cannot spell it. */
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * Reads `path` once for a route tool. Each call's values are checked and percent-encoded so that each one
 * lands, literally, in the segment its parameter stands for (see {@link encodeSegment}); a value that cannot be
 * carried that way is refused instead of sent, so the request can only ever reach the route it was built for.
 *
 * @param path - an Express 4 or 5 path
 * @param label - names the route in errors (`route tool 'get_user'`)
 * @throws {McpConfigError} for an Express 4 parameter pattern (`:id(…)`) that is not a valid regular expression
 * @example
 * ```ts
 * const template = compilePath('/users/:id/orders', "route tool 'user_orders'");
 * template.fill({ id: 'a/b' }); // { ok: true, path: '/users/a%2Fb/orders' }
 * template.fill({ id: '..' });  // { ok: false, message: "Invalid argument 'id': '..' cannot be carried in a URL path segment: …" }
 * ```
 */
export function compilePath(path: string, label: string): PathTemplate {
  const parts = compileParts(parsePath(path), path, label);
  const names = pathParamsOf(path);
  // A name outside every optional group is required, wherever else it appears.
  const required = new Set(namesIn(parts.filter((part) => part.kind !== 'group')));
  return {
    names,
    optional: names.filter((name) => !required.has(name)),
    fill(values) {
      const filled = fillParts(parts, values);
      return 'message' in filled ? { ok: false, message: filled.message } : { ok: true, path: filled.path };
    },
  };
}

/**
 * A value as one path segment: every character but ASCII letters and digits percent-encoded (UTF-8), so no
 * part of it can act as a delimiter of the route's pattern (`/`, `?`, `#`; the `.` of Express 4's `/:name.:ext`;
 * the `-` of `/:from-:to`). Express decodes `req.params` once, so the route sees the value exactly.
 *
 * @param text - a well-formed string (no lone surrogate)
 */
export function encodeSegment(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*._~-]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/**
 * Whether `text` is or holds a dot segment: `.` or `..` as the whole value or as a part between `/` or `\`,
 * once percent-decoded any number of times (`..`, `%2e`, `.%2E`, `%252e%252e`, `..%2f`, `a/../b`). The WHATWG
 * URL parser removes dot segments from a path (RFC 3986 §5.2.4) and counts `%2e` (any case) as a dot, so
 * `/users/../orders` is dispatched as `/orders`. The other forms would reach the route literally, but a host
 * or proxy that decodes again, or builds a path from `req.params`, would walk them; no real value is spelled so.
 */
export function holdsDotSegment(text: string): boolean {
  let current = text;
  // Each pass peels one layer of `%25`; a value still encoded after MAX_DECODINGS layers counts as holding one:
  // no real value is, and an unbounded loop over '%252525…' would cost time quadratic in its length.
  for (let pass = 0; pass <= MAX_DECODINGS; pass++) {
    if (current.split(/[/\\]/).some((piece) => piece === '.' || piece === '..')) return true;
    const decoded = current.replace(/%25/gi, '%').replace(/%2e/gi, '.').replace(/%2f/gi, '/').replace(/%5c/gi, '\\');
    if (decoded === current) return false;
    current = decoded;
  }
  return true;
}

/** How many layers of percent-encoding {@link holdsDotSegment} looks through. */
const MAX_DECODINGS = 4;

function compileParts(parts: readonly PathPart[], path: string, label: string): Part[] {
  return parts.map((part): Part => {
    if (part.kind === 'group') {
      const inner = compileParts(part.parts, path, label);
      return { kind: 'group', parts: inner, names: namesIn(inner) };
    }
    if (part.kind !== 'param') return part;
    if (part.pattern === undefined) return { kind: 'param', name: part.name };
    try {
      // Express 4 (path-to-regexp 0.1) tests the pattern against the raw, still encoded path.
      return { kind: 'param', name: part.name, pattern: new RegExp(`^(?:${part.pattern})$`), source: part.pattern };
    } catch {
      throw new McpConfigError(
        'ERR_MCP_INVALID_DEFINITION',
        `${label}: the pattern of ':${part.name}' in '${path}' is not a valid regular expression`,
      );
    }
  });
}

function namesIn(parts: readonly Part[]): string[] {
  return parts.flatMap((part) =>
    part.kind === 'group' ? part.names : part.kind !== 'text' && part.name !== undefined ? [part.name] : [],
  );
}

function fillParts(parts: readonly Part[], values: Readonly<Record<string, unknown>>): Filled {
  let path = '';
  for (const part of parts) {
    let filled: Filled;
    if (part.kind === 'text') filled = { path: part.text };
    else if (part.kind === 'param') filled = paramValue(part, valueOf(values, part.name));
    else if (part.kind === 'splat')
      // Express 4's `*` matches itself.
      filled = part.name === undefined ? { path: '*' } : splatValue(part.name, valueOf(values, part.name));
    // An optional part none of whose values are given is left out whole; one given in part is refused (a value is missing).
    else if (!part.names.some((name) => valueOf(values, name) !== undefined)) continue;
    else filled = fillParts(part.parts, values);
    if ('message' in filled) return filled;
    path += filled.path;
  }
  return { path };
}

/** Own values only: a param named `constructor` must not find Object's. */
function valueOf(values: Readonly<Record<string, unknown>>, name: string): unknown {
  return Object.hasOwn(values, name) ? values[name] : undefined;
}

function paramValue(
  part: { readonly name: string; readonly pattern?: RegExp; readonly source?: string },
  value: unknown,
): Filled {
  const text = textOf(value);
  if (text === undefined) return refuse(part.name, typeProblem(value));
  const problem = segmentProblem(text);
  if (problem !== undefined) return refuse(part.name, problem);
  const encoded = encodeSegment(text);
  // Express 4 would not match the route, and the request would fall through to whichever route comes next.
  if (part.pattern && !part.pattern.test(encoded))
    return refuse(part.name, `${quote(text)} does not match the route's pattern ${part.source ?? ''}`);
  return { path: encoded };
}

/** An Express 5 wildcard spans segments: a `/`-separated string or an array of segments, each checked as a param. */
function splatValue(name: string, value: unknown): Filled {
  const items: unknown[] = Array.isArray(value) ? value : [value];
  const segments: string[] = [];
  for (const item of items) {
    const text = textOf(item);
    if (text === undefined) return refuse(name, typeProblem(item));
    segments.push(...(Array.isArray(value) ? [text] : text.split('/')));
  }
  if (segments.length === 0) return refuse(name, 'an empty list of segments cannot be carried in a URL path');
  const encoded: string[] = [];
  for (const [index, segment] of segments.entries()) {
    const problem = segmentProblem(segment);
    if (problem !== undefined)
      return refuse(
        name,
        segments.length === 1 ? problem : `segment ${index + 1} of ${quote(segments.join('/'))}: ${problem}`,
      );
    encoded.push(encodeSegment(segment));
  }
  return { path: encoded.join('/') };
}

function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean') return String(value);
  return undefined;
}

function typeProblem(value: unknown): string {
  if (value === undefined) return 'a value is required for this URL path segment';
  const got =
    value === null
      ? 'null'
      : Array.isArray(value)
        ? 'an array'
        : typeof value === 'object'
          ? 'an object'
          : `a ${typeof value}`;
  return `a URL path segment value must be a string, number or boolean (got ${got})`;
}

/** Why `text` cannot be one path segment carried literally, or undefined when it can. */
function segmentProblem(text: string): string | undefined {
  // `/users/` matches `/users` (Express routes are not strict by default), and an empty segment is no segment.
  if (text === '') return 'an empty value cannot be carried in a URL path segment';
  if (LONE_SURROGATE.test(text))
    return 'a value that is not well-formed Unicode (a lone UTF-16 surrogate) cannot be carried in a URL path segment';
  if (holdsDotSegment(text))
    return `${quote(text)} cannot be carried in a URL path segment: it is or holds a dot segment ('.' or '..', in any encoding), which URLs resolve away`;
  return undefined;
}

function refuse(name: string, problem: string): Filled {
  return { message: `Invalid argument '${name}': ${problem}` };
}

/** `'text'`, with control characters escaped and long values cut, for an error message. */
function quote(text: string): string {
  const shown = text.length > 64 ? `${text.slice(0, 64)}…` : text;
  return `'${shown.replace(/[\u0000-\u001f\u007f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)}'`;
}
