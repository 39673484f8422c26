// Entity tags of a fixed representation (RFC 9110 §8.8.3) and the If-None-Match check that answers 304 for them.

import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * A strong entity tag of exact bytes: the SHA-256 digest of the representation, base64url, quoted. RFC 9110
 * §8.8.1: a strong validator changes whenever the representation's bytes do, which a digest of them guarantees.
 *
 * @example
 * ```ts
 * strongEntityTag(Buffer.from('{}')); // '"RBNvo1WzZ4oRRq0W9-hknpT7T8If536DEMBg9hyq_4o"'
 * ```
 */
export function strongEntityTag(bytes: Buffer): string {
  return `"${createHash('sha256').update(bytes).digest('base64url')}"`;
}

/**
 * One entity tag of a list: an optional weakness prefix, then an opaque tag of `etagc` (RFC 9110 §8.8.3: `!`, `#`
 * to `~`, and obs-text). A comma may sit inside the quotes, so the list is read tag by tag, never split on commas.
 */
const ENTITY_TAG = /(?:W\/)?"([\x21\x23-\x7e\x80-\xff]*)"/g;

/**
 * Whether a request's If-None-Match names the representation whose tag is `tag` (RFC 9110 §13.1.2): `*` names any
 * current representation; otherwise the weak comparison (§8.8.3.2), where `W/"x"` and `"x"` match. A header that
 * names no tag at all (garbage) matches nothing, so the full representation is sent.
 *
 * @param tag - the representation's strong tag, quoted (`strongEntityTag`)
 * @example
 * ```ts
 * if (req.method === 'GET' && noneMatchHits(req, etag)) res.writeHead(304, { ETag: etag }).end();
 * ```
 */
export function noneMatchHits(req: IncomingMessage, tag: string): boolean {
  const header = req.headers['if-none-match'];
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = tag.slice(1, -1);
  for (const match of header.matchAll(ENTITY_TAG)) if (match[1] === opaque) return true;
  return false;
}
