// checkAuth against a hand-written resource and authorization server over TLS on a test host: healthy, then broken one way at a time.

import { checkAuth } from '../../../lib/doctor/auth';
import type { Finding } from '../../../lib/doctor/finding';
import { goodChallenge, goodResource, goodServer, startOAuthSite, type OAuthSite, type SiteSpec } from './oauth-site';

let site: OAuthSite | undefined;

beforeAll(async () => {
  site = await startOAuthSite();
}, 20_000);

afterAll(async () => {
  await site?.close();
});

/** Serves `spec` (built on the healthy site) and runs the auth checks against `<base>/mcp`. */
async function doctor(change: (base: string, healthy: SiteSpec) => SiteSpec): Promise<Finding[]> {
  const at = site as OAuthSite;
  at.serve((base) =>
    change(base, {
      challenge: goodChallenge(base),
      documents: {
        '/.well-known/oauth-protected-resource/mcp': goodResource(base),
        '/.well-known/oauth-protected-resource': goodResource(base),
        '/.well-known/oauth-authorization-server': goodServer(base),
      },
    }),
  );
  return checkAuth({ target: { url: new URL(`${at.base}/mcp`), calls: [] }, http: at.http });
}

/** The severity of each finding by id (the first of an id). */
const severities = (findings: Finding[]): Record<string, string> =>
  Object.fromEntries([...findings].reverse().map((finding) => [finding.id, finding.severity]));

const only = (findings: Finding[], id: string): Finding => findings.find((finding) => finding.id === id) as Finding;

describe('checkAuth against a resource and authorization server on https://auth.doctor.test', () => {
  it('finds nothing wrong with a healthy setup', async () => {
    const findings = await doctor((_base, healthy) => healthy);
    expect(findings.filter((finding) => finding.severity === 'warn' || finding.severity === 'fail')).toEqual([]);
    expect(severities(findings)).toEqual({
      'auth.challenge': 'ok',
      'auth.challenge-2026': 'ok',
      'auth.challenge-url': 'ok',
      'auth.challenge-scope': 'ok',
      'auth.prm': 'ok',
      'auth.prm-well-known': 'ok',
      'auth.prm-cors': 'ok',
      'auth.prm-resource': 'ok',
      'auth.prm-authorization-servers': 'ok',
      'auth.as-discovery': 'ok',
      'auth.as-issuer': 'ok',
      'auth.as-cors': 'ok',
      'auth.as-endpoints': 'ok',
      'auth.as-pkce': 'ok',
      'auth.as-registration': 'ok',
      'auth.as-grant-types': 'ok',
      'auth.as-response-types': 'ok',
      'auth.as-token-auth-methods': 'ok',
      'auth.as-iss-parameter': 'ok',
    });
    for (const finding of findings) expect(finding.id.startsWith('auth.')).toBe(true);
  });

  it('fails a 401 without WWW-Authenticate, and finds metadata only at the root well-known URL as the SDK does', async () => {
    const findings = await doctor((base, healthy) => ({
      ...healthy,
      challenge: null,
      documents: { ...healthy.documents, '/.well-known/oauth-protected-resource/mcp': undefined },
    }));
    expect(severities(findings)).toMatchObject({
      'auth.challenge': 'fail',
      'auth.challenge-2026': 'fail',
      'auth.prm': 'ok',
      'auth.prm-well-known': 'warn',
      'auth.prm-resource': 'ok',
      'auth.as-discovery': 'ok',
    });
    expect(only(findings, 'auth.challenge').summary).toMatch(/401 with no `WWW-Authenticate` header/);
    expect(only(findings, 'auth.prm').summary).toMatch(/root well-known URL/);
    expect(findings.some((finding) => finding.id === 'auth.challenge-url')).toBe(false);
  });

  it('fails an authorization server without S256, with another issuer, and with endpoints on plain http or an internal host', async () => {
    const findings = await doctor((base, healthy) => ({
      ...healthy,
      documents: {
        ...healthy.documents,
        '/.well-known/oauth-authorization-server': {
          ...goodServer(base),
          issuer: 'https://login.example.com',
          code_challenge_methods_supported: ['plain'],
          token_endpoint: 'https://10.0.0.5/token',
          revocation_endpoint: `http://auth.doctor.test/revoke`,
        },
      },
    }));
    expect(severities(findings)).toMatchObject({
      'auth.as-pkce': 'fail',
      'auth.as-issuer': 'fail',
      'auth.as-endpoints': 'fail',
    });
    expect(only(findings, 'auth.as-endpoints').summary).toMatch(
      /token_endpoint https:\/\/10\.0\.0\.5\/token: an internal host/,
    );
    expect(only(findings, 'auth.as-endpoints').summary).toMatch(/revocation_endpoint .*plain http/);
    expect(only(findings, 'auth.as-issuer').summary).toContain('https://login.example.com');
    for (const id of ['auth.as-pkce', 'auth.as-issuer', 'auth.as-endpoints'])
      expect(only(findings, id).fix).toBeDefined();
  });

  it('fails an authorization server that does not advertise PKCE at all', async () => {
    const { code_challenge_methods_supported: _dropped, ...withoutPkce } = goodServer('x');
    const findings = await doctor((base, healthy) => ({
      ...healthy,
      documents: {
        ...healthy.documents,
        '/.well-known/oauth-authorization-server': { ...withoutPkce, ...urlsOf(base) },
      },
    }));
    expect(only(findings, 'auth.as-pkce')).toMatchObject({
      severity: 'fail',
      summary: expect.stringMatching(/refuse/),
    });
  });

  it('warns of no registration and no public clients, and notes no refresh tokens and no iss', async () => {
    const findings = await doctor((base, healthy) => ({
      ...healthy,
      documents: {
        ...healthy.documents,
        '/.well-known/oauth-authorization-server': {
          ...goodServer(base),
          registration_endpoint: undefined,
          client_id_metadata_document_supported: false,
          grant_types_supported: ['authorization_code'],
          token_endpoint_auth_methods_supported: ['client_secret_basic'],
          authorization_response_iss_parameter_supported: undefined,
        },
      },
    }));
    expect(severities(findings)).toMatchObject({
      'auth.as-registration': 'warn',
      'auth.as-token-auth-methods': 'warn',
      'auth.as-grant-types': 'info',
      'auth.as-iss-parameter': 'info',
    });
  });

  it('fails a resource naming the internal http address behind the proxy, and says what it named and what was used', async () => {
    const findings = await doctor((base, healthy) => ({
      ...healthy,
      documents: {
        ...healthy.documents,
        '/.well-known/oauth-protected-resource/mcp': { ...goodResource(base), resource: 'http://127.0.0.1:3000/mcp' },
        '/.well-known/oauth-protected-resource': { ...goodResource(base), resource: 'http://127.0.0.1:3000/mcp' },
      },
    }));
    const resource = only(findings, 'auth.prm-resource');
    expect(resource.severity).toBe('fail');
    expect(resource.summary).toContain('http://127.0.0.1:3000/mcp');
    expect(resource.summary).toContain(`${site?.base}/mcp`);
    expect(resource.summary).toMatch(/plain http/);
    expect(resource.fix).toMatch(/trust proxy/);
    expect(resource.docs).toBe('deployment.md#deployment');
  });

  it('fails a challenge naming metadata over plain http, and warns of one on another origin', async () => {
    const http = await doctor((base, healthy) => ({
      ...healthy,
      challenge: `Bearer resource_metadata="${base.replace('https:', 'http:')}/.well-known/oauth-protected-resource/mcp"`,
    }));
    expect(only(http, 'auth.challenge-url')).toMatchObject({
      severity: 'fail',
      summary: expect.stringMatching(/plain http/),
    });
    expect(only(http, 'auth.challenge-scope').severity).toBe('info');
    const elsewhere = await doctor((_base, healthy) => ({
      ...healthy,
      challenge: 'Bearer resource_metadata="https://metadata.example.com/.well-known/oauth-protected-resource/mcp"',
    }));
    expect(only(elsewhere, 'auth.challenge-url').severity).toBe('warn');
    // Clients read only the challenge's URL: unreachable there is a failure even with the well-known forms served.
    expect(only(elsewhere, 'auth.prm')).toMatchObject({
      severity: 'fail',
      fix: expect.stringMatching(/make the challenge name/),
    });
  });

  it('takes a DPoP challenge, warns of a Bearer one behind another scheme, and fails one clients cannot answer', async () => {
    const dpop = await doctor((base, healthy) => ({
      ...healthy,
      challenge: goodChallenge(base).replace('Bearer', 'DPoP algs="ES256",'),
    }));
    expect(only(dpop, 'auth.challenge')).toMatchObject({ severity: 'ok', summary: expect.stringContaining('`DPoP`') });
    expect(only(dpop, 'auth.challenge-url').severity).toBe('ok');
    const second = await doctor((base, healthy) => ({
      ...healthy,
      challenge: `Basic realm="x", ${goodChallenge(base)}`,
    }));
    expect(only(second, 'auth.challenge')).toMatchObject({
      severity: 'warn',
      detail: expect.stringMatching(/reads only the first/),
    });
    const basic = await doctor((_base, healthy) => ({ ...healthy, challenge: 'Basic realm="x"' }));
    expect(only(basic, 'auth.challenge')).toMatchObject({
      severity: 'fail',
      summary: expect.stringMatching(/cannot answer/),
    });
    // Without a challenge's URL the SDK clients still find the metadata at the well-known URL.
    expect(only(basic, 'auth.prm').severity).toBe('ok');
  });

  it('warns when the metadata is not readable from a browser', async () => {
    const findings = await doctor((_base, healthy) => ({ ...healthy, cors: false }));
    expect(severities(findings)).toMatchObject({ 'auth.prm-cors': 'warn', 'auth.as-cors': 'warn' });
    expect(only(findings, 'auth.prm-cors').docs).toBe('security.md#browsers-origins-and-cors');
  });

  it('fails when no discovery URL serves the authorization server metadata, listing each URL tried', async () => {
    const findings = await doctor((_base, healthy) => ({
      ...healthy,
      documents: { ...healthy.documents, '/.well-known/oauth-authorization-server': undefined },
    }));
    const discovery = only(findings, 'auth.as-discovery');
    expect(discovery.severity).toBe('fail');
    expect(discovery.detail).toMatch(/oauth-authorization-server: answered 404; .*openid-configuration: answered 404/);
    expect(findings.some((finding) => finding.id === 'auth.as-pkce')).toBe(false);
  });

  it('finds an issuer with a path by the OpenID form, notes the RFC 8414 form missing, and fails OpenID fields missing', async () => {
    const findings = await doctor((base, healthy) => ({
      ...healthy,
      documents: {
        ...healthy.documents,
        '/.well-known/oauth-protected-resource/mcp': {
          ...goodResource(base),
          authorization_servers: [`${base}/tenant`],
        },
        '/tenant/.well-known/openid-configuration': { ...goodServer(`${base}/tenant`) },
      },
    }));
    expect(only(findings, 'auth.as-discovery').summary).toMatch(
      /tenant\/\.well-known\/openid-configuration \(OpenID Connect, try 3 of 3\)/,
    );
    expect(severities(findings)).toMatchObject({
      'auth.as-well-known': 'info',
      'auth.as-required': 'fail',
      'auth.as-issuer': 'ok',
    });
    expect(only(findings, 'auth.as-required').summary).toMatch(
      /jwks_uri, subject_types_supported, id_token_signing_alg_values_supported/,
    );
  });

  it('follows a redirect within the origin and says so; a redirect elsewhere is not followed', async () => {
    const within = await doctor((base, healthy) => ({
      ...healthy,
      redirects: { '/.well-known/oauth-protected-resource/mcp': `${base}/metadata.json` },
      documents: { ...healthy.documents, '/metadata.json': goodResource(base) },
    }));
    expect(severities(within)).toMatchObject({ 'auth.prm': 'ok', 'auth.prm-redirect': 'info' });
    const elsewhere = await doctor((_base, healthy) => ({
      ...healthy,
      redirects: { '/.well-known/oauth-protected-resource/mcp': 'https://metadata.example.com/x' },
    }));
    expect(only(elsewhere, 'auth.prm')).toMatchObject({
      severity: 'fail',
      summary: expect.stringMatching(/redirects to another origin/),
    });
  });
});

/** The endpoints of a good server at `base`. */
function urlsOf(base: string): Record<string, unknown> {
  const { issuer, authorization_endpoint, token_endpoint, registration_endpoint } = goodServer(base);
  return { issuer, authorization_endpoint, token_endpoint, registration_endpoint };
}
