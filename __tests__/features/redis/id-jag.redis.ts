// ID-JAGs across instances on one Redis: a `jti` spent on one instance is spent on all (SEP-990 §7.4.2), even when two
// race, and the token one instance issued for an ID-JAG is good on the other.

import express, { type Express } from 'express';
import request from 'supertest';
import { mcpRouter } from '../../../lib';
import { redisStore } from '../../../lib/redis';
import { silentLogger } from '../../helpers/messages';
import { startIdJagIdp, type IdJagIdp } from '../../helpers/id-jag-idp';
import { useRedis } from './redis-server';

const redis = useRedis();
const HOST = 'mcp.example';
const ISSUER = `http://${HOST}/mcp`;
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

let idp: IdJagIdp;
beforeAll(async () => {
  idp = await startIdJagIdp({});
});
afterAll(() => idp?.close());

/** One instance behind the load balancer: its own router and Redis connection, the same prefix. */
function instance(prefix: string): Express {
  const mcp = mcpRouter({
    name: 'shared',
    version: '1.0.0',
    logger: silentLogger(),
    allowedHosts: [HOST],
    store: redisStore({ url: redis.url, prefix }),
    auth: {
      server: {
        signIn: () => null,
        trustedIdps: [{ issuer: idp.issuer, jwks: { keys: [idp.key.publicJwk] } }],
        clients: [{ clientId: 'agent', clientSecret: 'agent-secret', grants: [JWT_BEARER] }],
      },
    },
  });
  redis.closeAfter({ close: () => mcp.close() });
  mcp.tool({ name: 'whoami', description: 'The caller', handler: (_args, ctx) => ({ subject: ctx.auth?.subject }) });
  return express().use('/mcp', mcp);
}

const present = (app: Express, assertion: string) =>
  request(app)
    .post('/mcp/oauth/token')
    .set('host', HOST)
    .auth('agent', 'agent-secret')
    .type('form')
    .send({ grant_type: JWT_BEARER, assertion });

const idJag = () => idp.mint({ aud: ISSUER, resource: ISSUER, client_id: 'agent', sub: 'carol' });

it('an ID-JAG used on instance A is refused on B, and A’s token serves on B', async () => {
  const prefix = `id-jag-${Date.now()}:`;
  const [a, b] = [instance(prefix), instance(prefix)];
  const assertion = await idJag();
  const first = await present(a, assertion);
  expect(first.status).toBe(200);
  const again = await present(b, assertion);
  expect(again.status).toBe(400);
  expect(again.body).toEqual({
    error: 'invalid_grant',
    error_description: expect.stringMatching(/^the ID-JAG was already used/),
  });
  const call = await request(b)
    .post('/mcp')
    .set({
      host: HOST,
      authorization: `Bearer ${first.body.access_token as string}`,
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'whoami',
    })
    .send({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'whoami',
        arguments: {},
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    });
  expect(call.body.result.structuredContent).toEqual({ subject: `${idp.issuer}#carol` });
});

it('two instances racing on one ID-JAG: exactly one token', async () => {
  const prefix = `id-jag-race-${Date.now()}:`;
  const [a, b] = [instance(prefix), instance(prefix)];
  const assertion = await idJag();
  const answers = await Promise.all([present(a, assertion), present(b, assertion), present(a, assertion)]);
  expect(answers.map((res) => res.status).sort()).toEqual([200, 400, 400]);
});
