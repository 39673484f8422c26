// DPoP proofs (RFC 9449 §4.3, with the MCP profile's `content_digest`): the one check, for the MCP endpoint and the token endpoint.

import * as crypto from 'node:crypto';
import type { SignInStore } from '../store/sign-in-store';
import { memoizeBounded } from '../http/bounded-memo';
import { jose } from './jose';
import { ASYMMETRIC_JWS_ALGORITHMS, PRIVATE_JWK_MEMBERS, type JWK } from './jose-types';
import { jwsKeyOf, verifiedPayload, type JwsKey } from './jws-verify';
import type { ResolvedDpop } from './dpop-options';

/** The algorithms a proof may use (RFC 9449 §11.6: asymmetric only, never `none`), as metadata lists them. */
export const DPOP_ALGORITHMS: readonly string[] = ASYMMETRIC_JWS_ALGORITHMS;
/** RFC 9449 §4.2: the proof's `typ`. */
const DPOP_TYP = 'dpop+jwt';
/** A proof longer than this is refused unread: a JWT with one public key (RSA 4096 included) is far shorter. */
const MAX_PROOF_LENGTH = 8_192;
/** The MCP profile's digest: RFC 9530 `sha-256=:<base64>:` (32 bytes are 44 base64 characters). */
const CONTENT_DIGEST = /^sha-256=:[A-Za-z0-9+/]{43}=:$/;
/** Public keys imported at most: the few a deployment's clients hold at once (each imported again past it). */
const MAX_KEYS_REMEMBERED = 1_024;

/** What a proof must match: the request it came with. */
export interface ProofRequest {
  /** The `DPoP` header's value. */
  readonly proof: string;
  /** The request method (`htm`). */
  readonly method: string;
  /** The URIs `htu` may name, without query and fragment: the URL the request reached, and its canonical one. */
  readonly uris: readonly string[];
  /** The access token the proof is presented with (RFC 9449 §4.3: then `ath` must be its hash). */
  readonly accessToken?: string;
  /**
   * At the MCP endpoint: true for a POST, whose body a `content_digest` binds; false for GET and DELETE, which carry
   * none. Undefined at the token endpoint, where the profile asks for no digest and one is ignored.
   */
  readonly hasBody?: boolean;
}

/** A proof that passed: its key's RFC 7638 thumbprint and the body digest it names, if any. */
export interface VerifiedProof {
  readonly ok: true;
  readonly jkt: string;
  readonly contentDigest: string | undefined;
}

/** A refused proof: `invalid_dpop_proof`, or `use_dpop_nonce` when a current nonce is missing (RFC 9449 §9). */
export interface RefusedProof {
  readonly ok: false;
  readonly error: 'invalid_dpop_proof' | 'use_dpop_nonce';
  /** Why, for the developer: never a secret. */
  readonly description: string;
}

/** A proof's protected header, read once: why it is refused, or its algorithm and its key (thumbprint and import). */
interface ProofHeader {
  readonly problem?: string;
  readonly alg?: string;
  readonly ready?: Promise<{ readonly jkt: string; readonly key: JwsKey }>;
}

/** The DPoP check of one router. */
export interface DpopCheck {
  readonly options: ResolvedDpop;
  /** Checks one proof against its request. Rejects only when the replay store cannot answer. */
  verify(request: ProofRequest): Promise<VerifiedProof | RefusedProof>;
  /** The nonce to send in `DPoP-Nonce` (undefined unless `auth.dpop.nonce`). */
  nonce(): string | undefined;
}

/** RFC 9449 §4.3 step 11: `ath` is the base64url SHA-256 of the access token's ASCII bytes. */
export function accessTokenHash(token: string): string {
  return crypto.createHash('sha256').update(token).digest('base64url');
}

/** RFC 9449 §4.3 step 9: `htu` is compared without query and fragment, after RFC 3986 §6.2.2–6.2.3 normalization. */
export function htuOf(uri: string): string | undefined {
  if (!URL.canParse(uri)) return undefined;
  const url = new URL(uri);
  return `${url.protocol}//${url.host}${url.pathname}`;
}

const refuse = (description: string): RefusedProof => ({ ok: false, error: 'invalid_dpop_proof', description });

/** Why a proof's header is not acceptable (RFC 9449 §4.3 steps 4–7), or undefined. */
function headerProblem(header: Record<string, unknown>): string | undefined {
  if (header.typ !== DPOP_TYP) return `typ must be ${DPOP_TYP}`;
  // RFC 7515 §4.1.11: no extension this check understands; an unencoded payload (RFC 7797 `b64`) is one.
  if (header.crit !== undefined || header.b64 !== undefined) return 'crit and b64 are not supported in a DPoP proof';
  if (typeof header.alg !== 'string' || !DPOP_ALGORITHMS.includes(header.alg))
    return `alg must be an asymmetric algorithm (${DPOP_ALGORITHMS.join(', ')})`;
  const jwk = header.jwk;
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) return 'jwk (the public key) is missing';
  if ((jwk as JWK).kty === 'oct' || PRIVATE_JWK_MEMBERS.some((member) => member in jwk))
    return 'jwk must be a public key, never a private or symmetric one';
  return undefined;
}

/**
 * Creates the DPoP check of a router.
 *
 * @param nonceKey - the router's shared `requestState` key (filled in place once a shared store answers): nonces
 *   are an HMAC of a time window under a key derived from it, so any instance takes any instance's nonce
 * @param replays - where proof ids are remembered with `trackReplays` (the sign-in store's `replay` kind)
 * @example
 * ```ts
 * const dpop = createDpopCheck(readDpopOptions(read), config.inputRequired.stateKey, new MemorySignInStore());
 * const outcome = await dpop.verify({ proof, method: 'POST', uris: ['https://mcp.example.com/mcp'], accessToken });
 * ```
 */
export function createDpopCheck(options: ResolvedDpop, nonceKey: Buffer, replays?: SignInStore): DpopCheck {
  // jose is loaded at the first proof, not here: a router that never sees one runs on a Node that cannot load it.
  const windowSec = options.maxProofAgeSec;
  const nonceAt = (window: number): string => {
    // Domain-separated from the key's other use (sealing requestState).
    const key = crypto.createHmac('sha256', nonceKey).update('express-mcp-router DPoP-Nonce').digest();
    const mac = crypto.createHmac('sha256', key).update(String(window)).digest().subarray(0, 18);
    return `${window.toString(36)}.${mac.toString('base64url')}`;
  };
  const currentWindow = (): number => Math.floor(Date.now() / 1000 / windowSec);
  /** RFC 9449 §8: a nonce of this window or the last one (a client keeps one until it is refused). */
  const nonceIsCurrent = (nonce: unknown): boolean => {
    if (typeof nonce !== 'string' || nonce.length > 64) return false;
    const window = parseInt(nonce.split('.')[0] ?? '', 36);
    const now = currentWindow();
    if (window !== now && window !== now - 1) return false;
    const expected = Buffer.from(nonceAt(window));
    const given = Buffer.from(nonce);
    return given.length === expected.length && crypto.timingSafeEqual(given, expected);
  };
  /**
   * What a proof's protected header (its first segment) says: a problem, or its algorithm, its key's thumbprint
   * and the imported key. A client sends the same header with every proof, so each is read, checked and imported
   * once (bounded: a client sending a new header each time costs what it would without this).
   */
  const headerOf = memoizeBounded((segment: string): ProofHeader => {
    let header: Record<string, unknown>;
    try {
      header = jose().decodeProtectedHeader(`${segment}..`) as Record<string, unknown>;
    } catch {
      return { problem: 'the DPoP proof is not a JWT' };
    }
    const problem = headerProblem(header);
    if (problem !== undefined) return { problem };
    const jwk = header.jwk as JWK;
    const alg = header.alg as string;
    const key = jwsKeyOf(jwk, alg);
    if (key === undefined) return { problem: `jwk must be a public key for ${alg}` };
    const ready = jose()
      .calculateJwkThumbprint(jwk as never, 'sha256')
      .then((jkt) => ({ jkt, key }));
    // A key that will not import is refused when it is used; no unhandled rejection meanwhile.
    ready.catch(() => undefined);
    return { alg, ready };
  }, MAX_KEYS_REMEMBERED);
  /** Each URI an `htu` is compared with, normalized once. */
  const normalized = memoizeBounded((uri: string) => htuOf(uri) ?? '', MAX_KEYS_REMEMBERED);

  async function verify(request: ProofRequest): Promise<VerifiedProof | RefusedProof> {
    const { proof } = request;
    if (proof.length > MAX_PROOF_LENGTH) return refuse('the DPoP proof is too long');
    const header = headerOf(proof.slice(0, Math.max(0, proof.indexOf('.'))));
    if (header.problem !== undefined) return refuse(header.problem);
    let jkt: string;
    let claims: Record<string, unknown>;
    try {
      const ready = await (header.ready as Promise<{ jkt: string; key: JwsKey }>);
      jkt = ready.jkt;
      const payload = verifiedPayload(proof, ready.key);
      if (payload === undefined) return refuse('the DPoP proof is not signed by its jwk');
      claims = payload;
    } catch {
      return refuse('the DPoP proof is not signed by its jwk');
    }
    const claimProblem = claimsProblem(claims, request);
    if (claimProblem !== undefined) return refuse(claimProblem);
    if (options.nonce && !nonceIsCurrent(claims.nonce))
      return { ok: false, error: 'use_dpop_nonce', description: 'send a DPoP proof with the nonce of DPoP-Nonce' };
    const digest = claims.content_digest;
    if (options.requireContentDigest && request.hasBody === true && digest === undefined)
      return refuse('the DPoP proof must carry content_digest');
    // Last, once the proof is good: a refused proof must not spend its id.
    if (options.trackReplays && replays !== undefined) {
      const first = await replays.add('replay', `dpop ${jkt} ${claims.jti as string}`, {}, 2 * windowSec * 1000);
      if (!first) return refuse('the DPoP proof was used before, or the server remembers as many as it may now');
    }
    return { ok: true, jkt, contentDigest: digest as string | undefined };
  }

  /** RFC 9449 §4.3 steps 8–12, and the MCP profile's `content_digest` form. */
  function claimsProblem(claims: Record<string, unknown>, request: ProofRequest): string | undefined {
    if (typeof claims.jti !== 'string' || claims.jti === '' || claims.jti.length > 256)
      return 'jti must be a non-empty string';
    if (claims.htm !== request.method) return `htm must be ${request.method}`;
    if (request.uris.length === 0)
      return "this server cannot tell its own URL: its Host is not vouched for (set 'auth.resourceMetadata.resource', 'auth.server.issuer' or 'allowedHosts')";
    const htu = typeof claims.htu === 'string' ? normalized(claims.htu) : '';
    if (htu === '' || !request.uris.some((uri) => normalized(uri) === htu))
      return 'htu must be the URI of this request, without query and fragment';
    if (typeof claims.iat !== 'number' || !Number.isFinite(claims.iat)) return 'iat is missing';
    if (Math.abs(Date.now() / 1000 - claims.iat) > windowSec)
      return `iat must be within ${windowSec} seconds of the server's time`;
    if (request.accessToken !== undefined && claims.ath !== accessTokenHash(request.accessToken))
      return 'ath must be the hash of the access token sent with the proof';
    const digest = claims.content_digest;
    if (digest !== undefined && (typeof digest !== 'string' || !CONTENT_DIGEST.test(digest)))
      return 'content_digest must be sha-256=:<base64 SHA-256 of the body>:';
    if (digest !== undefined && request.hasBody === false) return 'content_digest on a request without a body';
    return undefined;
  }

  return {
    options,
    verify,
    nonce: () => (options.nonce ? nonceAt(currentWindow()) : undefined),
  };
}
