// Test helper, run as a child process by oidc-provider.ts: a real OpenID provider (oidc-provider 9, ESM only, so
// Jest cannot load it) on a free port of 127.0.0.1. argv[2] is its configuration as JSON; it prints
// {"issuer": …} on stdout once it listens, and exits on SIGTERM.

import http from 'node:http';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import Provider from 'oidc-provider';

const config = JSON.parse(process.argv[2]);
const SCOPES = ['openid', 'profile', 'email', 'offline_access', 'mcp', 'mcp:write'];
// What a resource server (an MCP router) may be granted: the API scopes, not OpenID's.
const RESOURCE_SCOPES = 'mcp mcp:write';

const server = http.createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: 'fixture-rs256', alg: 'RS256', use: 'sig' };

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: config.clientId,
      client_secret: config.clientSecret,
      redirect_uris: config.redirectUris,
      grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
      response_types: ['code'],
      scope: SCOPES.join(' '),
    },
    // Mints opaque access tokens: oidc-provider introspects only those (it refuses JWTs at its introspection endpoint).
    {
      client_id: config.opaqueClientId,
      client_secret: config.clientSecret,
      redirect_uris: [],
      grant_types: ['client_credentials'],
      response_types: [],
      scope: SCOPES.join(' '),
    },
    // A machine client authenticating with private_key_jwt (RFC 7523 §2.2) against the public key the test gave.
    {
      client_id: config.keyClientId,
      token_endpoint_auth_method: 'private_key_jwt',
      token_endpoint_auth_signing_alg: 'ES256',
      jwks: { keys: [config.keyClientJwk] },
      redirect_uris: [],
      grant_types: ['client_credentials'],
      response_types: [],
      scope: SCOPES.join(' '),
    },
    // The resource server's own credentials, for introspection only.
    {
      client_id: config.introspectionClientId,
      client_secret: config.introspectionClientSecret,
      redirect_uris: [],
      grant_types: [],
      response_types: [],
    },
  ],
  jwks: { keys: [signingKey] },
  cookies: { keys: [randomBytes(32).toString('base64url')] },
  scopes: SCOPES,
  // The ID token carries the claims of the scopes asked (email, name), so an OAuth proxy can map them without userinfo.
  conformIdTokenClaims: false,
  claims: { openid: ['sub'], profile: ['name'], email: ['email', 'email_verified'] },
  // The dev interactions accept any login name: it becomes the subject.
  findAccount: (_ctx, id) => ({
    accountId: id,
    claims: () => ({ sub: id, name: id, email: `${id}@example.test`, email_verified: true }),
  }),
  features: {
    devInteractions: { enabled: true },
    clientCredentials: { enabled: true },
    // RFC 9449: a token request with a DPoP proof gets a token bound to its key (cnf.jkt in the JWT).
    dPoP: { enabled: true },
    introspection: { enabled: true },
    revocation: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: (_ctx, _client, oneOf) => oneOf,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, resource, client) => ({
        scope: RESOURCE_SCOPES,
        audience: resource,
        accessTokenTTL: 3600,
        accessTokenFormat: client.clientId === config.opaqueClientId ? 'opaque' : 'jwt',
      }),
    },
  },
});

server.on('request', provider.callback());
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
process.stdout.write(`${JSON.stringify({ issuer })}\n`);
