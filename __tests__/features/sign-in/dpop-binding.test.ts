// DPoP at the router's own token endpoint (RFC 9449 §5): the code flow binds the access token (and a public client's refresh token) to the proof's key, end to end.

import express from 'express';
import { decodeJwt } from 'jose';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { mcpRouter } from '../../../lib';
import { DpopClient } from '../../helpers/dpop-client';
import { listenLocally } from '../../helpers/ports';
import {
  codeFor,
  cookieSignIn,
  pkce,
  registerClient,
  startSignInServer,
  type SignInServer,
} from '../../helpers/sign-in-server';

const REDIRECT = 'http://127.0.0.1:9/callback';

/** POSTs a form to the token endpoint with these headers. */
async function tokenRequest(
  issuer: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const response = await fetch(`${issuer}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    headers: response.headers,
  };
}

/** Signs in by the code flow as a new public client; the token request carries `dpopHeader` when given. */
async function signIn(
  issuer: string,
  proofOf: (() => Promise<string>) | undefined,
  extra: Record<string, unknown> = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers; clientId: string }> {
  const { client_id: clientId } = await registerClient(issuer, [REDIRECT], extra);
  const { verifier, challenge } = pkce();
  const code = await codeFor(issuer, clientId, REDIRECT, challenge);
  const form = {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    client_id: clientId,
    redirect_uri: REDIRECT,
  };
  return { ...(await tokenRequest(issuer, form, proofOf ? { dpop: await proofOf() } : {})), clientId };
}

let server: SignInServer;
let dpop: DpopClient;
beforeAll(async () => {
  dpop = await DpopClient.create();
  server = await startSignInServer({ registration: { perMinute: 1000 } });
});
afterAll(async () => server?.close());

const tokenProof = (client = dpop): Promise<string> =>
  client.proof({ htm: 'POST', htu: `${server.issuer}/oauth/token` });

it('the metadata lists the DPoP algorithms (RFC 9449 §5.1)', async () => {
  const metadata = (await (await fetch(`${server.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<
    string,
    unknown
  >;
  expect(metadata.dpop_signing_alg_values_supported).toEqual(expect.arrayContaining(['ES256', 'PS256']));
});

it('a token request with a proof gets a DPoP token bound to its key, which the SDK v2 client uses with proofs (2026 era)', async () => {
  const { status, body } = await signIn(server.issuer, () => tokenProof());
  expect(status).toBe(200);
  expect(body.token_type).toBe('DPoP');
  const token = body.access_token as string;
  expect(decodeJwt(token).cnf).toEqual({ jkt: dpop.jkt });
  const client = new Client({ name: 'dpop', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.issuer), { fetch: dpop.fetchFor(() => token, true) }),
  );
  try {
    expect((await client.callTool({ name: 'whoami', arguments: {} })).structuredContent).toEqual({ subject: 'alice' });
  } finally {
    await client.close();
  }
  // RFC 9449 §7.1: the same token as a bearer token is refused.
  const asBearer = await fetch(server.issuer, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: '{}',
  });
  expect(asBearer.status).toBe(401);
  expect(asBearer.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_token"/);
});

it('without a proof the token is a Bearer one, without cnf (the SDK clients of today)', async () => {
  const { status, body } = await signIn(server.issuer, undefined);
  expect(status).toBe(200);
  expect(body.token_type).toBe('Bearer');
  expect(decodeJwt(body.access_token as string).cnf).toBeUndefined();
});

it("a public client's refresh token is bound: refused without a proof or with another key's (the token unspent), taken with the same key's", async () => {
  const { body, clientId } = await signIn(server.issuer, () => tokenProof());
  const refresh = { grant_type: 'refresh_token', refresh_token: body.refresh_token as string, client_id: clientId };
  const without = await tokenRequest(server.issuer, refresh);
  expect(without.status).toBe(400);
  expect(without.body.error).toBe('invalid_dpop_proof');
  const foreign = await tokenRequest(server.issuer, refresh, { dpop: await tokenProof(await DpopClient.create()) });
  expect(foreign.status).toBe(400);
  expect(foreign.body.error).toBe('invalid_dpop_proof');
  // RFC 9449 §5: neither refusal spent the token; its holder, with the key, still refreshes.
  const same = await tokenRequest(server.issuer, refresh, { dpop: await tokenProof() });
  expect(same.status).toBe(200);
  expect(same.body.token_type).toBe('DPoP');
  expect(decodeJwt(same.body.access_token as string).cnf).toEqual({ jkt: dpop.jkt });
});

it('a client registered with dpop_bound_access_tokens must send a proof (RFC 9449 §5.2)', async () => {
  const refused = await signIn(server.issuer, undefined, { dpop_bound_access_tokens: true });
  expect(refused.status).toBe(400);
  expect(refused.body.error).toBe('invalid_dpop_proof');
  expect((await signIn(server.issuer, () => tokenProof(), { dpop_bound_access_tokens: true })).status).toBe(200);
  const { client_id: _id, ...echoed } = await registerClient(server.issuer, [REDIRECT], {
    dpop_bound_access_tokens: true,
  });
  expect(echoed.dpop_bound_access_tokens).toBe(true);
});

it.each([
  ['htu of another endpoint', () => dpop.proof({ htm: 'POST', htu: `${server.issuer}/oauth/revoke` })],
  ['htm GET', () => dpop.proof({ htm: 'GET', htu: `${server.issuer}/oauth/token` })],
  [
    'alg none',
    async () =>
      `${Buffer.from(JSON.stringify({ typ: 'dpop+jwt', alg: 'none', jwk: dpop.publicJwk })).toString('base64url')}.e30.`,
  ],
])('a bad proof at the token endpoint (%s) → 400 invalid_dpop_proof, no token', async (_name, proofOf) => {
  const { status, body } = await signIn(server.issuer, proofOf);
  expect(status).toBe(400);
  expect(body).toEqual({ error: 'invalid_dpop_proof', error_description: expect.any(String) });
});

it('with auth.dpop.nonce the token endpoint answers 400 use_dpop_nonce with DPoP-Nonce, then binds with it', async () => {
  const mcp = mcpRouter({
    name: 'nonce',
    version: '1',
    auth: { server: { signIn: cookieSignIn }, dpop: { nonce: true } },
  });
  const host = express();
  host.use('/mcp', mcp);
  const app = await listenLocally(host);
  const issuer = `http://127.0.0.1:${app.port}/mcp`;
  try {
    const first = await signIn(issuer, () => dpop.proof({ htm: 'POST', htu: `${issuer}/oauth/token` }));
    expect(first.status).toBe(400);
    expect(first.body.error).toBe('use_dpop_nonce');
    const nonce = first.headers.get('dpop-nonce') as string;
    expect(nonce).toEqual(expect.any(String));
    const second = await signIn(issuer, () => dpop.proof({ htm: 'POST', htu: `${issuer}/oauth/token`, nonce }));
    expect(second.status).toBe(200);
    expect(second.body.token_type).toBe('DPoP');
  } finally {
    await mcp.close();
    await app.close();
  }
});

it('a pre-registered client with dpopBoundAccessTokens must send a proof; with one its token is bound', async () => {
  const bound = await startSignInServer({
    registration: false,
    clients: [
      { clientId: 'agent', clientSecret: 'agent-secret', grants: ['client_credentials'], dpopBoundAccessTokens: true },
    ],
  });
  try {
    const basic = { authorization: `Basic ${Buffer.from('agent:agent-secret').toString('base64')}` };
    const refused = await tokenRequest(bound.issuer, { grant_type: 'client_credentials' }, basic);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: 'invalid_dpop_proof' });
    expect(refused.body.access_token).toBeUndefined();
    const proof = await dpop.proof({ htm: 'POST', htu: `${bound.issuer}/oauth/token` });
    const taken = await tokenRequest(bound.issuer, { grant_type: 'client_credentials' }, { ...basic, dpop: proof });
    expect(taken.status).toBe(200);
    expect(taken.body.token_type).toBe('DPoP');
    expect(decodeJwt(taken.body.access_token as string).cnf).toEqual({ jkt: dpop.jkt });
  } finally {
    await bound.close();
  }
});
