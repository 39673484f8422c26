// Test helper: signing keys made with jose, tokens signed with them, and a JWKS endpoint on 127.0.0.1 that counts its fetches.

import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload, type CryptoKey } from 'jose';

/** A key pair: the private key signs tokens, the public JWK goes in a JWKS. */
export interface SigningKey {
  readonly kid: string;
  readonly alg: string;
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
}

/** A key pair for `alg` (ES256 by default) with `kid`. */
export async function makeSigningKey(kid: string, alg = 'ES256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

/** A JWT signed by `key`: `claims` over sub `user-1`, an expiry in an hour; `iss`/`aud` as given in `claims`. */
export function signToken(key: SigningKey, claims: JWTPayload, header: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT({ sub: 'user-1', exp: Math.floor(Date.now() / 1000) + 3600, ...claims })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, ...header })
    .sign(key.privateKey);
}

/** A JWKS endpoint: `respond` decides each answer (the keys by default); `fetches` counts the requests. */
export interface JwksServer {
  readonly url: string;
  readonly fetches: number;
  /** Serves these public keys from now on, with these headers. */
  serveKeys(keys: SigningKey[], headers?: Record<string, string>): void;
  /** Answers with a handler of the test's own (a hang, an endless body, not JSON). */
  respondWith(handler: (req: IncomingMessage, res: ServerResponse) => void): void;
  close(): Promise<void>;
}

/** Starts a JWKS endpoint on a free port of 127.0.0.1 serving `keys`. */
export async function startJwksServer(keys: SigningKey[]): Promise<JwksServer> {
  let fetches = 0;
  let respond: (req: IncomingMessage, res: ServerResponse) => void = () => undefined;
  const server = createServer((req, res) => {
    fetches += 1;
    respond(req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const jwks: JwksServer = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`,
    get fetches() {
      return fetches;
    },
    serveKeys(served, headers = {}) {
      const body = JSON.stringify({ keys: served.map((key) => key.publicJwk) });
      respond = (_req, res) => res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(body);
    },
    respondWith(handler) {
      respond = handler;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  jwks.serveKeys(keys);
  return jwks;
}
