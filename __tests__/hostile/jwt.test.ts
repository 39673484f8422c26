// Hostile JWTs and hostile JWKS endpoints against jwtVerifier: every one refused (null → 401), none a 500, a hang or a flood of fetches.

import type { IncomingMessage } from 'node:http';
import { exportSPKI, importJWK, SignJWT, type CryptoKey, type JWK } from 'jose';
import request from 'supertest';
import { jwtVerifier, type JwtVerifierOptions } from '../../lib/features/verifiers/jwt-verifier';
import { createApp, MCP_ACCEPT, rpc, silentLogger } from '../helpers/create-app';
import { makeSigningKey, signToken, startJwksServer, type JwksServer, type SigningKey } from '../helpers/jwks-server';

const ISSUER = 'https://issuer.example.com';
const AUDIENCE = 'https://api.example.com/mcp';
// The audience is configured, so the request is not read.
const REQ = {} as IncomingMessage;

let key: SigningKey;
let jwks: JwksServer;
beforeEach(async () => {
  key = await makeSigningKey('key-1');
  jwks = await startJwksServer([key]);
});
afterEach(async () => {
  jest.restoreAllMocks();
  await jwks?.close();
});

const verifier = (extra: Partial<JwtVerifierOptions> = {}): ReturnType<typeof jwtVerifier> =>
  jwtVerifier({ issuer: ISSUER, audience: AUDIENCE, jwksUri: jwks.url, logger: silentLogger(), ...extra });
const good = (claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}): Promise<string> =>
  signToken(key, { iss: ISSUER, aud: AUDIENCE, ...claims }, header);
const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const now = (): number => Math.floor(Date.now() / 1000);

it('a well-formed token passes (the baseline of the cases below)', async () => {
  expect(await verifier()(await good(), REQ)).toMatchObject({ subject: 'user-1' });
});

it('alg none, unsigned → refused', async () => {
  const token = `${b64({ alg: 'none', kid: 'key-1' })}.${b64({ iss: ISSUER, aud: AUDIENCE, sub: 'admin', exp: now() + 3600 })}.`;
  expect(await verifier()(token, REQ)).toBeNull();
});

it.each([
  ['PEM (SPKI)', async (jwk: JWK): Promise<string> => exportSPKI((await importJWK(jwk)) as CryptoKey)],
  ['JWK JSON', async (jwk: JWK): Promise<string> => JSON.stringify(jwk)],
])(
  'HS256 signed with the JWKS public key as %s bytes (key confusion) → refused, for an EC and an RSA key',
  async (_label, encode) => {
    // The secret an attacker who read the JWKS can compute: the provider's own public key.
    const rsa = await makeSigningKey('rsa-1', 'RS256');
    jwks.serveKeys([key, rsa]);
    for (const { kid, publicJwk } of [key, rsa]) {
      const secret = new TextEncoder().encode(await encode(publicJwk));
      const forged = await new SignJWT({ iss: ISSUER, aud: AUDIENCE, sub: 'admin', exp: now() + 3600 })
        .setProtectedHeader({ alg: 'HS256', kid })
        .sign(secret);
      expect(await verifier()(forged, REQ)).toBeNull();
    }
  },
);

it.each<[string, Record<string, unknown>]>([
  ['another audience', { aud: 'https://other.example.com/mcp' }],
  ['several audiences, none this one', { aud: ['https://a.example.com', 'https://b.example.com'] }],
  ['another issuer', { iss: 'https://evil.example.com' }],
  ['an issuer differing by a trailing slash', { iss: `${ISSUER}/` }],
  ['expired past the 30 s tolerance', { exp: now() - 60 }],
  ['nbf in the future past the tolerance', { nbf: now() + 120 }],
  ['an empty sub', { sub: '' }],
])('a token with %s → refused', async (_label, claims) => {
  expect(await verifier()(await good(claims), REQ)).toBeNull();
});

it('a signature that does not match (a changed payload) → refused', async () => {
  const [header, , signature] = (await good()).split('.');
  expect(
    await verifier()(
      `${header}.${b64({ iss: ISSUER, aud: AUDIENCE, sub: 'admin', exp: now() + 3600 })}.${signature}`,
      REQ,
    ),
  ).toBeNull();
});

it('a flood of unknown kids: concurrent misses share one fetch, and no more than one fetch per cooldown', async () => {
  const verify = verifier();
  const stranger = await makeSigningKey('stranger');
  const flood = (round: string): Promise<unknown[]> =>
    Promise.all(
      Array.from({ length: 50 }, async (_, i) =>
        verify(await signToken(stranger, { iss: ISSUER, aud: AUDIENCE }, { kid: `${round}-${i}` }), REQ),
      ),
    );
  expect(await flood('a')).toEqual(Array(50).fill(null));
  expect(jwks.fetches).toBe(1);
  expect(await flood('b')).toEqual(Array(50).fill(null));
  expect(jwks.fetches).toBe(1);
  const start = Date.now();
  jest.spyOn(Date, 'now').mockImplementation(() => start + 31_000);
  expect(await flood('c')).toEqual(Array(50).fill(null));
  expect(jwks.fetches).toBe(2);
  // The known key still works throughout.
  expect(await verify(await good(), REQ)).toMatchObject({ subject: 'user-1' });
  expect(jwks.fetches).toBe(2);
});

it('a JWKS endpoint that never answers: the request gets a 401 within the timeout, not a hang or a 500', async () => {
  jwks.respondWith(() => undefined);
  const logger = silentLogger();
  const app = createApp({ logger: silentLogger(), auth: { verify: verifier({ jwksTimeoutMs: 200, logger }) } });
  const started = Date.now();
  const res = await request(app)
    .post('/mcp')
    .set({
      'Content-Type': 'application/json',
      Accept: MCP_ACCEPT,
      'MCP-Protocol-Version': '2025-11-25',
      Authorization: `Bearer ${await good()}`,
    })
    .send(JSON.stringify(rpc('tools/list')));
  expect(res.status).toBe(401);
  expect(Date.now() - started).toBeLessThan(3_000);
  expect(logger.warn).toHaveBeenCalledWith(
    expect.any(Error),
    expect.stringMatching(/cannot load the JWKS at .* \(no answer within 200 ms\)/),
  );
});

it('a 10 MB JWKS: refused, the download aborted past the size bound (memory bounded)', async () => {
  let written = 0;
  let finished = false;
  jwks.respondWith((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const pump = (): void => {
      while (written < 10 * 1024 * 1024 && !res.destroyed) {
        written += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end(() => (finished = true));
    };
    res.write('{"keys":[');
    pump();
  });
  expect(await verifier()(await good(), REQ)).toBeNull();
  expect(finished).toBe(false);
  expect(written).toBeLessThan(10 * 1024 * 1024);
});

it('a JWKS whose declared length is over the bound: refused before reading it', async () => {
  jwks.respondWith((_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(1024 * 1024) }).write('{'),
  );
  expect(await verifier()(await good(), REQ)).toBeNull();
});

it.each([
  ['not JSON', '<html>login page</html>'],
  ['JSON but no key set', '{"keys": "none"}'],
  ['a key set of symmetric keys only', JSON.stringify({ keys: [{ kty: 'oct', k: 'c2VjcmV0', kid: 'key-1' }] })],
])('a JWKS that is %s: refused, logged once per cooldown (not per request)', async (_label, body) => {
  jwks.respondWith((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
  const logger = silentLogger();
  const verify = verifier({ logger });
  for (let i = 0; i < 3; i += 1) expect(await verify(await good({ jti: String(i) }), REQ)).toBeNull();
  expect(jwks.fetches).toBe(1);
  expect(logger.warn).toHaveBeenCalledTimes(1);
});

it('a verified token is served from the cache: no key lookup, even once the JWKS is stale and its endpoint down', async () => {
  const verify = verifier();
  const token = await good();
  expect(await verify(token, REQ)).toMatchObject({ subject: 'user-1' });
  expect(jwks.fetches).toBe(1);
  jwks.respondWith((_req, res) => res.writeHead(503).end());
  const start = Date.now();
  // Past the keys' default max-age (10 min): a signature check would have to refetch them first.
  jest.spyOn(Date, 'now').mockImplementation(() => start + 11 * 60_000);
  expect(await verify(token, REQ)).toMatchObject({ subject: 'user-1' });
  expect(jwks.fetches).toBe(1);
  // A token not seen before does need the keys: one refetch (it fails; the stale keys still verify it).
  expect(await verify(await good({ jti: 'new' }), REQ)).toMatchObject({ subject: 'user-1' });
  expect(jwks.fetches).toBe(2);
});

it('the cache does not carry a token over to another audience', async () => {
  const token = await good();
  const verify = jwtVerifier({ issuer: ISSUER, jwksUri: jwks.url, logger: silentLogger() });
  const reqFor = (host: string): IncomingMessage =>
    ({ headers: { host }, protocol: 'https', baseUrl: '/mcp' }) as unknown as IncomingMessage;
  expect(await verify(token, reqFor('api.example.com'))).toMatchObject({ subject: 'user-1' });
  expect(await verify(token, reqFor('other.example.com'))).toBeNull();
});
