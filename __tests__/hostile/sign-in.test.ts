// Attacks on the router's authorization server: codes replayed or stolen, redirects, PKCE, refresh reuse, other
// resources, forged consent, framing. Each answer is the RFC's error, and no token leaves for a wrong party.

import * as crypto from 'node:crypto';
import * as http from 'node:http';
import { CookieJar, readPage } from '../helpers/browser-driver';
import { followSignIn } from '../helpers/sign-in-flow';
import {
  authorizeUrl,
  codeFor,
  pkce,
  registerClient,
  startSignInServer,
  tokenRequest,
  type SignInServer,
} from '../helpers/sign-in-server';

const REDIRECT = 'http://127.0.0.1:1/callback';
let server: SignInServer;
let issuer: string;

beforeAll(async () => {
  // Registrations are many here: the per-address limit is not what these tests are about.
  server = await startSignInServer({ scopes: ['mcp'], registration: { perMinute: 1000 } });
  issuer = server.issuer;
});
afterAll(() => server?.close());

async function signedIn(clientId: string) {
  const { verifier, challenge } = pkce();
  const code = await codeFor(issuer, clientId, REDIRECT, challenge);
  const tokens = await tokenRequest(issuer, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    client_id: clientId,
  });
  expect(tokens.status).toBe(200);
  return { code, verifier, tokens: tokens.body as { access_token: string; refresh_token: string } };
}

const callWith = (token: string) =>
  fetch(`${issuer}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'hostile', version: '1' } },
    }),
  });

describe('codes', () => {
  it('a code works once; its replay is invalid_grant and revokes the tokens the first use started', async () => {
    const { client_id } = await registerClient(issuer, [REDIRECT]);
    const { code, verifier, tokens } = await signedIn(client_id);
    const replay = await tokenRequest(issuer, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id,
    });
    expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(replay.headers.get('cache-control')).toBe('no-store');
    const refresh = await tokenRequest(issuer, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id,
    });
    expect(refresh).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it("another client cannot redeem a client's code", async () => {
    const victim = await registerClient(issuer, [REDIRECT]);
    const thief = await registerClient(issuer, [REDIRECT]);
    const { verifier, challenge } = pkce();
    const code = await codeFor(issuer, victim.client_id, REDIRECT, challenge);
    expect(
      await tokenRequest(issuer, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        client_id: thief.client_id,
      }),
    ).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('a wrong code_verifier, or none, gets no token', async () => {
    const { client_id } = await registerClient(issuer, [REDIRECT]);
    const { challenge } = pkce();
    const code = await codeFor(issuer, client_id, REDIRECT, challenge);
    expect(
      await tokenRequest(issuer, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id }),
    ).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    const second = await codeFor(issuer, client_id, REDIRECT, challenge);
    expect(
      await tokenRequest(issuer, {
        grant_type: 'authorization_code',
        code: second,
        redirect_uri: REDIRECT,
        code_verifier: pkce().verifier,
        client_id,
      }),
    ).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });
});

describe('the authorization request', () => {
  const fetchManual = (url: string) => fetch(url, { redirect: 'manual' });

  it('never redirects to a URI the client did not register (open redirect): the error is shown as JSON', async () => {
    const { client_id } = await registerClient(issuer, [REDIRECT]);
    for (const evil of [
      'https://evil.example/cb',
      `${REDIRECT}/x`,
      `${REDIRECT}?next=1`,
      'http://127.0.0.1:1/callback#frag',
    ]) {
      const response = await fetchManual(
        authorizeUrl(issuer, { client_id, redirect_uri: evil, code_challenge: pkce().challenge }),
      );
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(await response.json()).toMatchObject({ error: 'invalid_request' });
    }
  });

  it('an unknown client is shown an error, never redirected', async () => {
    const response = await fetchManual(
      authorizeUrl(issuer, { client_id: 'nobody', redirect_uri: REDIRECT, code_challenge: pkce().challenge }),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_client' });
  });
  // The errors after the redirect URI is checked (PKCE, response_type, resource…): sign-in-errors.test.ts.
});

describe('refresh tokens', () => {
  it('rotate on use; reusing an old one revokes the whole family', async () => {
    const { client_id } = await registerClient(issuer, [REDIRECT]);
    const { tokens } = await signedIn(client_id);
    const first = await tokenRequest(issuer, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id,
    });
    expect(first.status).toBe(200);
    const rotated = first.body.refresh_token as string;
    expect(rotated).not.toBe(tokens.refresh_token);
    // The old one again: reuse, so the family (the rotated token too) is revoked.
    expect(
      await tokenRequest(issuer, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id }),
    ).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(
      await tokenRequest(issuer, { grant_type: 'refresh_token', refresh_token: rotated, client_id }),
    ).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('cannot widen the scopes, nor be used by another client', async () => {
    const { client_id } = await registerClient(issuer, [REDIRECT]);
    const other = await registerClient(issuer, [REDIRECT]);
    const { tokens } = await signedIn(client_id);
    expect(
      await tokenRequest(issuer, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: other.client_id,
      }),
    ).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('revocation (RFC 7009) ends the family: 200, then the refresh token is refused', async () => {
    const { client_id } = await registerClient(issuer, [REDIRECT]);
    const { tokens } = await signedIn(client_id);
    const revoked = await fetch(`${issuer}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.refresh_token, client_id }).toString(),
    });
    expect(revoked.status).toBe(200);
    expect(
      await tokenRequest(issuer, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id }),
    ).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });
});

describe('access tokens', () => {
  it('are accepted by their router, and refused by another router (another resource and issuer)', async () => {
    const { client_id } = await registerClient(issuer, [REDIRECT]);
    const { tokens } = await signedIn(client_id);
    expect((await callWith(tokens.access_token)).status).toBe(200);
    const other = await startSignInServer();
    try {
      const response = await fetch(other.issuer, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${tokens.access_token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
    } finally {
      await other.close();
    }
  });

  it('a copy re-signed HS256 with the router’s public key as the secret, or naming an unknown kid, is refused', async () => {
    const { client_id } = await registerClient(issuer, [REDIRECT]);
    const { tokens } = await signedIn(client_id);
    const [header, payload] = tokens.access_token.split('.') as [string, string];
    const { kid } = JSON.parse(Buffer.from(header, 'base64url').toString()) as { kid: string };
    const jwks = (await (await fetch(`${issuer}/oauth/jwks`)).json()) as { keys: Array<Record<string, unknown>> };
    const publicKey = JSON.stringify(jwks.keys.find((key) => key.kid === kid));
    const hs256 = (head: Record<string, unknown>): string => {
      const signingInput = `${Buffer.from(JSON.stringify(head)).toString('base64url')}.${payload}`;
      return `${signingInput}.${crypto.createHmac('sha256', publicKey).update(signingInput).digest('base64url')}`;
    };
    expect((await callWith(hs256({ alg: 'HS256', typ: 'at+jwt', kid }))).status).toBe(401);
    expect((await callWith(hs256({ alg: 'ES256', typ: 'at+jwt', kid: 'not-a-key-of-this-router' }))).status).toBe(401);
    // The genuine token still works: nothing above spoilt it.
    expect((await callWith(tokens.access_token)).status).toBe(200);
  });

  it('an unsigned (alg none) copy of a valid token is refused', async () => {
    const { client_id } = await registerClient(issuer, [REDIRECT]);
    const { tokens } = await signedIn(client_id);
    const [, payload] = tokens.access_token.split('.');
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')}.${payload}.`;
    expect((await callWith(unsigned)).status).toBe(401);
  });
});

describe('consent', () => {
  async function consentPage(jar: CookieJar, redirectUri = REDIRECT) {
    const { client_id } = await registerClient(issuer, [redirectUri]);
    const url = new URL(
      authorizeUrl(issuer, { client_id, redirect_uri: redirectUri, code_challenge: pkce().challenge }),
    );
    const response = await fetch(url, { redirect: 'manual', headers: { cookie: 'user=mallory' } });
    jar.store(url, response.headers);
    return { response, html: await response.text() };
  }

  it('is never framed, nor cached, nor scripted', async () => {
    const { response } = await consentPage(new CookieJar());
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  // CSP3 form-action covers the redirect after the form is sent: with 'self' alone, Chromium blocked every consent
  // whose client is elsewhere (a loopback port, a native app); __tests__/e2e/playground-oauth.e2e.ts shows it in Chromium.
  it.each([
    [REDIRECT, 'http://127.0.0.1:1'],
    ['https://client.example/cb?x=1', 'https://client.example'],
    ['cursor://anysphere.cursor-retrieval/oauth/callback', 'cursor:'],
    ['http://[::1]:8080/cb', 'http:'],
  ])('lets its form go on to the redirect URI %s and nowhere else: form-action %s', async (redirectUri, source) => {
    const { response } = await consentPage(new CookieJar(), redirectUri);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toContain(`; form-action 'self' ${source}; `);
  });

  it('a POST without the form’s cookie (cross-site), or with a wrong CSRF token, issues no code', async () => {
    const jar = new CookieJar();
    const { html } = await consentPage(jar);
    const form = readPage(new URL(issuer), 200, html).forms[0] as NonNullable<ReturnType<typeof readPage>['forms'][0]>;
    const post = (fields: Record<string, string>, cookie?: string) =>
      fetch(form.action, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie !== undefined && { cookie }) },
        body: new URLSearchParams({ ...fields, decision: 'allow' }).toString(),
      });
    const cookie = jar.header(form.action);
    expect(cookie).toMatch(/^mcp_consent_/);
    const noCookie = await post(form.fields);
    expect(noCookie.status).toBe(403);
    expect(await noCookie.json()).toMatchObject({ error: 'invalid_request' });
    const wrongToken = await post({ ...form.fields, csrf: crypto.randomBytes(32).toString('base64url') }, cookie);
    expect(wrongToken.status).toBe(403);
    // The genuine answer still works once, and only once.
    const genuine = await post(form.fields, cookie);
    expect(genuine.status).toBe(302);
    expect(new URL(genuine.headers.get('location') as string).searchParams.get('code')).toEqual(expect.any(String));
    expect((await post(form.fields, cookie)).status).toBe(403);
  });

  it.each([
    [
      'after the genuine one: the first is read, the code is issued',
      (genuine: string, planted: string) => `${genuine}; ${planted}`,
      302,
    ],
    [
      'before the genuine one: the first is read, no code',
      (genuine: string, planted: string) => `${planted}; ${genuine}`,
      403,
    ],
  ])('a consent cookie sent twice, a planted one %s', async (_case, order, status) => {
    const jar = new CookieJar();
    const { html } = await consentPage(jar);
    const form = readPage(new URL(issuer), 200, html).forms[0] as NonNullable<ReturnType<typeof readPage>['forms'][0]>;
    const genuine = jar.header(form.action);
    const planted = `${genuine.slice(0, genuine.indexOf('='))}=${crypto.randomBytes(32).toString('base64url')}`;
    const answer = await fetch(form.action, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: order(genuine, planted) },
      body: new URLSearchParams({ ...form.fields, decision: 'allow' }).toString(),
    });
    expect(answer.status).toBe(status);
  });

  it('deny sends access_denied to the client', async () => {
    const { client_id } = await registerClient(issuer, [REDIRECT]);
    const end = await followSignIn(
      authorizeUrl(issuer, { client_id, redirect_uri: REDIRECT, code_challenge: pkce().challenge }),
      { stopAt: REDIRECT, decision: 'deny' },
    );
    expect(end.location.searchParams.get('error')).toBe('access_denied');
    expect(end.location.searchParams.get('code')).toBeNull();
  });

  it('escapes what the client chose to be called', async () => {
    const { client_id } = await registerClient(issuer, [REDIRECT], { client_name: '<script>alert(1)</script>' });
    const response = await fetch(
      authorizeUrl(issuer, { client_id, redirect_uri: REDIRECT, code_challenge: pkce().challenge }),
      { redirect: 'manual' },
    );
    const html = await response.text();
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;');
  });
});

describe('the endpoints answer bad input with the RFC JSON', () => {
  it.each([
    ['no grant_type', {}, 'invalid_request'],
    ['an unknown grant_type', { grant_type: 'password' }, 'unsupported_grant_type'],
  ])('%s', async (_name, form, error) => {
    const { client_id } = await registerClient(issuer, [REDIRECT]);
    expect(await tokenRequest(issuer, { ...form, client_id })).toMatchObject({ status: 400, body: { error } });
  });

  it('a JSON token request, a huge one, a wrong method', async () => {
    const json = await fetch(`${issuer}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: 'invalid_request' });
    const huge = await fetch(`${issuer}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `a=${'x'.repeat(100_000)}`,
    });
    expect(huge.status).toBe(413);
    expect(await huge.json()).toMatchObject({ error: 'invalid_request' });
    const get = await fetch(`${issuer}/oauth/token`);
    expect(get.status).toBe(405);
  });
});

describe('client authentication at the token and revocation endpoints (RFC 6749 §5.2)', () => {
  const basic = (id: string, secret: string): string =>
    `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
  let basicClient: { client_id: string; client_secret: string };
  let postClient: { client_id: string; client_secret: string };
  beforeAll(async () => {
    const confidential = async (method: string) =>
      (await registerClient(issuer, [REDIRECT], { token_endpoint_auth_method: method })) as {
        client_id: string;
        client_secret: string;
      };
    basicClient = await confidential('client_secret_basic');
    postClient = await confidential('client_secret_post');
  });

  const CHALLENGE = 'Basic realm="oauth", charset="UTF-8"';
  // The last column: the challenge the answer must carry (RFC 6749 §5.2: when the client tried the Authorization
  // header), or null (a client that authenticated in the form: 401 all the same, without one).
  it.each<[string, () => { authorization?: string; form: Record<string, string> }, string | null]>([
    ['a wrong secret by Basic', () => ({ authorization: basic(basicClient.client_id, 'wrong'), form: {} }), CHALLENGE],
    ['an unknown client by Basic', () => ({ authorization: basic('ghost', 'x'), form: {} }), CHALLENGE],
    [
      'Basic credentials without a colon',
      () => ({ authorization: `Basic ${Buffer.from('no-colon').toString('base64')}`, form: {} }),
      CHALLENGE,
    ],
    [
      'Basic for a client registered for client_secret_post',
      () => ({ authorization: basic(postClient.client_id, postClient.client_secret), form: {} }),
      CHALLENGE,
    ],
    [
      'a wrong secret by client_secret_post',
      () => ({ form: { client_id: postClient.client_id, client_secret: 'wrong' } }),
      null,
    ],
    ['a confidential client without its secret', () => ({ form: { client_id: basicClient.client_id } }), null],
    ['an unknown client by client_id', () => ({ form: { client_id: 'ghost' } }), null],
  ])('%s: 401 invalid_client', async (_name, make, challenge) => {
    const { authorization, form } = make();
    for (const [endpoint, fields] of [
      ['token', { grant_type: 'refresh_token', refresh_token: 'x' }],
      ['revoke', { token: 'x' }],
    ] as const) {
      const response = await fetch(`${issuer}/oauth/${endpoint}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(authorization !== undefined && { authorization }),
        },
        body: new URLSearchParams({ ...fields, ...form }).toString(),
      });
      expect([endpoint, response.status]).toEqual([endpoint, 401]);
      expect(response.headers.get('www-authenticate')).toBe(challenge);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(await response.json()).toMatchObject({ error: 'invalid_client' });
    }
  });

  it('the right secret, by each client’s method, is accepted (the refusals above are not the endpoint failing)', async () => {
    const token = (headers: Record<string, string>, form: Record<string, string>) =>
      fetch(`${issuer}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x', ...form }).toString(),
      });
    // Authenticated, then refused for the grant: invalid_grant (400), not invalid_client.
    const byBasic = await token({ authorization: basic(basicClient.client_id, basicClient.client_secret) }, {});
    expect(byBasic.status).toBe(400);
    expect(await byBasic.json()).toMatchObject({ error: 'invalid_grant' });
    const byPost = await token({}, { client_id: postClient.client_id, client_secret: postClient.client_secret });
    expect(byPost.status).toBe(400);
    expect(await byPost.json()).toMatchObject({ error: 'invalid_grant' });
  });
});

describe('Host', () => {
  it('the sign-in endpoints answer only an expected Host (DNS rebinding cannot mint an issuer)', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/oauth/authorize', '/oauth/jwks']) {
      const response = await new Promise<{ status: number }>((resolve, reject) => {
        // fetch cannot set Host: a raw request to the loopback server, naming another host.
        const req = http.request(
          { host: '127.0.0.1', port: server.app.port, path: `/mcp${path}`, headers: { host: 'rebound.example' } },
          (res) => {
            res.resume();
            resolve({ status: res.statusCode ?? 0 });
          },
        );
        req.on('error', reject).end();
      });
      expect(response.status).toBe(403);
    }
  });
});

describe('floods', () => {
  it('one address gets 429 (the OAuth JSON error, Retry-After) past auth.server.rateLimit; metadata stays readable', async () => {
    const limited = await startSignInServer({ rateLimit: 5 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++)
        statuses.push(
          (
            await tokenRequest(limited.issuer, {
              grant_type: 'refresh_token',
              refresh_token: `x.${i}`,
              client_id: 'nobody',
            })
          ).status,
        );
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
      const refused = await tokenRequest(limited.issuer, {
        grant_type: 'refresh_token',
        refresh_token: 'x',
        client_id: 'nobody',
      });
      expect(refused.body).toMatchObject({ error: 'too_many_requests' });
      expect(refused.headers.get('retry-after')).toEqual(expect.any(String));
      expect((await fetch(`${limited.issuer}/.well-known/openid-configuration`)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
