// Client authentication at the token and revocation endpoints (RFC 6749 §2.3.1, OAuth 2.1 §2.4): Basic, form secret, private_key_jwt, or none.

import crypto from 'node:crypto';
import { jose } from '../../../edge/security/jose';
import type { ClientAuthMethod, OAuthClient } from './client';
import { CLIENT_ASSERTION_TYPE } from './client-assertion';
import { secretDigest } from './preregistered-clients';
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

/** What a token request presents: the method it used, the client id, and the secret or assertion if any. */
interface Presented {
  readonly method: ClientAuthMethod;
  readonly clientId: string;
  readonly secret?: string;
  readonly assertion?: string;
}

/** Checks an assertion of a client (RFC 7523 §2.2): why it is refused, or undefined. */
export type AssertionCheck = (client: OAuthClient, assertion: string) => Promise<string | undefined>;

/**
 * A `client_assertion` (RFC 7523 §2.2), from the form of a request that sent no other credentials (RFC 6749 §2.3:
 * one method per request). The client is `client_id` when sent, else the assertion's `sub` (RFC 7523 §3: `sub` is
 * the client id), read before the signature is checked only to find the client's keys.
 */
function presentedAssertion(form: Readonly<Record<string, string>>): Presented {
  if (form.client_secret !== undefined)
    throw new ClientAuthenticationError('the client authenticated twice (client_assertion and client_secret)', false);
  if (form.client_assertion_type !== CLIENT_ASSERTION_TYPE)
    throw new ClientAuthenticationError(`client_assertion_type must be ${CLIENT_ASSERTION_TYPE}`, false);
  const assertion = form.client_assertion;
  if (assertion === undefined || assertion === '')
    throw new ClientAuthenticationError('client_assertion is missing', false);
  let sub: unknown;
  try {
    sub = jose().decodeJwt(assertion).sub;
  } catch {
    throw new ClientAuthenticationError('client_assertion is not a JWT', false);
  }
  const clientId = form.client_id ?? sub;
  if (typeof clientId !== 'string' || clientId === '')
    throw new ClientAuthenticationError('client_assertion names no client (sub)', false);
  return { method: 'private_key_jwt', clientId, assertion };
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
    if (form.client_secret !== undefined || form.client_assertion !== undefined)
      throw new ClientAuthenticationError('the client authenticated twice (Basic and the form)', true);
    if (form.client_id !== undefined && form.client_id !== clientId)
      throw new ClientAuthenticationError('client_id differs from the Basic credentials', true);
    return { method: 'client_secret_basic', clientId, secret };
  }
  if (authorization !== undefined && authorization !== '')
    throw new ClientAuthenticationError('the Authorization header is not Basic client credentials', false);
  if (form.client_assertion !== undefined || form.client_assertion_type !== undefined) return presentedAssertion(form);
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

const SECRET_METHODS: readonly ClientAuthMethod[] = ['client_secret_basic', 'client_secret_post'];

/** True when a client may authenticate by `method`: its registered one (a pre-registered one with a secret: either secret method). */
function methodAllowed(client: OAuthClient, method: ClientAuthMethod): boolean {
  if (method === client.tokenEndpointAuthMethod) return true;
  return client.source === 'preregistered' && client.secretDigest !== undefined && SECRET_METHODS.includes(method);
}

/**
 * The client a token or revocation request authenticates as.
 *
 * @param authorization - the request's `Authorization` header
 * @param form - the request's form fields
 * @param find - how a client id is looked up
 * @param checkAssertion - how a `private_key_jwt` client's assertion is checked; without it none is accepted
 * @throws {ClientAuthenticationError} `invalid_client` (401) for an unknown client, a wrong secret or assertion, or a method the client did not register
 */
export async function authenticateClient(
  authorization: string | undefined,
  form: Readonly<Record<string, string>>,
  find: (clientId: string) => Promise<OAuthClient | undefined>,
  checkAssertion?: AssertionCheck,
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
  if (given.method === 'private_key_jwt') {
    const refused = checkAssertion
      ? await checkAssertion(client, given.assertion ?? '')
      : 'no assertion is accepted here';
    if (refused !== undefined) throw new ClientAuthenticationError(refused, false);
  } else if (
    given.method !== 'none' &&
    (client.secretDigest === undefined || !secretMatches(client.secretDigest, given.secret ?? ''))
  ) {
    throw new ClientAuthenticationError('wrong client secret', triedBasic);
  }
  return client;
}
