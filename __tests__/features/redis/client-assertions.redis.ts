// private_key_jwt across instances on one Redis: a client assertion's jti is single use everywhere, so an assertion
// used on instance A is refused on B (RFC 7523 §3 item 7), while a fresh one is accepted on either.

import express, { type Express } from 'express';
import request from 'supertest';
import { mcpRouter } from '../../../lib';
import { redisStore } from '../../../lib/redis';
import { silentLogger } from '../../helpers/messages';
import { makeSigningKey, type SigningKey } from '../../helpers/jwks-server';
import { assertionFields, clientAssertion } from '../../helpers/client-assertion';
import { cookieSignIn } from '../../helpers/sign-in-server';
import { useRedis } from './redis-server';

const redis = useRedis();
const HOST = 'mcp.example';
const ISSUER = `http://${HOST}/mcp`;

/** One instance behind the load balancer: its own router and Redis connection, the same prefix. */
function instance(prefix: string, key: SigningKey): Express {
  const mcp = mcpRouter({
    name: 'shared',
    version: '1.0.0',
    logger: silentLogger(),
    allowedHosts: [HOST],
    store: redisStore({ url: redis.url, prefix }),
    auth: {
      server: {
        signIn: cookieSignIn,
        clients: [{ clientId: 'svc', jwks: { keys: [key.publicJwk] }, grants: ['client_credentials'] }],
      },
    },
  });
  redis.closeAfter({ close: () => mcp.close() });
  return express().use('/mcp', mcp);
}

const token = (app: Express, assertion: string) =>
  request(app)
    .post('/mcp/oauth/token')
    .set('host', HOST)
    .type('form')
    .send({ grant_type: 'client_credentials', ...assertionFields(assertion) });

it('an assertion used on instance A is refused on instance B; a fresh one works on B', async () => {
  const key = await makeSigningKey('svc-key');
  const prefix = `assertions-${Date.now()}:`;
  const [a, b] = [instance(prefix, key), instance(prefix, key)];
  const assertion = await clientAssertion(key, 'svc', ISSUER);
  expect((await token(a, assertion)).status).toBe(200);
  const replayed = await token(b, assertion);
  expect(replayed.status).toBe(401);
  expect(replayed.body).toEqual({
    error: 'invalid_client',
    error_description:
      'client_assertion was used before (its jti is single use), or the server remembers as many as it may now (auth.server.maxUsedIds)',
  });
  expect(replayed.body.access_token).toBeUndefined();
  const fresh = await token(b, await clientAssertion(key, 'svc', ISSUER));
  expect(fresh.status).toBe(200);
  // Either instance accepts the tokens the other issued (the same signing keys in Redis).
  const called = await request(a)
    .post('/mcp')
    .set('host', HOST)
    .set('Authorization', `Bearer ${fresh.body.access_token as string}`)
    .set('Accept', 'application/json, text/event-stream')
    .send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
  expect(called.status).toBe(200);
});

it('concurrent uses of one assertion on two instances: exactly one is accepted', async () => {
  const key = await makeSigningKey('svc-key');
  const prefix = `assertions-race-${Date.now()}:`;
  const [a, b] = [instance(prefix, key), instance(prefix, key)];
  const assertion = await clientAssertion(key, 'svc', ISSUER);
  const statuses = (await Promise.all([token(a, assertion), token(b, assertion), token(a, assertion)])).map(
    (res) => res.status,
  );
  expect(statuses.sort()).toEqual([200, 401, 401]);
});
