// Default tool names, path-parameter lists and annotations for a route, from its method and Express path.

import { createHash } from 'node:crypto';
import type { ToolAnnotations } from '../../core/registry/tools';
import { pathTokensOf } from './path-template';

/** Longest default name: MCP allows 128, but several model APIs cap function names at 64. */
export const MAX_TOOL_NAME_LENGTH = 64;

const HASH_LENGTH = 8;

/**
 * A readable snake_case tool name for a route: the method, the path's words, and `by_<param>` for each
 * parameter. Always valid for MCP (`[A-Za-z0-9_.-]`, 1–64 characters). When the path is too long, or holds
 * characters that cannot be spelled in ASCII, a readable prefix is kept and 8 hex characters of
 * SHA-256(`METHOD path`) are appended, so the name stays stable and distinct.
 *
 * @param method - the HTTP method, any case
 * @param path - an Express 4 or 5 path (`/users/:id`, `/files{/*path}`, `/docs/*`)
 * @returns the name, e.g. `get_users_by_id`
 * @example
 * ```ts
 * toolNameFor('GET', '/users/:id');                      // 'get_users_by_id'
 * toolNameFor('GET', '/api/v1/orders/:orderId/items');   // 'get_api_v1_orders_by_order_id_items'
 * toolNameFor('GET', '/files{/*path}');                  // 'get_files_by_path'
 * ```
 */
export function toolNameFor(method: string, path: string): string {
  let lossy = false;
  const wordsOf = (text: string): string[] => {
    const { words, complete } = asciiWords(text);
    lossy ||= !complete;
    return words;
  };
  const parts = wordsOf(method);
  const pathParts = pathTokensOf(path).flatMap((token) => {
    if (token.kind === 'text') return wordsOf(safeDecode(token.text));
    if (token.kind === 'splat' && token.name === undefined) return ['any']; // Express 4's unnamed `*`
    return ['by', ...wordsOf(token.name ?? '')];
  });
  // `/` is the root; a path whose words were all lost (`/用户`) is told apart by the hash instead.
  parts.push(...(pathParts.length === 0 && !lossy ? ['root'] : pathParts));
  const name = parts.join('_');
  if (!lossy && name.length <= MAX_TOOL_NAME_LENGTH) return name;
  const hash = createHash('sha256').update(`${method.toUpperCase()} ${path}`).digest('hex').slice(0, HASH_LENGTH);
  return `${readablePrefix(name, MAX_TOOL_NAME_LENGTH - HASH_LENGTH - 1)}_${hash}`.replace(/^_/, '');
}

/**
 * The default annotations of a route's tool, by HTTP semantics (RFC 9110 §9.2): GET and HEAD are read-only,
 * PUT is idempotent, DELETE is destructive and idempotent; POST, PATCH and others claim nothing (so clients
 * assume the MCP defaults: may be destructive, not idempotent). A fresh object each call.
 *
 * @param method - the HTTP method, any case
 * @example
 * ```ts
 * annotationsFor('get');    // { readOnlyHint: true }
 * annotationsFor('DELETE'); // { destructiveHint: true, idempotentHint: true }
 * ```
 */
export function annotationsFor(method: string): ToolAnnotations {
  switch (method.toUpperCase()) {
    case 'GET':
    case 'HEAD':
      return { readOnlyHint: true };
    case 'PUT':
      return { idempotentHint: true };
    case 'DELETE':
      return { destructiveHint: true, idempotentHint: true };
    default:
      return {};
  }
}

/**
 * Lower-case ASCII words of `text`: camelCase is split, accents are dropped (`Café` → `cafe`), and anything
 * else is a separator. `complete` is false when a character could not be spelled in ASCII (`用户`, `ß`).
 */
function asciiWords(text: string): { words: string[]; complete: boolean } {
  const plain = text.normalize('NFKD').replace(/\p{M}/gu, '');
  const words = plain
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]{2,})([A-Z][a-z])/g, '$1 $2') // HTTPServer → HTTP Server, but OAuth stays one word
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
  return { words, complete: !/[^\x00-\x7f]/.test(plain) };
}

/** `%20` → space, so encoded paths read like their decoded form; malformed escapes stay as they are. */
function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** At most `room` characters of `name`, cut after a whole word unless that would drop more than half. */
function readablePrefix(name: string, room: number): string {
  let head = name.slice(0, room);
  const lastBreak = head.lastIndexOf('_');
  if (name.length > room && name.charAt(room) !== '_' && lastBreak >= room / 2) head = head.slice(0, lastBreak);
  return head.replace(/_+$/, '');
}
