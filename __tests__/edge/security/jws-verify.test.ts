// jws-verify: a compact JWS checked with node:crypto against the key its signer sent — every asymmetric algorithm jose
// signs with verifies, and nothing else does (another key, a changed payload, a key of another type, a short RSA key).

import * as crypto from 'node:crypto';
import { CompactSign, exportJWK, generateKeyPair } from 'jose';
import { jwsKeyOf, verifiedPayload } from '../../../lib/edge/security/jws-verify';
import type { JWK } from '../../../lib/edge/security/jose-types';

const PAYLOAD = { htm: 'POST', htu: 'https://mcp.example/mcp', jti: 'j1', iat: 1 };

async function signed(alg: string, options: Record<string, unknown> = {}) {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true, ...options });
  const jws = await new CompactSign(Buffer.from(JSON.stringify(PAYLOAD)))
    .setProtectedHeader({ alg, typ: 'dpop+jwt' })
    .sign(privateKey);
  return { jws, jwk: (await exportJWK(publicKey)) as JWK };
}

describe.each([['ES256'], ['ES384'], ['ES512'], ['RS256'], ['PS256'], ['PS512'], ['EdDSA'], ['Ed25519']])(
  '%s',
  (alg) => {
    it('verifies what jose signed, and refuses a changed payload or another key', async () => {
      const { jws, jwk } = await signed(alg);
      const key = jwsKeyOf(jwk, alg);
      expect(key).toBeDefined();
      expect(verifiedPayload(jws, key!)).toEqual(PAYLOAD);
      const [header, , signature] = jws.split('.');
      const changed = Buffer.from(JSON.stringify({ ...PAYLOAD, htm: 'GET' })).toString('base64url');
      expect(verifiedPayload(`${header}.${changed}.${signature}`, key!)).toBeUndefined();
      const other = await signed(alg);
      expect(verifiedPayload(other.jws, key!)).toBeUndefined();
    });
  },
);

describe('keys that do not fit', () => {
  it('refuses a key of another type or curve than the algorithm names', async () => {
    const { jwk: ec256 } = await signed('ES256');
    const { jwk: rsa } = await signed('RS256');
    expect(jwsKeyOf(ec256, 'ES384')).toBeUndefined();
    expect(jwsKeyOf(ec256, 'RS256')).toBeUndefined();
    expect(jwsKeyOf(rsa, 'ES256')).toBeUndefined();
    expect(jwsKeyOf(rsa, 'EdDSA')).toBeUndefined();
    expect(jwsKeyOf(ec256, 'HS256')).toBeUndefined();
    expect(jwsKeyOf(ec256, 'none')).toBeUndefined();
    expect(jwsKeyOf({ kty: 'EC', crv: 'P-256', x: 'bad', y: 'bad' }, 'ES256')).toBeUndefined();
  });

  it('refuses an RSA key under 2048 bits (RFC 7518 §3.3)', () => {
    const { publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 1024 });
    expect(jwsKeyOf(publicKey.export({ format: 'jwk' }) as JWK, 'RS256')).toBeUndefined();
  });

  it('refuses what is not a three-part base64url JWS, and a signature of the wrong size', async () => {
    const { jws, jwk } = await signed('ES256');
    const key = jwsKeyOf(jwk, 'ES256')!;
    const [header, payload, signature] = jws.split('.') as [string, string, string];
    for (const bad of [
      `${header}.${payload}`,
      `${jws}.x`,
      `${header}.${payload}.${signature}=`,
      `${header}.${payload}.`,
    ])
      expect(verifiedPayload(bad, key)).toBeUndefined();
    expect(verifiedPayload(`${header}.${payload}.${signature.slice(0, 20)}`, key)).toBeUndefined();
  });

  it('refuses a verified payload that is not a JSON object', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const key = jwsKeyOf((await exportJWK(publicKey)) as JWK, 'ES256')!;
    for (const body of ['[1,2]', '"text"', 'not json']) {
      const jws = await new CompactSign(Buffer.from(body)).setProtectedHeader({ alg: 'ES256' }).sign(privateKey);
      expect(verifiedPayload(jws, key)).toBeUndefined();
    }
  });
});
