// Sign-in across instances on one Redis: a client registered on one instance, consent shown by another, the code
// redeemed on a third; every instance verifies the tokens the others issued (same keys), and refresh reuse seen anywhere.

import express, { type Express } from 'express';
import request from 'supertest';
import { mcpRouter } from '../../../lib';
import { redisStore } from '../../../lib/redis';
import { silentLogger } from '../../helpers/messages';
import { modern } from '../../helpers/modern';
import { readPage } from '../../helpers/browser-driver';
import { cookieSignIn, pkce } from '../../helpers/sign-in-server';
import { useRedis } from './redis-server';

const redis = useRedis();
const HOST = 'mcp.example';
const ISSUER = `http://${HOST}/mcp`;
const REDIRECT = 'http://127.0.0.1:1/callback';

/** One instance behind the load balancer: its own router and Redis connection, the same prefix. */
function instance(prefix: string): Express {
  const mcp = mcpRouter({
    name: 'shared',
    version: '1.0.0',
    logger: silentLogger(),
    allowedHosts: [HOST],
    store: redisStore({ url: redis.url, prefix }),
    auth: { server: { signIn: cookieSignIn } },
  });
  redis.closeAfter({ close: () => mcp.close() });
  mcp.tool({
    name: 'whoami',
    description: 'The caller',
    handler: (_args, ctx) => ({ subject: ctx.auth?.subject ?? null }),
  });
  return express().use('/mcp', mcp);
}

const at = (app: Express) => ({
  get: (path: string) => request(app).get(path).set('host', HOST),
  post: (path: string) => request(app).post(path).set('host', HOST),
});

it('one sign-in crosses three instances, and each accepts the tokens the others issued', async () => {
  const prefix = `signin-${Date.now()}:`;
  const [a, b, c] = [instance(prefix), instance(prefix), instance(prefix)] as [Express, Express, Express];

  const registered = await at(a)
    .post('/mcp/oauth/register')
    .send({
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      client_name: 'LB',
      grant_types: ['authorization_code', 'refresh_token'],
    });
  expect(registered.status).toBe(201);
  const clientId = registered.body.client_id as string;

  const { verifier, challenge } = pkce();
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 's',
  });
  const page = await at(b).get(`/mcp/oauth/authorize?${query}`).set('cookie', 'user=erin');
  expect(page.status).toBe(200);
  const form = readPage(new URL(`${ISSUER}/oauth/authorize`), 200, page.text).forms[0] as NonNullable<
    ReturnType<typeof readPage>['forms'][0]
  >;
  const cookie = (page.headers['set-cookie'] as unknown as string[])[0]?.split(';')[0] as string;

  const consented = await at(c)
    .post('/mcp/oauth/consent')
    .type('form')
    .set('cookie', cookie)
    .send({ ...form.fields, decision: 'allow' });
  expect(consented.status).toBe(302);
  const code = new URL(consented.headers.location as string).searchParams.get('code') as string;

  const tokens = await at(a).post('/mcp/oauth/token').type('form').send({
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    client_id: clientId,
  });
  expect(tokens.status).toBe(200);

  for (const app of [a, b, c]) {
    const called = await modern(
      app,
      'tools/call',
      { name: 'whoami', arguments: {} },
      { authorization: `Bearer ${tokens.body.access_token as string}`, host: HOST },
    );
    expect(called.status).toBe(200);
    expect(called.body.result.structuredContent).toEqual({ subject: 'erin' });
  }

  // Refresh on one instance; the old token's reuse on another revokes the family everywhere.
  const refreshed = await at(b)
    .post('/mcp/oauth/token')
    .type('form')
    .send({ grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token, client_id: clientId });
  expect(refreshed.status).toBe(200);
  expect(
    (
      await at(c)
        .post('/mcp/oauth/token')
        .type('form')
        .send({ grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token, client_id: clientId })
    ).body,
  ).toMatchObject({ error: 'invalid_grant' });
  expect(
    (
      await at(a)
        .post('/mcp/oauth/token')
        .type('form')
        .send({ grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token, client_id: clientId })
    ).body,
  ).toMatchObject({ error: 'invalid_grant' });
  // The code was taken long ago from Redis: another instance cannot redeem it again.
  const replay = await at(b).post('/mcp/oauth/token').type('form').send({
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    client_id: clientId,
  });
  expect(replay.body).toMatchObject({ error: 'invalid_grant' });
});
