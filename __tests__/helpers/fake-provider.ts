// Test helper: a scriptable OpenID provider for hostile cases (forged ID tokens, huge or hanging answers, mix-ups).
// Its /authorize signs anyone in at once; each endpoint's answer can be replaced per test; it counts requests per path.
// Usage:
//   const fake = await startFakeProvider('mcp');
//   fake.on.token = (res) => res.end('<html>');       // the next token answers are HTML
//   fake.idToken = (claims) => fake.sign({ ...claims, aud: 'other' });
//   fake.calls['/jwks'] // how many JWKS reads

import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CryptoKey, JWK, JWTPayload, JWTHeaderParameters } from 'jose';
import { jose } from '../../lib/edge/security/jose';

type Handler = (res: ServerResponse, req: IncomingMessage, body: URLSearchParams) => void;

export interface FakeProvider {
  readonly issuer: string;
  /** Requests per path. */
  readonly calls: Record<string, number>;
  /** Replaces the answer of `/.well-known/openid-configuration`, `/token`, `/userinfo` or `/jwks`. */
  readonly on: { discovery?: Handler; token?: Handler; userinfo?: Handler; jwks?: Handler };
  /** The query the fake's /authorize adds to its redirect (`code`, `state`, `iss` by default); return a changed copy. */
  authorizeAnswer: (answer: URLSearchParams) => URLSearchParams;
  /** The ID token the token endpoint returns, given the claims it would put in it. */
  idToken: (claims: JWTPayload) => Promise<string>;
  /** The claims the userinfo endpoint returns. */
  userinfo: Record<string, unknown>;
  /** Signs claims with the provider's RS256 key (or with `key`, and a header of one's own). */
  sign(claims: JWTPayload, header?: Partial<JWTHeaderParameters>, key?: CryptoKey | Uint8Array): Promise<string>;
  /** The provider's public key as a JWK (kid `k1`). */
  readonly publicJwk: JWK;
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};

/**
 * The providers' RS256 key pair, made once per test file: an RSA 2048 key takes ~220 ms to generate, and a file starts
 * a fresh provider (on a fresh port, so a fresh issuer and JWKS URL) for each of its ~40 tests. A test that needs a key
 * the provider does not hold generates its own.
 */
let providerKeys: ReturnType<ReturnType<typeof jose>['generateKeyPair']> | undefined;

/** Starts the fake provider on 127.0.0.1 for the client `clientId`. */
export async function startFakeProvider(clientId: string): Promise<FakeProvider> {
  const { generateKeyPair, exportJWK, SignJWT } = jose();
  providerKeys ??= generateKeyPair('RS256', { extractable: true });
  const { privateKey, publicKey } = await providerKeys;
  const publicJwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let lastNonce: string | undefined;

  const fake: FakeProvider = {
    issuer,
    calls: {},
    on: {},
    authorizeAnswer: (answer) => answer,
    idToken: (claims) => fake.sign(claims),
    userinfo: { sub: 'user-1', id: 12345, login: 'octocat' },
    publicJwk,
    sign: (claims, header = {}, key = privateKey) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1', ...header }).sign(key),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };

  const defaults: Record<string, Handler> = {
    '/.well-known/openid-configuration': (res) =>
      json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        userinfo_endpoint: `${issuer}/userinfo`,
        jwks_uri: `${issuer}/jwks`,
        authorization_response_iss_parameter_supported: true,
        // HS256 advertised too: the login step must still refuse it.
        id_token_signing_alg_values_supported: ['RS256', 'HS256', 'none'],
        token_endpoint_auth_methods_supported: ['client_secret_post'],
      }),
    '/token': (res) => {
      const now = Math.floor(Date.now() / 1000);
      void fake
        .idToken({ iss: issuer, aud: clientId, sub: 'user-1', nonce: lastNonce, iat: now, exp: now + 300 })
        .then((idToken) =>
          json(res, 200, { access_token: 'upstream-access', token_type: 'Bearer', expires_in: 60, id_token: idToken }),
        );
    },
    '/userinfo': (res) => json(res, 200, fake.userinfo),
    '/jwks': (res) => json(res, 200, { keys: [publicJwk] }),
  };
  const overrides: Record<string, keyof FakeProvider['on']> = {
    '/.well-known/openid-configuration': 'discovery',
    '/token': 'token',
    '/userinfo': 'userinfo',
    '/jwks': 'jwks',
  };

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', issuer);
    fake.calls[url.pathname] = (fake.calls[url.pathname] ?? 0) + 1;
    if (url.pathname === '/authorize') {
      lastNonce = url.searchParams.get('nonce') ?? undefined;
      const answer = fake.authorizeAnswer(
        new URLSearchParams({ code: 'the-code', state: url.searchParams.get('state') ?? '', iss: issuer }),
      );
      res.writeHead(302, { location: `${url.searchParams.get('redirect_uri')}?${answer}` }).end();
      return;
    }
    let text = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      const name = overrides[url.pathname];
      const handler = (name && fake.on[name]) ?? defaults[url.pathname];
      if (handler === undefined) json(res, 404, { error: 'not_found' });
      else handler(res, req, new URLSearchParams(text));
    });
  });
  return fake;
}
