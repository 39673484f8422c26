// oidcUpstream(): the OAuth proxy's login step against a real OpenID provider (oidc-provider 9, its dev login form).

import { createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { McpConfigError } from '../../../lib/options/config-error';
import { oidcUpstream } from '../../../lib/features/sign-in/idp/oidc-idp';
import type { OidcUpstreamOptions } from '../../../lib/features/sign-in/idp/oidc-idp-options';
import { followFlow } from '../../helpers/browser-driver';
import type { CookieJar, FlowPage, PageAction } from '../../helpers/browser-driver';
import { startLoginStepApp } from '../../helpers/login-step-app';
import type { LoginStepApp } from '../../helpers/login-step-app';
import { devLogin, startOidcProvider } from '../../helpers/oidc-provider';
import type { TestProvider } from '../../helpers/oidc-provider';

let app: LoginStepApp;
let provider: TestProvider;

beforeAll(async () => {
  app = await startLoginStepApp();
  provider = await startOidcProvider({ redirectUris: [app.callbackUrl] });
});
afterAll(async () => {
  await app?.close();
  await provider?.close();
});

const oidc = (extra: Partial<OidcUpstreamOptions> = {}): OidcUpstreamOptions => ({
  issuer: provider.issuer,
  clientId: provider.clientId,
  clientSecret: provider.clientSecret,
  ...extra,
});

/** Visits a URL in the same browser (its cookies), as the provider's redirect would. */
async function visit(url: URL, jar: CookieJar): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, { headers: { cookie: jar.header(url) }, redirect: 'manual' });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const isCallback = (url: URL): boolean => url.href.startsWith(app.callbackUrl);

describe('oidcUpstream with an OpenID provider (discovery, ID token)', () => {
  it('signs the user in: the redirect carries state, PKCE S256 and a nonce; the subject is the ID token sub; the tokens stay in identity.upstream', async () => {
    app.use(oidcUpstream(oidc()));
    const end = await followFlow(app.authorizeUrl('pending-1'), { onForm: devLogin('alice') });
    const toProvider = end.visited[1] as URL;
    expect(toProvider.origin + toProvider.pathname).toBe(`${provider.issuer}/auth`);
    expect(Object.fromEntries(toProvider.searchParams)).toEqual({
      response_type: 'code',
      client_id: provider.clientId,
      redirect_uri: app.callbackUrl,
      scope: 'openid profile email',
      state: expect.stringMatching(/^[\w-]{43}$/),
      code_challenge: expect.stringMatching(/^[\w-]{43}$/),
      code_challenge_method: 'S256',
      nonce: expect.stringMatching(/^[\w-]{43}$/),
    });
    expect(end.status).toBe(200);
    const { pendingId, identity } = end.json() as {
      pendingId: string;
      identity: { subject: string; upstream: Record<string, unknown> };
    };
    expect(pendingId).toBe('pending-1');
    expect(identity.subject).toBe('alice');
    expect(identity.upstream).toEqual({
      issuer: provider.issuer,
      accessToken: expect.any(String),
      expiresAt: expect.any(Number),
      idTokenClaims: expect.objectContaining({
        iss: provider.issuer,
        aud: provider.clientId,
        sub: 'alice',
        nonce: toProvider.searchParams.get('nonce'),
      }),
      scope: 'openid profile email',
    });
    expect(Math.abs((identity.upstream.expiresAt as number) - Date.now() / 1000)).toBeLessThan(3700);
    // The state was taken: the store holds nothing more for this sign-in.
    expect(await app.store.get('upstream', toProvider.searchParams.get('state') ?? '')).toBeUndefined();
  });

  it('maps the configured subject claim, and passes extra authorization parameters', async () => {
    app.use(oidcUpstream(oidc({ subjectClaim: 'email', extraAuthorizeParams: { prompt: 'consent' } })));
    const end = await followFlow(app.authorizeUrl('pending-2'), { onForm: devLogin('bob') });
    expect(end.visited[1]?.searchParams.get('prompt')).toBe('consent');
    expect(end.json()).toMatchObject({ pendingId: 'pending-2', identity: { subject: 'bob@example.test' } });
  });

  it('keeps a refresh token when the provider gives one (offline_access)', async () => {
    app.use(oidcUpstream(oidc({ scopes: ['openid', 'offline_access'], extraAuthorizeParams: { prompt: 'consent' } })));
    const end = await followFlow(app.authorizeUrl('pending-3'), { onForm: devLogin('carol') });
    expect(end.json()).toMatchObject({
      identity: { subject: 'carol', upstream: { refreshToken: expect.any(String) } },
    });
  });

  it('refuses an ID token whose nonce is not the one its sign-in sent', async () => {
    app.use(oidcUpstream(oidc()));
    const end = await followFlow(app.authorizeUrl('pending-4'), { onForm: devLogin('dave'), stopAt: isCallback });
    const state = end.url.searchParams.get('state') ?? '';
    const saved = await app.store.get('upstream', state);
    await app.store.set('upstream', state, { ...saved, nonce: 'another-sign-ins-nonce' }, 60_000);
    const answer = await visit(end.url, end.jar);
    expect(answer).toEqual({
      status: 400,
      body: {
        error: 'server_error',
        pendingId: 'pending-4',
        message: expect.stringMatching(/ID token was refused: its nonce/),
      },
    });
  });

  it('refuses a replayed callback: the state is good once', async () => {
    app.use(oidcUpstream(oidc()));
    const end = await followFlow(app.authorizeUrl('pending-5'), { onForm: devLogin('erin'), stopAt: isCallback });
    expect((await visit(end.url, end.jar)).status).toBe(200);
    expect(await visit(end.url, end.jar)).toEqual({
      status: 400,
      body: { error: 'invalid_request', message: expect.stringMatching(/did not start, or one already finished/) },
    });
  });

  it("passes the provider's access_denied on, for the pending request", async () => {
    app.use(oidcUpstream(oidc()));
    const cancel = (page: FlowPage): PageAction => ({
      follow: page.links.find((link) => link.pathname.endsWith('/abort')) ?? 'about:none',
    });
    const end = await followFlow(app.authorizeUrl('pending-6'), { onForm: cancel });
    expect(end.status).toBe(400);
    expect(end.json()).toEqual({
      error: 'access_denied',
      pendingId: 'pending-6',
      message: 'the provider answered access_denied: End-User aborted interaction',
    });
  });
});

describe('oidcUpstream with a plain OAuth 2.0 provider (explicit endpoints, userinfo)', () => {
  it('reads the subject from the userinfo endpoint, sends no nonce and keeps no ID token', async () => {
    const discovery = (await (await fetch(`${provider.issuer}/.well-known/openid-configuration`)).json()) as Record<
      string,
      string
    >;
    app.use(
      oidcUpstream({
        clientId: provider.clientId,
        clientSecret: provider.clientSecret,
        tokenAuthMethod: 'client_secret_basic',
        scopes: ['openid', 'email'], // oidc-provider's userinfo answers only tokens granted openid
        subjectClaim: 'email',
        authorizationEndpoint: discovery.authorization_endpoint,
        tokenEndpoint: discovery.token_endpoint,
        userinfoEndpoint: discovery.userinfo_endpoint,
      }),
    );
    const end = await followFlow(app.authorizeUrl('pending-7'), { onForm: devLogin('frank') });
    expect(end.visited[1]?.searchParams.has('nonce')).toBe(false);
    const { identity } = end.json() as { identity: { subject: string; upstream: Record<string, unknown> } };
    expect(identity.subject).toBe('frank@example.test');
    expect(identity.upstream.issuer).toBe(new URL(provider.issuer).origin);
    expect(identity.upstream.idTokenClaims).toBeUndefined();
  });
});

describe('oidcUpstream with a provider that hangs', () => {
  let hanging: Server;
  let hangingUrl: string;
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    // Accepts connections and never answers.
    hanging = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    hangingUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => hanging?.close(resolve) ?? resolve(undefined));
  });

  it('answers the authorization request with server_error once discovery times out', async () => {
    app.use(oidcUpstream({ issuer: hangingUrl, clientId: 'c', timeoutMs: 300 }));
    const end = await followFlow(app.authorizeUrl('pending-8'));
    expect(end.json()).toEqual({
      error: 'server_error',
      pendingId: 'pending-8',
      message: "the provider's discovery document did not answer within 300 ms",
    });
  });

  it('fails the callback with server_error once the token endpoint times out', async () => {
    app.use(
      oidcUpstream({
        clientId: provider.clientId,
        clientSecret: provider.clientSecret,
        scopes: ['openid'],
        authorizationEndpoint: `${provider.issuer}/auth`,
        tokenEndpoint: `${hangingUrl}/token`,
        userinfoEndpoint: `${provider.issuer}/me`,
        timeoutMs: 300,
      }),
    );
    const end = await followFlow(app.authorizeUrl('pending-9'), { onForm: devLogin('gina') });
    expect(end.json()).toEqual({
      error: 'server_error',
      pendingId: 'pending-9',
      message: "the provider's token endpoint did not answer within 300 ms",
    });
  });
});

describe('oidcUpstream options, checked at boot', () => {
  const base = { issuer: 'https://login.example.com', clientId: 'mcp' };
  it.each<[string, unknown, RegExp]>([
    ['no clientId', { issuer: base.issuer }, /option 'oidcUpstream\.clientId' must be a non-empty string/],
    [
      'an unknown key',
      { ...base, subjectClaims: 'x' },
      /unknown option 'oidcUpstream\.subjectClaims'\. Did you mean 'oidcUpstream\.subjectClaim'\?/,
    ],
    [
      'an http issuer off loopback',
      { ...base, issuer: 'http://login.example.com' },
      /option 'oidcUpstream\.issuer' must be an https URL/,
    ],
    [
      'neither issuer nor endpoints',
      { clientId: 'mcp' },
      /option 'oidcUpstream\.authorizationEndpoint' is required without 'oidcUpstream\.issuer'/,
    ],
    [
      'a missing userinfo endpoint',
      { clientId: 'mcp', authorizationEndpoint: 'https://gh.example/a', tokenEndpoint: 'https://gh.example/t' },
      /'oidcUpstream\.userinfoEndpoint' is required/,
    ],
    [
      'a scope with a space',
      { ...base, scopes: ['openid email'] },
      /option 'oidcUpstream\.scopes' must be an array of scope tokens/,
    ],
    [
      'an unknown auth method',
      { ...base, clientSecret: 's', tokenAuthMethod: 'private_key_jwt' },
      /option 'oidcUpstream\.tokenAuthMethod' must be/,
    ],
    [
      'an auth method without a secret',
      { ...base, tokenAuthMethod: 'client_secret_post' },
      /'oidcUpstream\.tokenAuthMethod' needs 'oidcUpstream\.clientSecret'/,
    ],
    [
      'an extra parameter the step writes',
      { ...base, extraAuthorizeParams: { state: 'x' } },
      /'oidcUpstream\.extraAuthorizeParams' must be free of the parameters the login step writes itself \('state'\)/,
    ],
    [
      'a non-string extra parameter',
      { ...base, extraAuthorizeParams: { max_age: 5 } },
      /option 'oidcUpstream\.extraAuthorizeParams' must be an object of string values/,
    ],
    [
      'a zero timeout',
      { ...base, timeoutMs: 0 },
      /option 'oidcUpstream\.timeoutMs' must be a positive number of milliseconds/,
    ],
    [
      'an endpoint with a fragment',
      { ...base, tokenEndpoint: 'https://login.example.com/t#x' },
      /option 'oidcUpstream\.tokenEndpoint' must be an https URL/,
    ],
  ])('refuses %s', (_case, options, message) => {
    expect(() => oidcUpstream(options as OidcUpstreamOptions)).toThrow(McpConfigError);
    expect(() => oidcUpstream(options as OidcUpstreamOptions)).toThrow(message);
  });

  it('never names the client secret in an error', () => {
    expect(() => oidcUpstream({ ...base, clientSecret: 42 as unknown as string })).toThrow(
      /clientSecret' must be a non-empty string, got "…"/,
    );
  });

  it("leaves the caller's options unchanged (a frozen object is accepted)", () => {
    const options = Object.freeze({
      ...base,
      scopes: Object.freeze(['openid']) as string[],
      extraAuthorizeParams: Object.freeze({ prompt: 'login' }),
    });
    expect(oidcUpstream(options).kind).toBe('oidcUpstream');
  });
});
