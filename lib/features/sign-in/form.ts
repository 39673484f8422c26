// Request bodies of the sign-in endpoints: application/x-www-form-urlencoded (token, revocation, consent) or JSON (registration), bounded.

import type { IncomingMessage } from 'node:http';
import { consumedBody, declaredOver, readBodyBytes, readJsonBody } from '../../edge/http/body';
import { OAuthError } from './oauth-error';

/** The largest form a sign-in endpoint reads: a token request is well under 4 KB. */
export const MAX_FORM_BYTES = 16 * 1024;

/** A form's fields: each named once (RFC 6749 §3.2: parameters must not be repeated). */
export type Form = Readonly<Record<string, string>>;

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
    if (name in fields) throw new OAuthError('invalid_request', `the parameter '${name}' is repeated`);
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

/**
 * Reads a JSON body (RFC 7591 §3.1: registration requests are JSON), bounded by `limit`.
 *
 * @throws {OAuthError} `invalid_client_metadata` for a body that is not a JSON object; 413 over `limit`
 */
export async function readJsonObject(req: IncomingMessage, limit: number): Promise<Record<string, unknown>> {
  const read = await readJsonBody(req, limit);
  if (!read.ok)
    throw new OAuthError(
      read.status === 413 ? 'invalid_client_metadata' : 'invalid_request',
      read.message,
      read.status === 413 ? 413 : 400,
    );
  if (typeof read.value !== 'object' || read.value === null || Array.isArray(read.value))
    throw new OAuthError('invalid_client_metadata', 'send the client metadata as a JSON object');
  return read.value as Record<string, unknown>;
}
