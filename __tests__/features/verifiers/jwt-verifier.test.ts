// jwtVerifier: real JWTs from oidc-provider through a real router, claims → ctx.auth, key rotation, and its options checked at boot.

import express from 'express';
import request from 'supertest';
import { jwtVerifier, type JwtVerifierOptions } from '../../../lib/features/verifiers/jwt-verifier';
import { mcpRouter, McpConfigError, type McpRouter } from '../../../lib';
import { MCP_ACCEPT, rpc, silentLogger } from '../../helpers/messages';
import {
  makeSigningKey,
  signToken,
  startJwksServer,
  type JwksServer,
  type SigningKey,
} from '../../helpers/jwks-server';
import { startOidcProvider, type TestProvider } from '../../helpers/oidc-provider';
import { useVerifyApps } from '../../helpers/verify-app';

const serve = useVerifyApps();

describe('against a real issuer (oidc-provider)', () => {
  let provider: TestProvider;
  beforeAll(async () => {
    provider = await startOidcProvider();
  });
  afterAll(() => provider?.close());

  it("accepts its JWT for this resource (audience defaulting to the endpoint's URL): sub, scopes, exp and the other claims reach ctx.auth", async () => {
    const { origin, call } = await serve(jwtVerifier({ issuer: provider.issuer, jwksUri: provider.jwksUri }));
    const token = await provider.mintAccessToken(`${origin}/mcp`, 'mcp mcp:write');
    const res = await call(token).expect(200);
    const { auth } = res.body.result.structuredContent;
    expect(auth).toMatchObject({
      subject: provider.clientId,
      scopes: ['mcp', 'mcp:write'],
      extra: { iss: provider.issuer, aud: `${origin}/mcp`, client_id: provider.clientId },
    });
    expect(auth.expiresAt).toBeGreaterThan(Date.now() / 1000);
  });

  it('refuses its JWT for another resource with a 401 invalid_token', async () => {
    const { call } = await serve(jwtVerifier({ issuer: provider.issuer, jwksUri: provider.jwksUri }));
    const token = await provider.mintAccessToken('https://other.example.com/mcp', 'mcp');
    const res = await call(token).expect(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
  });

  it('takes the audience from the option when given', async () => {
    const { call } = await serve(
      jwtVerifier({ issuer: provider.issuer, jwksUri: provider.jwksUri, audience: 'https://api.example.com/mcp' }),
    );
    await call(await provider.mintAccessToken('https://api.example.com/mcp', 'mcp')).expect(200);
  });
});

describe('against a JWKS of its own', () => {
  const ISSUER = 'https://issuer.example.com';
  let jwks: JwksServer;
  let first: SigningKey;
  beforeEach(async () => {
    first = await makeSigningKey('key-1');
    jwks = await startJwksServer([first]);
  });
  afterEach(() => jwks?.close());

  it('follows a key rotation: a new kid → one refetch (after the cooldown) → accepted', async () => {
    const logger = silentLogger();
    const { origin, call } = await serve(jwtVerifier({ issuer: ISSUER, jwksUri: jwks.url, logger }));
    const aud = `${origin}/mcp`;
    await call(await signToken(first, { iss: ISSUER, aud })).expect(200);
    expect(jwks.fetches).toBe(1);
    const second = await makeSigningKey('key-2');
    jwks.serveKeys([first, second]);
    // Within the cooldown (30 s) of the first fetch, an unknown kid is refused without a fetch.
    await call(await signToken(second, { iss: ISSUER, aud, jti: 'a' })).expect(401);
    expect(jwks.fetches).toBe(1);
    const now = Date.now();
    jest.spyOn(Date, 'now').mockImplementation(() => now + 31_000);
    await call(await signToken(second, { iss: ISSUER, aud, jti: 'b' })).expect(200);
    expect(jwks.fetches).toBe(2);
    // Both keys are known now: no more fetches.
    await call(await signToken(first, { iss: ISSUER, aud, jti: 'c' })).expect(200);
    await call(await signToken(second, { iss: ISSUER, aud, jti: 'd' })).expect(200);
    expect(jwks.fetches).toBe(2);
  });

  it('reads the scopes of `scp` (an array), or of the claim named by scopeClaim', async () => {
    const { origin, call } = await serve(jwtVerifier({ issuer: ISSUER, jwksUri: jwks.url }));
    const aud = `${origin}/mcp`;
    const scp = await call(await signToken(first, { iss: ISSUER, aud, scp: ['read', 'write'] })).expect(200);
    expect(scp.body.result.structuredContent.auth.scopes).toEqual(['read', 'write']);
    const { call: callCustom } = await serve(
      jwtVerifier({ issuer: ISSUER, jwks: { keys: [first.publicJwk] }, audience: aud, scopeClaim: 'permissions' }),
    );
    const custom = await callCustom(
      await signToken(first, { iss: ISSUER, aud, permissions: 'a b', scope: 'ignored' }),
    ).expect(200);
    expect(custom.body.result.structuredContent.auth.scopes).toEqual(['a', 'b']);
  });

  it('refuses a token without sub or without exp', async () => {
    const { origin, call } = await serve(jwtVerifier({ issuer: ISSUER, jwksUri: jwks.url }));
    const aud = `${origin}/mcp`;
    await call(await signToken(first, { iss: ISSUER, aud, sub: undefined })).expect(401);
    await call(await signToken(first, { iss: ISSUER, aud, exp: undefined })).expect(401);
  });
});

describe('options, checked at boot', () => {
  const base = { issuer: 'https://issuer.example.com', jwksUri: 'https://issuer.example.com/jwks' };
  it.each<[string, Record<string, unknown>, RegExp]>([
    ['no issuer', { issuer: undefined }, /option 'jwtVerifier\.issuer' must be/],
    ['an empty issuer', { issuer: '' }, /option 'jwtVerifier\.issuer' must be/],
    [
      'neither jwksUri nor jwks',
      { jwksUri: undefined },
      /exactly one of 'jwtVerifier\.jwksUri' or 'jwtVerifier\.jwks'/,
    ],
    ['both jwksUri and jwks', { jwks: { keys: [] } }, /exactly one of 'jwtVerifier\.jwksUri' or 'jwtVerifier\.jwks'/],
    [
      'a jwksUri over http to another host',
      { jwksUri: 'http://issuer.example.com/jwks' },
      /option 'jwtVerifier\.jwksUri' must be an https URL/,
    ],
    ['a jwksUri that is no URL', { jwksUri: 'jwks' }, /option 'jwtVerifier\.jwksUri' must be an https URL/],
    [
      'a jwks with no public key',
      { jwksUri: undefined, jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] } },
      /option 'jwtVerifier\.jwks' must be a JSON Web Key Set with at least one public key/,
    ],
    [
      'alg none',
      { algorithms: ['none'] },
      /option 'jwtVerifier\.algorithms' must be public-key JWS algorithms, never 'none'/,
    ],
    [
      'HS256 with a JWKS',
      { algorithms: ['RS256', 'HS256'] },
      /option 'jwtVerifier\.algorithms' must be public-key JWS algorithms, never 'HS256'/,
    ],
    [
      'an unknown algorithm',
      { algorithms: ['RS1'] },
      /option 'jwtVerifier\.algorithms' must be public-key JWS algorithms/,
    ],
    ['an empty algorithm list', { algorithms: [] }, /option 'jwtVerifier\.algorithms' must be a non-empty array/],
    ['a negative tolerance', { clockToleranceSec: -1 }, /option 'jwtVerifier\.clockToleranceSec'/],
    ['an empty audience', { audience: '' }, /option 'jwtVerifier\.audience'/],
    [
      'a zero timeout',
      { jwksTimeoutMs: 0 },
      /option 'jwtVerifier\.jwksTimeoutMs' must be a positive number of milliseconds/,
    ],
    ['a fractional size bound', { jwksMaxBytes: 1.5 }, /option 'jwtVerifier\.jwksMaxBytes' must be a positive integer/],
    ['a bad cache size', { cacheMax: '10' }, /option 'jwtVerifier\.cacheMax' must be a positive integer/],
    [
      'a misspelt option',
      { clockToleranceSecs: 5 },
      /unknown option 'jwtVerifier\.clockToleranceSecs'\. Did you mean 'jwtVerifier\.clockToleranceSec'\?/,
    ],
  ])('%s → McpConfigError', (_label, change, message) => {
    const attempt = (): unknown => jwtVerifier({ ...base, ...change } as JwtVerifierOptions);
    expect(attempt).toThrow(McpConfigError);
    expect(attempt).toThrow(message);
  });

  it('accepts http on loopback (development) and leaves the options unchanged', () => {
    const options = Object.freeze({
      issuer: 'http://127.0.0.1:1',
      jwksUri: 'http://127.0.0.1:1/jwks',
      algorithms: Object.freeze(['ES256']) as string[],
    });
    expect(typeof jwtVerifier(options)).toBe('function');
  });
});
