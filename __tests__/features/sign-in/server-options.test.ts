// auth.server is checked once, at mcpRouter(): each mistake throws McpConfigError naming the option.

import { mcpRouter, McpConfigError } from '../../../lib';
import { oidcUpstream } from '../../../lib';

const signIn = () => ({ subject: 'alice' });
const boot =
  (server: unknown, extra: Record<string, unknown> = {}) =>
  () =>
    mcpRouter({ name: 's', version: '1', auth: { server: server as never, ...extra } });

it.each([
  ['neither signIn nor upstream', {}, "exactly one of 'signIn'"],
  [
    'both',
    { signIn, upstream: oidcUpstream({ issuer: 'https://idp.example', clientId: 'c', clientSecret: 's' }) },
    "exactly one of 'signIn'",
  ],
  ['signIn not a function', { signIn: 'alice' }, 'auth.server.signIn'],
  ['upstream not a login step', { upstream: { issuer: 'https://idp.example' } }, 'auth.server.upstream'],
  [
    'a misspelt key',
    { signIn, scope: ['mcp'] },
    "unknown option 'auth.server.scope'. Did you mean 'auth.server.scopes'?",
  ],
  ['an issuer with a query', { signIn, issuer: 'https://mcp.example/mcp?x=1' }, 'auth.server.issuer'],
  ['an http issuer off loopback', { signIn, issuer: 'http://mcp.example/mcp' }, 'auth.server.issuer'],
  ['a scope with a space', { signIn, scopes: ['a b'] }, 'auth.server.scopes'],
  ['a zero token lifetime', { signIn, accessTokenTtlSec: 0 }, 'auth.server.accessTokenTtlSec'],
  ['a fractional code lifetime', { signIn, codeTtlSec: 1.5 }, 'auth.server.codeTtlSec'],
  ['a rate limit of zero', { signIn, rateLimit: 0 }, 'auth.server.rateLimit'],
  ['a refresh family bound of zero', { signIn, maxRefreshFamilies: 0 }, "option 'auth.server.maxRefreshFamilies'"],
  ['a fractional consent bound', { signIn, maxConsents: 2.5 }, "option 'auth.server.maxConsents'"],
  [
    'a pending bound as text',
    { signIn, maxPendingAuthorizations: '100' },
    "option 'auth.server.maxPendingAuthorizations'",
  ],
  ['a negative code bound', { signIn, maxCodes: -1 }, "option 'auth.server.maxCodes'"],
  [
    'a client bound of zero',
    { signIn, registration: { maxClients: 0 } },
    "option 'auth.server.registration.maxClients'",
  ],
  ['an unknown consent key', { signIn, consent: { remember: 1 } }, "auth.server.consent.remember'"],
  ['a consent renderer that is no function', { signIn, consent: { render: '<html>' } }, 'auth.server.consent.render'],
  [
    'keys rotating faster than tokens live',
    { signIn, rotationMs: 60_000, accessTokenTtlSec: 3_600 },
    'auth.server.rotationMs',
  ],
  [
    'a bad pre-registered client',
    { signIn, clients: [{ clientId: 'c', redirectUris: ['http://evil.example/cb'] }] },
    'auth.server.clients[0].redirectUris[0]',
  ],
])('%s', (_name, server, message) => {
  expect(boot(server)).toThrow(McpConfigError);
  expect(boot(server)).toThrow(message);
});

it('auth.server excludes the other token sources', () => {
  expect(boot({ signIn }, { tokens: ['t'] })).toThrow(
    "exactly one of 'tokens', 'verify', 'fromRequest' or 'server' (got tokens, server)",
  );
});

it('a well-formed auth.server boots, with an https issuer, scopes, clients and lifetimes', async () => {
  const mcp = mcpRouter({
    name: 's',
    version: '1',
    auth: {
      server: {
        signIn,
        issuer: 'https://mcp.example/mcp',
        scopes: ['mcp'],
        clients: [{ clientId: 'desk', redirectUris: ['http://127.0.0.1/cb'], firstParty: true }],
        accessTokenTtlSec: 600,
        consent: { rememberMs: 0 },
        maxRefreshFamilies: 50_000,
        maxConsents: 50_000,
        maxPendingAuthorizations: 1_000,
        maxCodes: 1_000,
      },
    },
  });
  await mcp.close();
});
