// Single-use ids of signed assertions (RFC 7523 §3 item 7, SEP-990 §7.4.2): each spent once, on every instance, until it expires.

import { createHash } from 'node:crypto';
import type { SignInStore } from '../../edge/store/sign-in-store';

/**
 * Spends the `jti` of an assertion: true the first time, false when it was spent before (or the store holds as many
 * ids as it may, see `SignInStore.add`). Kept by digest of its scope (whose ids these are: a client, an IdP) and the
 * id, so an id's size is bounded whatever the sender wrote, until the assertion could no longer be accepted
 * (`exp` plus the clock skew tolerated, at least a second).
 *
 * @param kind - what the ids are of, as the store names them (`client-assertion`, `id-jag`)
 * @example
 * ```ts
 * if (!(await spendOnce(store, 'id-jag', idp.issuer, claims.jti, claims.exp, 30))) throw refused('already used');
 * ```
 */
export function spendOnce(
  store: SignInStore,
  kind: string,
  scope: string,
  jti: string,
  expSec: number,
  skewSec: number,
  now = Date.now(),
): Promise<boolean> {
  const id = createHash('sha256').update(`${scope}\n${jti}`).digest('base64url');
  return store.add('replay', `${kind}:${id}`, {}, Math.max(1_000, (expSec + skewSec) * 1000 - now));
}
