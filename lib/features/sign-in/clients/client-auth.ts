// Client authentication at the token and revocation endpoints (RFC 6749 §2.3.1, OAuth 2.1 §2.4): Basic, form secret, or none.

import crypto from 'node:crypto';
import type { ClientAuthMethod, OAuthClient } from './client';
import { secretDigest } from './client-options';
import { OAuthError } from '../oauth-error';

/** The challenge of a failed Basic client authentication (RFC 7617 §2; RFC 6749 §5.2 requires it). */
const BASIC_CHALLENGE = { 'WWW-Authenticate': 'Basic realm="oauth", charset="UTF-8"' } as const;

/**
 * An `invalid_client` answer: 401 however the client authenticated (RFC 6749 §5.2 allows 401 always, and requires it
 * with the `WWW-Authenticate: Basic` challenge when the client tried the Authorization header). A client that sent
 * its credentials in the form, or none, gets no challenge: it tried no HTTP authentication scheme for one to match.
 */
export class ClientAuthenticationError extends OAuthError {
  constructor(description: string, triedBasic: boolean) {
    super('invalid_client', description, 401, triedBasic ? BASIC_CHALLENGE : {});
  }
}

/** What a token request presents: the method it used, the client id, and the secret if any. */
interface Presented {
  readonly method: ClientAuthMethod;
  readonly clientId: string;
  readonly secret?: string;
}

/** One `application/x-www-form-urlencoded` value (RFC 6749 §2.3.1 encodes Basic's id and secret so first). */
function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}

/** What the request presents, or why it presents nothing usable. */
function presented(authorization: string | undefined, form: Readonly<Record<string, string>>): Presented {
  const basic = /^basic +(\S+) *$/i.exec(authorization ?? '');
  if (basic) {
    const decoded = Buffer.from(basic[1] as string, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new ClientAuthenticationError('the Basic credentials are not client_id:client_secret', true);
    let clientId: string;
    let secret: string;
    try {
      [clientId, secret] = [formDecode(decoded.slice(0, colon)), formDecode(decoded.slice(colon + 1))];
    } catch {
      throw new ClientAuthenticationError('the Basic credentials are not form-urlencoded (RFC 6749 §2.3.1)', true);
    }
    // RFC 6749 §2.3: a client MUST NOT use more than one authentication method in a request.
    if (form.client_secret !== undefined)
      throw new ClientAuthenticationError('the client authenticated twice (Basic and client_secret)', true);
    if (form.client_id !== undefined && form.client_id !== clientId)
      throw new ClientAuthenticationError('client_id differs from the Basic credentials', true);
    return { method: 'client_secret_basic', clientId, secret };
  }
  if (authorization !== undefined && authorization !== '')
    throw new ClientAuthenticationError('the Authorization header is not Basic client credentials', false);
  if (typeof form.client_id !== 'string' || form.client_id === '')
    throw new ClientAuthenticationError('the client did not identify itself (client_id or Basic credentials)', false);
  if (form.client_secret !== undefined)
    return { method: 'client_secret_post', clientId: form.client_id, secret: form.client_secret };
  return { method: 'none', clientId: form.client_id };
}

/** True when `secret` hashes to `digest`. Both sides are hashed first: equal lengths, and no early exit on a prefix. */
export function secretMatches(digest: string, secret: string): boolean {
  const expected = Buffer.from(digest, 'hex');
  const given = Buffer.from(secretDigest(secret), 'hex');
  return expected.length === given.length && crypto.timingSafeEqual(expected, given);
}

/** True when a client may authenticate by `method`: its registered one (a pre-registered confidential one: either secret method). */
function methodAllowed(client: OAuthClient, method: ClientAuthMethod): boolean {
  if (method === client.tokenEndpointAuthMethod) return true;
  return client.source === 'preregistered' && client.secretDigest !== undefined && method !== 'none';
}

/**
 * The client a token or revocation request authenticates as.
 *
 * @param authorization - the request's `Authorization` header
 * @param form - the request's form fields
 * @param find - how a client id is looked up
 * @throws {ClientAuthenticationError} `invalid_client` (401) for an unknown client, a wrong secret, or a method the client did not register
 */
export async function authenticateClient(
  authorization: string | undefined,
  form: Readonly<Record<string, string>>,
  find: (clientId: string) => Promise<OAuthClient | undefined>,
): Promise<OAuthClient> {
  const given = presented(authorization, form);
  const triedBasic = given.method === 'client_secret_basic';
  let client: OAuthClient | undefined;
  try {
    client = await find(given.clientId);
  } catch (err) {
    if (err instanceof OAuthError) throw new ClientAuthenticationError(err.description, triedBasic);
    throw err;
  }
  if (client === undefined) throw new ClientAuthenticationError('unknown client', triedBasic);
  if (!methodAllowed(client, given.method)) {
    throw new ClientAuthenticationError(
      `this client authenticates with ${client.tokenEndpointAuthMethod}, not ${given.method}`,
      triedBasic,
    );
  }
  if (
    given.method !== 'none' &&
    (client.secretDigest === undefined || !secretMatches(client.secretDigest, given.secret ?? ''))
  ) {
    throw new ClientAuthenticationError('wrong client secret', triedBasic);
  }
  return client;
}
