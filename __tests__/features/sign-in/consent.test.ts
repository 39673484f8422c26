// The consent step's options: a first-party pre-registered client skips it; consent.render draws the app's own page,
// whose form, posted as the router's would be, gives the code; rememberMs 0 asks every time.

import { followSignIn } from '../../helpers/sign-in-flow';
import { authorizeUrl, pkce, registerClient, startSignInServer, tokenRequest } from '../../helpers/sign-in-server';

const REDIRECT = 'http://127.0.0.1:1/callback';

it('a firstParty pre-registered client gets its code without a consent page; another pre-registered one is asked', async () => {
  const server = await startSignInServer({
    clients: [
      { clientId: 'desktop-app', redirectUris: [REDIRECT], firstParty: true },
      { clientId: 'partner-app', redirectUris: [REDIRECT] },
    ],
  });
  try {
    const { verifier, challenge } = pkce();
    const first = await followSignIn(
      authorizeUrl(server.issuer, { client_id: 'desktop-app', redirect_uri: REDIRECT, code_challenge: challenge }),
      { stopAt: REDIRECT },
    );
    expect(first.consentPages).toBe(0);
    const tokens = await tokenRequest(server.issuer, {
      grant_type: 'authorization_code',
      code: first.location.searchParams.get('code') as string,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: 'desktop-app',
    });
    expect(tokens.status).toBe(200);
    const partner = await followSignIn(
      authorizeUrl(server.issuer, { client_id: 'partner-app', redirect_uri: REDIRECT, code_challenge: challenge }),
      { stopAt: REDIRECT },
    );
    expect(partner.consentPages).toBe(1);
  } finally {
    await server.close();
  }
});

it("consent.render draws the app's page with the security headers set; its form gives the code", async () => {
  const seen: string[] = [];
  const server = await startSignInServer({
    consent: {
      render: (details, _req, res) => {
        seen.push(`${details.clientName} → ${details.redirectHost} as ${details.subject}`);
        const hidden = Object.entries(details.fields)
          .map(([name, value]) => `<input type="hidden" name="${name}" value="${value}">`)
          .join('');
        res.setHeader('content-type', 'text/html');
        res.end(
          `<h1>Our own page</h1><form method="post" action="${details.action}">${hidden}<button name="decision" value="allow">OK</button></form>`,
        );
      },
    },
  });
  try {
    const { client_id } = await registerClient(server.issuer, [REDIRECT], { client_name: 'Acme' });
    const url = authorizeUrl(server.issuer, { client_id, redirect_uri: REDIRECT, code_challenge: pkce().challenge });
    const page = await fetch(url, { redirect: 'manual' });
    expect(await page.text()).toContain('Our own page');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('cache-control')).toBe('no-store');
    const end = await followSignIn(url, { stopAt: REDIRECT });
    expect(end.location.searchParams.get('code')).toEqual(expect.any(String));
    expect(seen).toEqual(['Acme → 127.0.0.1:1 as alice', 'Acme → 127.0.0.1:1 as alice']);
  } finally {
    await server.close();
  }
});

it('rememberMs 0 asks every time', async () => {
  const server = await startSignInServer({ consent: { rememberMs: 0 } });
  try {
    const { client_id } = await registerClient(server.issuer, [REDIRECT]);
    for (let round = 0; round < 2; round++) {
      const end = await followSignIn(
        authorizeUrl(server.issuer, { client_id, redirect_uri: REDIRECT, code_challenge: pkce().challenge }),
        { stopAt: REDIRECT },
      );
      expect(end.consentPages).toBe(1);
    }
  } finally {
    await server.close();
  }
});
