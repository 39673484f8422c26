// RFC 6570 URI templates (levels 1–3) for MCP resource templates: parse once, then match URIs and expand values.

import { McpConfigError } from '../../options/config-error';

/** A parsed, compiled URI template; see {@link parseUriTemplate}. */
export interface UriTemplate {
  /** the template text as given */
  readonly template: string;
  /** variable names in order of appearance, without operators/modifiers */
  readonly variableNames: readonly string[];
  /** If `uri` matches, the percent-decoded variable values (a variable absent from the uri, e.g. an omitted query param, is left out); else null. Never throws on any input string. */
  match(uri: string): Record<string, string> | null;
  /** Expands the template (RFC 6570 expansion rules, levels 1–3; undefined values omitted). */
  expand(variables: Readonly<Record<string, string | number | boolean | undefined>>): string;
}

type Operator = '' | '+' | '#' | '.' | '/' | ';' | '?' | '&';

type VarSpec = { readonly name: string; readonly prefix: number | undefined };
type Expression = { readonly op: Operator; readonly vars: readonly VarSpec[] };

/** A literal keeps its raw text (matched as written) and its RFC 6570 §3.1 encoding (emitted by expand). */
type Literal = { readonly raw: string; readonly encoded: string };

type Part = Literal | Expression;

/** One capture group of the match RegExp, in source order. `;` captures `=value` or `` (RFC 6570 §3.2.7 drops
 * the `=` of an empty value), so `stripEquals` removes the leading `=`. */
type Group = { readonly name: string; readonly stripEquals: boolean };

// RFC 6570 Appendix A: how each operator joins and names its values.
const OPERATORS: Readonly<
  Record<Operator, { first: string; sep: string; named: boolean; ifEmpty: string; reserved: boolean }>
> = Object.freeze({
  '': { first: '', sep: ',', named: false, ifEmpty: '', reserved: false },
  '+': { first: '', sep: ',', named: false, ifEmpty: '', reserved: true },
  '#': { first: '#', sep: ',', named: false, ifEmpty: '', reserved: true },
  '.': { first: '.', sep: '.', named: false, ifEmpty: '', reserved: false },
  '/': { first: '/', sep: '/', named: false, ifEmpty: '', reserved: false },
  ';': { first: ';', sep: ';', named: true, ifEmpty: '', reserved: false },
  '?': { first: '?', sep: '&', named: true, ifEmpty: '=', reserved: false },
  '&': { first: '&', sep: '&', named: true, ifEmpty: '=', reserved: false },
});

// RFC 6570 §2.3: varname = varchar *( ["."] varchar ), varchar = ALPHA / DIGIT / "_" / pct-encoded;
// modifier-level4 = prefix (":" 1–9999, no leading zero) / explode ("*").
const VARSPEC =
  /^((?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+(?:\.(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+)*)(?::([1-9][0-9]{0,3})|\*)?$/;

const UTF8 = new TextEncoder();

/** Refuses a template this router cannot read, at registration. */
function invalidTemplate(template: string, problem: string): never {
  throw new McpConfigError('ERR_MCP_INVALID_URI_TEMPLATE', `mcpRouter: invalid URI template '${template}': ${problem}`);
}

/** Percent-encodes one character as UTF-8 octets; TextEncoder turns a lone surrogate into U+FFFD instead of throwing. */
function pctEncode(ch: string): string {
  let out = '';
  for (const byte of UTF8.encode(ch)) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

/** RFC 6570 §3.2.1: keep unreserved (plus reserved and existing pct-triplets when `allowReserved`), encode the rest. */
function encode(value: string, allowReserved: boolean): string {
  if (!allowReserved) return value.replace(/[^A-Za-z0-9\-._~]/gu, pctEncode);
  return value.replace(/%[0-9A-Fa-f]{2}|[^A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]/gu, (m) =>
    m.length === 3 ? m : pctEncode(m),
  );
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

function parseExpression(template: string, body: string, seen: Set<string>): Expression {
  const first = body.charAt(0);
  if (body === '') invalidTemplate(template, "empty expression '{}'");
  // RFC 6570 §2.2: "=,!@|" are reserved for future extensions, so they are rejected rather than read as names.
  if ('=,!@|'.includes(first)) invalidTemplate(template, `unsupported operator '${first}' in '{${body}}'`);
  const op = ('+#./;?&'.includes(first) ? first : '') as Operator;
  const list = body.slice(op.length);
  if (list === '') invalidTemplate(template, `expression '{${body}}' has no variable`);
  const vars = list.split(',').map((spec): VarSpec => {
    const m = VARSPEC.exec(spec);
    if (!m || m[1] === undefined) return invalidTemplate(template, `invalid variable '${spec}' in '{${body}}'`);
    if (seen.has(m[1])) invalidTemplate(template, `duplicate variable '${m[1]}'`);
    seen.add(m[1]);
    return { name: m[1], prefix: m[2] === undefined ? undefined : Number(m[2]) };
  });
  return { op, vars };
}

function parse(template: string): Part[] {
  const parts: Part[] = [];
  const seen = new Set<string>();
  let literal = '';
  const flush = (): void => {
    if (literal !== '') parts.push({ raw: literal, encoded: encode(literal, true) });
    literal = '';
  };
  for (let i = 0; i < template.length;) {
    const ch = template.charAt(i);
    if (ch === '}') invalidTemplate(template, `unmatched '}' at position ${i}`);
    if (ch !== '{') {
      literal += ch;
      i++;
      continue;
    }
    const close = template.indexOf('}', i + 1);
    const nested = template.indexOf('{', i + 1);
    if (close === -1) invalidTemplate(template, `unclosed '{' at position ${i}`);
    if (nested !== -1 && nested < close) invalidTemplate(template, `nested '{' at position ${nested}`);
    flush();
    parts.push(parseExpression(template, template.slice(i + 1, close), seen));
    i = close + 1;
  }
  flush();
  return parts;
}

/**
 * Regex source for one expression. Non-reserved values also exclude `stop`, the character that follows the
 * expression in the template (as path-to-regexp does since CVE-2024-45296): `{id}.json` stops `id` at `.`, so two
 * unbounded values never compete for the same characters and a failed match backtracks linearly.
 */
function expressionSource(expr: Expression, stop: string, groups: Group[]): string {
  const spec = OPERATORS[expr.op];
  const cls = (excluded: string): string => `[^${escapeRegExp(excluded + stop)}]`;
  const piece = (v: VarSpec): string => {
    groups.push({ name: v.name, stripEquals: expr.op === ';' });
    switch (expr.op) {
      case '':
        return `(${cls('/?#&,')}+)`;
      case '+':
        return '([^?#]+?)';
      case '#':
        return '([\\s\\S]+?)';
      case '.':
        return `(${cls('./?#&,')}*)`;
      case '/':
        return `(${cls('/?#&,')}*)`;
      case ';':
        return `${escapeRegExp(v.name)}(|=${cls(';/?#&,')}*)`;
      case '?':
      case '&':
        return `${escapeRegExp(v.name)}=(${cls('&#')}*)`;
    }
  };
  const first = escapeRegExp(spec.first);
  const sep = escapeRegExp(spec.sep);
  // Simple, reserved and fragment values are required: an empty `{id}` would make `users:///profile` match.
  if (expr.op === '' || expr.op === '+' || expr.op === '#') return first + expr.vars.map(piece).join(sep);
  // The other operators emit nothing for an undefined value, so each variable is optional, in template order.
  if (spec.first === spec.sep) return expr.vars.map((v) => `(?:${sep}${piece(v)})?`).join('');
  // `?`: whichever variable comes first takes `?`, later ones `&`; one alternative per possible first variable.
  const alternatives = expr.vars.map((v, i) => {
    let source = first + piece(v);
    for (const later of expr.vars.slice(i + 1)) source += `(?:${sep}${piece(later)})?`;
    return source;
  });
  return `(?:${alternatives.join('|')})?`;
}

function compile(parts: readonly Part[]): { regex: RegExp; groups: Group[] } {
  const groups: Group[] = [];
  let source = '^';
  parts.forEach((part, i) => {
    if ('raw' in part) {
      const raw = escapeRegExp(part.raw);
      // Accept the literal as written and as expand() emits it, so expand → match round-trips.
      source += part.raw === part.encoded ? raw : `(?:${raw}|${escapeRegExp(part.encoded)})`;
      return;
    }
    const next = parts[i + 1];
    const stop = next === undefined ? '' : 'raw' in next ? next.raw.charAt(0) : OPERATORS[next.op].first;
    source += expressionSource(part, stop, groups);
  });
  return { regex: new RegExp(`${source}$`), groups };
}

function decode(value: string): string | null {
  try {
    return decodeURIComponent(value);
  } catch {
    return null; // malformed percent-encoding such as `%E0%A4%A` is a non-match, not an error
  }
}

/**
 * Parses and compiles an RFC 6570 URI template once (the match RegExp is built here, not per call).
 *
 * Supported: literals, the operators `+ # . / ; ? &`, comma-separated variable lists, and the `:n` / `*` modifiers
 * (`:n` truncates on expand; for matching both modifiers act like a plain value, and `*` expands a scalar unchanged).
 * Matching rules:
 * - `{x}` needs at least one character and stops at `/ ? # & ,` and at the character that follows it in the template;
 *   `{+x}` takes any characters except `?` and `#`, as few as possible; `{#x}` takes the rest, as few as possible.
 * - `{.x}`, `{/x}`, `{;x}`, `{?x,y}` and `{&x}` variables are optional but must appear in template order
 *   (`?limit=1&query=a` does not match `{?query,limit}`); a `+` in a query value stays a `+` (RFC 3986, not forms).
 * - Values are percent-decoded with `decodeURIComponent`; a malformed escape makes the URI a non-match.
 * - Two reserved (`+`/`#`) expressions, or two expressions with no literal between them, are ambiguous and may
 *   backtrack quadratically on long non-matching input; MCP templates rarely need either.
 *
 * @param template - the template text, e.g. `users://{id}/profile` or `search://q{?query,limit}`
 * @returns the compiled {@link UriTemplate}
 * @throws {McpConfigError} `ERR_MCP_INVALID_URI_TEMPLATE` on an unclosed, nested or unmatched brace, an empty
 *   expression, an invalid variable name or modifier, an operator reserved by RFC 6570 (`= , ! @ |`) or a duplicate
 *   variable. A template without any variable is valid and matches only its literal text.
 * @example
 * ```ts
 * const t = parseUriTemplate('users://{id}/profile');
 * t.match('users://ada%20l/profile'); // { id: 'ada l' }
 * t.expand({ id: 'ada l' });          // 'users://ada%20l/profile'
 * ```
 */
export function parseUriTemplate(template: string): UriTemplate {
  if (typeof template !== 'string') invalidTemplate(String(template), 'the template must be a string');
  const parts = parse(template);
  const { regex, groups } = compile(parts);
  const variableNames = Object.freeze(parts.flatMap((p) => ('raw' in p ? [] : p.vars.map((v) => v.name))));

  return Object.freeze({
    template,
    variableNames,
    match(uri: string): Record<string, string> | null {
      if (typeof uri !== 'string') return null;
      const m = regex.exec(uri); // no `g` flag, so the shared RegExp keeps no lastIndex state between calls
      if (m === null) return null;
      const entries: [string, string][] = [];
      for (const [i, group] of groups.entries()) {
        const raw = m[i + 1];
        if (raw === undefined) continue;
        const value = decode(group.stripEquals ? raw.slice(1) : raw);
        if (value === null) return null;
        entries.push([group.name, value]);
      }
      // fromEntries defines own properties, so a variable named `__proto__` cannot reach the prototype.
      return Object.fromEntries(entries);
    },
    expand(variables: Readonly<Record<string, string | number | boolean | undefined>>): string {
      return parts
        .map((part) => {
          if ('raw' in part) return part.encoded;
          const spec = OPERATORS[part.op];
          const items: string[] = [];
          for (const { name, prefix } of part.vars) {
            // hasOwn: `constructor` or `toString` must not pick up Object.prototype members.
            const raw = Object.hasOwn(variables, name) ? variables[name] : undefined;
            if (raw === undefined || raw === null) continue;
            const text = prefix === undefined ? String(raw) : Array.from(String(raw)).slice(0, prefix).join('');
            const value = encode(text, spec.reserved);
            items.push(!spec.named ? value : value === '' ? name + spec.ifEmpty : `${name}=${value}`);
          }
          return items.length === 0 ? '' : spec.first + items.join(spec.sep);
        })
        .join('');
    },
  });
}
