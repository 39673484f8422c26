// The `auth.dpop` option (RFC 9449 sender-constrained tokens, with the MCP profile of ext-auth): checked once, with its defaults.

import type { OptionKeys } from '../../options/config-error';
import type { OptionReader } from '../../options/option-reader';
import { requireJoseFor } from './jose';

/** How the router checks DPoP proofs (RFC 9449), at the MCP endpoint and at its own token endpoint (`auth.server`). */
export interface DpopOptions {
  /**
   * Every proof sent with a request body must carry the MCP profile's `content_digest` claim
   * (`sha-256=:<base64 SHA-256 of the body>:`). A proof that carries one is checked against the bytes the router
   * read whatever this says. Defaults to `false`: the official SDK v2 client sends none.
   */
  requireContentDigest?: boolean;
  /**
   * Server nonces (RFC 9449 §8, §9): a proof without a current nonce gets `use_dpop_nonce` and a `DPoP-Nonce`
   * header to retry with. Nonces are stateless (an HMAC of a time window under the router's shared `requestState`
   * key), so every instance of a router takes any instance's nonce. Defaults to `false`.
   */
  nonce?: boolean;
  /**
   * Each proof's `jti` is remembered (the sign-in store's `replay` kind: the shared `store` when it keeps sign-in
   * state, else this process, at most 100000) and a second use is refused (RFC 9449 §11.1). Defaults to `false`: the
   * MCP profile binds a proof to its body with `content_digest` instead.
   */
  trackReplays?: boolean;
  /** How far, in seconds, a proof's `iat` may be from the server's clock, before or after. Defaults to `300` (the MCP profile's ±5 minutes). */
  maxProofAgeSec?: number;
}

/** `auth.dpop` after checking. */
export interface ResolvedDpop {
  readonly requireContentDigest: boolean;
  readonly nonce: boolean;
  readonly trackReplays: boolean;
  readonly maxProofAgeSec: number;
}

/** The MCP profile of DPoP: servers MUST accept an `iat` within ±5 minutes. */
export const DEFAULT_DPOP_PROOF_AGE_SEC = 300;
/** Proof ids remembered at most with `trackReplays` (the oldest forgotten first). */
export const MAX_TRACKED_PROOFS = 100_000;

const KNOWN_DPOP_OPTIONS: OptionKeys<DpopOptions> = {
  requireContentDigest: true,
  nonce: true,
  trackReplays: true,
  maxProofAgeSec: true,
};

/**
 * Checks `auth.dpop` (absent: every default). DPoP-bound tokens are always checked; these options only tune how.
 *
 * @throws {McpConfigError} naming `auth.dpop.<key>` for an unknown key or a bad value; naming `auth.dpop` on a Node
 * that cannot load jose (proofs are JWTs)
 */
export function readDpopOptions(read: OptionReader<{ dpop?: DpopOptions }>): ResolvedDpop {
  if (read.raw('dpop') !== undefined) requireJoseFor(read.pathOf('dpop'));
  const dpop = read.nested('dpop', KNOWN_DPOP_OPTIONS);
  return Object.freeze({
    requireContentDigest: dpop.boolean('requireContentDigest', false),
    nonce: dpop.boolean('nonce', false),
    trackReplays: dpop.boolean('trackReplays', false),
    maxProofAgeSec: dpop.positiveInteger('maxProofAgeSec', DEFAULT_DPOP_PROOF_AGE_SEC, 'a positive number of seconds'),
  });
}
