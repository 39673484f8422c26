// DPoP at the MCP endpoint (RFC 9449 §7): which scheme a token came with, whether it is bound, and the proof that must match its key.

import type { IncomingMessage } from 'node:http';
import type { AuthInfo } from '../../core/registry/request-context';
import { repeatedHeader } from '../http/repeated-headers';
import type { DpopCheck } from './dpop';

/** Why a DPoP presentation is refused: each is a 401 with a `DPoP` challenge (challenge.ts). */
export type DpopFailure =
  /** `invalid_dpop_proof`: missing, repeated, malformed or not matching the request, the token or its key. */
  | 'dpop_proof'
  /** `use_dpop_nonce` (RFC 9449 §9), with a `DPoP-Nonce` header. */
  | 'dpop_nonce'
  /** The DPoP scheme with a token bound to no key. */
  | 'dpop_unbound'
  /** A bound token sent as `Bearer` (RFC 9449 §7.1: the resource server must not take it as a bearer token). */
  | 'bound_as_bearer'
  /** An unbound token where the verifier takes bound ones only (`jwtVerifier({ dpop: 'required' })`). */
  | 'dpop_required'
  /**
   * A token bound by a confirmation this server cannot check (RFC 7800 `cnf` without a usable `jkt`: a certificate
   * thumbprint of RFC 8705, a malformed `jkt`): taken as a bearer token it would defeat its binding.
   */
  | 'unchecked_binding';

/** The credential of an `Authorization` header: its scheme (RFC 7235: case-insensitive) and token. */
export interface Credential {
  readonly scheme: 'bearer' | 'dpop';
  readonly token: string;
}

/** The scheme and token of `Authorization: Bearer <token>` or `Authorization: DPoP <token>`. */
export function credentialOf(header: string | undefined): Credential | undefined {
  const match = header === undefined ? null : /^\s*(bearer|dpop)\s+([^\s]+)\s*$/i.exec(header);
  if (match === null) return undefined;
  return { scheme: (match[1] as string).length === 4 ? 'dpop' : 'bearer', token: match[2] as string };
}

/**
 * What a principal's token is bound to, from the verifier's `extra.cnf` (RFC 7800): unbound (no `cnf`), the JWK
 * thumbprint of its DPoP key (`{ jkt }`, RFC 9449 §6), or `null` for any other confirmation, which this server cannot
 * check.
 */
export function boundKeyOf(auth: AuthInfo): string | undefined | null {
  const cnf = auth.extra?.cnf;
  if (cnf === undefined) return undefined;
  if (typeof cnf !== 'object' || cnf === null || Array.isArray(cnf)) return null;
  const members = Object.keys(cnf);
  const jkt = (cnf as { jkt?: unknown }).jkt;
  return members.length === 1 && typeof jkt === 'string' && jkt !== '' ? jkt : null;
}

/** True for a verify callback that takes DPoP-bound tokens only (`jwtVerifier({ dpop: 'required' })` marks it). */
export function requiresDpop(verify: unknown): boolean {
  return typeof verify === 'function' && (verify as { dpop?: unknown }).dpop === 'required';
}

function isDpopHeader(name: string): boolean {
  return name.length === 4 && name.toLowerCase() === 'dpop';
}

/** A presentation's verdict: the body digest its proof named, or the failure with why. */
export type DpopVerdict =
  | { readonly ok: true; readonly contentDigest: string | undefined }
  | { readonly ok: false; readonly failure: DpopFailure; readonly detail?: string };

const BOUND = { ok: true, contentDigest: undefined } as const;

/**
 * Checks how a verified token was presented (RFC 9449 §7.1): a bound token needs the DPoP scheme and a proof by
 * its key, with `htm`, `htu` and `ath` of this request; the DPoP scheme needs a bound token; with `required`,
 * unbound tokens are refused.
 *
 * @param urisOf - the URIs a proof's `htu` may name for a request: the URL it reached, and the canonical resource
 */
export function createDpopPresentation(
  dpop: DpopCheck,
  required: boolean,
  urisOf: (req: IncomingMessage) => readonly string[],
): (req: IncomingMessage, auth: AuthInfo, credential: Credential) => DpopVerdict | Promise<DpopVerdict> {
  return function checkPresentation(req, auth, credential) {
    const jkt = boundKeyOf(auth);
    if (jkt === null) return { ok: false, failure: 'unchecked_binding' };
    if (credential.scheme === 'bearer') {
      if (jkt !== undefined) return { ok: false, failure: 'bound_as_bearer' };
      return required ? { ok: false, failure: 'dpop_required' } : BOUND;
    }
    if (jkt === undefined) return { ok: false, failure: 'dpop_unbound' };
    const proof = req.headers.dpop;
    if (typeof proof !== 'string' || proof === '')
      return { ok: false, failure: 'dpop_proof', detail: 'send a DPoP proof in the DPoP header' };
    // RFC 9449 §4.3 step 1: one DPoP header (Node joins repeated ones into one value).
    if (repeatedHeader(req.rawHeaders, isDpopHeader) !== undefined || proof.includes(','))
      return { ok: false, failure: 'dpop_proof', detail: 'send one DPoP header' };
    const method = req.method ?? 'GET';
    return dpop
      .verify({ proof, method, uris: urisOf(req), accessToken: credential.token, hasBody: method === 'POST' })
      .then((outcome): DpopVerdict => {
        if (!outcome.ok)
          return {
            ok: false,
            failure: outcome.error === 'use_dpop_nonce' ? 'dpop_nonce' : 'dpop_proof',
            detail: outcome.description,
          };
        // RFC 9449 §4.3 step 12: the proof's key must be the one the token is bound to.
        if (outcome.jkt !== jkt)
          return {
            ok: false,
            failure: 'dpop_proof',
            detail: 'the DPoP proof is signed by another key than the token is bound to',
          };
        return { ok: true, contentDigest: outcome.contentDigest };
      });
  };
}
