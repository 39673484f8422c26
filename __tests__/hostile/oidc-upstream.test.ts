// Hostile cases of oidcUpstream(): forged ID tokens, a provider that lies, floods, hangs or answers huge; forged callbacks.

import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JWTPayload } from 'jose';
import { jose } from '../../lib/edge/security/jose';
import { oidcUpstream } from '../../lib/features/sign-in/idp/oidc-idp';
import type { OidcUpstreamOptions } from '../../lib/features/sign-in/idp/oidc-idp-options';
import { CookieJar, followFlow } from '../helpers/browser-driver';
import { startFakeProvider } from '../helpers/fake-provider';
import type { FakeProvider } from '../helpers/fake-provider';
import { startLoginStepApp } from '../helpers/login-step-app';
import type { LoginStepApp } from '../helpers/login-step-app';
import { scaled } from '../helpers/time-scale';

const CLIENT_ID = 'mcp-router';
let app: LoginStepApp;
let fake: FakeProvider;

beforeAll(async () => {
  app = await startLoginStepApp();
});
beforeEach(async () => {
  fake = await startFakeProvider(CLIENT_ID);
});
afterEach(() => fake?.close());
afterAll(() => app?.close());

const useStep = (extra: Partial<OidcUpstreamOptions> = {}): void =>
  app.use(
    oidcUpstream({
      issuer: fake.issuer,
      clientId: CLIENT_ID,
      clientSecret: 'secret',
      timeoutMs: scaled(1_000),
      ...extra,
    }),
  );

const isCallback = (url: URL): boolean => url.href.startsWith(app.callbackUrl);

/** A whole sign-in; its JSON answer. */
async function signIn(pendingId = 'p'): Promise<Record<string, unknown>> {
  return (await followFlow(app.authorizeUrl(pendingId))).json() as Record<string, unknown>;
}

/** A sign-in stopped before the callback, which `visit` then requests (changed) in the same browser. */
async function toCallback(pendingId = 'p'): Promise<{ url: URL; jar: CookieJar }> {
  const end = await followFlow(app.authorizeUrl(pendingId), { stopAt: isCallback });
  return { url: end.url, jar: end.jar };
}
async function visit(url: URL, jar = new CookieJar()): Promise<Record<string, unknown>> {
  return (await fetch(url, { headers: { cookie: jar.header(url) } })).json() as Promise<Record<string, unknown>>;
}

/** A LoginError's answer; `pendingId: null` for one that names no pending request. */
const refused = (error: string, message: RegExp, pendingId: string | null = 'p') => ({
  error,
  message: expect.stringMatching(message),
  ...(pendingId !== null && { pendingId }),
});

describe('forged or misdirected ID tokens are refused', () => {
  const now = (): number => Math.floor(Date.now() / 1000);
  it.each<[string, (claims: JWTPayload) => Promise<string>]>([
    [
      'alg none (unsigned)',
      async (claims) =>
        `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`,
    ],
    [
      'HS256 keyed with the public key (alg confusion)',
      (claims) => fake.sign(claims, { alg: 'HS256' }, new TextEncoder().encode(JSON.stringify(fake.publicJwk))),
    ],
    [
      'a key the JWKS lacks (unknown kid)',
      async (claims) => fake.sign(claims, { kid: 'attacker' }, (await jose().generateKeyPair('RS256')).privateKey),
    ],
    [
      'the right kid, another key',
      async (claims) => fake.sign(claims, {}, (await jose().generateKeyPair('RS256')).privateKey),
    ],
    ['another issuer', (claims) => fake.sign({ ...claims, iss: 'https://evil.example' })],
    ['another audience', (claims) => fake.sign({ ...claims, aud: 'another-client' })],
    ['several audiences without azp', (claims) => fake.sign({ ...claims, aud: [CLIENT_ID, 'another-client'] })],
    ['an expired token', (claims) => fake.sign({ ...claims, iat: now() - 600, exp: now() - 120 })],
    ['no nonce', (claims) => fake.sign({ ...claims, nonce: undefined })],
    ['no sub', (claims) => fake.sign({ ...claims, sub: undefined })],
  ])('%s', async (_case, forge) => {
    fake.idToken = forge;
    useStep();
    expect(await signIn()).toEqual(refused('server_error', /^the provider's ID token was refused: /));
  });

  it('a flood of unknown kids reads the JWKS once, not once per token', async () => {
    const { privateKey } = await jose().generateKeyPair('RS256');
    fake.idToken = (claims) => fake.sign(claims, { kid: 'unknown' }, privateKey);
    useStep();
    for (let i = 0; i < 5; i += 1) expect(await signIn()).toMatchObject({ error: 'server_error' });
    expect(fake.calls['/jwks']).toBe(1);
  });

  it('a userinfo answer about another user than the ID token is refused', async () => {
    fake.userinfo = { sub: 'someone-else', login: 'mallory' };
    useStep({ subjectClaim: 'login' });
    expect(await signIn()).toEqual(refused('server_error', /userinfo 'sub' is not its ID token's/));
  });
});

describe('a provider that lies, floods or hangs costs a bounded server_error', () => {
  const huge = 'x'.repeat(10 * 1024 * 1024);
  it.each<[string, FakeProvider['on']['token'], RegExp]>([
    [
      'a 10 MB token answer',
      (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(`{"a":"${huge}"}`),
      /token endpoint answered with more than 262144 bytes/,
    ],
    [
      'a never-ending token answer',
      (res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const more = (): void => void (res.destroyed || res.write('x'.repeat(65_536), more));
        more();
      },
      /token endpoint answered with more than 262144 bytes/,
    ],
    [
      'an HTML token answer',
      (res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>sign in</html>'),
      /answered HTTP 200 with something other than JSON/,
    ],
    ['a 503', (res) => res.writeHead(503).end(), /token endpoint answered HTTP 503/],
    [
      'a redirect elsewhere',
      (res) => res.writeHead(307, { location: 'http://127.0.0.1:1/steal' }).end(),
      /token endpoint answered HTTP 307/,
    ],
    [
      '200 with an error (GitHub style)',
      (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"error":"bad_verification_code"}'),
      /refused the code: bad_verification_code/,
    ],
    [
      'a DPoP token',
      (res) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"access_token":"a","token_type":"DPoP"}'),
      /a token of type DPoP, not Bearer/,
    ],
    [
      'no access token',
      (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"token_type":"Bearer"}'),
      /without an access_token/,
    ],
    [
      'no ID token for an openid request',
      (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"access_token":"a"}'),
      /without an id_token/,
    ],
  ])('%s', async (_case, token, message) => {
    fake.on.token = token;
    useStep();
    expect(await signIn()).toEqual(refused('server_error', message));
  });

  it('a JWKS that hangs: the ID token is refused once the timeout passes', async () => {
    fake.on.jwks = () => undefined; // never answers
    useStep({ timeoutMs: 300 });
    expect(await signIn()).toEqual(refused('server_error', /ID token was refused: .*timed out/));
  });

  it('a 10 MB JWKS is not read whole', async () => {
    fake.on.jwks = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(`{"keys":[],"x":"${huge}"}`);
    useStep();
    expect(await signIn()).toEqual(refused('server_error', /ID token was refused: .*larger than 262144 bytes/));
  });

  it('a discovery document naming another issuer is refused before the browser leaves', async () => {
    fake.on.discovery = (res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"issuer":"https://evil.example"}');
    useStep();
    expect(await signIn()).toEqual(
      refused('server_error', /discovery document names the issuer "https:\/\/evil.example", not "http:\/\/127/),
    );
    expect(fake.calls['/authorize']).toBeUndefined();
  });

  it('discovery is read once for many sign-ins; a failed read is tried again', async () => {
    fake.on.discovery = (res) => res.writeHead(500).end();
    useStep();
    expect(await signIn()).toEqual(refused('server_error', /discovery document answered HTTP 500/));
    delete fake.on.discovery;
    for (let i = 0; i < 3; i += 1) expect(await signIn()).toMatchObject({ identity: { subject: 'user-1' } });
    expect(fake.calls['/.well-known/openid-configuration']).toBe(2);
  });

  it("a provider's error with a hostile description is passed on as server_error, printable and short", async () => {
    fake.authorizeAnswer = (answer) =>
      new URLSearchParams({
        state: answer.get('state') ?? '',
        iss: fake.issuer,
        error: 'invalid_scope',
        error_description: `"\n<script>\\${'y'.repeat(10_000)}`,
      });
    useStep();
    const answer = await signIn();
    expect(answer).toEqual(refused('server_error', /^the provider answered invalid_scope: <script>y+\.\.\.$/));
    expect((answer.message as string).length).toBeLessThan(260);
  });
});

describe('numbers and odd claims as the subject (a plain OAuth provider such as GitHub)', () => {
  const github = (subjectClaim: string): Partial<OidcUpstreamOptions> => ({
    issuer: undefined,
    subjectClaim,
    authorizationEndpoint: `${fake.issuer}/authorize`,
    tokenEndpoint: `${fake.issuer}/token`,
    userinfoEndpoint: `${fake.issuer}/userinfo`,
  });
  it("a numeric 'id' becomes the text subject; the token request carries the secret in the body (client_secret_post)", async () => {
    let form: URLSearchParams | undefined;
    fake.on.token = (res, _req, body) => {
      form = body;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end('{"access_token":"gh-token","token_type":"bearer","scope":"read:user","expires_in":"28800"}');
    };
    useStep(github('id'));
    const { identity } = (await signIn()) as { identity: { subject: string; upstream: Record<string, unknown> } };
    expect(identity).toEqual({
      subject: '12345',
      upstream: { issuer: fake.issuer, accessToken: 'gh-token', scope: 'read:user', expiresAt: expect.any(Number) },
    });
    expect(Math.abs((identity.upstream.expiresAt as number) - (Date.now() / 1000 + 28_800))).toBeLessThan(60); // expires_in sent as text
    expect(form && Object.fromEntries(form)).toEqual({
      grant_type: 'authorization_code',
      code: 'the-code',
      redirect_uri: app.callbackUrl,
      code_verifier: expect.stringMatching(/^[\w-]{43}$/),
      client_id: CLIENT_ID,
      client_secret: 'secret',
    });
  });

  it.each([
    ['an object', { id: { nested: 1 } }],
    ['an empty string', { id: '' }],
    ['absent', {}],
  ])('a subject claim that is %s is refused', async (_case, userinfo) => {
    fake.userinfo = userinfo;
    useStep(github('id'));
    expect(await signIn()).toEqual(refused('server_error', /has no usable 'id' claim/));
  });
});

describe('forged callbacks', () => {
  beforeEach(() => useStep());

  it.each<[string, (url: URL) => void]>([
    ['an iss of another provider (mix-up, RFC 9207)', (url) => url.searchParams.set('iss', 'https://evil.example')],
    ['no iss from a provider that always sends it', (url) => url.searchParams.delete('iss')],
    ['iss twice', (url) => url.searchParams.append('iss', fake.issuer)],
  ])('%s is refused, for the pending request', async (_case, change) => {
    const { url, jar } = await toCallback();
    change(url);
    expect(await visit(url, jar)).toEqual(refused('server_error', /RFC 9207/));
    expect(fake.calls['/token']).toBeUndefined();
  });

  it.each<[string, (url: URL) => void, RegExp]>([
    ['no state', (url) => url.searchParams.delete('state'), /no single state/],
    ['state twice', (url) => url.searchParams.append('state', 'x'), /no single state/],
    ['a 10 KB state', (url) => url.searchParams.set('state', 's'.repeat(10_000)), /no single state/],
    ['a state this server never made', (url) => url.searchParams.set('state', 'forged'), /did not start/],
  ])('%s: invalid_request, no pending request named', async (_case, change, message) => {
    const { url, jar } = await toCallback();
    change(url);
    expect(await visit(url, jar)).toEqual(refused('invalid_request', message, null));
  });

  it('a callback reached in another browser (login CSRF) is refused before any code is exchanged', async () => {
    const { url } = await toCallback();
    expect(await visit(url, new CookieJar())).toEqual(
      refused('invalid_request', /did not come back to the browser that started/, null),
    );
    expect(fake.calls['/token']).toBeUndefined();
  });

  it.each<[string, (genuine: string, planted: string) => string, Record<string, unknown>]>([
    [
      'after the genuine one: the first is read, the sign-in finishes',
      (genuine, planted) => `${genuine}; ${planted}`,
      { pendingId: 'p' },
    ],
    [
      'before the genuine one: the first is read, the callback is refused',
      (genuine, planted) => `${planted}; ${genuine}`,
      refused('invalid_request', /did not come back to the browser that started/, null),
    ],
  ])('a binding cookie sent twice, a planted one %s', async (_case, order, expected) => {
    const { url, jar } = await toCallback();
    const genuine = jar
      .header(url)
      .split('; ')
      .find((pair) => pair.startsWith('mcp_upstream_')) as string;
    const planted = `${genuine.slice(0, genuine.indexOf('='))}=planted`;
    const answer = await fetch(url, { headers: { cookie: order(genuine, planted) } });
    expect(await answer.json()).toMatchObject(expected);
  });

  it('two sign-ins side by side in one browser each finish with their own cookie', async () => {
    const jar = new CookieJar();
    const first = await followFlow(app.authorizeUrl('one'), { stopAt: isCallback, jar });
    const second = await followFlow(app.authorizeUrl('two'), { stopAt: isCallback, jar });
    expect(await visit(second.url, jar)).toMatchObject({ pendingId: 'two' });
    expect(await visit(first.url, jar)).toMatchObject({ pendingId: 'one' });
  });
});

describe('a provider that never answers at all', () => {
  let silent: Server;
  beforeAll(async () => {
    silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => {
    silent?.closeAllConnections();
    return new Promise((resolve) => silent?.close(resolve) ?? resolve(undefined));
  });

  it('the userinfo endpoint: server_error after the timeout, not a hang', async () => {
    const port = (silent.address() as AddressInfo).port;
    useStep({
      issuer: undefined,
      subjectClaim: 'login',
      authorizationEndpoint: `${fake.issuer}/authorize`,
      tokenEndpoint: `${fake.issuer}/token`,
      userinfoEndpoint: `http://127.0.0.1:${port}/user`,
      timeoutMs: 300,
    });
    expect(await signIn()).toEqual(
      refused('server_error', /^the provider's userinfo endpoint did not answer within 300 ms$/),
    );
  });
});
