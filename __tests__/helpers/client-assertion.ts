// Test helper: private_key_jwt client assertions (RFC 7523 §2.2) signed with jose, and token requests that carry them.

import * as crypto from 'node:crypto';
import { SignJWT, type JWTPayload } from 'jose';
import type { SigningKey } from './jwks-server';

export const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/**
 * An assertion of `clientId` for `audience`, as the SDK clients make them (iss = sub = client id, 300 s, a random
 * jti), with `claims` over those; a claim set to `undefined` is left out.
 */
export function clientAssertion(
  key: SigningKey,
  clientId: string,
  audience: string,
  claims: Record<string, unknown> = {},
  header: Record<string, unknown> = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const all: Record<string, unknown> = {
    iss: clientId,
    sub: clientId,
    aud: audience,
    iat: now,
    exp: now + 300,
    jti: crypto.randomUUID(),
    ...claims,
  };
  const payload = Object.fromEntries(Object.entries(all).filter(([, value]) => value !== undefined)) as JWTPayload;
  return new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid: key.kid, ...header }).sign(key.privateKey);
}

/** The form fields of a client authenticated by `assertion`. */
export const assertionFields = (assertion: string): Record<string, string> => ({
  client_assertion_type: ASSERTION_TYPE,
  client_assertion: assertion,
});
