// DPoP at the token endpoint (RFC 9449 §5): the proof of a token request, checked once per request, and the key it binds tokens to.

import type { IncomingMessage } from 'node:http';
import type { DpopCheck } from '../../../edge/security/dpop';
import { repeatedHeader } from '../../../edge/http/repeated-headers';
import { OAuthError } from '../oauth-error';
import type { OAuthClient } from '../clients/client';

/** What a token request's proof binds: the key's thumbprint, and whether the refresh token is bound too. */
export interface TokenBinding {
  /** RFC 7638 thumbprint of the proof's key (the tokens' `cnf.jkt`), or undefined without a proof. */
  readonly jkt: string | undefined;
  /** RFC 9449 §5: a public client's refresh token is bound to the key (a confidential client's is bound by its secret). */
  readonly bindsRefresh: boolean;
}

const UNBOUND: TokenBinding = Object.freeze({ jkt: undefined, bindsRefresh: false });

function isDpopHeader(name: string): boolean {
  return name.length === 4 && name.toLowerCase() === 'dpop';
}

/**
 * The DPoP proofs of token requests: {@link TokenProofs.check} verifies a request's proof once (htm POST, htu the
 * token endpoint, no `ath`), and `issue()` reads the binding back for the same request, so every grant binds.
 */
export class TokenProofs {
  private readonly bindings = new WeakMap<IncomingMessage, TokenBinding>();

  /**
   * @param tokenUrlOf - the token endpoint's URL for a request (`<issuer>/oauth/token`): what `htu` names;
   *   undefined when the server cannot tell its URL (no issuer it may trust), and every proof is refused
   */
  constructor(
    private readonly dpop: DpopCheck,
    private readonly tokenUrlOf: (req: IncomingMessage) => string | undefined,
  ) {}

  /**
   * Checks the proof of a token request from an authenticated client and remembers its binding for `issue()`.
   *
   * @throws {OAuthError} 400 `invalid_dpop_proof` for a bad or repeated proof, or none from a client registered with
   *   `dpop_bound_access_tokens`; 400 `use_dpop_nonce` with a `DPoP-Nonce` header (RFC 9449 §8)
   */
  async check(req: IncomingMessage, client: OAuthClient): Promise<TokenBinding> {
    const proof = req.headers.dpop;
    if (proof === undefined) {
      // RFC 9449 §5.2: such a client always uses DPoP; a request without a proof is refused.
      if (client.dpopBoundAccessTokens === true)
        throw new OAuthError(
          'invalid_dpop_proof',
          'this client is registered with dpop_bound_access_tokens: send a DPoP proof',
        );
      return UNBOUND;
    }
    if (typeof proof !== 'string' || repeatedHeader(req.rawHeaders, isDpopHeader) !== undefined || proof.includes(','))
      throw new OAuthError('invalid_dpop_proof', 'send one DPoP header');
    const tokenUrl = this.tokenUrlOf(req);
    const outcome = await this.dpop.verify({ proof, method: 'POST', uris: tokenUrl === undefined ? [] : [tokenUrl] });
    if (!outcome.ok) {
      const nonce = outcome.error === 'use_dpop_nonce' ? this.dpop.nonce() : undefined;
      throw new OAuthError(outcome.error, outcome.description, 400, nonce === undefined ? {} : { 'DPoP-Nonce': nonce });
    }
    const binding = { jkt: outcome.jkt, bindsRefresh: client.tokenEndpointAuthMethod === 'none' };
    this.bindings.set(req, binding);
    return binding;
  }

  /**
   * RFC 9449 §5: a refresh token bound to a key is taken with a proof by that key only.
   *
   * @throws {OAuthError} 400 `invalid_dpop_proof` when `jkt` is set and the request's proof is by another key, or none
   */
  requireKey(jkt: string | undefined, binding: TokenBinding): void {
    if (jkt !== undefined && jkt !== binding.jkt)
      throw new OAuthError('invalid_dpop_proof', 'the refresh token is bound to a DPoP key: send a proof by that key');
  }

  /** The binding {@link TokenProofs.check} found for this request (unbound when it found no proof). */
  bindingOf(req: IncomingMessage): TokenBinding {
    return this.bindings.get(req) ?? UNBOUND;
  }
}
