// Hostile DPoP presentations at the MCP endpoint (RFC 9449 §4.3, §7.1, §9; the MCP profile): each gets the RFC's answer, and the tool never runs.

import * as http from 'node:http';
import express from 'express';
import { exportJWK, SignJWT } from 'jose';
import { mcpRouter } from '../../lib';
import { jwtVerifier } from '../../lib/features/verifiers/jwt-verifier';
import { DpopClient, tokenHash, type ProofClaims } from '../helpers/dpop-client';
import { makeSigningKey, signToken, type SigningKey } from '../helpers/jwks-server';
import { listenLocally, type Listening } from '../helpers/ports';
import { rpc, silentLogger } from '../helpers/create-app';
import { envelope, MODERN } from '../helpers/modern';

const ISSUER = 'https://login.example.com';
const AUDIENCE = 'https://mcp.example.com/mcp';
const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const BODY = JSON.stringify(rpc('tools/call', { name: 'whoami', arguments: {}, _meta: envelope() }, 7));

interface Server extends Listening {
  readonly url: string;
  calls: number;
}

let key: SigningKey;
let client: DpopClient;
let other: DpopClient;
let bound: string;
let unbound: string;
let plain: Server;
let nonced: Server;

async function start(dpop: { trackReplays?: boolean; nonce?: boolean }): Promise<Server> {
  const verify = jwtVerifier({
    issuer: ISSUER,
    audience: AUDIENCE,
    jwks: { keys: [key.publicJwk] },
    logger: silentLogger(),
  });
  const mcp = mcpRouter({ name: 'hostile-dpop', version: '1.0.0', auth: { verify, dpop } });
  const app = express();
  app.use('/mcp', mcp);
  const listening = await listenLocally(app);
  const server: Server = { ...listening, url: `http://127.0.0.1:${listening.port}/mcp`, calls: 0 };
  mcp.tool({
    name: 'whoami',
    description: 'The caller',
    handler: (_args, ctx) => {
      server.calls += 1;
      return { subject: ctx.auth?.subject ?? null };
    },
  });
  return server;
}

beforeAll(async () => {
  key = await makeSigningKey('k1');
  client = await DpopClient.create();
  other = await DpopClient.create();
  bound = await signToken(key, { iss: ISSUER, aud: AUDIENCE, cnf: { jkt: client.jkt } });
  unbound = await signToken(key, { iss: ISSUER, aud: AUDIENCE });
  plain = await start({ trackReplays: true });
  nonced = await start({ nonce: true });
});
afterAll(async () => {
  await plain?.close();
  await nonced?.close();
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
}

/** POSTs the tool call with these headers (an array value is sent as repeated lines) and `body`. */
function send(url: string, headers: Record<string, string | string[]>, body = BODY): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': MODERN,
          'mcp-method': 'tools/call',
          'mcp-name': 'whoami',
          ...headers,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A proof for the tool call at `url` with the bound token, changed by `change`. */
const proofFor = (url: string, change: Partial<ProofClaims> = {}) =>
  client.proof({ htm: 'POST', htu: url, accessToken: bound, ...change });
const dpopHeaders = (proof: string | string[], token = bound): Record<string, string | string[]> => ({
  authorization: `DPoP ${token}`,
  dpop: proof,
});
const now = (): number => Math.floor(Date.now() / 1000);

type Row = [string, () => Promise<Record<string, string | string[]>>, string];

const ROWS: Row[] = [
  [
    'a proof for another URI (htu)',
    async () => dpopHeaders(await proofFor(`${plain.url}/other`)),
    'invalid_dpop_proof',
  ],
  [
    'a proof for another method (htm GET)',
    async () => dpopHeaders(await proofFor(plain.url, { htm: 'GET' })),
    'invalid_dpop_proof',
  ],
  [
    'a proof for another token (ath)',
    async () => dpopHeaders(await proofFor(plain.url, { accessToken: unbound })),
    'invalid_dpop_proof',
  ],
  [
    'a proof without ath',
    async () => dpopHeaders(await proofFor(plain.url, { claims: { ath: undefined } })),
    'invalid_dpop_proof',
  ],
  [
    'a proof by another key (not the token’s cnf.jkt)',
    async () => dpopHeaders(await other.proof({ htm: 'POST', htu: plain.url, accessToken: bound })),
    'invalid_dpop_proof',
  ],
  [
    'a stale proof (iat 10 minutes ago)',
    async () => dpopHeaders(await proofFor(plain.url, { claims: { iat: now() - 600 } })),
    'invalid_dpop_proof',
  ],
  [
    'a proof from the future (iat in 10 minutes)',
    async () => dpopHeaders(await proofFor(plain.url, { claims: { iat: now() + 600 } })),
    'invalid_dpop_proof',
  ],
  [
    'a proof without jti',
    async () => dpopHeaders(await proofFor(plain.url, { claims: { jti: undefined } })),
    'invalid_dpop_proof',
  ],
  [
    'typ JWT instead of dpop+jwt',
    async () => dpopHeaders(await proofFor(plain.url, { header: { typ: 'JWT' } })),
    'invalid_dpop_proof',
  ],
  [
    'no jwk in the header',
    async () => dpopHeaders(await proofFor(plain.url, { header: { jwk: undefined } })),
    'invalid_dpop_proof',
  ],
  [
    'alg none, unsigned',
    async () => {
      const header = { typ: 'dpop+jwt', alg: 'none', jwk: client.publicJwk };
      const claims = { jti: 'n1', htm: 'POST', htu: plain.url, iat: now(), ath: tokenHash(bound) };
      return dpopHeaders(`${b64(header)}.${b64(claims)}.`);
    },
    'invalid_dpop_proof',
  ],
  [
    'HS256 with a symmetric jwk',
    async () => {
      const secret = new TextEncoder().encode('a shared secret of thirty-two bytes!');
      const proof = await new SignJWT({ jti: 'h1', htm: 'POST', htu: plain.url, iat: now() })
        .setProtectedHeader({
          alg: 'HS256',
          typ: 'dpop+jwt',
          jwk: { kty: 'oct', k: Buffer.from(secret).toString('base64url') } as never,
        })
        .sign(secret);
      return dpopHeaders(proof);
    },
    'invalid_dpop_proof',
  ],
  [
    'a private key in the header',
    async () => dpopHeaders(await proofFor(plain.url, { header: { jwk: await exportJWK(client.privateKey) } })),
    'invalid_dpop_proof',
  ],
  ['not a JWT at all', async () => dpopHeaders('not.a-jwt'), 'invalid_dpop_proof'],
  ['no DPoP header with the DPoP scheme', async () => ({ authorization: `DPoP ${bound}` }), 'invalid_dpop_proof'],
  [
    'two DPoP headers',
    async () => dpopHeaders([await proofFor(plain.url), await proofFor(plain.url)]),
    'invalid_dpop_proof',
  ],
  [
    'a bound token sent as Bearer',
    async () => ({ authorization: `Bearer ${bound}`, dpop: await proofFor(plain.url) }),
    'invalid_token',
  ],
  [
    'the DPoP scheme with an unbound token',
    async () => dpopHeaders(await client.proof({ htm: 'POST', htu: plain.url, accessToken: unbound }), unbound),
    'invalid_token',
  ],
];

describe('refused with 401 and a DPoP challenge; the tool never runs', () => {
  it('the baseline: a good proof runs the tool', async () => {
    const answer = await send(plain.url, dpopHeaders(await proofFor(plain.url)));
    expect(answer.status).toBe(200);
    expect(plain.calls).toBe(1);
    plain.calls = 0;
  });

  it.each(ROWS.map(([name, headersOf, error]) => [name, error, headersOf] as const))(
    '%s → 401 %s',
    async (_name, error, headersOf) => {
      const answer = await send(plain.url, await headersOf());
      expect(answer.status).toBe(401);
      expect(answer.headers['www-authenticate']).toMatch(
        new RegExp(`^DPoP error="${error}", error_description="[^"]+", algs="[^"]+", resource_metadata="`),
      );
      expect(plain.calls).toBe(0);
    },
  );

  it('a proof for another body (content_digest) → 401 invalid_dpop_proof, checked on the bytes read', async () => {
    const proof = await proofFor(plain.url, { body: BODY.replace('whoami', 'another') });
    const answer = await send(plain.url, dpopHeaders(proof));
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toMatch(
      /^DPoP error="invalid_dpop_proof", error_description="content_digest does not match the body"/,
    );
    expect(plain.calls).toBe(0);
  });

  it('a replayed proof (trackReplays) → the first runs, the second 401 invalid_dpop_proof', async () => {
    const proof = await proofFor(plain.url);
    expect((await send(plain.url, dpopHeaders(proof))).status).toBe(200);
    const again = await send(plain.url, dpopHeaders(proof));
    expect(again.status).toBe(401);
    expect(again.headers['www-authenticate']).toMatch(
      /error="invalid_dpop_proof", error_description="the DPoP proof was used before, or the server remembers as many as it may now"/,
    );
    expect(plain.calls).toBe(1);
    plain.calls = 0;
  });
});

it('a GET whose proof names a content_digest (GET carries no body) → 401 invalid_dpop_proof', async () => {
  const proof = await client.proof({ htm: 'GET', htu: plain.url, accessToken: bound, body: BODY });
  const status = await new Promise<{ status: number; challenge: string }>((resolve, reject) => {
    http
      .get(
        plain.url,
        { headers: { authorization: `DPoP ${bound}`, dpop: proof, accept: 'text/event-stream' } },
        (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0, challenge: String(res.headers['www-authenticate']) });
        },
      )
      .on('error', reject);
  });
  expect(status.status).toBe(401);
  expect(status.challenge).toMatch(
    /^DPoP error="invalid_dpop_proof", error_description="content_digest on a request without a body"/,
  );
});

describe('server nonces (RFC 9449 §9): use_dpop_nonce with a DPoP-Nonce to retry with', () => {
  afterEach(() => jest.restoreAllMocks());

  it.each([
    ['missing', undefined],
    ['forged', 'lz3k.AAAAAAAAAAAAAAAAAAAAAAAA'],
    ['not a nonce', 'garbage'],
  ])('a nonce %s → 401 use_dpop_nonce', async (_name, nonce) => {
    const answer = await send(nonced.url, dpopHeaders(await proofFor(nonced.url, { nonce })));
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toMatch(/^DPoP error="use_dpop_nonce"/);
    expect(answer.headers['dpop-nonce']).toMatch(/^[0-9a-z]+\.[A-Za-z0-9_-]{24}$/);
    expect(nonced.calls).toBe(0);
  });

  it('a stale nonce (two windows old) → 401 use_dpop_nonce with a new one; the fresh one runs the tool', async () => {
    const first = await send(nonced.url, dpopHeaders(await proofFor(nonced.url)));
    const old = first.headers['dpop-nonce'] as string;
    const realNow = Date.now.bind(Date);
    jest.spyOn(Date, 'now').mockImplementation(() => realNow() + 2 * 300_000 + 1_000);
    const stale = await send(nonced.url, dpopHeaders(await proofFor(nonced.url, { nonce: old })));
    expect(stale.status).toBe(401);
    expect(stale.headers['www-authenticate']).toMatch(/^DPoP error="use_dpop_nonce"/);
    const fresh = stale.headers['dpop-nonce'] as string;
    expect(fresh).not.toBe(old);
    expect((await send(nonced.url, dpopHeaders(await proofFor(nonced.url, { nonce: fresh })))).status).toBe(200);
    expect(nonced.calls).toBe(1);
  });
});

describe('a token bound by a confirmation this server cannot check is refused, never taken as a bearer token', () => {
  it.each([
    ['a certificate thumbprint (RFC 8705 x5t#S256)', { 'x5t#S256': 'bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2' }],
    ['a jkt that is not a string', { jkt: 123 }],
    ['a jkt beside another confirmation', { jkt: 'abc', 'x5t#S256': 'bwc' }],
    ['a cnf that is not an object', 'x'],
    ['an empty jkt', { jkt: '' }],
  ])('%s → 401 invalid_token as Bearer and as DPoP; the tool never runs', async (_name, cnf) => {
    const token = await signToken(key, { iss: ISSUER, aud: AUDIENCE, cnf });
    for (const headers of [
      { authorization: `Bearer ${token}` },
      dpopHeaders(await client.proof({ htm: 'POST', htu: plain.url, accessToken: token }), token),
    ]) {
      const answer = await send(plain.url, headers);
      expect(answer.status).toBe(401);
      expect(answer.headers['www-authenticate']).toMatch(
        /error="invalid_token", error_description="The access token is bound by a confirmation \(cnf\) this resource cannot check"/,
      );
    }
    expect(plain.calls).toBe(0);
  });
});
