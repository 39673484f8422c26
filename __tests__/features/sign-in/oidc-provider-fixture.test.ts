// The oidc-provider fixture itself: JWT and opaque tokens for an audience, introspection, and the dev login to a code.

import { createHash, randomBytes } from 'node:crypto';
import { followDevLogin, startOidcProvider, type TestProvider } from '../../helpers/oidc-provider';

const REDIRECT = 'http://127.0.0.1:5555/callback';
const RESOURCE = 'http://127.0.0.1:5555/mcp';
let provider: TestProvider;

beforeAll(async () => {
  provider = await startOidcProvider({ redirectUris: [REDIRECT] });
});
afterAll(() => provider?.close());

const basic = (id: string, secret: string): string => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

it('mints a JWT access token for the audience, signed with a key of its JWKS', async () => {
  const token = await provider.mintAccessToken(RESOURCE, 'mcp');
  const [header = '', payload = ''] = token.split('.');
  expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toMatchObject({
    alg: 'RS256',
    typ: 'at+jwt',
    kid: 'fixture-rs256',
  });
  expect(JSON.parse(Buffer.from(payload, 'base64url').toString())).toMatchObject({
    iss: provider.issuer,
    aud: RESOURCE,
    sub: provider.clientId,
    scope: 'mcp',
  });
  const jwks = (await (await fetch(provider.jwksUri)).json()) as { keys: { kid: string }[] };
  expect(jwks.keys.map((key) => key.kid)).toEqual(['fixture-rs256']);
});

it('introspects an opaque access token for the resource server', async () => {
  const token = await provider.mintOpaqueAccessToken(RESOURCE, 'mcp');
  const { clientId, clientSecret } = provider.introspectionClient;
  const response = await fetch(provider.introspectionEndpoint, {
    method: 'POST',
    headers: { authorization: basic(clientId, clientSecret) },
    body: new URLSearchParams({ token }),
  });
  expect(await response.json()).toMatchObject({
    active: true,
    aud: RESOURCE,
    scope: 'mcp',
    client_id: provider.opaqueClientId,
  });
});

it('signs a user in through the dev login: the code redeems for tokens', async () => {
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(`${provider.issuer}/auth`);
  const query = {
    client_id: provider.clientId,
    response_type: 'code',
    redirect_uri: REDIRECT,
    scope: 'openid email offline_access',
    state: 's1',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    prompt: 'consent',
  };
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  const callback = await followDevLogin(url, 'alice');
  expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT);
  expect(callback.searchParams.get('state')).toBe('s1');
  expect(callback.searchParams.get('iss')).toBe(provider.issuer);
  const form = {
    grant_type: 'authorization_code',
    code: callback.searchParams.get('code') ?? '',
    redirect_uri: REDIRECT,
    code_verifier: verifier,
  };
  const response = await fetch(provider.tokenEndpoint, {
    method: 'POST',
    headers: { authorization: basic(provider.clientId, provider.clientSecret) },
    body: new URLSearchParams(form),
  });
  const tokens = (await response.json()) as { id_token: string; refresh_token?: string };
  expect(JSON.parse(Buffer.from(tokens.id_token.split('.')[1] ?? '', 'base64url').toString())).toMatchObject({
    sub: 'alice',
    email: 'alice@example.test',
  });
  expect(tokens.refresh_token).toEqual(expect.any(String));
});
