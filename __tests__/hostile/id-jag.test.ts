// Hostile ID-JAGs at the token endpoint (SEP-990 §7.4–7.6, the ID-JAG draft §4.4.1, RFC 7523 §3): each row is the
// RFC's error and status, with no token issued and nothing of the assertion, the keys or the app's failure leaked.

import { SignJWT } from 'jose';
import request from 'supertest';
import type { McpLogger } from '../../lib';
import { startIdJagIdp, startIdJagRouter, type IdJagIdp, type IdJagRouter } from '../helpers/id-jag-idp';
import { startJwksServer, type JwksServer } from '../helpers/jwks-server';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer' as const;
const AGENT = { clientId: 'agent', clientSecret: 'agent-secret', grants: [JWT_BEARER] };
const SECRET_OF_THE_APP = 'db-password-hunter2';

let idp: IdJagIdp;
/** An IdP the router does not trust. */
let stranger: IdJagIdp;
/** A trusted IdP whose key set will not load. */
let unreachable: IdJagIdp;
let deadJwks: JwksServer;
let router: IdJagRouter;
const warned: unknown[] = [];
const errors: unknown[] = [];
const logger: McpLogger = { error: (err) => errors.push(err), warn: (err) => warned.push(err) };

beforeAll(async () => {
  [idp, stranger, unreachable] = await Promise.all([startIdJagIdp({}), startIdJagIdp({}), startIdJagIdp({})]);
  deadJwks = await startJwksServer([]);
  deadJwks.respondWith((_req, res) => res.writeHead(500).end('down'));
  router = await startIdJagRouter(
    {
      scopes: ['read', 'write'],
      trustedIdps: [
        { issuer: idp.issuer, jwksUri: idp.jwksUri },
        { issuer: unreachable.issuer, jwksUri: deadJwks.url },
      ],
      clients: [AGENT, { clientId: 'other', clientSecret: 'other-secret', grants: [JWT_BEARER] }],
      mapIdentity: (claims) => {
        if (claims.sub === 'boom') throw new Error(`lookup failed: ${SECRET_OF_THE_APP}`);
        return { subject: String(claims.sub) };
      },
    },
    { logger },
  );
});
afterAll(async () => {
  await router?.close();
  await Promise.all([idp?.close(), stranger?.close(), unreachable?.close(), deadJwks?.close()]);
});

const now = () => Math.floor(Date.now() / 1000);
/** A good ID-JAG for the router and `agent`, from `issuer` (the trusted IdP by default), with these claims over. */
const good = (claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}, from = idp) =>
  from.mint({ aud: router.issuer, resource: router.issuer, client_id: 'agent', scope: 'read', ...claims }, header);

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** POSTs the grant with `assertion` (and more form fields) as `agent`, or as the client given. */
const present = (assertion: string | undefined, form: Record<string, string> = {}, secret = AGENT.clientSecret) =>
  request(router.app.server)
    .post('/mcp/oauth/token')
    .auth(AGENT.clientId, secret)
    .type('form')
    .send({ grant_type: JWT_BEARER, ...(assertion !== undefined && { assertion }), ...form });

type Row = {
  send: () => Promise<request.Response>;
  status: number;
  error: string;
  also?: (res: request.Response) => void;
};

/** Why each row is refused (its error_description): the row fails for the reason it names, not another. */
const WHY: Record<string, RegExp> = {
  'an untrusted issuer': /issuer is not a trusted IdP/,
  "a trusted issuer's name on another IdP's signature": /signature verification failed/,
  'another audience': /aud must be/,
  'an audience array with another server beside this one (draft §4.4.1: exactly one)': /aud must be/,
  'another resource': /resource must be/,
  'a resource parameter naming another server': /^resource must be/,
  'an expired ID-JAG': /"exp" claim/,
  'a lifetime over maxLifetimeSec (300 s)': /lives longer than 300 s/,
  'issued in the future': /issued in the future/,
  'a replay (its first use got a token)': /already used/,
  'alg none': /"alg"/,
  "HS256 keyed with the IdP's public key": /"alg"/,
  'another typ (an ID token)': /"typ"/,
  'no typ': /"typ"/,
  "the IdP's ID token itself": /"typ"/,
  "another client's ID-JAG": /another client/,
  'no client_id claim': /"client_id"/,
  'no sub': /"sub"/,
  'an empty sub': /sub claim/,
  'no jti': /"jti"/,
  'no iat': /"iat"/,
  'a scope claim that is not a string': /scope claim/,
  'a key-bound ID-JAG (cnf) with no proof of possession': /cnf/,
  'a kid the IdP never published': /no applicable key/,
  'not a JWT': /not a JWT/,
  'no assertion': /assertion is missing/,
  'a wrong client secret': /wrong client secret/,
  'a trusted IdP whose key set will not load (logged once, never 500)': /keys could not be loaded/,
  'mapIdentity throwing: the app’s bug, 500 server_error with nothing of it leaked, logged': /see its logs/,
};

const ROWS: Array<[string, Row]> = [
  [
    'an untrusted issuer',
    { send: async () => present(await good({}, {}, stranger)), status: 400, error: 'invalid_grant' },
  ],
  [
    "a trusted issuer's name on another IdP's signature",
    { send: async () => present(await good({ iss: idp.issuer }, {}, stranger)), status: 400, error: 'invalid_grant' },
  ],
  [
    'another audience',
    { send: async () => present(await good({ aud: 'https://as.other.example' })), status: 400, error: 'invalid_grant' },
  ],
  [
    'an audience array with another server beside this one (draft §4.4.1: exactly one)',
    {
      send: async () => present(await good({ aud: [router.issuer, 'https://as.other.example'] })),
      status: 400,
      error: 'invalid_grant',
    },
  ],
  [
    'another resource',
    {
      send: async () => present(await good({ resource: 'https://mcp.other.example' })),
      status: 400,
      error: 'invalid_grant',
    },
  ],
  [
    'a resource parameter naming another server',
    {
      send: async () => present(await good(), { resource: 'https://mcp.other.example' }),
      status: 400,
      error: 'invalid_target',
    },
  ],
  [
    'an expired ID-JAG',
    {
      send: async () => present(await good({ iat: now() - 400, exp: now() - 100 })),
      status: 400,
      error: 'invalid_grant',
    },
  ],
  [
    'a lifetime over maxLifetimeSec (300 s)',
    { send: async () => present(await good({ iat: now(), exp: now() + 3600 })), status: 400, error: 'invalid_grant' },
  ],
  [
    'issued in the future',
    {
      send: async () => present(await good({ iat: now() + 600, exp: now() + 700 })),
      status: 400,
      error: 'invalid_grant',
    },
  ],
  [
    'a replay (its first use got a token)',
    {
      send: async () => {
        const assertion = await good();
        expect((await present(assertion)).status).toBe(200);
        return present(assertion);
      },
      status: 400,
      error: 'invalid_grant',
    },
  ],
  [
    'alg none',
    {
      send: () =>
        present(
          `${b64({ alg: 'none', typ: 'oauth-id-jag+jwt' })}.${b64({ iss: idp.issuer, sub: 'u', aud: router.issuer, client_id: 'agent', jti: 'n1', iat: now(), exp: now() + 60 })}.`,
        ),
      status: 400,
      error: 'invalid_grant',
    },
  ],
  [
    "HS256 keyed with the IdP's public key",
    {
      send: async () =>
        present(
          await new SignJWT({ sub: 'u', aud: router.issuer, client_id: 'agent', jti: 'h1' })
            .setProtectedHeader({ alg: 'HS256', typ: 'oauth-id-jag+jwt', kid: idp.key.kid })
            .setIssuer(idp.issuer)
            .setIssuedAt()
            .setExpirationTime('1m')
            .sign(new TextEncoder().encode(JSON.stringify(idp.key.publicJwk))),
        ),
      status: 400,
      error: 'invalid_grant',
    },
  ],
  [
    'another typ (an ID token)',
    { send: async () => present(await good({}, { typ: 'JWT' })), status: 400, error: 'invalid_grant' },
  ],
  ['no typ', { send: async () => present(await good({}, { typ: undefined })), status: 400, error: 'invalid_grant' }],
  [
    "the IdP's ID token itself",
    { send: async () => present(await idp.idToken('u', 'agent')), status: 400, error: 'invalid_grant' },
  ],
  [
    "another client's ID-JAG",
    { send: async () => present(await good({ client_id: 'other' })), status: 400, error: 'invalid_grant' },
  ],
  [
    'no client_id claim',
    { send: async () => present(await good({ client_id: undefined })), status: 400, error: 'invalid_grant' },
  ],
  ['no sub', { send: async () => present(await good({ sub: undefined })), status: 400, error: 'invalid_grant' }],
  ['an empty sub', { send: async () => present(await good({ sub: '' })), status: 400, error: 'invalid_grant' }],
  ['no jti', { send: async () => present(await good({ jti: undefined })), status: 400, error: 'invalid_grant' }],
  ['no iat', { send: async () => present(await good({ iat: undefined })), status: 400, error: 'invalid_grant' }],
  [
    'a scope claim that is not a string',
    { send: async () => present(await good({ scope: ['read'] })), status: 400, error: 'invalid_grant' },
  ],
  [
    'a key-bound ID-JAG (cnf) with no proof of possession',
    { send: async () => present(await good({ cnf: { jkt: 'abc' } })), status: 400, error: 'invalid_grant' },
  ],
  [
    'a kid the IdP never published',
    { send: async () => present(await good({}, { kid: 'not-published' })), status: 400, error: 'invalid_grant' },
  ],
  ['not a JWT', { send: () => present('not.a.jwt'), status: 400, error: 'invalid_grant' }],
  ['no assertion', { send: () => present(undefined), status: 400, error: 'invalid_request' }],
  [
    'a wrong client secret',
    {
      send: async () => present(await good(), {}, 'guess'),
      status: 401,
      error: 'invalid_client',
      also: (res) => expect(res.headers['www-authenticate']).toMatch(/^Basic /),
    },
  ],
  [
    'a trusted IdP whose key set will not load (logged once, never 500)',
    {
      send: async () => {
        const first = await present(await good({}, {}, unreachable));
        expect(first.body.error).toBe('invalid_grant');
        return present(await good({}, {}, unreachable));
      },
      status: 400,
      error: 'invalid_grant',
      also: () => {
        expect(warned).toHaveLength(1);
        expect(String((warned[0] as Error).message)).not.toContain('eyJ');
      },
    },
  ],
  [
    'mapIdentity throwing: the app’s bug, 500 server_error with nothing of it leaked, logged',
    {
      send: async () => present(await good({ sub: 'boom' })),
      status: 500,
      error: 'server_error',
      also: (res) => {
        expect(JSON.stringify(res.body)).not.toContain(SECRET_OF_THE_APP);
        expect(errors).toEqual([expect.objectContaining({ message: expect.stringContaining(SECRET_OF_THE_APP) })]);
      },
    },
  ],
];

describe('hostile ID-JAGs', () => {
  it('every row says why it is refused', () =>
    expect(Object.keys(WHY).sort()).toEqual(ROWS.map(([name]) => name).sort()));

  it.each(ROWS)('%s', async (name, row) => {
    const res = await row.send();
    expect(res.status).toBe(row.status);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({ error: row.error, error_description: expect.stringMatching(WHY[name] as RegExp) });
    // Nothing of the assertion or a key in the answer.
    expect(JSON.stringify(res.body)).not.toMatch(/eyJ|BEGIN|"d":/);
    row.also?.(res);
  });

  it('asking for scopes beyond the ID-JAG is no error: the token carries the intersection, and says so', async () => {
    const res = await present(await good({ scope: 'read' }), { scope: 'read write' });
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('read');
    expect(res.body).not.toHaveProperty('refresh_token');
  });
});
