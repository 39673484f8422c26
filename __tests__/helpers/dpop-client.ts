// A DPoP client (RFC 9449) built with jose: a key pair, proofs for any request (and hostile variants), and fetches that carry them.

import * as crypto from 'node:crypto';
import {
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  SignJWT,
  type CryptoKey,
  type JWK,
  type JWTPayload,
} from 'jose';

/** What a proof says, each overridable (undefined removes a claim). */
export interface ProofClaims {
  htm: string;
  htu: string;
  /** The access token the proof goes with: its hash becomes `ath`. */
  accessToken?: string;
  /** The exact body bytes: their digest becomes `content_digest` (the MCP profile). */
  body?: string;
  nonce?: string;
  /** More claims, or claims to change (`iat`, `jti`, `ath`…). */
  claims?: Record<string, unknown>;
  /** Header members to change (`typ`, `alg`, `jwk`). */
  header?: Record<string, unknown>;
}

/** `sha-256=:<base64>:` of a body (RFC 9530, as the MCP profile writes it). */
export function contentDigest(body: string | Uint8Array): string {
  return `sha-256=:${crypto.createHash('sha256').update(body).digest('base64')}:`;
}

/** `ath`: the base64url SHA-256 of an access token. */
export function tokenHash(token: string): string {
  return crypto.createHash('sha256').update(token).digest('base64url');
}

/** A DPoP key pair and what it signs. */
export class DpopClient {
  private constructor(
    readonly alg: string,
    readonly privateKey: CryptoKey,
    readonly publicJwk: JWK,
    /** RFC 7638 thumbprint: the `cnf.jkt` of tokens bound to this key. */
    readonly jkt: string,
  ) {}

  /** A client with a fresh key pair (ES256 unless said). */
  static async create(alg = 'ES256'): Promise<DpopClient> {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    const publicJwk = await exportJWK(publicKey);
    return new DpopClient(alg, privateKey, publicJwk, await calculateJwkThumbprint(publicJwk, 'sha256'));
  }

  /** A proof JWT for a request; `claims` and `header` change or remove (undefined) what it says. */
  proof(request: ProofClaims): Promise<string> {
    const payload: JWTPayload = {
      jti: crypto.randomBytes(12).toString('base64url'),
      htm: request.htm,
      htu: request.htu,
      iat: Math.floor(Date.now() / 1000),
    };
    if (request.accessToken !== undefined) payload.ath = tokenHash(request.accessToken);
    if (request.body !== undefined) payload.content_digest = contentDigest(request.body);
    if (request.nonce !== undefined) payload.nonce = request.nonce;
    const header = { typ: 'dpop+jwt', alg: this.alg, jwk: this.publicJwk, ...request.header };
    return new SignJWT(dropUndefined({ ...payload, ...request.claims }))
      .setProtectedHeader(dropUndefined(header) as never)
      .sign(this.privateKey);
  }

  /**
   * An MCP POST with `Authorization: DPoP <token>` and a fresh proof (with `content_digest` when `digest`), as fetch
   * sends it.
   */
  async post(
    url: string,
    token: string,
    message: unknown,
    options: { digest?: boolean; nonce?: string; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    const body = JSON.stringify(message);
    const proof = await this.proof({
      htm: 'POST',
      htu: url,
      accessToken: token,
      nonce: options.nonce,
      ...(options.digest === true && { body }),
    });
    return fetch(url, {
      method: 'POST',
      headers: {
        authorization: `DPoP ${token}`,
        dpop: proof,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...options.headers,
      },
      body,
    });
  }

  /**
   * A fetch for the SDK clients' transports: every request to `url` goes out with `Authorization: DPoP <token>` and
   * a fresh proof for its method (and `content_digest` of its body when `digest`).
   */
  fetchFor(token: () => string, digest = false): typeof fetch {
    return async (input, init = {}) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      const method = (init.method ?? 'GET').toUpperCase();
      const body = typeof init.body === 'string' ? init.body : undefined;
      const headers = new Headers(init.headers);
      headers.set('authorization', `DPoP ${token()}`);
      headers.set(
        'dpop',
        await this.proof({
          htm: method,
          htu: url,
          accessToken: token(),
          ...(digest && body !== undefined && { body }),
        }),
      );
      return fetch(input, { ...init, headers });
    };
  }
}

function dropUndefined<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined)) as T;
}
