// DPoP at the MCP endpoint (RFC 9449 §7, the MCP profile): bound tokens from jwtVerifier with proofs, both eras, nonces, digests, metadata, CORS.

import express from 'express';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { mcpRouter, McpConfigError, type McpRouterOptions } from '../../../lib';
import { jwtVerifier } from '../../../lib/features/verifiers/jwt-verifier';
import { DpopClient } from '../../helpers/dpop-client';
import { makeSigningKey, signToken, type SigningKey } from '../../helpers/jwks-server';
import { listenLocally, type Listening } from '../../helpers/ports';
import { rpc, silentLogger } from '../../helpers/create-app';

const ISSUER = 'https://login.example.com';
const AUDIENCE = 'https://mcp.example.com/mcp';

let key: SigningKey;
let dpop: DpopClient;
beforeAll(async () => {
  key = await makeSigningKey('k1');
  dpop = await DpopClient.create();
});

/** A running app whose `/mcp` router takes jwtVerifier tokens; `calls` counts the tool's runs. */
async function start(
  verifier: Partial<Parameters<typeof jwtVerifier>[0]> = {},
  options: Partial<McpRouterOptions> = {},
  before?: express.RequestHandler,
): Promise<Listening & { url: string; calls: () => number }> {
  let calls = 0;
  const verify = jwtVerifier({
    issuer: ISSUER,
    audience: AUDIENCE,
    jwks: { keys: [key.publicJwk] },
    logger: silentLogger(),
    ...verifier,
  });
  const mcp = mcpRouter({ name: 'dpop', version: '1.0.0', auth: { verify }, ...options });
  mcp.tool({
    name: 'whoami',
    description: 'The caller',
    handler: (_args, ctx) => {
      calls += 1;
      return { subject: ctx.auth?.subject ?? null };
    },
  });
  const app = express();
  if (before) app.use(before);
  app.use('/mcp', mcp);
  const listening = await listenLocally(app);
  return { ...listening, url: `http://127.0.0.1:${listening.port}/mcp`, calls: () => calls };
}

const boundToken = (jkt = dpop.jkt): Promise<string> => signToken(key, { iss: ISSUER, aud: AUDIENCE, cnf: { jkt } });
const unboundToken = (): Promise<string> => signToken(key, { iss: ISSUER, aud: AUDIENCE });
/** A request any fresh server answers 200 (2025 era: initialize opens a session). */
const LIST = rpc(
  'initialize',
  { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'dpop', version: '1' } },
  1,
);

describe('a DPoP-bound token with a proof per request, through the official SDK clients', () => {
  let server: Awaited<ReturnType<typeof start>> | undefined;
  afterEach(async () => server?.close());

  it('SDK v1 (2025 era, sessions) calls a tool', async () => {
    server = await start();
    const token = await boundToken();
    const client = new ClientV1({ name: 'dpop-v1', version: '1.0.0' });
    await client.connect(new TransportV1(new URL(server.url), { fetch: dpop.fetchFor(() => token) }));
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    expect(result.structuredContent).toEqual({ subject: 'user-1' });
    await client.close();
  });

  it('SDK v2 pinned to 2026-07-28 calls a tool, with content_digest on every POST', async () => {
    server = await start();
    const token = await boundToken();
    const client = new ClientV2(
      { name: 'dpop-v2', version: '2.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new TransportV2(new URL(server.url), { fetch: dpop.fetchFor(() => token, true) }));
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    expect(result.structuredContent).toEqual({ subject: 'user-1' });
    await client.close();
  });

  it('regression: the SDK v2 client with an unbound Bearer token works by default', async () => {
    server = await start();
    const token = await unboundToken();
    const client = new ClientV2(
      { name: 'bearer-v2', version: '2.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new TransportV2(new URL(server.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    expect((await client.callTool({ name: 'whoami', arguments: {} })).structuredContent).toEqual({ subject: 'user-1' });
    await client.close();
  });
});

describe('the MCP profile and RFC 9449 around the proof', () => {
  let server: Awaited<ReturnType<typeof start>> | undefined;
  afterEach(async () => server?.close());

  it('server nonces: use_dpop_nonce with DPoP-Nonce, then the retry with it passes', async () => {
    server = await startWith({ nonce: true });
    const token = await boundToken();
    const first = await dpop.post(server.url, token, LIST);
    expect(first.status).toBe(401);
    expect(first.headers.get('www-authenticate')).toMatch(/^DPoP error="use_dpop_nonce"/);
    const nonce = first.headers.get('dpop-nonce');
    expect(nonce).toEqual(expect.any(String));
    const retry = await dpop.post(server.url, token, LIST, { nonce: nonce as string });
    expect(retry.status).toBe(200);
  });

  it('requireContentDigest: a proof without content_digest on a POST is refused; with it, passes', async () => {
    server = await startWith({ requireContentDigest: true });
    const token = await boundToken();
    const without = await dpop.post(server.url, token, LIST);
    expect(without.status).toBe(401);
    expect(without.headers.get('www-authenticate')).toMatch(/error="invalid_dpop_proof".*content_digest/);
    expect((await dpop.post(server.url, token, LIST, { digest: true })).status).toBe(200);
  });

  it('a body the host parsed first (express.json()): a proof with content_digest is refused (the bytes are gone), one without passes', async () => {
    server = await start({}, {}, express.json());
    const token = await boundToken();
    const digested = await dpop.post(server.url, token, LIST, { digest: true });
    expect(digested.status).toBe(401);
    expect(digested.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_dpop_proof"/);
    expect((await dpop.post(server.url, token, LIST)).status).toBe(200);
  });

  it('a body kept raw by the host (express.raw()) is checked against the digest', async () => {
    server = await start({}, {}, express.raw({ type: 'application/json' }));
    const token = await boundToken();
    expect((await dpop.post(server.url, token, LIST, { digest: true })).status).toBe(200);
  });

  it('the protected-resource metadata lists the DPoP algorithms, and says when bound tokens are required', async () => {
    server = await start();
    const allowed = (await (await fetch(`${server.url}/.well-known/oauth-protected-resource`)).json()) as Record<
      string,
      unknown
    >;
    expect(allowed.dpop_signing_alg_values_supported).toEqual(expect.arrayContaining(['ES256', 'RS256', 'EdDSA']));
    expect(allowed.dpop_signing_alg_values_supported).not.toContain('none');
    expect(allowed.dpop_bound_access_tokens_required).toBeUndefined();
    await server.close();
    server = await start({ dpop: 'required' });
    const required = (await (await fetch(`${server.url}/.well-known/oauth-protected-resource`)).json()) as Record<
      string,
      unknown
    >;
    expect(required.dpop_bound_access_tokens_required).toBe(true);
    // Without credentials, where DPoP is required, the challenge is a DPoP one with its algorithms.
    const missing = await fetch(server.url, { method: 'POST', body: JSON.stringify(LIST) });
    expect(missing.headers.get('www-authenticate')).toMatch(/^DPoP algs="[^"]*ES256[^"]*", resource_metadata="/);
  });

  it('CORS: a browser may send the DPoP header and read DPoP-Nonce and WWW-Authenticate', async () => {
    server = await start({}, { origins: ['https://app.example.com'] });
    const preflight = await fetch(server.url, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, dpop, content-type',
      },
    });
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/\bDPoP\b/);
    const actual = await dpop.post(server.url, await boundToken(), LIST, {
      headers: { origin: 'https://app.example.com' },
    });
    expect(actual.headers.get('access-control-expose-headers')).toMatch(/DPoP-Nonce/);
    expect(actual.headers.get('access-control-expose-headers')).toMatch(/WWW-Authenticate/);
  });
});

/** A server with these `auth.dpop` options. */
function startWith(dpopOptions: NonNullable<NonNullable<McpRouterOptions['auth']>['dpop']>) {
  const verify = jwtVerifier({
    issuer: ISSUER,
    audience: AUDIENCE,
    jwks: { keys: [key.publicJwk] },
    logger: silentLogger(),
  });
  return start({}, { auth: { verify, dpop: dpopOptions } });
}

describe('auth.dpop options are checked at boot', () => {
  const verify = (): ReturnType<typeof jwtVerifier> =>
    jwtVerifier({ issuer: ISSUER, audience: AUDIENCE, jwks: { keys: [key.publicJwk] } });
  it.each([
    [{ nonces: true }, /auth\.dpop\.nonces/],
    [{ nonce: 'yes' }, /auth\.dpop\.nonce/],
    [{ maxProofAgeSec: 0 }, /auth\.dpop\.maxProofAgeSec/],
    [{ trackReplays: 1 }, /auth\.dpop\.trackReplays/],
  ])('%j → McpConfigError naming the option', (dpopOptions, message) => {
    expect(() =>
      mcpRouter({ name: 'x', version: '1', auth: { verify: verify(), dpop: dpopOptions as never } }),
    ).toThrow(McpConfigError);
    expect(() =>
      mcpRouter({ name: 'x', version: '1', auth: { verify: verify(), dpop: dpopOptions as never } }),
    ).toThrow(message);
  });

  it("jwtVerifier({ dpop }) takes 'allowed' or 'required' only", () => {
    expect(() => jwtVerifier({ issuer: ISSUER, jwks: { keys: [key.publicJwk] }, dpop: 'always' as never })).toThrow(
      /jwtVerifier\.dpop/,
    );
  });
});
