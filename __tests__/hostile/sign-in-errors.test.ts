// The authorization endpoint as an open redirector (RFC 9700 §4.11.2): anyone may register a client (DCR) or name one
// (a metadata document) whose redirect URI is a phishing page. Its errors before the user acted are shown on the
// router's own page, escaped, with a link back; only clients the operator lists are redirected at once.

import * as fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { readPage } from '../helpers/browser-driver';
import { followSignIn } from '../helpers/sign-in-flow';
import { authorizeUrl, pkce, registerClient, startSignInServer, type SignInServer } from '../helpers/sign-in-server';

const PHISH = 'https://phish.example/landing';
const OPERATOR_REDIRECT = 'https://operator.example/cb';
const OPERATOR_CLIENT = 'operator-app';
/** What a phisher puts in `state`: markup, were it ever written into the page unescaped. */
const HOSTILE_STATE = '"><script>alert(1)</script>';
const TLS = path.join(__dirname, '..', 'fixtures', 'tls');

let server: SignInServer;
let clientSite: https.Server;
let dcrClient: string;
let documentClient: string;

/** The app's login: a `user=nobody` cookie is a browser the login step neither signs in nor answers. */
const signIn = (req: IncomingMessage) =>
  (req.headers.cookie ?? '').includes('user=nobody') ? undefined : { subject: 'alice' };

beforeAll(async () => {
  const cert = fs.readFileSync(path.join(TLS, 'cert.pem'), 'utf8');
  // The phisher's metadata document, on a site of its own (https, as CIMD requires).
  clientSite = https.createServer({ cert, key: fs.readFileSync(path.join(TLS, 'key.pem')) }, (_req, res) => {
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ client_id: documentClient, redirect_uris: [PHISH], token_endpoint_auth_method: 'none' }));
  });
  await new Promise<void>((resolve) => clientSite.listen(0, '127.0.0.1', resolve));
  documentClient = `https://127.0.0.1:${(clientSite.address() as AddressInfo).port}/client.json`;
  server = await startSignInServer({
    signIn,
    scopes: ['mcp'],
    clients: [{ clientId: OPERATOR_CLIENT, redirectUris: [OPERATOR_REDIRECT] }],
    clientMetadataDocuments: { allowPrivateAddresses: true, ca: cert },
  });
  dcrClient = (await registerClient(server.issuer, [PHISH], { client_name: 'Totally Legit' })).client_id;
});
afterAll(async () => {
  await server?.close();
  clientSite?.closeAllConnections();
  await new Promise((resolve) => clientSite?.close(resolve));
});

/** Every error the router finds before the user signed in or answered the consent page; the last column is the Cookie header. */
const BEFORE_THE_USER: Array<[string, Record<string, string | undefined>, string, string]> = [
  ['a token response type', { response_type: 'token' }, 'unsupported_response_type', ''],
  ['no response type', { response_type: undefined }, 'unsupported_response_type', ''],
  ['PKCE missing', { code_challenge: undefined }, 'invalid_request', ''],
  ['PKCE plain', { code_challenge_method: 'plain' }, 'invalid_request', ''],
  ['a challenge that is not a SHA-256', { code_challenge: 'short' }, 'invalid_request', ''],
  ['another resource', { resource: 'https://other.example/mcp' }, 'invalid_target', ''],
  ['a login step that neither signs in nor answers', {}, 'access_denied', 'user=nobody'],
];

const authorize = (clientId: string, params: Record<string, string | undefined>, cookie: string) =>
  fetch(
    authorizeUrl(server.issuer, {
      client_id: clientId,
      code_challenge: pkce().challenge,
      state: HOSTILE_STATE,
      ...params,
    }),
    {
      redirect: 'manual',
      headers: { cookie },
    },
  );

describe.each([
  ['a DCR client', () => dcrClient],
  ['a metadata-document client', () => documentClient],
])('%s (the server does not vouch for it)', (_kind, clientId) => {
  it.each(BEFORE_THE_USER)(
    '%s: the router’s error page, with a link back, never a redirect',
    async (_name, params, error, cookie) => {
      const response = await authorize(clientId(), params, cookie);
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toMatch(/script-src/);
      const html = await response.text();
      expect(html).not.toMatch(/<script/i);
      expect(html).not.toContain(HOSTILE_STATE);
      // The one link is the RFC 6749 §4.1.2.1 error redirect, for the user to follow or not.
      const { links, forms } = readPage(new URL(response.url), 400, html);
      expect(forms).toEqual([]);
      expect(links).toHaveLength(1);
      const back = links[0] as URL;
      expect(back.origin + back.pathname).toBe(PHISH);
      expect(Object.fromEntries(back.searchParams)).toMatchObject({ error, state: HOSTILE_STATE, iss: server.issuer });
      expect(back.searchParams.get('code')).toBeNull();
    },
  );

  it('after the user denied on the consent page: redirected with access_denied (the user chose to go back)', async () => {
    const end = await followSignIn(
      authorizeUrl(server.issuer, { client_id: clientId(), code_challenge: pkce().challenge, state: HOSTILE_STATE }),
      { stopAt: PHISH, decision: 'deny' },
    );
    expect(end.consentPages).toBe(1);
    expect(end.location.searchParams.get('error')).toBe('access_denied');
    expect(end.location.searchParams.get('state')).toBe(HOSTILE_STATE);
  });
});

describe('a pre-registered client (the operator vouches for it)', () => {
  it.each(BEFORE_THE_USER)(
    '%s: redirected back at once (RFC 6749 §4.1.2.1) with error and state',
    async (_name, params, error, cookie) => {
      const response = await authorize(OPERATOR_CLIENT, params, cookie);
      expect(response.status).toBe(302);
      expect(response.headers.get('cache-control')).toBe('no-store');
      const location = new URL(response.headers.get('location') as string);
      expect(location.origin + location.pathname).toBe(OPERATOR_REDIRECT);
      expect(Object.fromEntries(location.searchParams)).toMatchObject({
        error,
        state: HOSTILE_STATE,
        iss: server.issuer,
      });
      expect(location.searchParams.get('code')).toBeNull();
    },
  );
});
