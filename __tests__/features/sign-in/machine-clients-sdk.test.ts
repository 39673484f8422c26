// End to end: the official SDK clients' machine providers (ClientCredentialsProvider, PrivateKeyJwtProvider; SDK v1
// auth-extensions and SDK v2) get tokens from the router's own authorization server with the client_credentials grant,
// authenticating by secret or private_key_jwt, and call a tool as the client: in the 2025 era (initialize, sessions)
// and in the 2026-07-28 era (stateless).

import { once } from 'node:events';
import path from 'node:path';
import express from 'express';
import { exportJWK } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ClientCredentialsProvider as ClientCredentialsV1,
  PrivateKeyJwtProvider as PrivateKeyJwtV1,
} from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import {
  Client as ClientV2,
  ClientCredentialsProvider as ClientCredentialsV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { mcpRouter, type McpRouter } from '../../../lib';
import { endGroup, spawnGroup } from '../../helpers/child';
import { makeSigningKey, type SigningKey } from '../../helpers/jwks-server';
import { listenLocally, type Listening } from '../../helpers/ports';
import { cookieSignIn } from '../../helpers/sign-in-server';

const SECRET = 'machine-secret-value';
const V2_CHILD = path.join(__dirname, '..', '..', 'helpers', 'private-key-jwt-v2.mjs');
let mcp: McpRouter;
let app: Listening;
let issuer: string;
let key: SigningKey;
let privateJwk: Record<string, unknown>;
/** Token requests the authorization server answered, by grant type. */
const grants: string[] = [];

beforeAll(async () => {
  key = await makeSigningKey('svc-key-1', 'ES256');
  privateJwk = { ...(await exportJWK(key.privateKey)), kid: key.kid, alg: key.alg };
  mcp = mcpRouter({
    name: 'machines',
    version: '1.0.0',
    auth: {
      server: {
        signIn: cookieSignIn,
        scopes: ['read', 'write'],
        clients: [
          { clientId: 'svc-secret', clientSecret: SECRET, grants: ['client_credentials'], scope: 'read' },
          { clientId: 'svc-key', jwks: { keys: [key.publicJwk] }, grants: ['client_credentials'] },
        ],
      },
    },
  });
  mcp.tool({
    name: 'whoami',
    description: 'The caller and the era of the call',
    handler: (_args, ctx) => ({ subject: ctx.auth?.subject ?? null, scopes: ctx.auth?.scopes ?? null, era: ctx.era }),
  });
  const host = express();
  host.use('/mcp/oauth/token', express.urlencoded({ extended: false }), (req, _res, next) => {
    grants.push(String(req.body?.grant_type));
    next();
  });
  host.use('/mcp', mcp);
  app = await listenLocally(host);
  issuer = `http://127.0.0.1:${app.port}/mcp`;
});

afterAll(async () => {
  await mcp?.close();
  await app?.close();
});

const endpoint = (): URL => new URL(`http://127.0.0.1:${app.port}/mcp`);

describe('SDK v1 (auth-extensions), 2025 era', () => {
  it('ClientCredentialsProvider: a secret (client_secret_basic), the client’s own scope', async () => {
    const provider = new ClientCredentialsV1({ clientId: 'svc-secret', clientSecret: SECRET, expectedIssuer: issuer });
    const client = new Client({ name: 'machine-v1', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(endpoint(), { authProvider: provider }));
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    // The SDK asks for every scope the metadata lists; the client gets the ones it has (RFC 6749 §3.3).
    expect(result.structuredContent).toEqual({ subject: 'svc-secret', scopes: ['read'], era: '2025' });
    expect(provider.tokens()?.refresh_token).toBeUndefined();
    await client.close();
  });

  it('PrivateKeyJwtProvider: a signed assertion (private_key_jwt)', async () => {
    const provider = new PrivateKeyJwtV1({
      clientId: 'svc-key',
      privateKey: privateJwk,
      algorithm: 'ES256',
      expectedIssuer: issuer,
    });
    const client = new Client({ name: 'machine-v1', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(endpoint(), { authProvider: provider }));
    expect((await client.callTool({ name: 'whoami', arguments: {} })).structuredContent).toEqual({
      subject: 'svc-key',
      scopes: ['read', 'write'],
      era: '2025',
    });
    await client.close();
  });
});

describe('SDK v2, both eras', () => {
  it.each([
    ['2025', 'legacy' as const],
    ['2026', { pin: '2026-07-28' }],
  ])('ClientCredentialsProvider in the %s era', async (era, mode) => {
    const provider = new ClientCredentialsV2({ clientId: 'svc-secret', clientSecret: SECRET, expectedIssuer: issuer });
    const client = new ClientV2({ name: 'machine-v2', version: '2.0.0' }, { versionNegotiation: { mode } });
    await client.connect(new TransportV2(endpoint(), { authProvider: provider }));
    expect((await client.callTool({ name: 'whoami', arguments: {} })).structuredContent).toEqual({
      subject: 'svc-secret',
      scopes: ['read'],
      era,
    });
    await client.close();
  });

  // Run in a child process: the provider loads jose with a dynamic import(), which Jest's module loader cannot run.
  it.each([
    ['2025', 'legacy' as const],
    ['2026', { pin: '2026-07-28' }],
  ])('PrivateKeyJwtProvider in the %s era', async (era, mode) => {
    const before = grants.length;
    const config = { endpoint: endpoint().href, issuer, clientId: 'svc-key', privateJwk, mode };
    const child = spawnGroup(process.execPath, [V2_CHILD, JSON.stringify(config)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const [code] = (await once(child, 'exit')) as [number | null];
      expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' });
      expect(JSON.parse(stdout)).toEqual({ subject: 'svc-key', scopes: ['read', 'write'], era });
    } finally {
      await endGroup(child);
    }
    expect(grants.slice(before)).toEqual(['client_credentials']);
  });
});
