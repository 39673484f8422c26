// What the sign-in endpoints read of a request: query parameters and form fields (each at most once), and cookies.

import type { IncomingMessage } from 'node:http';
import { parse as parseCookies } from 'cookie';
import { consumedBody, declaredOver, readBodyBytes } from '../../edge/http/body';
import { OAuthError } from './oauth-error';

/** The largest form a sign-in endpoint reads: a token request is well under 4 KB. */
export const MAX_FORM_BYTES = 16 * 1024;

/** A form's fields: each named once (RFC 6749 §3.2: parameters must not be repeated). */
export type Form = Readonly<Record<string, string>>;

/** What a request with a parameter given twice is told. */
const repeated = (name: string): string => `the parameter '${name}' is repeated`;

/**
 * One query parameter, which an OAuth request carries at most once (RFC 6749 §3.1): its value, undefined when it is
 * absent or empty. A repeated one is refused: `refuse` makes the error the endpoint answers with.
 *
 * @throws what `refuse` makes; by default {@link OAuthError} `invalid_request`
 */
export function singleParameter(
  query: URLSearchParams,
  name: string,
  refuse: (message: string) => Error = (message) => new OAuthError('invalid_request', message),
): string | undefined {
  const values = query.getAll(name);
  if (values.length > 1) throw refuse(repeated(name));
  return values[0] === '' ? undefined : values[0];
}

/**
 * A cookie's value from the request's Cookie header (RFC 6265 §5.4), or undefined. A name sent twice gives its first
 * value, as `cookie` reads it (the browser sends the cookie of the longest path first). Every sign-in cookie is
 * compared with a digest the server kept, so a second cookie of the same name, wherever it came from, can make that
 * check fail but never pass.
 */
export function cookieOf(req: IncomingMessage, name: string): string | undefined {
  const cookies = parseCookies(req.headers.cookie ?? '');
  return Object.hasOwn(cookies, name) ? cookies[name] : undefined;
}

/**
 * Reads an `application/x-www-form-urlencoded` body (RFC 6749 §3.2, RFC 7009 §2.1), or the fields a host app's
 * `express.urlencoded()` already parsed.
 *
 * @throws {OAuthError} `invalid_request` for another content type, a repeated or non-text field, or a body over
 *   {@link MAX_FORM_BYTES} (413)
 */
export async function readForm(req: IncomingMessage): Promise<Form> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded')
    throw new OAuthError('invalid_request', 'send the parameters as application/x-www-form-urlencoded');
  const consumed = consumedBody(req);
  if (consumed !== undefined) return checkedFields(consumed.body);
  if (declaredOver(req, MAX_FORM_BYTES))
    throw new OAuthError('invalid_request', `the body exceeds ${MAX_FORM_BYTES} bytes`, 413);
  const bytes = await readBodyBytes(req, MAX_FORM_BYTES);
  if (!Buffer.isBuffer(bytes))
    throw new OAuthError(
      'invalid_request',
      bytes.status === 413 ? `the body exceeds ${MAX_FORM_BYTES} bytes` : 'the body could not be read',
      bytes.status,
    );
  const fields: Record<string, string> = Object.create(null);
  for (const [name, value] of new URLSearchParams(bytes.toString('utf8'))) {
    if (name in fields) throw new OAuthError('invalid_request', repeated(name));
    fields[name] = value;
  }
  return fields;
}

/** Fields a host app's parser made: strings only (qs makes arrays of repeated names and objects of `a[b]`). */
function checkedFields(body: unknown): Form {
  if (typeof body !== 'object' || body === null)
    throw new OAuthError('invalid_request', 'the body could not be read as a form');
  const fields: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(body)) {
    if (typeof value !== 'string')
      throw new OAuthError('invalid_request', `the parameter '${name}' is repeated or not text`);
    fields[name] = value;
  }
  return fields;
}
