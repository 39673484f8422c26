// DPoP across instances on one Redis: a proof used on one instance is refused on another (trackReplays), and a nonce one instance gave is taken by another (the shared key).

import express, { type Express } from 'express';
import request from 'supertest';
import { mcpRouter } from '../../../lib';
import { redisStore } from '../../../lib/redis';
import { jwtVerifier } from '../../../lib/features/verifiers/jwt-verifier';
import { silentLogger } from '../../helpers/messages';
import { envelope, MODERN } from '../../helpers/modern';
import { rpc } from '../../helpers/create-app';
import { DpopClient } from '../../helpers/dpop-client';
import { makeSigningKey, signToken } from '../../helpers/jwks-server';
import { useRedis } from './redis-server';

const redis = useRedis();
const HOST = 'mcp.example';
const URL_ = `http://${HOST}/mcp`;
const ISSUER = 'https://login.example.com';
const BODY = JSON.stringify(rpc('tools/call', { name: 'whoami', arguments: {}, _meta: envelope() }, 7));

/** One instance behind the load balancer, with these `auth.dpop` options; `calls` counts its tool's runs. */
async function instance(
  prefix: string,
  dpop: { trackReplays?: boolean; nonce?: boolean },
  publicJwk: Record<string, unknown>,
): Promise<{ app: Express; calls: () => number }> {
  let calls = 0;
  const verify = jwtVerifier({ issuer: ISSUER, audience: URL_, jwks: { keys: [publicJwk] }, logger: silentLogger() });
  const mcp = mcpRouter({
    name: 'shared',
    version: '1.0.0',
    logger: silentLogger(),
    allowedHosts: [HOST],
    store: redisStore({ url: redis.url, prefix }),
    auth: { verify, dpop },
  });
  redis.closeAfter({ close: () => mcp.close() });
  mcp.tool({
    name: 'whoami',
    description: 'The caller',
    handler: (_args, ctx) => {
      calls += 1;
      return { subject: ctx.auth?.subject ?? null };
    },
  });
  return { app: express().use('/mcp', mcp), calls: () => calls };
}

const send = (app: Express, token: string, proof: string) =>
  request(app)
    .post('/mcp')
    .set('host', HOST)
    .set('content-type', 'application/json')
    .set('accept', 'application/json, text/event-stream')
    .set('mcp-protocol-version', MODERN)
    .set('mcp-method', 'tools/call')
    .set('mcp-name', 'whoami')
    .set('authorization', `DPoP ${token}`)
    .set('dpop', proof)
    .send(BODY);

it('a proof used on instance A is refused on instance B (trackReplays through the shared replay set)', async () => {
  const key = await makeSigningKey('k1');
  const client = await DpopClient.create();
  const token = await signToken(key, { iss: ISSUER, aud: URL_, cnf: { jkt: client.jkt } });
  const prefix = `dpop-replay-${Date.now()}:`;
  const a = await instance(prefix, { trackReplays: true }, key.publicJwk);
  const b = await instance(prefix, { trackReplays: true }, key.publicJwk);
  const proof = await client.proof({ htm: 'POST', htu: URL_, accessToken: token });
  expect((await send(a.app, token, proof)).status).toBe(200);
  const replayed = await send(b.app, token, proof);
  expect(replayed.status).toBe(401);
  expect(replayed.headers['www-authenticate']).toMatch(
    /^DPoP error="invalid_dpop_proof", error_description="the DPoP proof was used before, or the server remembers as many as it may now"/,
  );
  expect(b.calls()).toBe(0);
  // A fresh proof still works on B.
  expect((await send(b.app, token, await client.proof({ htm: 'POST', htu: URL_, accessToken: token }))).status).toBe(
    200,
  );
});

it('a nonce given by instance A is taken by instance B: nonces derive from the shared key, with no state per nonce', async () => {
  const key = await makeSigningKey('k2');
  const client = await DpopClient.create();
  const token = await signToken(key, { iss: ISSUER, aud: URL_, cnf: { jkt: client.jkt } });
  const prefix = `dpop-nonce-${Date.now()}:`;
  const a = await instance(prefix, { nonce: true }, key.publicJwk);
  const b = await instance(prefix, { nonce: true }, key.publicJwk);
  const first = await send(a.app, token, await client.proof({ htm: 'POST', htu: URL_, accessToken: token }));
  expect(first.status).toBe(401);
  const nonce = first.headers['dpop-nonce'] as string;
  const onB = await send(b.app, token, await client.proof({ htm: 'POST', htu: URL_, accessToken: token, nonce }));
  expect(onB.status).toBe(200);
  expect(b.calls()).toBe(1);
});
