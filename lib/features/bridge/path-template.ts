// Express 4 and 5 route paths read once, by one parser: literal text, parameters, wildcards and optional parts.

/** A JavaScript identifier (Express 5, path-to-regexp 8) or a quoted name (`:"user id"`). */
const PARAM_NAME = /^(?:([$_\p{ID_Start}][$\u200c\u200d\p{ID_Continue}]*)|"((?:[^"\\]|\\.)*)")/u;

/** One part of a route path. */
export type PathPart =
  | { readonly kind: 'text'; readonly text: string }
  /** `:name`; Express 4's `:name(\\d+)` keeps the regex source in `pattern`. */
  | { readonly kind: 'param'; readonly name: string; readonly pattern?: string }
  /** `*name` (Express 5), or Express 4's unnamed `*` (no name: no argument fills it). */
  | { readonly kind: 'splat'; readonly name: string | undefined }
  /** An optional part, present whole or left out whole: Express 5's `{/:id}`, Express 4's `/:id?`. */
  | { readonly kind: 'group'; readonly parts: readonly PathPart[] };

/** A part of a path with the optional groups opened: what a tool name is spelled from. */
export type PathToken = Exclude<PathPart, { kind: 'group' }>;

/**
 * Reads an Express 4 or 5 path. Escaped characters (`\\(`) are text; `{…}` is an optional group; `:name?`
 * becomes a group holding the `/` or `.` before it too, as path-to-regexp 0.1 (Express 4) makes that optional with
 * the parameter; a `(regex)` after a parameter is its pattern. Never throws: whatever it cannot read is text.
 *
 * @param path - an Express 4 or 5 path (`/users/:id`, `/files{/*path}`, `/items/:id(\\d+)`)
 * @example
 * ```ts
 * parsePath('/users{/:id}'); // [{ kind: 'text', text: '/users' }, { kind: 'group', parts: [{ kind: 'text', text: '/' }, { kind: 'param', name: 'id' }] }]
 * ```
 */
export function parsePath(path: string): PathPart[] {
  return partsOf(path, { at: 0 }, false);
}

/**
 * The path's parts in order with its groups opened, adjacent text merged (`/user{s}` reads `/users`).
 *
 * @param path - an Express 4 or 5 path
 */
export function pathTokensOf(path: string): PathToken[] {
  const tokens: PathToken[] = [];
  const open = (parts: readonly PathPart[]): void => {
    for (const part of parts) {
      const last = tokens[tokens.length - 1];
      if (part.kind === 'group') open(part.parts);
      else if (part.kind === 'text' && last?.kind === 'text')
        tokens[tokens.length - 1] = { kind: 'text', text: last.text + part.text };
      else tokens.push(part);
    }
  };
  open(parsePath(path));
  return tokens;
}

/**
 * The names of a path's parameters, in order: `:name` (Express 4 `:name?` and `:name(\\d+)` too), Express 5
 * optional `{/:name}`, and `*name` wildcards. Express 4's unnamed `*` has no name and is left out.
 *
 * @param path - an Express 4 or 5 path
 * @returns each name once, in the order it first appears
 * @example
 * ```ts
 * pathParamsOf('/users/:userId/posts{/:postId}'); // ['userId', 'postId']
 * pathParamsOf('/files/*path');                   // ['path']
 * ```
 */
export function pathParamsOf(path: string): string[] {
  const names = pathTokensOf(path).flatMap((token) =>
    token.kind !== 'text' && token.name !== undefined ? [token.name] : [],
  );
  return [...new Set(names)];
}

/**
 * An RFC 6570-style template (`/users/{user-id}`, as OpenAPI writes paths) as a path this parser reads the same
 * way: each `{name}` a parameter of exactly that name (quoted when not an identifier), the text around it literal.
 *
 * @example
 * ```ts
 * pathFromTemplate('/users/{user-id}/orders'); // '/users/:"user-id"/orders'
 * ```
 */
export function pathFromTemplate(template: string): string {
  return template
    .split(/(\{[^}]+\})/)
    .map((piece) => {
      if (!/^\{[^}]+\}$/.test(piece)) return piece.replace(/[\\:*{}()?]/g, '\\$&');
      const name = piece.slice(1, -1);
      return PARAM_NAME.exec(name)?.[1] === name ? `:${name}` : `:"${name.replace(/["\\]/g, '\\$&')}"`;
    })
    .join('');
}

function partsOf(path: string, cursor: { at: number }, inGroup: boolean): PathPart[] {
  const parts: PathPart[] = [];
  let text = '';
  const flush = (): void => {
    if (text !== '') parts.push({ kind: 'text', text });
    text = '';
  };
  while (cursor.at < path.length) {
    const char = path.charAt(cursor.at);
    if (char === '\\') {
      text += path.charAt(cursor.at + 1); // an escaped literal (Express 5: `\\(`)
      cursor.at += 2;
      continue;
    }
    if (char === '{' || char === '}') {
      cursor.at += 1;
      if (char === '}' && inGroup) break;
      if (char === '{') {
        flush();
        parts.push({ kind: 'group', parts: partsOf(path, cursor, true) });
      }
      continue; // a stray `}` is not text either
    }
    const match = char === ':' || char === '*' ? PARAM_NAME.exec(path.slice(cursor.at + 1)) : null;
    if (match === null) {
      if (char === '*') {
        flush();
        parts.push({ kind: 'splat', name: undefined });
      } else text += char;
      cursor.at += 1;
      continue;
    }
    const name = match[1] ?? (match[2] ?? '').replace(/\\(.)/g, '$1');
    cursor.at += 1 + match[0].length;
    if (char === '*') {
      flush();
      parts.push({ kind: 'splat', name });
      continue;
    }
    let pattern: string | undefined;
    if (path.charAt(cursor.at) === '(') {
      const end = afterGroup(path, cursor.at); // Express 4: `:id(\\d+)`
      pattern = path.slice(cursor.at + 1, path.charAt(end - 1) === ')' ? end - 1 : end);
      cursor.at = end;
    }
    const param: PathPart = pattern === undefined ? { kind: 'param', name } : { kind: 'param', name, pattern };
    if (path.charAt(cursor.at) === '?') {
      cursor.at += 1;
      const prefix = /[/.]$/.test(text) ? text.slice(-1) : '';
      text = text.slice(0, text.length - prefix.length);
      flush();
      parts.push({ kind: 'group', parts: prefix === '' ? [param] : [{ kind: 'text', text: prefix }, param] });
      continue;
    }
    flush();
    parts.push(param);
  }
  flush();
  return parts;
}

/** The index just past the parenthesised group that opens at `start` (or the end of the path). */
function afterGroup(path: string, start: number): number {
  let depth = 0;
  for (let i = start; i < path.length; i++) {
    const char = path.charAt(i);
    if (char === '\\') i++;
    else if (char === '(') depth++;
    else if (char === ')' && --depth === 0) return i + 1;
  }
  return path.length;
}
