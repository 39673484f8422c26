// jwtVerifier({ dpop: 'required' }) with a real provider (oidc-provider): a machine client (client_credentials, private_key_jwt) gets a DPoP-bound JWT and calls an MCP tool with proofs.

import * as crypto from 'node:crypto';
import express from 'express';
import { decodeJwt, importJWK, SignJWT } from 'jose';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { mcpRouter } from '../../../lib';
import { jwtVerifier } from '../../../lib/features/verifiers/jwt-verifier';
import { DpopClient } from '../../helpers/dpop-client';
import { startOidcProvider, type TestProvider } from '../../helpers/oidc-provider';
import { listenLocally, type Listening } from '../../helpers/ports';
import { silentLogger } from '../../helpers/create-app';

let provider: TestProvider | undefined;
let app: Listening | undefined;
let resource = '';
let dpop: DpopClient;

beforeAll(async () => {
  dpop = await DpopClient.create();
  provider = await startOidcProvider();
  const host = express();
  app = await listenLocally(host);
  resource = `http://127.0.0.1:${app.port}/mcp`;
  const verify = jwtVerifier({
    issuer: provider.issuer,
    jwksUri: provider.jwksUri,
    audience: resource,
    dpop: 'required',
    logger: silentLogger(),
  });
  const mcp = mcpRouter({ name: 'machine', version: '1.0.0', auth: { verify } });
  mcp.tool({
    name: 'whoami',
    description: 'The caller',
    handler: (_args, ctx) => ({ subject: ctx.auth?.subject ?? null }),
  });
  host.use('/mcp', mcp);
});
afterAll(async () => {
  await app?.close();
  await provider?.close();
});

/** A client_credentials token request authenticated with private_key_jwt, with a DPoP proof when `proof`. */
async function clientCredentials(withProof: boolean): Promise<Record<string, unknown>> {
  const { clientId, privateJwk } = (provider as TestProvider).keyClient;
  const tokenEndpoint = (provider as TestProvider).tokenEndpoint;
  const assertion = await new SignJWT({})
    .setProtectedHeader({ alg: 'ES256' })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience((provider as TestProvider).issuer)
    .setIssuedAt()
    .setExpirationTime('2m')
    .setJti(crypto.randomUUID())
    .sign(await importJWK(privateJwk as never, 'ES256'));
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    resource,
    scope: 'mcp',
    client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    client_assertion: assertion,
  });
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (withProof) headers.dpop = await dpop.proof({ htm: 'POST', htu: tokenEndpoint });
  const response = await fetch(tokenEndpoint, { method: 'POST', headers, body: form });
  const body = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`token request failed: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

it('a DPoP-bound JWT from the provider, presented with proofs by its key, calls the tool', async () => {
  const body = await clientCredentials(true);
  expect(body.token_type).toBe('DPoP');
  const token = body.access_token as string;
  expect(decodeJwt(token).cnf).toEqual({ jkt: dpop.jkt });
  const client = new Client({ name: 'machine', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(resource), { fetch: dpop.fetchFor(() => token) }));
  try {
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    expect(result.structuredContent).toEqual({ subject: (provider as TestProvider).keyClient.clientId });
  } finally {
    await client.close();
  }
});

it("with dpop: 'required' an unbound token from the same provider is refused (401 invalid_token, DPoP challenge)", async () => {
  const body = await clientCredentials(false);
  expect(body.token_type).toBe('Bearer');
  const response = await fetch(resource, {
    method: 'POST',
    headers: { authorization: `Bearer ${body.access_token as string}`, 'content-type': 'application/json' },
    body: '{}',
  });
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toMatch(
    /^DPoP error="invalid_token", error_description="This resource takes DPoP-bound access tokens only", algs="/,
  );
});

it('the bound token without its proof, or sent as Bearer, is refused', async () => {
  const token = (await clientCredentials(true)).access_token as string;
  const noProof = await fetch(resource, { method: 'POST', headers: { authorization: `DPoP ${token}` }, body: '{}' });
  expect(noProof.status).toBe(401);
  expect(noProof.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_dpop_proof"/);
  const asBearer = await fetch(resource, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: '{}' });
  expect(asBearer.status).toBe(401);
  expect(asBearer.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_token"/);
});
