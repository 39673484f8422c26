// The URLs clients derive for discovery, in their order, and what a URL may name.

import {
  insecureReason,
  reachOf,
  resourceCovers,
  resourceMetadataUrls,
  serverMetadataUrls,
} from '../../../lib/doctor/auth/urls';

describe('discovery URLs', () => {
  it('puts the protected-resource metadata path-inserted, then at the root (RFC 9728 §3.1), query kept', () => {
    expect(resourceMetadataUrls(new URL('https://a.example/tenant/mcp/?x=1'))).toEqual({
      pathForm: 'https://a.example/.well-known/oauth-protected-resource/tenant/mcp?x=1',
      rootForm: 'https://a.example/.well-known/oauth-protected-resource',
    });
  });

  it('tries an issuer with a path as the SDK clients do: RFC 8414, OpenID inserted, OpenID appended', () => {
    expect(serverMetadataUrls(new URL('https://a.example/tenant/')).map(({ url, kind }) => `${kind} ${url}`)).toEqual([
      'oauth https://a.example/.well-known/oauth-authorization-server/tenant',
      'oidc https://a.example/.well-known/openid-configuration/tenant',
      'oidc https://a.example/tenant/.well-known/openid-configuration',
    ]);
    expect(serverMetadataUrls(new URL('https://a.example')).map(({ url }) => url)).toEqual([
      'https://a.example/.well-known/oauth-authorization-server',
      'https://a.example/.well-known/openid-configuration',
    ]);
  });
});

describe('what a URL may name', () => {
  it.each([
    ['localhost', 'loopback'],
    ['app.localhost', 'loopback'],
    ['127.0.0.2', 'loopback'],
    ['[::1]', 'loopback'],
    ['[::ffff:7f00:1]', 'loopback'],
    ['10.1.2.3', 'internal'],
    ['192.168.0.10', 'internal'],
    ['169.254.169.254', 'internal'],
    ['[fd00::1]', 'internal'],
    ['app', 'internal'],
    ['api.internal', 'internal'],
    ['mcp.example.com', 'public'],
    ['8.8.8.8', 'public'],
  ])('%s is %s', (host, reach) => {
    expect(reachOf(host)).toBe(reach);
  });

  it('takes https anywhere and http on loopback only', () => {
    expect(insecureReason(new URL('https://mcp.example.com/x'))).toBeUndefined();
    expect(insecureReason(new URL('http://127.0.0.1:3000/x'))).toBeUndefined();
    expect(insecureReason(new URL('http://mcp.example.com/x'))).toMatch(/plain http/);
    expect(insecureReason(new URL('javascript:alert(1)'))).toMatch(/javascript:/);
  });

  it('accepts a resource on the same origin whose path is a segment prefix of the endpoint, as the SDK clients do', () => {
    const endpoint = new URL('https://a.example/api/mcp');
    expect(resourceCovers(new URL('https://a.example/api/mcp'), endpoint)).toBe(true);
    expect(resourceCovers(new URL('https://a.example/api'), endpoint)).toBe(true);
    expect(resourceCovers(new URL('https://a.example/'), endpoint)).toBe(true);
    expect(resourceCovers(new URL('https://a.example/ap'), endpoint)).toBe(false);
    expect(resourceCovers(new URL('https://a.example/api/mcp/x'), endpoint)).toBe(false);
    expect(resourceCovers(new URL('http://a.example/api/mcp'), endpoint)).toBe(false);
    expect(resourceCovers(new URL('https://a.example:8443/api/mcp'), endpoint)).toBe(false);
  });
});
