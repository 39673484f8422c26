// A Host the operator does not vouch for never names this server in a signed claim: a client assertion's or an
// ID-JAG's `aud` (RFC 7523 §3, SEP-990 §7.4) and a DPoP proof's `htu` (RFC 9449 §4.3) made for another server are
// refused even when the client sends that server's Host, as long as neither `auth.server.issuer`, the resource nor
// `allowedHosts` fixes which URL is this server's.

import http from 'node:http';
import express from 'express';
import { mcpRouter, type McpRouterOptions } from '../../lib';
import { listenLocally, type Listening as LocalApp } from '../helpers/ports';
import { makeSigningKey, type SigningKey } from '../helpers/jwks-server';
import { assertionFields, clientAssertion } from '../helpers/client-assertion';
import { startIdJagIdp, type IdJagIdp } from '../helpers/id-jag-idp';
import { DpopClient } from '../helpers/dpop-client';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer' as const;
let key: SigningKey;
let idp: IdJagIdp;
let dpop: DpopClient;
const apps: LocalApp[] = [];

beforeAll(async () => {
  [key, idp, dpop] = await Promise.all([makeSigningKey('svc-key'), startIdJagIdp({}), DpopClient.create()]);
});

afterAll(async () => {
  await Promise.all(apps.map((listening) => listening.close()));
  await idp?.close();
});

/** A router at /mcp of a loopback app whose Host check is `allowedHosts`, with a machine client and an IdP trusted. */
async function serve(options: Partial<McpRouterOptions>): Promise<LocalApp> {
  const mcp = mcpRouter({
    name: 'vouch',
    version: '1.0.0',
    auth: {
      server: {
        signIn: () => null,
        registration: false,
        trustedIdps: [{ issuer: idp.issuer, jwksUri: idp.jwksUri }],
        clients: [
          { clientId: 'svc', jwks: { keys: [key.publicJwk] }, grants: ['client_credentials'] },
          { clientId: 'agent', clientSecret: 'agent-secret', grants: [JWT_BEARER] },
        ],
      },
    },
    ...options,
  });
  mcp.tool({ name: 'whoami', description: 'The caller', handler: (_args, ctx) => ({ subject: ctx.auth?.subject }) });
  const app = express();
  app.use('/mcp', mcp);
  const local = await listenLocally(app);
  apps.push(local);
  return local;
}

/** A request with the Host header as given (fetch would not send another Host than the URL's). */
function send(
  app: LocalApp,
  host: string,
  path: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; json: Record<string, unknown>; challenge: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: app.port, path, method: 'POST', headers: { host, ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
            challenge: res.headers['www-authenticate'],
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const tokenRequest = (app: LocalApp, host: string, form: Record<string, string>, authorization?: string) =>
  send(
    app,
    host,
    '/mcp/oauth/token',
    {
      'content-type': 'application/x-www-form-urlencoded',
      ...(authorization === undefined ? {} : { authorization }),
    },
    new URLSearchParams(form).toString(),
  );

const assertionFor = async (audience: string) => ({
  grant_type: 'client_credentials',
  ...assertionFields(await clientAssertion(key, 'svc', audience)),
});

const idJagFor = async (audience: string) => ({
  grant_type: JWT_BEARER,
  assertion: await idp.mint({ aud: audience, client_id: 'agent', resource: undefined }),
});
const AGENT = `Basic ${Buffer.from('agent:agent-secret').toString('base64')}`;

describe('with allowedHosts: false and no issuer, any Host passes the front door but names nothing', () => {
  let app: LocalApp;
  beforeAll(async () => {
    app = await serve({ allowedHosts: false });
  });

  it('refuses a client assertion made for the server the Host names', async () => {
    const answer = await tokenRequest(app, 'evil.example', await assertionFor('http://evil.example/mcp'));
    expect(answer.status).toBe(401);
    expect(answer.json).toMatchObject({ error: 'invalid_client' });
    expect(answer.json.error_description).toMatch(/Host is not vouched for \(set 'auth\.server\.issuer'/);
    expect(answer.json.access_token).toBeUndefined();
  });

  it('refuses an ID-JAG made for the server the Host names', async () => {
    const answer = await tokenRequest(app, 'evil.example', await idJagFor('http://evil.example/mcp'), AGENT);
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ error: 'invalid_grant' });
    expect(answer.json.error_description).toMatch(/cannot tell its own issuer/);
  });

  it('refuses a DPoP proof made for the URL the Host names', async () => {
    const bound = await serve({
      allowedHosts: false,
      auth: { verify: () => ({ subject: 'alice', scopes: [], extra: { cnf: { jkt: dpop.jkt } } }) },
    });
    const proof = await dpop.proof({ htm: 'POST', htu: 'http://evil.example/mcp', accessToken: 'tok' });
    const answer = await send(
      bound,
      'evil.example',
      '/mcp',
      {
        authorization: 'DPoP tok',
        dpop: proof,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    );
    expect(answer.status).toBe(401);
    expect(answer.challenge).toMatch(/^DPoP .*error="invalid_dpop_proof"/);
  });
});

describe('a Host the operator lists names this server', () => {
  let app: LocalApp;
  beforeAll(async () => {
    app = await serve({ allowedHosts: ['mcp.example'] });
  });

  it('takes a client assertion made for it', async () => {
    const answer = await tokenRequest(app, 'mcp.example', await assertionFor('http://mcp.example/mcp'));
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ token_type: 'Bearer' });
  });

  it('takes an ID-JAG made for it', async () => {
    const answer = await tokenRequest(app, 'mcp.example', await idJagFor('http://mcp.example/mcp'), AGENT);
    expect(answer.status).toBe(200);
  });
});

describe('a fixed resource is the only htu a proof may name', () => {
  it('refuses a proof for the Host’s URL and takes one for the resource', async () => {
    const resource = 'https://mcp.example/mcp';
    const app = await serve({
      allowedHosts: false,
      auth: {
        verify: () => ({ subject: 'alice', scopes: [], extra: { cnf: { jkt: dpop.jkt } } }),
        resourceMetadata: { resource, authorizationServers: ['https://login.example'] },
      },
    });
    const ping = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'vouch', version: '1.0.0' } },
    });
    const headersFor = async (htu: string) => ({
      authorization: 'DPoP tok',
      dpop: await dpop.proof({ htm: 'POST', htu, accessToken: 'tok' }),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    });
    const spoofed = await send(app, 'evil.example', '/mcp', await headersFor('http://evil.example/mcp'), ping);
    expect(spoofed.status).toBe(401);
    const pinned = await send(app, 'evil.example', '/mcp', await headersFor(resource), ping);
    expect(pinned.status).toBe(200);
  });
});
