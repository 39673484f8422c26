// Hostile machine clients at the token endpoint: forged, replayed and misdirected private_key_jwt assertions (RFC 7523
// §3), two methods at once (RFC 6749 §2.3), and the client_credentials grant asked by clients that may not use it.

import * as crypto from 'node:crypto';
import { exportJWK, exportSPKI, importJWK, SignJWT, type CryptoKey } from 'jose';
import request from 'supertest';
import { McpConfigError } from '../../lib/options/config-error';
import { resolveClientsOptions } from '../../lib/features/sign-in/clients/client-options';
import { makeSigningKey, type SigningKey } from '../helpers/jwks-server';
import { ASSERTION_TYPE, assertionFields, clientAssertion } from '../helpers/client-assertion';
import { startSignInServer, type SignInServer } from '../helpers/sign-in-server';

const SECRET = 'machine-secret-value';
let key: SigningKey;
let stranger: SigningKey;
let impostor: SigningKey;
let server: SignInServer;
let issuer: string;

beforeAll(async () => {
  key = await makeSigningKey('client-key');
  stranger = await makeSigningKey('stranger-key');
  // Same kid as the client's key, another key: the set's lookup finds the client's key, the signature fails.
  impostor = await makeSigningKey('client-key');
  server = await startSignInServer({
    registration: false,
    clients: [
      { clientId: 'svc', jwks: { keys: [key.publicJwk] }, grants: ['client_credentials'] },
      { clientId: 'svc-twin', jwks: { keys: [key.publicJwk] }, grants: ['client_credentials'] },
      { clientId: 'svc-secret', clientSecret: SECRET, grants: ['client_credentials'] },
      { clientId: 'web', clientSecret: SECRET, redirectUris: ['http://127.0.0.1:1/cb'] },
      { clientId: 'cli', redirectUris: ['http://127.0.0.1:1/cb'] },
    ],
  });
  issuer = server.issuer;
});

afterAll(async () => {
  await server?.close();
});

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const basic = (id: string, secret: string): string => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const now = (): number => Math.floor(Date.now() / 1000);

/** What one hostile request sends: the form, and an Authorization header if any. */
interface Attempt {
  readonly form: Record<string, string>;
  readonly authorization?: string;
}
const cc = (fields: Record<string, string>, authorization?: string): Attempt => ({
  form: { grant_type: 'client_credentials', ...fields },
  ...(authorization === undefined ? {} : { authorization }),
});
const asserted = async (signer: SigningKey, claims: Record<string, unknown> = {}, clientId = 'svc') =>
  cc(assertionFields(await clientAssertion(signer, clientId, issuer, claims)));

function send({ form, authorization }: Attempt) {
  const req = request(server.app.server).post('/mcp/oauth/token').type('form');
  return (authorization === undefined ? req : req.set('Authorization', authorization)).send(form);
}

type Row = [string, () => Promise<Attempt>, number, string, RegExp];

const rows: Row[] = [
  [
    'for another audience',
    () => asserted(key, { aud: 'https://other.example/mcp' }),
    401,
    'invalid_client',
    /aud must name this server/,
  ],
  [
    'signed by a key not in the client’s set',
    () => asserted(stranger),
    401,
    'invalid_client',
    /not signed by a key of the client/,
  ],
  [
    'signed by another key under the client’s kid',
    () => asserted(impostor),
    401,
    'invalid_client',
    /not signed by a key of the client/,
  ],
  [
    'with alg none',
    async () =>
      cc(
        assertionFields(
          `${b64({ alg: 'none' })}.${b64({ iss: 'svc', sub: 'svc', aud: issuer, exp: now() + 60, jti: 'n' })}.`,
        ),
      ),
    401,
    'invalid_client',
    /asymmetric algorithm|not a signed JWT/,
  ],
  [
    'HS256 keyed with the client’s public key (algorithm confusion)',
    async () => {
      // The client's public key as PEM: what an HS256 verifier confused into using the set's key as a secret would use.
      const pem = await exportSPKI((await importJWK(key.publicJwk, key.alg)) as CryptoKey);
      const forged = await new SignJWT({ jti: crypto.randomUUID() })
        .setProtectedHeader({ alg: 'HS256', kid: key.kid })
        .setIssuer('svc')
        .setSubject('svc')
        .setAudience(issuer)
        .setIssuedAt()
        .setExpirationTime('2m')
        .sign(new TextEncoder().encode(pem));
      return cc(assertionFields(forged));
    },
    401,
    'invalid_client',
    /asymmetric algorithm/,
  ],
  [
    'whose iss is not its sub',
    () => asserted(key, { iss: 'someone-else' }),
    401,
    'invalid_client',
    /iss and sub must both be the client_id/,
  ],
  [
    'naming another client in client_id than in iss and sub',
    async () => cc({ client_id: 'svc-twin', ...assertionFields(await clientAssertion(key, 'svc', issuer)) }),
    401,
    'invalid_client',
    /iss and sub must both be the client_id/,
  ],
  ['expired', () => asserted(key, { iat: now() - 400, exp: now() - 100 }), 401, 'invalid_client', /has expired/],
  [
    'living longer than 5 minutes',
    () => asserted(key, { exp: now() + 3600 }),
    401,
    'invalid_client',
    /lives longer than 300 s/,
  ],
  [
    'without iat, living longer than 5 minutes',
    () => asserted(key, { iat: undefined, exp: now() + 600 }),
    401,
    'invalid_client',
    /lives longer/,
  ],
  [
    'issued in the future',
    () => asserted(key, { iat: now() + 600, exp: now() + 700 }),
    401,
    'invalid_client',
    /iat is in the future/,
  ],
  ['without jti', () => asserted(key, { jti: undefined }), 401, 'invalid_client', /jti is missing or invalid/],
  [
    'with a jti of 1,000 characters',
    () => asserted(key, { jti: 'j'.repeat(1_000) }),
    401,
    'invalid_client',
    /jti must be a string of 1 to 256/,
  ],
  ['without exp', () => asserted(key, { exp: undefined }), 401, 'invalid_client', /exp is missing or invalid/],
  [
    'with another client_assertion_type',
    async () =>
      cc({
        ...assertionFields(await clientAssertion(key, 'svc', issuer)),
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:saml2-bearer',
      }),
    401,
    'invalid_client',
    /client_assertion_type must be urn:ietf:params:oauth:client-assertion-type:jwt-bearer/,
  ],
  [
    'without client_assertion_type',
    async () => cc({ client_assertion: await clientAssertion(key, 'svc', issuer) }),
    401,
    'invalid_client',
    /client_assertion_type must be/,
  ],
  ['that is not a JWT', async () => cc(assertionFields('not.a.jwt')), 401, 'invalid_client', /not a JWT/],
  ['of an unknown client', () => asserted(key, {}, 'nobody'), 401, 'invalid_client', /^unknown client$/],
  [
    'for a client that authenticates with a secret',
    () => asserted(key, {}, 'svc-secret'),
    401,
    'invalid_client',
    /authenticates with client_secret_basic, not private_key_jwt/,
  ],
  [
    'with Basic credentials too (two methods)',
    async () => cc(assertionFields(await clientAssertion(key, 'svc', issuer)), basic('svc-secret', SECRET)),
    401,
    'invalid_client',
    /authenticated twice/,
  ],
  [
    'with client_secret too (two methods)',
    async () => cc({ ...assertionFields(await clientAssertion(key, 'svc', issuer)), client_secret: SECRET }),
    401,
    'invalid_client',
    /authenticated twice \(client_assertion and client_secret\)/,
  ],
  [
    'that is an access token the router issued',
    async () => {
      const issued = await send(cc({}, basic('svc-secret', SECRET)));
      return cc({ client_id: 'svc', ...assertionFields(issued.body.access_token as string) });
    },
    401,
    'invalid_client',
    /not signed by a key of the client/,
  ],
  [
    'client_credentials by a client without the grant',
    async () => cc({}, basic('web', SECRET)),
    400,
    'unauthorized_client',
    /not registered for the client_credentials grant/,
  ],
  [
    'client_credentials by a public client',
    async () => cc({ client_id: 'cli' }),
    400,
    'unauthorized_client',
    /not registered for the client_credentials grant/,
  ],
];

describe('the token endpoint refuses, with the RFC’s code and status, and issues no token', () => {
  it.each(rows)('an assertion or request %s', async (_why, attempt, status, error, description) => {
    const res = await send(await attempt());
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error, error_description: expect.stringMatching(description) });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.access_token).toBeUndefined();
  });

  it('an assertion replayed: its jti is single use (RFC 7523 §3 item 7)', async () => {
    const attempt = await asserted(key);
    await send(attempt).expect(200);
    const replay = await send(attempt).expect(401);
    expect(replay.body).toEqual({
      error: 'invalid_client',
      error_description:
        'client_assertion was used before (its jti is single use), or the server remembers as many as it may now (auth.server.maxUsedIds)',
    });
    // The same jti from another client is another assertion.
    const jti = crypto.randomUUID();
    await send(await asserted(key, { jti })).expect(200);
    await send(await asserted(key, { jti }, 'svc-twin')).expect(200);
  });

  it('answers Basic with its challenge, and never echoes the assertion', async () => {
    const assertion = await clientAssertion(stranger, 'svc', issuer);
    const res = await send(cc(assertionFields(assertion), basic('svc', 'x'))).expect(401);
    expect(res.headers['www-authenticate']).toMatch(/^Basic /);
    const plain = await send(cc(assertionFields(assertion))).expect(401);
    expect(plain.headers['www-authenticate']).toBeUndefined();
    expect(JSON.stringify(plain.body)).not.toContain(assertion.split('.')[2]);
    expect(ASSERTION_TYPE).toBe('urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
  });
});

describe('a private key in a client’s jwks option', () => {
  it('is refused at boot, not silently dropped (the key has leaked; dropping it would hide why the client fails)', async () => {
    const privateJwk = { ...(await exportJWK(key.privateKey)), kid: key.kid };
    expect(() =>
      resolveClientsOptions({
        clients: [{ clientId: 'a', jwks: { keys: [privateJwk] }, grants: ['client_credentials'] }],
      }),
    ).toThrow(McpConfigError);
  });
});

describe('a flood of assertions never makes a used one usable again (maxUsedIds is a ceiling, not an eviction)', () => {
  it('past the bound new assertions are refused, and a used one stays refused', async () => {
    const small = await startSignInServer({
      registration: false,
      maxUsedIds: 3,
      clients: [
        { clientId: 'svc', jwks: { keys: [key.publicJwk] }, grants: ['client_credentials'] },
        { clientId: 'flooder', jwks: { keys: [stranger.publicJwk] }, grants: ['client_credentials'] },
      ],
    });
    try {
      const post = (form: Record<string, string>) =>
        request(small.app.server).post('/mcp/oauth/token').type('form').send(form);
      const victim = cc(assertionFields(await clientAssertion(key, 'svc', small.issuer))).form;
      expect((await post(victim)).status).toBe(200);
      for (let index = 0; index < 5; index++)
        await post(cc(assertionFields(await clientAssertion(stranger, 'flooder', small.issuer))).form);
      const replay = await post(victim);
      expect(replay.status).toBe(401);
      expect(replay.body).toMatchObject({ error: 'invalid_client' });
      expect(replay.body.error_description).toMatch(/used before .*or the server remembers as many as it may now/);
      expect(replay.body.access_token).toBeUndefined();
    } finally {
      await small.close();
    }
  });
});
