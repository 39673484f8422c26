// End to end: the SDK v2 CrossAppAccessProvider gets an ID-JAG from the enterprise IdP (RFC 8693 token exchange of the
// user's ID token), redeems it at the router's token endpoint, and calls a tool as the user, in both protocol eras.

import {
  Client,
  CrossAppAccessProvider,
  discoverAndRequestJwtAuthGrant,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { startIdJagIdp, startIdJagRouter, type IdJagIdp, type IdJagRouter } from '../../helpers/id-jag-idp';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

let idp: IdJagIdp;
let router: IdJagRouter;

beforeAll(async () => {
  // The MCP client's SSO registration at the IdP, and its registration at the router the ID-JAG names (draft §5).
  idp = await startIdJagIdp({ 'desk-agent': { secret: 'idp-secret', routerClientId: 'agent' } });
  router = await startIdJagRouter({
    scopes: ['read'],
    trustedIdps: [{ issuer: idp.issuer, jwksUri: idp.jwksUri }],
    clients: [{ clientId: 'agent', clientSecret: 'agent-secret', grants: [JWT_BEARER] }],
  });
});
afterAll(async () => {
  await router?.close();
  await idp?.close();
});

/** The provider of an MCP client whose user `sub` signed in to it through the IdP. */
function providerFor(sub: string): CrossAppAccessProvider {
  return new CrossAppAccessProvider({
    assertion: async (ctx) => {
      const { jwtAuthGrant } = await discoverAndRequestJwtAuthGrant({
        idpUrl: idp.issuer,
        audience: ctx.authorizationServerUrl,
        resource: ctx.resourceUrl,
        idToken: await idp.idToken(sub, 'desk-agent'),
        clientId: 'desk-agent',
        clientSecret: 'idp-secret',
        scope: ctx.scope,
        fetchFn: ctx.fetchFn,
      });
      return jwtAuthGrant;
    },
    clientId: 'agent',
    clientSecret: 'agent-secret',
    expectedIssuer: router.issuer,
  });
}

it.each([
  ['2025 sessions', undefined, 'alice'],
  ['2026-07-28, stateless', '2026-07-28', 'bob'],
])('%s: a token from an ID-JAG, no browser, then a tool call as the user', async (_era, pin, user) => {
  const before = idp.exchanges;
  const provider = providerFor(user);
  const client = new Client(
    { name: 'cross-app', version: '1.0.0' },
    pin === undefined ? {} : { versionNegotiation: { mode: { pin } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(router.issuer), { authProvider: provider }));
  try {
    expect(idp.exchanges).toBe(before + 1);
    expect(provider.tokens()).toMatchObject({ token_type: 'Bearer', scope: 'read' });
    expect(provider.tokens()).not.toHaveProperty('refresh_token');
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    expect(result.structuredContent).toEqual({
      subject: `${idp.issuer}#${user}`,
      scopes: ['read'],
      extra: { clientId: 'agent' },
    });
  } finally {
    await client.close();
  }
});
