// DPoP proofs (RFC 9449) of the bench key for server (fd): one per request, or a pool of distinct ones for autocannon, which cannot sign per request.

import { createHash, randomBytes } from 'node:crypto';
import { importJWK, SignJWT } from 'jose';
import { benchDpopKey } from '../servers/common';
import type { Target } from './http-client';

const KEY = benchDpopKey();
const signingKey = importJWK(KEY.privateJwk as never, 'ES256');

/** The token of a target's `Authorization: DPoP <token>`. */
function tokenOf(target: Target): string {
  const header = Object.entries(target.headers).find(([name]) => name.toLowerCase() === 'authorization')?.[1] ?? '';
  return header.replace(/^DPoP\s+/i, '');
}

/** One proof for `method` to the target's URL, bound to its token (`ath`), with a fresh `jti` and `iat`. */
export async function dpopProof(method: string, target: Target): Promise<string> {
  return new SignJWT({
    jti: randomBytes(12).toString('base64url'),
    htm: method,
    htu: target.url.split('?')[0],
    iat: Math.floor(Date.now() / 1000),
    ath: createHash('sha256').update(tokenOf(target)).digest('base64url'),
  })
    .setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk: KEY.publicJwk as never })
    .sign(await signingKey);
}

/**
 * `count` distinct POST proofs, signed now: a run lasts seconds, well within the ±5 minutes a proof's `iat` may be
 * off, and the server tracks no `jti` (its default), so autocannon may send them round and round.
 */
export async function dpopProofPool(target: Target, count: number): Promise<string[]> {
  return Promise.all(Array.from({ length: count }, () => dpopProof('POST', target)));
}
